/* model/topo_yaml.c: YAML -> positioned tree -> --set -> spec -> graph. */
#include "topo_yaml.h"
#include "fault.h"
#include "ytree.h"
#include "topo_gen.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH   64
#define MAX_FILE    (64u << 20)
#define MAX_NODES   1000000L
#define MAX_RANGE   1000000L

/* ---- positioned tree ---- */


struct ld {
	struct ccs_diag *diag;
	struct ccs_arena *a;        /* tree and spec strings */
	struct ccs_topo_spec *spec;
	const char **srcs;          /* source names: files, then --set arguments */
	int nsrcs, srcs_cap;
	int cur;                    /* source being parsed */
};

/* Append a source name; diag sees the new list at once. */
static int add_src(struct ld *L, const char *name, int *idx)
{
	if (L->nsrcs == L->srcs_cap) {
		int nc = L->srcs_cap ? L->srcs_cap * 2 : 8;
		const char **nv = ccs_arena_alloc(L->a, (size_t)nc * sizeof *nv);
		if (!nv)
			return CCS_ENOMEM;
		if (L->nsrcs)
			memcpy(nv, L->srcs, (size_t)L->nsrcs * sizeof *nv);
		L->srcs = nv;
		L->srcs_cap = nc;
	}
	if (!(L->srcs[L->nsrcs] = ccs_arena_strdup(L->a, name)))
		return CCS_ENOMEM;
	*idx = L->nsrcs++;
	L->diag->srcs = L->srcs;
	L->diag->nsrcs = L->nsrcs;
	return CCS_OK;
}

static struct ccs_ynode *ynew(struct ccs_arena *a, int kind, struct ccs_mark m)
{
	struct ccs_ynode *y = ccs_arena_alloc(a, sizeof *y);
	if (y) {
		y->kind = kind;
		y->mark = m;
	}
	return y;
}

static int ypush(struct ccs_arena *a, struct ccs_ynode *y, struct ccs_ynode *k, struct ccs_ynode *v)
{
	if (y->n == y->cap) {
		uint32_t nc = y->cap ? y->cap * 2 : 8;
		struct ccs_ynode **nk = ccs_arena_alloc(a, nc * sizeof *nk);
		struct ccs_ynode **nv = ccs_arena_alloc(a, nc * sizeof *nv);
		if (!nk || !nv)
			return CCS_ENOMEM;
		if (y->n) {
			memcpy(nk, y->k, y->n * sizeof *nk);
			memcpy(nv, y->v, y->n * sizeof *nv);
		}
		y->k = nk;
		y->v = nv;
		y->cap = nc;
	}
	y->k[y->n] = k;
	y->v[y->n] = v;
	y->n++;
	return CCS_OK;
}

static struct ccs_mark ymark(int src, yaml_mark_t m)
{
	struct ccs_mark r = { src, (int32_t)m.line + 1, (int32_t)m.column + 1 };
	return r;
}

static int convert(struct ld *L, yaml_document_t *doc, yaml_node_t *n, int depth, struct ccs_ynode **out)
{
	struct ccs_mark m = ymark(L->cur, n->start_mark);
	if (depth > MAX_DEPTH)
		return ccs_diag_at(L->diag, m, "nesting deeper than %d levels (a recursive alias?)", MAX_DEPTH);
	struct ccs_ynode *y;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		y = ynew(L->a, CCS_Y_SCALAR, m);
		if (!y || !(y->str = ccs_arena_strndup(L->a, (const char *)n->data.scalar.value,
		                                      n->data.scalar.length)))
			return CCS_ENOMEM;
		if (strlen(y->str) != n->data.scalar.length)
			return ccs_diag_at(L->diag, m, "value contains a NUL character");
		break;
	case YAML_SEQUENCE_NODE:
		y = ynew(L->a, CCS_Y_SEQ, m);
		if (!y)
			return CCS_ENOMEM;
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			struct ccs_ynode *c;
			CCS_TRY(convert(L, doc, yaml_document_get_node(doc, *it), depth + 1, &c));
			CCS_TRY(ypush(L->a, y, NULL, c));
		}
		break;
	case YAML_MAPPING_NODE:
		y = ynew(L->a, CCS_Y_MAP, m);
		if (!y)
			return CCS_ENOMEM;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = yaml_document_get_node(doc, p->key);
			if (kn->type != YAML_SCALAR_NODE)
				return ccs_diag_at(L->diag, ymark(L->cur, kn->start_mark), "a mapping key must be a plain name");
			struct ccs_ynode *k, *v;
			CCS_TRY(convert(L, doc, kn, depth + 1, &k));
			for (uint32_t i = 0; i < y->n; i++)
				if (!strcmp(y->k[i]->str, k->str))
					return ccs_diag_at(L->diag, k->mark, "duplicate key '%s' (first at line %d)",
					                   k->str, y->k[i]->mark.line);
			CCS_TRY(convert(L, doc, yaml_document_get_node(doc, p->value), depth + 1, &v));
			CCS_TRY(ypush(L->a, y, k, v));
		}
		break;
	default:
		return ccs_diag_at(L->diag, m, "empty yaml node");
	}
	*out = y;
	return CCS_OK;
}

static int parse_yaml(struct ld *L, const char *buf, size_t len, struct ccs_ynode **root)
{
	yaml_parser_t p;
	yaml_document_t doc;
	int rc = CCS_OK;
	if (!yaml_parser_initialize(&p))
		return CCS_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &doc)) {
		struct ccs_mark m = ymark(L->cur, p.problem_mark);
		if (p.error == YAML_MEMORY_ERROR)
			rc = CCS_ENOMEM;
		else if (p.context)
			rc = ccs_diag_at(L->diag, m, "invalid yaml: %s %s", p.problem ? p.problem : "error", p.context);
		else
			rc = ccs_diag_at(L->diag, m, "invalid yaml: %s", p.problem ? p.problem : "error");
		yaml_parser_delete(&p);
		return rc;
	}
	yaml_node_t *top = yaml_document_get_root_node(&doc);
	if (!top) {
		struct ccs_mark m = { L->cur, 1, 1 };
		rc = ccs_diag_at(L->diag, m, "empty topology file");
	} else if (top->type != YAML_MAPPING_NODE) {
		rc = ccs_diag_at(L->diag, ymark(L->cur, top->start_mark), "a topology file must be a mapping of keys");
	} else {
		rc = convert(L, &doc, top, 0, root);
	}
	yaml_document_delete(&doc);
	if (rc == CCS_OK) {
		/* A second document is an error: topologies are one document. */
		yaml_document_t more;
		if (!yaml_parser_load(&p, &more)) {
			rc = ccs_diag_at(L->diag, ymark(L->cur, p.problem_mark), "invalid yaml: %s",
			                 p.problem ? p.problem : "error");
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&more);
			if (r2)
				rc = ccs_diag_at(L->diag, ymark(L->cur, r2->start_mark),
				                 "a second yaml document; a topology file holds one");
			yaml_document_delete(&more);
		}
	}
	yaml_parser_delete(&p);
	return rc;
}

/* ---- --set overrides ---- */

