/* model/topo_names.c: device names of topology files: patterns expanded
** (gpu[0-7], nvsw[0,3], n[0-1]/g[0-3]) and looked up in a body
** (topo_names.h). */
#include "topo_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGE   1000000L

/* ---- name patterns: gpu[0-7], nvsw[0,3], n[0-1]/g[0-3] ---- */


static int names_push(struct ccs_ydoc *doc, struct ccs_topo_names *ns, const char *s, size_t len)
{
	if (ns->n == ns->cap) {
		uint32_t nc = ns->cap ? ns->cap * 2 : 16;
		char **nv = ccs_arena_alloc(doc->a, nc * sizeof *nv);
		if (!nv)
			return CCS_ENOMEM;
		if (ns->n)
			memcpy(nv, ns->v, ns->n * sizeof *nv);
		ns->v = nv;
		ns->cap = nc;
	}
	if (!(ns->v[ns->n] = ccs_arena_strndup(doc->a, s, len)))
		return CCS_ENOMEM;
	ns->n++;
	return CCS_OK;
}

static int valid_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Expand pattern p (prefix already expanded into pre) recursively. */
static int expand(struct ccs_ydoc *doc, const struct ccs_ynode *y, const char *p, char *pre, size_t plen,
                  size_t cap, struct ccs_topo_names *out)
{
	while (*p && *p != '[') {
		if (!valid_name_char((unsigned char)*p) && *p != '/')
			return ccs_diag_at(doc->diag, y->mark, "invalid character '%c' in name '%s'", *p, y->str);
		if (plen + 1 >= cap)
			return ccs_diag_at(doc->diag, y->mark, "name '%s' is too long", y->str);
		pre[plen++] = *p++;
	}
	if (!*p) {
		if (out->n >= MAX_RANGE)
			return ccs_diag_at(doc->diag, y->mark, "'%s' names more than %ld devices", y->str, MAX_RANGE);
		return names_push(doc, out, pre, plen);
	}
	const char *close = strchr(p, ']');
	if (!close)
		return ccs_diag_at(doc->diag, y->mark, "unterminated '[' in '%s'", y->str);
	const char *q = p + 1;
	if (q == close)
		return ccs_diag_at(doc->diag, y->mark, "empty '[]' in '%s'", y->str);
	while (q < close) {
		char *end;
		if (*q < '0' || *q > '9')
			return ccs_diag_at(doc->diag, y->mark, "expected a number in '[...]' of '%s'", y->str);
		long lo = strtol(q, &end, 10), hi = lo;
		q = end;
		if (*q == '-') {
			q++;
			if (*q < '0' || *q > '9')
				return ccs_diag_at(doc->diag, y->mark, "expected a number after '-' in '%s'", y->str);
			hi = strtol(q, &end, 10);
			q = end;
		}
		if (q < close && *q != ',')
			return ccs_diag_at(doc->diag, y->mark, "unexpected '%c' in '[...]' of '%s'", *q, y->str);
		if (*q == ',')
			q++;
		if (hi < lo)
			return ccs_diag_at(doc->diag, y->mark, "empty range %ld-%ld in '%s'", lo, hi, y->str);
		if (hi - lo >= MAX_RANGE || hi >= MAX_RANGE * 1000)
			return ccs_diag_at(doc->diag, y->mark, "range %ld-%ld in '%s' is too large", lo, hi, y->str);
		for (long i = lo; i <= hi; i++) {
			int w = snprintf(pre + plen, cap - plen, "%ld", i);
			if (w < 0 || (size_t)w >= cap - plen)
				return ccs_diag_at(doc->diag, y->mark, "name '%s' is too long", y->str);
			CCS_TRY(expand(doc, y, close + 1, pre, plen + (size_t)w, cap, out));
		}
	}
	return CCS_OK;
}

int ccs_topo_names_expand(struct ccs_ydoc *doc, const struct ccs_ynode *y, struct ccs_topo_names *out)
{
	char buf[256];
	memset(out, 0, sizeof *out);
	if (!*y->str)
		return ccs_diag_at(doc->diag, y->mark, "empty name");
	return expand(doc, y, y->str, buf, 0, sizeof buf, out);
}

uint64_t ccs_topo_names_count(const char *s)
{
	const uint64_t cap = 1ull << 40;
	uint64_t total = 1;
	for (const char *p = strchr(s, '['); p; p = strchr(p, '[')) {
		uint64_t group = 0;
		for (p++; *p && *p != ']';) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;
			if (end == p)
				return total;
			p = end;
			if (*p == '-') {
				hi = strtol(p + 1, &end, 10);
				if (end == p + 1)
					return total;
				p = end;
			}
			group += hi >= lo ? (uint64_t)(hi - lo) + 1 : 0;
			if (group > cap)
				group = cap;
			if (*p == ',')
				p++;
			else if (*p != ']')
				return total;
		}
		total = group && total > cap / group ? cap : total * group;
	}
	return total;
}

/* ---- name lookup in a body ---- */


static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

int ccs_topo_names_find(const struct ccs_topo_names_map *m, const struct ccs_body *b, const char *s)
{
	if (!m->cap)
		return -1;
	for (uint32_t i = (uint32_t)(hash_str(s) & (m->cap - 1));; i = (i + 1) & (m->cap - 1)) {
		if (m->slot[i] < 0)
			return -1;
		if (!strcmp(b->dev[m->slot[i]].name, s))
			return (int)m->slot[i];
	}
}

int ccs_topo_names_index(struct ccs_ydoc *doc, struct ccs_topo_names_map *m, const struct ccs_body *b)
{
	uint32_t cap = 16;
	while (cap < b->ndev * 2u + 2)
		cap *= 2;
	m->cap = cap;
	m->slot = ccs_arena_alloc(doc->a, cap * sizeof *m->slot);
	if (!m->slot)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		m->slot[i] = -1;
	for (uint32_t d = 0; d < b->ndev; d++) {
		int prev = ccs_topo_names_find(m, b, b->dev[d].name);
		if (prev >= 0)
			return ccs_diag_at(doc->diag, b->dev[d].mark, "duplicate device name '%s' (first at line %d)",
			                   b->dev[d].name, b->dev[prev].mark.line);
		uint32_t i = (uint32_t)(hash_str(b->dev[d].name) & (cap - 1));
		while (m->slot[i] >= 0)
			i = (i + 1) & (cap - 1);
		m->slot[i] = d;
	}
	return CCS_OK;
}
