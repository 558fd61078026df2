/* model/escape.c: UTF-8 repair, JSON and CSV escaping (escape.h). */
#include "escape.h"

#include <stdio.h>
#include <string.h>

/* The length of the UTF-8 sequence led by c: 1-4, or 0 when c cannot lead. */
static int seq_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
}

/* Whether s[0..] holds a whole sequence of l bytes. */
static int whole(const char *s, int l)
{
	for (int i = 1; i < l; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return 0;
	return 1;
}

void ccs_escape_utf8_fix(char *s)
{
	char *w = s;
	while (*s) {
		int l = seq_len((unsigned char)*s);
		if (!l) {
			*w++ = '?';
			s++;
		} else if (!whole(s, l)) {
			/* a cut or broken sequence: its lead and what follows it */
			s++;
			while (((unsigned char)*s & 0xc0) == 0x80)
				s++;
		} else {
			memmove(w, s, (size_t)l);
			w += l;
			s += l;
		}
	}
	*w = 0;
}

/* Append the l bytes of p to buf (used o of n), keeping room for "..." and
 * the NUL; 0 when they do not fit (the text then ends in "..."). */
static int put(char *buf, size_t n, size_t *o, const char *p, size_t l)
{
	if (*o + l + 4 > n) {
		if (*o + 4 <= n)
			memcpy(buf + *o, "...", 4);
		return 0;
	}
	memcpy(buf + *o, p, l);
	*o += l;
	buf[*o] = 0;
	return 1;
}

const char *ccs_escape_json(const char *s, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	while (*s) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		int l = seq_len(c);
		size_t k;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			k = 2;
		} else if (c < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			k = 6;
		} else if (!l || !whole(s, l)) {
			memcpy(esc, "\\ufffd", 6);   /* not UTF-8: the replacement character */
			k = 6;
			l = 1;
		} else {
			if (!put(buf, n, &o, s, (size_t)l))
				return buf;
			s += l;
			continue;
		}
		if (!put(buf, n, &o, esc, k))
			return buf;
		s += l ? l : 1;
	}
	return buf;
}

const char *ccs_escape_csv(const char *s, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	if (!strpbrk(s, ",\"\r\n")) {
		size_t l = strlen(s);
		if (put(buf, n, &o, s, l))
			return buf;
		buf[0] = 0;
		o = 0;
	}
	/* quoted: a cut text still ends with its closing quote */
	if (!put(buf, n - 1, &o, "\"", 1))
		return buf;
	for (; *s; s++) {
		int l = seq_len((unsigned char)*s);
		size_t k = *s == '"' ? 2 : l > 1 && whole(s, l) ? (size_t)l : 1;
		const char *p = *s == '"' ? "\"\"" : s;
		if (!put(buf, n - 1, &o, p, k))
			break;
		s += k > 1 && *s != '"' ? k - 1 : 0;
	}
	size_t e = strlen(buf);
	buf[e] = '"';
	buf[e + 1] = 0;
	return buf;
}