static int apply_set(struct ld *L, struct ccs_ynode *root, const char *arg, int src)
{
	struct ccs_mark m0 = { src, 1, 1 };
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return ccs_diag_at(L->diag, m0, "expected key.path=value");
	struct ccs_mark mv = { src, 1, (int32_t)(eq - arg) + 2 };
	char *path = ccs_arena_strndup(L->a, arg, (size_t)(eq - arg));
	const char *val = ccs_arena_strdup(L->a, eq + 1);
	if (!path || !val)
		return CCS_ENOMEM;
	struct ccs_ynode *cur = root;
	char *seg = path;
	int col = 1;
	for (;;) {
		char *dot = strchr(seg, '.');
		int last = dot == NULL;
		if (dot)
			*dot = 0;
		struct ccs_mark ms = { src, 1, col };
		if (!*seg)
			return ccs_diag_at(L->diag, ms, "empty part in key path");
		struct ccs_ynode **slot = NULL;
		if (cur->kind == CCS_Y_MAP) {
			for (uint32_t i = 0; i < cur->n; i++)
				if (!strcmp(cur->k[i]->str, seg))
					slot = &cur->v[i];
			if (!slot) {
				struct ccs_ynode *k = ynew(L->a, CCS_Y_SCALAR, ms);
				struct ccs_ynode *v = ynew(L->a, last ? CCS_Y_SCALAR : CCS_Y_MAP, last ? mv : ms);
				if (!k || !v || !(k->str = ccs_arena_strdup(L->a, seg)))
					return CCS_ENOMEM;
				CCS_TRY(ypush(L->a, cur, k, v));
				slot = &cur->v[cur->n - 1];
			}
		} else if (cur->kind == CCS_Y_SEQ) {
			char *end;
			long i = strtol(seg, &end, 10);
			if (*end || end == seg || i < 0 || i >= (long)cur->n)
				return ccs_diag_at(L->diag, ms, "'%s' is not an index of this list (0 to %u)",
				                   seg, cur->n ? cur->n - 1 : 0);
			slot = &cur->v[i];
		} else {
			return ccs_diag_at(L->diag, ms, "'%s' is inside a value, not a section", seg);
		}
		if (last) {
			struct ccs_ynode *v = ynew(L->a, CCS_Y_SCALAR, mv);
			if (!v)
				return CCS_ENOMEM;
			v->str = val;
			*slot = v;
			return CCS_OK;
		}
		cur = *slot;
		col += (int)strlen(seg) + 1;
		seg = dot + 1;
	}
}

/* ---- schema helpers ---- */

static struct ccs_ynode *get(const struct ccs_ynode *m, const char *key)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!strcmp(m->k[i]->str, key))
			return m->v[i];
	return NULL;
}

static int check_keys(struct ld *L, const struct ccs_ynode *m, const char *const *keys, int nkeys,
                      const char *where)
{
	for (uint32_t i = 0; i < m->n; i++) {
		int ok = 0;
		for (int j = 0; j < nkeys && !ok; j++)
			ok = !strcmp(m->k[i]->str, keys[j]);
		if (ok)
			continue;
		const char *s = ccs_suggest(m->k[i]->str, keys, nkeys);
		if (s)
			return ccs_diag_at(L->diag, m->k[i]->mark, "unknown key '%s' in %s (did you mean '%s'?)",
			                   m->k[i]->str, where, s);
		return ccs_diag_at(L->diag, m->k[i]->mark, "unknown key '%s' in %s", m->k[i]->str, where);
	}
	return CCS_OK;
}

static int need(struct ld *L, const struct ccs_ynode *m, const char *key, const char *where)
{
	if (get(m, key))
		return CCS_OK;
	return ccs_diag_at(L->diag, m->mark, "missing '%s' in %s", key, where);
}

static int want_kind(struct ld *L, const struct ccs_ynode *y, int kind, const char *what)
{
	static const char *const kn[] = { "a value", "a mapping", "a list" };
	if (y->kind == kind)
		return CCS_OK;
	return ccs_diag_at(L->diag, y->mark, "'%s' must be %s", what, kn[kind]);
}

static int get_str(struct ld *L, const struct ccs_ynode *m, const char *key, const char **out)
{
	struct ccs_ynode *y = get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, key));
	*out = y->str;
	return CCS_OK;
}

static int get_long(struct ld *L, const struct ccs_ynode *m, const char *key, long lo, long hi,
                    long *out, struct ccs_mark *mk)
{
	struct ccs_ynode *y = get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, key));
	const char *s = y->str;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	int digits = *s >= '0' && *s <= '9';
	if (*s == '-' && s[1] >= '0' && s[1] <= '9')
		digits = 1;
	if (!digits || *end || errno || v < lo || v > hi)
		return ccs_diag_at(L->diag, y->mark, "'%s' must be a whole number from %ld to %ld, got '%s'",
		                   key, lo, hi, s);
	*out = v;
	if (mk)
		*mk = y->mark;
	return CCS_OK;
}

static int get_qty(struct ld *L, const struct ccs_ynode *m, const char *key, enum ccs_qty q, double *out)
{
	struct ccs_ynode *y = get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, key));
	char err[256];
	if (ccs_parse_qty(y->str, q, out, err, sizeof err))
		return ccs_diag_at(L->diag, y->mark, "%s: %s", key, err);
	return CCS_OK;
}

static int get_bool(struct ld *L, const struct ccs_ynode *m, const char *key, int *out, struct ccs_mark *mk)
{
	struct ccs_ynode *y = get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, key));
	static const char *const t[] = { "true", "yes", "on" }, *const f[] = { "false", "no", "off" };
	for (int i = 0; i < 3; i++) {
		if (!strcmp(y->str, t[i])) { *out = 1; goto ok; }
		if (!strcmp(y->str, f[i])) { *out = 0; goto ok; }
	}
	return ccs_diag_at(L->diag, y->mark, "'%s' must be true or false, got '%s'", key, y->str);
ok:
	if (mk)
		*mk = y->mark;
	return CCS_OK;
}

/* Look s up in names[0..n); aliases map through to[] when given. */
static int get_enum(struct ld *L, const struct ccs_ynode *m, const char *key, const char *const *names,
                    const int *to, int n, int *out)
{
	struct ccs_ynode *y = get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, key));
	for (int i = 0; i < n; i++)
		if (!strcmp(y->str, names[i])) {
			*out = to ? to[i] : i;
			return CCS_OK;
		}
	char list[512] = "";
	for (int i = 0; i < n; i++) {
		strncat(list, names[i], sizeof list - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, ", ", sizeof list - strlen(list) - 1);
	}
	const char *s = ccs_suggest(y->str, names, n);
	if (s)
		return ccs_diag_at(L->diag, y->mark, "unknown %s '%s' (did you mean '%s'?)", key, y->str, s);
	return ccs_diag_at(L->diag, y->mark, "unknown %s '%s'; one of: %s", key, y->str, list);
}

/* ---- name patterns: gpu[0-7], nvsw[0,3], n[0-1]/g[0-3] ---- */

struct names { uint32_t n, cap; char **v; };

