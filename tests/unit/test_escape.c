/* tests/unit/test_escape.c: UTF-8 repair, JSON and CSV escaping (model/escape.h). */
#include "../../model/escape.h"
#include "../check.h"

#include <string.h>

static void utf8(void)
{
	char a[] = "ab\xc3\xa9" "c";            /* whole: kept */
	ccs_escape_utf8_fix(a);
	CHECK(!strcmp(a, "ab\xc3\xa9" "c"));
	char b[] = "ab\xc3";                     /* cut at the end */
	ccs_escape_utf8_fix(b);
	CHECK(!strcmp(b, "ab"));
	char c[] = "a\xe2\x82" "b";              /* cut in the middle */
	ccs_escape_utf8_fix(c);
	CHECK(!strcmp(c, "ab"));
	char d[] = "a\xff" "b";                  /* cannot lead */
	ccs_escape_utf8_fix(d);
	CHECK(!strcmp(d, "a?b"));
}

static void json(void)
{
	char b[64];
	CHECK(!strcmp(ccs_escape_json("a\"b\\c\n", b, sizeof b), "a\\\"b\\\\c\\u000a"));
	CHECK(!strcmp(ccs_escape_json("\xc3\xa9", b, sizeof b), "\xc3\xa9"));
	CHECK(!strcmp(ccs_escape_json("x\xff", b, sizeof b), "x\\ufffd"));
	/* too long: cut before an escape or a character, ending in "..." */
	char s[8];
	CHECK(!strcmp(ccs_escape_json("abcdefgh", s, sizeof s), "abcd..."));
	CHECK(!strcmp(ccs_escape_json("a\"\"\"", s, sizeof s), "a\\\"..."));
	CHECK(!strcmp(ccs_escape_json("\xc3\xa9\xc3\xa9\xc3\xa9", s, sizeof s), "\xc3\xa9\xc3\xa9..."));
}

static void csv(void)
{
	char b[64];
	CHECK(!strcmp(ccs_escape_csv("plain", b, sizeof b), "plain"));
	CHECK(!strcmp(ccs_escape_csv("a,b", b, sizeof b), "\"a,b\""));
	CHECK(!strcmp(ccs_escape_csv("say \"hi\"", b, sizeof b), "\"say \"\"hi\"\"\""));
	CHECK(!strcmp(ccs_escape_csv("two\nlines", b, sizeof b), "\"two\nlines\""));
	char s[10];
	const char *r = ccs_escape_csv("a,bcdefghijk", s, sizeof s);
	CHECK(r[0] == '"' && r[strlen(r) - 1] == '"' && strstr(r, "...") && strlen(r) < sizeof s);
}

int main(void)
{
	utf8();
	json();
	csv();
	return CHECK_DONE("escape");
}