static int names_push(struct ld *L, struct names *ns, const char *s, size_t len)
{
	if (ns->n == ns->cap) {
		uint32_t nc = ns->cap ? ns->cap * 2 : 16;
		char **nv = ccs_arena_alloc(L->a, nc * sizeof *nv);
		if (!nv)
			return CCS_ENOMEM;
		if (ns->n)
			memcpy(nv, ns->v, ns->n * sizeof *nv);
		ns->v = nv;
		ns->cap = nc;
	}
	if (!(ns->v[ns->n] = ccs_arena_strndup(L->a, s, len)))
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
static int expand(struct ld *L, const struct ccs_ynode *y, const char *p, char *pre, size_t plen,
                  size_t cap, struct names *out)
{
	while (*p && *p != '[') {
		if (!valid_name_char((unsigned char)*p) && *p != '/')
			return ccs_diag_at(L->diag, y->mark, "invalid character '%c' in name '%s'", *p, y->str);
		if (plen + 1 >= cap)
			return ccs_diag_at(L->diag, y->mark, "name '%s' is too long", y->str);
		pre[plen++] = *p++;
	}
	if (!*p) {
		if (out->n >= MAX_RANGE)
			return ccs_diag_at(L->diag, y->mark, "'%s' names more than %ld devices", y->str, MAX_RANGE);
		return names_push(L, out, pre, plen);
	}
	const char *close = strchr(p, ']');
	if (!close)
		return ccs_diag_at(L->diag, y->mark, "unterminated '[' in '%s'", y->str);
	const char *q = p + 1;
	if (q == close)
		return ccs_diag_at(L->diag, y->mark, "empty '[]' in '%s'", y->str);
	while (q < close) {
		char *end;
		if (*q < '0' || *q > '9')
			return ccs_diag_at(L->diag, y->mark, "expected a number in '[...]' of '%s'", y->str);
		long lo = strtol(q, &end, 10), hi = lo;
		q = end;
		if (*q == '-') {
			q++;
			if (*q < '0' || *q > '9')
				return ccs_diag_at(L->diag, y->mark, "expected a number after '-' in '%s'", y->str);
			hi = strtol(q, &end, 10);
			q = end;
		}
		if (q < close && *q != ',')
			return ccs_diag_at(L->diag, y->mark, "unexpected '%c' in '[...]' of '%s'", *q, y->str);
		if (*q == ',')
			q++;
		if (hi < lo)
			return ccs_diag_at(L->diag, y->mark, "empty range %ld-%ld in '%s'", lo, hi, y->str);
		if (hi - lo >= MAX_RANGE || hi >= MAX_RANGE * 1000)
			return ccs_diag_at(L->diag, y->mark, "range %ld-%ld in '%s' is too large", lo, hi, y->str);
		for (long i = lo; i <= hi; i++) {
			int w = snprintf(pre + plen, cap - plen, "%ld", i);
			if (w < 0 || (size_t)w >= cap - plen)
				return ccs_diag_at(L->diag, y->mark, "name '%s' is too long", y->str);
			CCS_TRY(expand(L, y, close + 1, pre, plen + (size_t)w, cap, out));
		}
	}
	return CCS_OK;
}

static int expand_names(struct ld *L, const struct ccs_ynode *y, struct names *out)
{
	char buf[256];
	memset(out, 0, sizeof *out);
	if (!*y->str)
		return ccs_diag_at(L->diag, y->mark, "empty name");
	return expand(L, y, y->str, buf, 0, sizeof buf, out);
}

/* ---- name lookup in a body ---- */

struct nmap { uint32_t cap; int64_t *slot; };   /* -1 empty, else body index */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int nmap_find(const struct nmap *m, const struct ccs_body *b, const char *s)
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

static int nmap_build(struct ld *L, struct nmap *m, const struct ccs_body *b)
{
	uint32_t cap = 16;
	while (cap < b->ndev * 2u + 2)
		cap *= 2;
	m->cap = cap;
	m->slot = ccs_arena_alloc(L->a, cap * sizeof *m->slot);
	if (!m->slot)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		m->slot[i] = -1;
	for (uint32_t d = 0; d < b->ndev; d++) {
		int prev = nmap_find(m, b, b->dev[d].name);
		if (prev >= 0)
			return ccs_diag_at(L->diag, b->dev[d].mark, "duplicate device name '%s' (first at line %d)",
			                   b->dev[d].name, b->dev[prev].mark.line);
		uint32_t i = (uint32_t)(hash_str(b->dev[d].name) & (cap - 1));
		while (m->slot[i] >= 0)
			i = (i + 1) & (cap - 1);
		m->slot[i] = d;
	}
	return CCS_OK;
}

/* ---- devices ---- */

static const char *const dev_type_names[] = {
	"gpu", "npu", "nvswitch", "scaleup_switch", "pcie_switch", "cpu", "nic", "switch",
};
static const int dev_type_kind[] = {
	CCS_DEV_GPU, CCS_DEV_GPU, CCS_DEV_SUSW, CCS_DEV_SUSW, CCS_DEV_PCISW, CCS_DEV_CPU,
	CCS_DEV_NIC, CCS_DEV_NETSW,
};
static const char *const tier_names[] = { "leaf", "spine", "core" };
static const int tier_vals[] = { CCS_TIER_LEAF, CCS_TIER_SPINE, CCS_TIER_CORE };

static int only_for(struct ld *L, const struct ccs_ynode *m, const char *key, int kind, int want,
                    const char *tname)
{
	struct ccs_ynode *y = get(m, key);
	if (y && kind != want) {
		uint32_t i = 0;
		while (m->v[i] != y)
			i++;
		return ccs_diag_at(L->diag, m->k[i]->mark, "'%s' applies to devices of type '%s' only", key, tname);
	}
	return CCS_OK;
}

/* GPU architecture from a model name (H100 -> hopper); hopper if unknown. */
static int arch_from_model(const char *model)
{
	static const struct { const char *pat; int arch; } tab[] = {
		{ "V100", CCS_ARCH_VOLTA }, { "A100", CCS_ARCH_AMPERE }, { "A800", CCS_ARCH_AMPERE },
		{ "A30", CCS_ARCH_AMPERE }, { "H100", CCS_ARCH_HOPPER }, { "H200", CCS_ARCH_HOPPER },
		{ "H800", CCS_ARCH_HOPPER }, { "H20", CCS_ARCH_HOPPER }, { "GH200", CCS_ARCH_HOPPER },
		{ "B100", CCS_ARCH_BLACKWELL }, { "B200", CCS_ARCH_BLACKWELL }, { "B300", CCS_ARCH_BLACKWELL },
		{ "GB200", CCS_ARCH_BLACKWELL }, { "GB300", CCS_ARCH_BLACKWELL },
	};
	if (model)
		for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
			if (strstr(model, tab[i].pat))
				return tab[i].arch;
	return CCS_ARCH_HOPPER;
}

static int load_device(struct ld *L, struct ccs_body *b, const struct ccs_ynode *m, int template_form)
{
	static const char *const keys[] = { "name", "type", "model", "bandwidth", "latency", "tier",
	                                    "multicast", "reduction", "sharp", "numa", "node", "arch",
	                                    "memory_bandwidth" };
	CCS_TRY(want_kind(L, m, CCS_Y_MAP, "device"));
	CCS_TRY(check_keys(L, m, keys, (int)(sizeof keys / sizeof keys[0]), "a device"));
	CCS_TRY(need(L, m, "name", "a device"));
	CCS_TRY(need(L, m, "type", "a device"));
	int kind = 0;
	CCS_TRY(get_enum(L, m, "type", dev_type_names, dev_type_kind, 8, &kind));
	CCS_TRY(only_for(L, m, "bandwidth", kind, CCS_DEV_NIC, "nic"));
	CCS_TRY(only_for(L, m, "tier", kind, CCS_DEV_NETSW, "switch"));
	CCS_TRY(only_for(L, m, "sharp", kind, CCS_DEV_NETSW, "switch"));
	CCS_TRY(only_for(L, m, "multicast", kind, CCS_DEV_SUSW, "nvswitch"));
	CCS_TRY(only_for(L, m, "reduction", kind, CCS_DEV_SUSW, "nvswitch"));
	CCS_TRY(only_for(L, m, "numa", kind, CCS_DEV_CPU, "cpu"));
	CCS_TRY(only_for(L, m, "arch", kind, CCS_DEV_GPU, "gpu"));
	CCS_TRY(only_for(L, m, "memory_bandwidth", kind, CCS_DEV_GPU, "gpu"));
	const char *model = NULL;
	CCS_TRY(get_str(L, m, "model", &model));

	struct ccs_tmpl_dev d;
	memset(&d, 0, sizeof d);
	d.kind = (uint8_t)kind;
	d.numa = -1;
	CCS_TRY(get_qty(L, m, "bandwidth", CCS_QTY_BW, &d.bw_Bps));
	CCS_TRY(get_qty(L, m, "memory_bandwidth", CCS_QTY_BW, &d.bw_Bps));
	CCS_TRY(get_qty(L, m, "latency", CCS_QTY_TIME, &d.lat_s));
	if (kind == CCS_DEV_GPU) {
		int arch = arch_from_model(model);
		CCS_TRY(get_enum(L, m, "arch", ccs_arch_name, NULL, CCS_ARCH_N, &arch));
		d.arch = (uint8_t)arch;
	}
	long numa = -1, node = 0;
	CCS_TRY(get_long(L, m, "numa", 0, 4095, &numa, NULL));
	d.numa = (int32_t)numa;
	struct ccs_ynode *ny = get(m, "node");
	if (ny && template_form) {
		uint32_t i = 0;
		while (m->v[i] != ny)
			i++;
		return ccs_diag_at(L->diag, m->k[i]->mark,
		                   "'node' is implied in the template form: each copy of 'node' is one node");
	}
	CCS_TRY(get_long(L, m, "node", 0, MAX_NODES - 1, &node, NULL));
	d.node = (int32_t)node;
	if (kind == CCS_DEV_NETSW) {
		int tier = 0;
		CCS_TRY(need(L, m, "tier", "a switch"));
		CCS_TRY(get_enum(L, m, "tier", tier_names, tier_vals, 3, &tier));
		d.tier = (uint8_t)tier;
		d.node = -1;
		int sharp = 0;
		CCS_TRY(get_bool(L, m, "sharp", &sharp, NULL));
		d.flags |= sharp ? CCS_DEVF_REDUCE : 0;
	}
	if (kind == CCS_DEV_SUSW) {
		int mc = 0, red = 0;
		CCS_TRY(get_bool(L, m, "multicast", &mc, NULL));
		CCS_TRY(get_bool(L, m, "reduction", &red, NULL));
		d.flags |= (mc ? CCS_DEVF_MULTICAST : 0) | (red ? CCS_DEVF_REDUCE : 0);
	}

	struct ccs_ynode *ny2 = get(m, "name");
	CCS_TRY(want_kind(L, ny2, CCS_Y_SCALAR, "name"));
	if (template_form && strchr(ny2->str, '/'))
		return ccs_diag_at(L->diag, ny2->mark, "device names in 'node' may not contain '/', got '%s'", ny2->str);
	struct names ns;
	CCS_TRY(expand_names(L, ny2, &ns));
	d.mark = ny2->mark;
	for (uint32_t i = 0; i < ns.n; i++) {
		if (b->ndev >= 10000000u)
			return ccs_diag_at(L->diag, ny2->mark, "more than 10000000 devices");
		CCS_TRY(ccs_grow(&b->dev, &b->dev_cap, (size_t)b->ndev + 1, sizeof *b->dev));
		d.name = ns.v[i];
		b->dev[b->ndev++] = d;
	}
	return CCS_OK;
}

/* ---- links ---- */

static const char *const link_type_names[] = {
	"nvlink", "c2c", "pcie", "smp", "upi", "xgmi", "ib", "infiniband", "roce", "ethernet", "ub", "hccs",
};
static const int link_type_vals[] = {
	CCS_LINK_NVLINK, CCS_LINK_C2C, CCS_LINK_PCIE, CCS_LINK_SMP, CCS_LINK_SMP, CCS_LINK_SMP,
	CCS_LINK_IB, CCS_LINK_IB, CCS_LINK_ROCE, CCS_LINK_ETHERNET, CCS_LINK_UB, CCS_LINK_HCCS,
};
#define NLINK_TYPE_NAMES 12

enum { PAT_FULL, PAT_ZIP, PAT_BLOCK, PAT_MESH };
static const char *const pattern_names[] = { "full", "zip", "block", "mesh" };

/* PCIe per-lane data rate by generation after line coding [B/s]:
 * gen1/2 8b/10b, gen3-5 128b/130b, gen6 FLIT mode 242/256 (PCI-SIG specs). */
static double pcie_lane_Bps(long gen)
{
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	double eff = gen <= 2 ? 0.8 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
	return gts[gen] * 1e9 * eff / 8.0;
}

static int resolve(struct ld *L, const struct nmap *nm, const struct ccs_body *b, const struct ccs_ynode *y,
                   const char *what, uint32_t **idx, uint32_t *n)
{
	struct names ns;
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, what));
	CCS_TRY(expand_names(L, y, &ns));
	*idx = ccs_arena_alloc(L->a, ((size_t)ns.n + 1) * sizeof **idx);
	if (!*idx)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < ns.n; i++) {
		int d = nmap_find(nm, b, ns.v[i]);
		if (d < 0) {
			const char *s = NULL;
			if (b->ndev <= 4096) {
				const char **cand = ccs_arena_alloc(L->a, ((size_t)b->ndev + 1) * sizeof *cand);
				if (!cand)
					return CCS_ENOMEM;
				for (uint32_t j = 0; j < b->ndev; j++)
					cand[j] = b->dev[j].name;
				s = ccs_suggest(ns.v[i], cand, (int)b->ndev);
			}
			if (s)
				return ccs_diag_at(L->diag, y->mark, "link %s unknown device '%s' (did you mean '%s'?)",
				                   what, ns.v[i], s);
			return ccs_diag_at(L->diag, y->mark, "link %s unknown device '%s'", what, ns.v[i]);
		}
		(*idx)[i] = (uint32_t)d;
	}
	*n = ns.n;
	return CCS_OK;
}

static int push_link(struct ld *L, struct ccs_body *b, const struct ccs_tmpl_link *tl, uint32_t a, uint32_t c)
{
	if (b->nlink >= 100000000u)
		return ccs_diag_at(L->diag, tl->mark, "more than 100000000 links");
	CCS_TRY(ccs_grow(&b->link, &b->link_cap, (size_t)b->nlink + 1, sizeof *b->link));
	b->link[b->nlink] = *tl;
	b->link[b->nlink].a = a;
	b->link[b->nlink].b = c;
	b->nlink++;
	return CCS_OK;
}

static int load_link(struct ld *L, struct ccs_body *b, const struct nmap *nm, const struct ccs_ynode *m)
{
	static const char *const keys[] = { "from", "to", "pattern", "type", "bandwidth", "lane_bandwidth",
	                                    "lanes", "gen", "latency" };
	CCS_TRY(want_kind(L, m, CCS_Y_MAP, "link"));
	CCS_TRY(check_keys(L, m, keys, (int)(sizeof keys / sizeof keys[0]), "a link"));
	CCS_TRY(need(L, m, "from", "a link"));
	CCS_TRY(need(L, m, "to", "a link"));
	CCS_TRY(need(L, m, "type", "a link"));
	struct ccs_tmpl_link tl;
	memset(&tl, 0, sizeof tl);
	tl.mark = m->mark;
	int type = 0;
	CCS_TRY(get_enum(L, m, "type", link_type_names, link_type_vals, NLINK_TYPE_NAMES, &type));
	tl.type = (uint8_t)type;
	long lanes = 1, gen = 0;
	CCS_TRY(get_long(L, m, "lanes", 1, 65535, &lanes, NULL));
	tl.lanes = (uint16_t)lanes;
	struct ccs_ynode *gy = get(m, "gen");
	if (gy && type != CCS_LINK_PCIE)
		return ccs_diag_at(L->diag, gy->mark, "'gen' applies to pcie links only");
	CCS_TRY(get_long(L, m, "gen", 1, 6, &gen, NULL));
	CCS_TRY(get_qty(L, m, "latency", CCS_QTY_TIME, &tl.lat_s));
	struct ccs_ynode *bw = get(m, "bandwidth"), *lbw = get(m, "lane_bandwidth");
	int nset = (bw != NULL) + (lbw != NULL) + (gy != NULL);
	if (nset == 0)
		return ccs_diag_at(L->diag, m->mark, "a link needs 'bandwidth' (per direction), 'lane_bandwidth' with 'lanes', or for pcie 'gen' with 'lanes'");
	if (nset > 1)
		return ccs_diag_at(L->diag, (bw && lbw) ? lbw->mark : gy->mark,
		                   "give only one of 'bandwidth', 'lane_bandwidth' and 'gen'");
	if (bw) {
		CCS_TRY(get_qty(L, m, "bandwidth", CCS_QTY_BW, &tl.bw_Bps));
	} else if (lbw) {
		double x = 0;
		CCS_TRY(get_qty(L, m, "lane_bandwidth", CCS_QTY_BW, &x));
		tl.bw_Bps = x * (double)lanes;
	} else {
		tl.bw_Bps = pcie_lane_Bps(gen) * (double)lanes;
	}

	uint32_t *fa, *ta, nf, nt;
	CCS_TRY(resolve(L, nm, b, get(m, "from"), "from", &fa, &nf));
	CCS_TRY(resolve(L, nm, b, get(m, "to"), "to", &ta, &nt));
	int pat = PAT_FULL;
	struct ccs_ynode *py = get(m, "pattern");
	if (py) {
		CCS_TRY(get_enum(L, m, "pattern", pattern_names, NULL, 4, &pat));
	} else if (nf > 1 && nt > 1) {
		return ccs_diag_at(L->diag, m->mark,
		                   "a link from %u devices to %u needs 'pattern': full, zip, block or mesh", nf, nt);
	}
	struct ccs_mark pm = py ? py->mark : m->mark;
	switch (pat) {
	case PAT_FULL:
		if ((uint64_t)nf * nt > 10000000u)
			return ccs_diag_at(L->diag, pm, "pattern 'full' of %u x %u devices makes too many links", nf, nt);
		for (uint32_t i = 0; i < nf; i++)
			for (uint32_t j = 0; j < nt; j++)
				CCS_TRY(push_link(L, b, &tl, fa[i], ta[j]));
		break;
	case PAT_ZIP:
		if (nf != nt)
			return ccs_diag_at(L->diag, pm, "pattern 'zip' needs as many 'from' as 'to' devices, got %u and %u", nf, nt);
		for (uint32_t i = 0; i < nf; i++)
			CCS_TRY(push_link(L, b, &tl, fa[i], ta[i]));
		break;
	case PAT_BLOCK:
		if (nf >= nt ? nf % nt : nt % nf)
			return ccs_diag_at(L->diag, pm, "pattern 'block' needs one count to divide the other, got %u and %u", nf, nt);
		if (nf >= nt)
			for (uint32_t i = 0; i < nf; i++)
				CCS_TRY(push_link(L, b, &tl, fa[i], ta[i / (nf / nt)]));
		else
			for (uint32_t j = 0; j < nt; j++)
				CCS_TRY(push_link(L, b, &tl, fa[j / (nt / nf)], ta[j]));
		break;
	case PAT_MESH:
		if (nf != nt || memcmp(fa, ta, nf * sizeof *fa))
			return ccs_diag_at(L->diag, pm, "pattern 'mesh' joins every pair of one set: 'from' and 'to' must name the same devices");
		if ((uint64_t)nf * nf > 20000000u)
			return ccs_diag_at(L->diag, pm, "pattern 'mesh' of %u devices makes too many links", nf);
		for (uint32_t i = 0; i < nf; i++)
			for (uint32_t j = i + 1; j < nf; j++)
				CCS_TRY(push_link(L, b, &tl, fa[i], fa[j]));
		break;
	}
	return CCS_OK;
}

static int load_body(struct ld *L, const struct ccs_ynode *devs, const struct ccs_ynode *links,
                     struct ccs_body *b, int template_form)
{
	CCS_TRY(want_kind(L, devs, CCS_Y_SEQ, "devices"));
	if (!devs->n)
		return ccs_diag_at(L->diag, devs->mark, "'devices' is empty");
	for (uint32_t i = 0; i < devs->n; i++)
		CCS_TRY(load_device(L, b, devs->v[i], template_form));
	struct nmap nm;
	CCS_TRY(nmap_build(L, &nm, b));
	if (!links)
		return CCS_OK;
	CCS_TRY(want_kind(L, links, CCS_Y_SEQ, "links"));
	for (uint32_t i = 0; i < links->n; i++)
		CCS_TRY(load_link(L, b, &nm, links->v[i]));
	return CCS_OK;
}

/* ---- scale-up and scale-out sections ---- */

static int load_scaleup(struct ld *L, const struct ccs_ynode *m, struct ccs_scaleup_spec *su)
{
	static const char *const keys[] = { "type", "nodes_per_domain", "switches", "lanes", "lane_bandwidth",
	                                    "bandwidth", "latency", "switch_latency", "multicast",
	                                    "reduction", "radix" };
	static const char *const tnames[] = { "nvlink", "ub", "hccs" };
	static const int tvals[] = { CCS_LINK_NVLINK, CCS_LINK_UB, CCS_LINK_HCCS };
	CCS_TRY(want_kind(L, m, CCS_Y_MAP, "scaleup"));
	CCS_TRY(check_keys(L, m, keys, (int)(sizeof keys / sizeof keys[0]), "'scaleup'"));
	CCS_TRY(need(L, m, "type", "'scaleup'"));
	CCS_TRY(need(L, m, "switches", "'scaleup'"));
	CCS_TRY(need(L, m, "lanes", "'scaleup'"));
	su->present = 1;
	su->mark = m->mark;
	su->nodes_per_domain = 1;
	su->multicast_mark = su->lanes_mark = su->switches_mark = su->radix_mark = m->mark;
	int type = 0;
	CCS_TRY(get_enum(L, m, "type", tnames, tvals, 3, &type));
	su->type = (uint8_t)type;
	CCS_TRY(get_long(L, m, "nodes_per_domain", 1, MAX_NODES, &su->nodes_per_domain, NULL));
	CCS_TRY(get_long(L, m, "switches", 0, 4096, &su->switches, &su->switches_mark));
	CCS_TRY(get_long(L, m, "lanes", 1, 4096, &su->lanes, &su->lanes_mark));
	CCS_TRY(get_long(L, m, "radix", 1, 1000000, &su->radix, &su->radix_mark));
	struct ccs_ynode *bw = get(m, "bandwidth"), *lbw = get(m, "lane_bandwidth");
	if (!bw && !lbw)
		return ccs_diag_at(L->diag, m->mark, "missing 'lane_bandwidth' (per lane, per direction) or 'bandwidth' (per gpu) in 'scaleup'");
	if (bw && lbw)
		return ccs_diag_at(L->diag, lbw->mark, "give only one of 'bandwidth' and 'lane_bandwidth'");
	if (bw) {
		double x = 0;
		CCS_TRY(get_qty(L, m, "bandwidth", CCS_QTY_BW, &x));
		su->lane_bw_Bps = x / (double)su->lanes;
	} else {
		CCS_TRY(get_qty(L, m, "lane_bandwidth", CCS_QTY_BW, &su->lane_bw_Bps));
	}
	CCS_TRY(get_qty(L, m, "latency", CCS_QTY_TIME, &su->lat_s));
	CCS_TRY(get_qty(L, m, "switch_latency", CCS_QTY_TIME, &su->switch_lat_s));
	CCS_TRY(get_bool(L, m, "multicast", &su->multicast, &su->multicast_mark));
	struct ccs_mark rm = m->mark;
	CCS_TRY(get_bool(L, m, "reduction", &su->reduction, &rm));
	if (su->reduction && !su->multicast)
		su->multicast_mark = rm;
	return CCS_OK;
}

/* "2", "2:1", "1.5" -> 2, 2, 1.5 */
static int parse_ratio(struct ld *L, const struct ccs_ynode *y, const char *what, double *out)
{
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, what));
	char *end;
	double a = strtod(y->str, &end), b = 1;
	if (end != y->str && *end == ':') {
		const char *q = end + 1;
		b = strtod(q, &end);
		if (end == q)
			b = -1;
	}
	if (end == y->str || *end || !(a > 0) || !(b > 0) || a > 1e6 || b > 1e6 || a / b < 0.01)
		return ccs_diag_at(L->diag, y->mark, "%s must be a ratio such as 2, 2:1 or 1.5, got '%s'", what, y->str);
	*out = a / b;
	return CCS_OK;
}

static int load_scaleout(struct ld *L, const struct ccs_ynode *m, struct ccs_scaleout_spec *so)
{
	static const char *const keys[] = { "topology", "tiers", "type", "radix", "planes",
	                                    "oversubscription", "port_bandwidth", "link_latency",
	                                    "switch_latency", "sharp", "spray" };
	static const char *const tnames[] = { "ib", "infiniband", "roce", "ethernet" };
	static const int tvals[] = { CCS_LINK_IB, CCS_LINK_IB, CCS_LINK_ROCE, CCS_LINK_ETHERNET };
	CCS_TRY(want_kind(L, m, CCS_Y_MAP, "scaleout"));
	CCS_TRY(check_keys(L, m, keys, (int)(sizeof keys / sizeof keys[0]), "'scaleout'"));
	CCS_TRY(need(L, m, "topology", "'scaleout'"));
	CCS_TRY(need(L, m, "tiers", "'scaleout'"));
	CCS_TRY(need(L, m, "type", "'scaleout'"));
	CCS_TRY(need(L, m, "radix", "'scaleout'"));
	so->present = 1;
	so->mark = so->tiers_mark = so->radix_mark = so->planes_mark = m->mark;
	so->planes = 1;
	so->spray = 1;
	for (int i = 0; i < CCS_TIER_N; i++)
		so->oversub[i] = 1.0;
	CCS_TRY(get_enum(L, m, "topology", ccs_fabric_kind_name, NULL, 3, &so->kind));
	int type = 0;
	CCS_TRY(get_enum(L, m, "type", tnames, tvals, 4, &type));
	so->type = (uint8_t)type;
	CCS_TRY(get_long(L, m, "tiers", 1, 3, &so->tiers, &so->tiers_mark));
	CCS_TRY(get_long(L, m, "radix", 2, 4096, &so->radix, &so->radix_mark));
	CCS_TRY(get_long(L, m, "planes", 1, 64, &so->planes, &so->planes_mark));
	CCS_TRY(get_qty(L, m, "port_bandwidth", CCS_QTY_BW, &so->port_bw_Bps));
	CCS_TRY(get_qty(L, m, "link_latency", CCS_QTY_TIME, &so->link_lat_s));
	CCS_TRY(get_qty(L, m, "switch_latency", CCS_QTY_TIME, &so->switch_lat_s));
	CCS_TRY(get_bool(L, m, "sharp", &so->sharp, NULL));
	CCS_TRY(get_long(L, m, "spray", 1, 64, &so->spray, NULL));
	struct ccs_ynode *ov = get(m, "oversubscription");
	if (ov) {
		if (so->tiers < 2)
			return ccs_diag_at(L->diag, ov->mark, "oversubscription needs 2 or more tiers: one tier has no uplinks");
		if (ov->kind == CCS_Y_MAP) {
			static const char *const okeys[] = { "leaf", "spine" };
			CCS_TRY(check_keys(L, ov, okeys, 2, "'oversubscription' (tiers with uplinks)"));
			struct ccs_ynode *sp = get(ov, "spine"), *lf = get(ov, "leaf");
			if (sp && so->tiers < 3)
				return ccs_diag_at(L->diag, sp->mark,
				                   "'spine' is the top tier of a 2-tier fabric and has no uplinks to oversubscribe");
			if (lf)
				CCS_TRY(parse_ratio(L, lf, "leaf oversubscription", &so->oversub[CCS_TIER_LEAF]));
			if (sp)
				CCS_TRY(parse_ratio(L, sp, "spine oversubscription", &so->oversub[CCS_TIER_SPINE]));
		} else {
			CCS_TRY(parse_ratio(L, ov, "oversubscription", &so->oversub[CCS_TIER_LEAF]));
		}
	}
	return CCS_OK;
}

/* ---- model parameters ---- */

static int load_model(struct ld *L, const struct ccs_ynode *m, struct ccs_model_params *p)
{
	static const char *const keys[] = { "efficiency", "step_overhead", "nvls_channels", "channels", "ep_overhead",
	                                    "oneshot_overhead", "twoshot_overhead", "twoshot_efficiency" };
	static const char *const pkeys[] = { "ll", "ll128", "simple" };
	CCS_TRY(want_kind(L, m, CCS_Y_MAP, "model"));
	CCS_TRY(check_keys(L, m, keys, 8, "'model'"));
	if (get(m, "ep_overhead"))
		CCS_TRY(get_qty(L, m, "ep_overhead", CCS_QTY_TIME, &p->ep_overhead_s));
	if (get(m, "oneshot_overhead"))
		CCS_TRY(get_qty(L, m, "oneshot_overhead", CCS_QTY_TIME, &p->shot_overhead_s[0]));
	if (get(m, "twoshot_overhead"))
		CCS_TRY(get_qty(L, m, "twoshot_overhead", CCS_QTY_TIME, &p->shot_overhead_s[1]));
	long v = 0;
	if (get(m, "nvls_channels")) {
		CCS_TRY(get_long(L, m, "nvls_channels", 1, 64, &v, NULL));
		p->nvls_channels = (int)v;
	}
	if (get(m, "channels")) {
		CCS_TRY(get_long(L, m, "channels", 1, 64, &v, NULL));
		p->channels = (int)v;
	}
	struct ccs_ynode *te = get(m, "twoshot_efficiency");
	if (te) {
		CCS_TRY(want_kind(L, te, CCS_Y_SCALAR, "twoshot_efficiency"));
		char *end;
		double x = strtod(te->str, &end);
		if (end == te->str || *end || !(x > 0) || x > 1)
			return ccs_diag_at(L->diag, te->mark, "'twoshot_efficiency' must be a fraction in (0, 1], got '%s'",
			                   te->str);
		p->twoshot_eff = x;
	}
	struct ccs_ynode *e = get(m, "efficiency");
	if (e) {
		CCS_TRY(want_kind(L, e, CCS_Y_MAP, "efficiency"));
		CCS_TRY(check_keys(L, e, ccs_link_type_name, CCS_LINK_NTYPES, "'model.efficiency' (link types)"));
		for (uint32_t i = 0; i < e->n; i++) {
			int ty = 0;
			while (strcmp(ccs_link_type_name[ty], e->k[i]->str))
				ty++;
			CCS_TRY(want_kind(L, e->v[i], CCS_Y_SCALAR, e->k[i]->str));
			char *end;
			double x = strtod(e->v[i]->str, &end);
			if (end == e->v[i]->str || *end || !(x > 0) || x > 1)
				return ccs_diag_at(L->diag, e->v[i]->mark,
				                   "efficiency of '%s' must be a fraction in (0, 1], got '%s'",
				                   e->k[i]->str, e->v[i]->str);
			p->eff[ty] = x;
		}
	}
	struct ccs_ynode *so = get(m, "step_overhead");
	if (so) {
		CCS_TRY(want_kind(L, so, CCS_Y_MAP, "step_overhead"));
		CCS_TRY(check_keys(L, so, pkeys, 3, "'model.step_overhead' (protocols)"));
		for (int i = 0; i < 3; i++)
			CCS_TRY(get_qty(L, so, pkeys[i], CCS_QTY_TIME, &p->step_s[i]));
	}
	return CCS_OK;
}

/* ---- calibration files (written by `ccsim calibrate fit`) ---- */

static int read_file(struct ld *L, const char *path, const struct ccs_mark *m, char **out, size_t *outlen);

/* A quantity that may be negative (a fitted intercept) or 'unbounded'. */
static int check_fit_qty(struct ld *L, const struct ccs_ynode *y, enum ccs_qty q, int unbounded_ok, const char *key)
{
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, key));
	if (unbounded_ok && !strcmp(y->str, "unbounded"))
		return CCS_OK;
	const char *s = y->str[0] == '-' && q == CCS_QTY_TIME ? y->str + 1 : y->str;
	char err[256];
	double v;
	if (ccs_parse_qty(s, q, &v, err, sizeof err))
		return ccs_diag_at(L->diag, y->mark, "%s: %s", key, err);
	return CCS_OK;
}

static int load_calibration(struct ld *L, const struct ccs_ynode *y, struct ccs_model_params *p)
{
	CCS_TRY(want_kind(L, y, CCS_Y_SCALAR, "calibration"));
	/* relative to the file that names it; from --set, to the working directory */
	const char *from = y->mark.src < L->nsrcs ? L->srcs[y->mark.src] : "";
	const char *slash = strncmp(from, "--set", 5) ? strrchr(from, '/') : NULL;
	const char *path = y->str[0] == '/' || !slash ? y->str
	                 : ccs_arena_printf(L->a, "%.*s/%s", (int)(slash - from), from, y->str);
	if (!path)
		return CCS_ENOMEM;
	char *buf;
	size_t len;
	CCS_TRY(read_file(L, path, &y->mark, &buf, &len));
	int src, keep = L->cur;
	int rc = add_src(L, path, &src);
	struct ccs_ynode *root = NULL;
	if (!rc) {
		L->cur = src;
		rc = parse_yaml(L, buf, len, &root);
		L->cur = keep;
	}
	ccs_free(buf);
	if (rc)
		return rc;
	static const char *const keys[] = { "calibration", "model", "fits" };
	CCS_TRY(check_keys(L, root, keys, 3, "a calibration file"));
	struct ccs_ynode *c = get(root, "calibration");
	if (!c)
		return ccs_diag_at(L->diag, root->mark,
		                   "not a calibration file: no 'calibration' block (write one with 'ccsim calibrate fit -o FILE')");
	static const char *const ckeys[] = { "host", "run", "db", "topology" };
	CCS_TRY(want_kind(L, c, CCS_Y_MAP, "calibration"));
	CCS_TRY(check_keys(L, c, ckeys, 4, "'calibration'"));
	struct ccs_ynode *fits = get(root, "fits");
	if (fits) {
		static const char *const fkeys[] = { "class", "name", "sizes", "alpha", "bandwidth", "alpha_ci",
		                                     "bandwidth_ci", "r2", "rms", "points" };
		CCS_TRY(want_kind(L, fits, CCS_Y_SEQ, "fits"));
		for (uint32_t i = 0; i < fits->n; i++) {
			const struct ccs_ynode *f = fits->v[i];
			CCS_TRY(want_kind(L, f, CCS_Y_MAP, "a fit"));
			CCS_TRY(check_keys(L, f, fkeys, 10, "a fit"));
			CCS_TRY(need(L, f, "alpha", "a fit"));
			CCS_TRY(need(L, f, "bandwidth", "a fit"));
			CCS_TRY(check_fit_qty(L, get(f, "alpha"), CCS_QTY_TIME, 0, "alpha"));
			CCS_TRY(check_fit_qty(L, get(f, "bandwidth"), CCS_QTY_BW, 1, "bandwidth"));
			const struct ccs_ynode *ci[2] = { get(f, "alpha_ci"), get(f, "bandwidth_ci") };
			for (int k = 0; k < 2; k++) {
				if (!ci[k])
					continue;
				CCS_TRY(want_kind(L, ci[k], CCS_Y_SEQ, k ? "bandwidth_ci" : "alpha_ci"));
				if (ci[k]->n != 2)
					return ccs_diag_at(L->diag, ci[k]->mark, "'%s' must be [low, high]", k ? "bandwidth_ci" : "alpha_ci");
				for (int j = 0; j < 2; j++)
					CCS_TRY(check_fit_qty(L, ci[k]->v[j], k ? CCS_QTY_BW : CCS_QTY_TIME, k, k ? "bandwidth_ci" : "alpha_ci"));
			}
		}
	}
	struct ccs_ynode *m = get(root, "model");
	if (m)
		CCS_TRY(load_model(L, m, p));
	return CCS_OK;
}

/* ---- the whole file ---- */

static int load_spec(struct ld *L, const struct ccs_ynode *root, const char *fallback_name)
{
	static const char *const keys[] = { "name", "description", "nodes", "node", "scaleup", "scaleout",
	                                    "devices", "links", "model", "calibration", "faults" };
	struct ccs_topo_spec *s = L->spec;
	CCS_TRY(check_keys(L, root, keys, (int)(sizeof keys / sizeof keys[0]), "the topology"));
	const char *name = fallback_name, *desc = NULL;
	CCS_TRY(get_str(L, root, "name", &name));
	CCS_TRY(get_str(L, root, "description", &desc));
	s->name = ccs_arena_strdup(&s->arena, name);
	if (!s->name)
		return CCS_ENOMEM;
	struct ccs_ynode *model = get(root, "model");
	if (model)
		CCS_TRY(load_model(L, model, &s->params));
	/* fitted numbers override the file's own */
	struct ccs_ynode *cal = get(root, "calibration");
	if (cal)
		CCS_TRY(load_calibration(L, cal, &s->params));
	struct ccs_ynode *node = get(root, "node"), *devs = get(root, "devices");
	if (node && devs)
		return ccs_diag_at(L->diag, devs->mark,
		                   "'devices' and 'node' cannot both be given: list a node's devices under 'node'");
	if (!node && !devs)
		return ccs_diag_at(L->diag, root->mark,
		                   "expected 'node' (template form) or 'devices' (explicit form)");
	if (devs) {
		static const char *const tkeys[] = { "nodes", "scaleup", "scaleout" };
		for (int i = 0; i < 3; i++)
			for (uint32_t j = 0; j < root->n; j++)
				if (!strcmp(root->k[j]->str, tkeys[i]))
					return ccs_diag_at(L->diag, root->k[j]->mark,
					                   "'%s' belongs to the template form (with 'node'); the explicit form lists every device under 'devices'",
					                   tkeys[i]);
		s->template_form = 0;
		return load_body(L, devs, get(root, "links"), &s->body, 0);
	}
	s->template_form = 1;
	struct ccs_ynode *tl = get(root, "links");
	if (tl) {
		uint32_t j = 0;
		while (root->v[j] != tl)
			j++;
		return ccs_diag_at(L->diag, root->k[j]->mark, "'links' of the template form go under 'node'");
	}
	s->nodes_mark = root->mark;
	CCS_TRY(get_long(L, root, "nodes", 1, MAX_NODES, &s->nodes, &s->nodes_mark));
	CCS_TRY(want_kind(L, node, CCS_Y_MAP, "node"));
	static const char *const nkeys[] = { "devices", "links" };
	CCS_TRY(check_keys(L, node, nkeys, 2, "'node'"));
	CCS_TRY(need(L, node, "devices", "'node'"));
	s->node_mark = node->mark;
	CCS_TRY(load_body(L, get(node, "devices"), get(node, "links"), &s->body, 1));
	struct ccs_ynode *su = get(root, "scaleup"), *so = get(root, "scaleout");
	if (su)
		CCS_TRY(load_scaleup(L, su, &s->scaleup));
	if (!so)
		return ccs_diag_at(L->diag, root->mark,
		                   "missing 'scaleout' in the topology: the template form says how nodes join (a one-node file too, so --set nodes=N works)");
	CCS_TRY(load_scaleout(L, so, &s->scaleout));
	return CCS_OK;
}

static const char *base_name(struct ccs_arena *a, const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return ccs_arena_strndup(a, b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

/* Read a whole file into a ccs_malloc'd buffer.  On failure the message
 * names the file, at mark m when the file was named inside another. */
static int read_file(struct ld *L, const char *path, const struct ccs_mark *m, char **out, size_t *outlen)
{
	FILE *f = fopen(path, "rb");
	*out = NULL;
	if (!f) {
		if (m)
			return ccs_diag_at(L->diag, *m, "cannot open '%s': %s", path, strerror(errno));
		return ccs_diag_msg(L->diag, "%s: cannot open: %s", path, strerror(errno));
	}
	size_t cap = 65536, len = 0;
	char *buf = ccs_malloc(cap);
	int rc = buf ? CCS_OK : CCS_ENOMEM;
	while (rc == CCS_OK) {
		if (len == cap) {
			if (cap >= MAX_FILE) {
				rc = ccs_diag_msg(L->diag, "%s: larger than %u MiB; not a topology file", path, MAX_FILE >> 20);
				break;
			}
			char *nb = ccs_realloc(buf, cap * 2);
			if (!nb) {
				rc = CCS_ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				rc = ccs_diag_msg(L->diag, "%s: cannot read: %s", path, strerror(errno));
			break;
		}
	}
	fclose(f);
	if (rc) {
		ccs_free(buf);
		return rc;
	}
	*out = buf;
	*outlen = len;
	return CCS_OK;
}

/* Overlay 'over' on 'base': mappings merge key by key, anything else is
 * replaced.  Both trees live in the arena; base is changed in place. */
static int merge(struct ld *L, struct ccs_ynode *base, const struct ccs_ynode *over)
{
	for (uint32_t i = 0; i < over->n; i++) {
		struct ccs_ynode **slot = NULL;
		for (uint32_t j = 0; j < base->n; j++)
			if (!strcmp(base->k[j]->str, over->k[i]->str))
				slot = &base->v[j];
		if (!slot)
			CCS_TRY(ypush(L->a, base, over->k[i], over->v[i]));
		else if ((*slot)->kind == CCS_Y_MAP && over->v[i]->kind == CCS_Y_MAP)
			CCS_TRY(merge(L, *slot, over->v[i]));
		else
			*slot = over->v[i];
	}
	return CCS_OK;
}

#define MAX_EXTENDS 8

/* Parse buf (named name) and the files it extends, merged into *root. */
static int load_tree(struct ld *L, const char *name, const char *buf, size_t len, int depth,
                     struct ccs_ynode **root)
{
	int src;
	CCS_TRY(add_src(L, name, &src));
	L->cur = src;
	CCS_TRY(parse_yaml(L, buf, len, root));
	struct ccs_ynode *ext = NULL;
	uint32_t at = 0;
	for (uint32_t i = 0; i < (*root)->n; i++)
		if (!strcmp((*root)->k[i]->str, "extends")) {
			ext = (*root)->v[i];
			at = i;
		}
	if (!ext)
		return CCS_OK;
	CCS_TRY(want_kind(L, ext, CCS_Y_SCALAR, "extends"));
	if (depth >= MAX_EXTENDS)
		return ccs_diag_at(L->diag, ext->mark, "'extends' goes more than %d files deep (a cycle?)", MAX_EXTENDS);
	/* Relative paths are relative to the file that names them. */
	const char *slash = strrchr(name, '/');
	const char *path = ext->str[0] == '/' || !slash
		? ext->str
		: ccs_arena_printf(L->a, "%.*s/%s", (int)(slash - name), name, ext->str);
	if (!path)
		return CCS_ENOMEM;
	char *bbuf;
	size_t blen;
	CCS_TRY(read_file(L, path, &ext->mark, &bbuf, &blen));
	struct ccs_ynode *base = NULL;
	int rc = load_tree(L, path, bbuf, blen, depth + 1, &base);
	ccs_free(bbuf);
	if (rc)
		return rc;
	/* Drop 'extends' from the overlay, then merge it on the base. */
	(*root)->n--;
	for (uint32_t i = at; i < (*root)->n; i++) {
		(*root)->k[i] = (*root)->k[i + 1];
		(*root)->v[i] = (*root)->v[i + 1];
	}
	CCS_TRY(merge(L, base, *root));
	*root = base;
	return CCS_OK;
}

int ccs_topo_load_buf(const char *name, const char *buf, size_t len, const char *const *sets, int nsets,
                      struct ccs_topo **out, struct ccs_diag *diag)
{
	struct ccs_topo_spec spec;
	struct ccs_arena tmp;
	struct ccs_topo *t = NULL;
	const char *const *old_srcs = diag->srcs;
	int old_n = diag->nsrcs;
	int rc;

	*out = NULL;
	ccs_spec_init(&spec);
	ccs_arena_init(&tmp);
	struct ld L;
	memset(&L, 0, sizeof L);
	L.diag = diag;
	L.a = &tmp;
	L.spec = &spec;

	struct ccs_ynode *root = NULL;
	rc = load_tree(&L, name, buf, len, 0, &root);
	if (rc)
		goto out;
	for (int i = 0; i < nsets; i++) {
		int src;
		if (!strncmp(sets[i], "faults+=", 8))
			continue;   /* applied after the build, below */
		const char *sn = ccs_arena_printf(&tmp, "--set '%s'", sets[i]);
		rc = sn ? add_src(&L, sn, &src) : CCS_ENOMEM;
		if (rc)
			goto out;
		rc = apply_set(&L, root, sets[i], src);
		if (rc)
			goto out;
	}
	const char *bn = base_name(&tmp, name);
	rc = bn ? load_spec(&L, root, bn) : CCS_ENOMEM;
	if (rc)
		goto out;
	rc = CCS_ENOMEM;
	if (!(t = ccs_topo_new()))
		goto out;
	t->path = ccs_arena_strdup(&t->arena, name);
	if (!t->path)
		goto out;
	rc = ccs_topo_generate(&spec, t, diag);
	/* faults: a list of model/fault.h strings, applied to what was built */
	struct ccs_ynode *fy = rc ? NULL : get(root, "faults");
	if (fy) {
		if ((rc = want_kind(&L, fy, CCS_Y_SEQ, "faults")))
			goto out;
		for (uint32_t i = 0; i < fy->n && !rc; i++) {
			if ((rc = want_kind(&L, fy->v[i], CCS_Y_SCALAR, "a fault")))
				break;
			char err[512];
			if ((rc = ccs_fault_apply(t, fy->v[i]->str, err, sizeof err)) == CCS_EINPUT)
				ccs_diag_at(diag, fy->v[i]->mark, "%s", err);
		}
	}
	for (int i = 0; i < nsets && !rc; i++) {
		if (strncmp(sets[i], "faults+=", 8))
			continue;
		char err[512];
		if ((rc = ccs_fault_apply(t, sets[i] + 8, err, sizeof err)) == CCS_EINPUT)
			ccs_diag_msg(diag, "--%s", err);
	}
out:
	if (rc == CCS_ENOMEM && !diag->set)
		ccs_diag_msg(diag, "%s: out of memory", name);
	if (rc) {
		ccs_topo_free(t);
		t = NULL;
	}
	diag->srcs = old_srcs;
	diag->nsrcs = old_n;
	ccs_spec_release(&spec);
	ccs_arena_release(&tmp);
	*out = t;
	return rc;
}

int ccs_topo_load(const char *path, const char *const *sets, int nsets, struct ccs_topo **out,
                  struct ccs_diag *diag)
{
	struct ccs_arena tmp;
	ccs_arena_init(&tmp);
	struct ld L;
	memset(&L, 0, sizeof L);
	L.diag = diag;
	L.a = &tmp;
	char *buf;
	size_t len;
	*out = NULL;
	int rc = read_file(&L, path, NULL, &buf, &len);
	ccs_arena_release(&tmp);
	if (rc) {
		if (rc == CCS_ENOMEM && !diag->set)
			ccs_diag_msg(diag, "%s: out of memory", path);
		return rc;
	}
	rc = ccs_topo_load_buf(path, buf, len, sets, nsets, out, diag);
	ccs_free(buf);
	return rc;
}

/* ---- positioned trees for other formats (ytree.h) ---- */

int ccs_ydoc_load(struct ccs_ydoc *d, const char *path, struct ccs_diag *diag, struct ccs_ynode **root)
{
	memset(d, 0, sizeof *d);
	ccs_arena_init(&d->arena);
	struct ld *L = ccs_arena_alloc(&d->arena, sizeof *L);
	if (!L)
		return CCS_ENOMEM;
	L->diag = diag;
	L->a = &d->arena;
	d->priv = L;
	char *buf;
	size_t len;
	CCS_TRY(read_file(L, path, NULL, &buf, &len));
	int src, rc = add_src(L, path, &src);
	if (!rc) {
		L->cur = src;
		rc = parse_yaml(L, buf, len, root);
	}
	ccs_free(buf);
	return rc;
}

void ccs_ydoc_release(struct ccs_ydoc *d)
{
	struct ld *L = d->priv;
	if (L && L->diag) {
		L->diag->srcs = NULL;
		L->diag->nsrcs = 0;
	}
	ccs_arena_release(&d->arena);
	memset(d, 0, sizeof *d);
}

const struct ccs_ynode *ccs_y_get(const struct ccs_ynode *m, const char *key) { return get(m, key); }

int ccs_y_keys(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *const *keys, int n, const char *where)
{
	return check_keys(d->priv, m, keys, n, where);
}

int ccs_y_need(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *where)
{
	return need(d->priv, m, key, where);
}

int ccs_y_kind(struct ccs_ydoc *d, const struct ccs_ynode *y, int kind, const char *what)
{
	return want_kind(d->priv, y, kind, what);
}

int ccs_y_long(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, long lo, long hi, long *out)
{
	return get_long(d->priv, m, key, lo, hi, out, NULL);
}

int ccs_y_qty(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, enum ccs_qty q, double *out)
{
	return get_qty(d->priv, m, key, q, out);
}

int ccs_y_str(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char **out)
{
	return get_str(d->priv, m, key, out);
}

int ccs_y_error(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *msg)
{
	struct ld *L = d->priv;
	return ccs_diag_at(L->diag, y->mark, "%s", msg);
}
