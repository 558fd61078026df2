/* model/ytree.c: YAML text to a positioned tree (ytree.h): the one file that
** includes <yaml.h>, and the one file reader of YAML inputs. */
#include "ytree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH   64
#define MAX_FILE    (64u << 20)
#define MAX_ALIAS_NODES 100000   /* nodes that aliases may produce in one document */

/* ---- the tree ---- */

/* Append a source name; diag sees the new list at once. */
int ccs_ytree_add_src(struct ccs_ydoc *d, const char *name, int *idx)
{
	if (d->nsrcs == d->srcs_cap) {
		int nc = d->srcs_cap ? d->srcs_cap * 2 : 8;
		const char **nv = ccs_arena_alloc(d->a, (size_t)nc * sizeof *nv);
		if (!nv)
			return CCS_ENOMEM;
		if (d->nsrcs)
			memcpy(nv, d->srcs, (size_t)d->nsrcs * sizeof *nv);
		d->srcs = nv;
		d->srcs_cap = nc;
	}
	if (!(d->srcs[d->nsrcs] = ccs_arena_strdup(d->a, name)))
		return CCS_ENOMEM;
	*idx = d->nsrcs++;
	d->diag->srcs = d->srcs;
	d->diag->nsrcs = d->nsrcs;
	return CCS_OK;
}

struct ccs_ynode *ccs_ytree_node(struct ccs_arena *a, int kind, struct ccs_mark m)
{
	struct ccs_ynode *y = ccs_arena_alloc(a, sizeof *y);
	if (y) {
		y->kind = kind;
		y->mark = m;
	}
	return y;
}

int ccs_ytree_push(struct ccs_arena *a, struct ccs_ynode *y, struct ccs_ynode *k, struct ccs_ynode *v)
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

/* One conversion: the libyaml document, which of its nodes were converted
 * already (a second visit comes through an alias), and how many nodes the
 * aliases have produced so far (at most MAX_ALIAS_NODES). */
struct conv {
	struct ccs_ydoc *d;
	yaml_document_t *doc;
	unsigned char *seen;
	size_t alias_nodes;
};

/* A mapping's duplicate keys, in n log n (a pass over the keys before each
 * new one made 50,000 keys take seconds): the first key in document order
 * that repeats an earlier one is refused, naming the earlier one's line. */
struct dup_ent {
	const char *str;
	uint32_t i;                 /* its place in the mapping */
};

static int dup_cmp(const void *a, const void *b)
{
	const struct dup_ent *x = a, *y = b;
	int c = strcmp(x->str, y->str);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int dup_keys(struct ccs_ydoc *d, const struct ccs_ynode *y)
{
	if (y->n < 2)
		return CCS_OK;
	struct dup_ent *e = ccs_malloc((size_t)y->n * sizeof *e);
	if (!e)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < y->n; i++) {
		e[i].str = y->k[i]->str;
		e[i].i = i;
	}
	qsort(e, y->n, sizeof *e, dup_cmp);
	uint32_t bad = UINT32_MAX, first = 0;
	/* equal keys sort by place: the run's first is the earliest */
	for (uint32_t i = 1, run = 0; i < y->n; i++) {
		if (strcmp(e[i].str, e[i - 1].str)) {
			run = i;
			continue;
		}
		if (e[i].i < bad) {
			bad = e[i].i;
			first = e[run].i;
		}
	}
	ccs_free(e);
	if (bad == UINT32_MAX)
		return CCS_OK;
	return ccs_diag_at(d->diag, y->k[bad]->mark, "duplicate key '%s' (first at line %d)", y->k[bad]->str,
	                   y->k[first]->mark.line);
}

static int convert(struct conv *cv, yaml_node_t *n, int depth, int aliased, struct ccs_ynode **out)
{
	struct ccs_ydoc *d = cv->d;
	struct ccs_mark m = ymark(d->cur, n->start_mark);
	if (depth > MAX_DEPTH)
		return ccs_diag_at(d->diag, m, "nesting deeper than %d levels (a recursive alias?)", MAX_DEPTH);
	size_t id = (size_t)(n - cv->doc->nodes.start);
	aliased |= cv->seen[id];
	cv->seen[id] = 1;
	if (aliased && ++cv->alias_nodes > MAX_ALIAS_NODES)
		return ccs_diag_at(d->diag, m, "aliases expand to more than %d nodes (nested anchors?)", MAX_ALIAS_NODES);
	struct ccs_ynode *y;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		y = ccs_ytree_node(d->a, CCS_Y_SCALAR, m);
		if (!y || !(y->str = ccs_arena_strndup(d->a, (const char *)n->data.scalar.value,
		                                      n->data.scalar.length)))
			return CCS_ENOMEM;
		if (strlen(y->str) != n->data.scalar.length)
			return ccs_diag_at(d->diag, m, "value contains a NUL character");
		break;
	case YAML_SEQUENCE_NODE:
		y = ccs_ytree_node(d->a, CCS_Y_SEQ, m);
		if (!y)
			return CCS_ENOMEM;
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			struct ccs_ynode *c;
			CCS_TRY(convert(cv, yaml_document_get_node(cv->doc, *it), depth + 1, aliased, &c));
			CCS_TRY(ccs_ytree_push(d->a, y, NULL, c));
		}
		break;
	case YAML_MAPPING_NODE:
		y = ccs_ytree_node(d->a, CCS_Y_MAP, m);
		if (!y)
			return CCS_ENOMEM;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = yaml_document_get_node(cv->doc, p->key);
			if (kn->type != YAML_SCALAR_NODE)
				return ccs_diag_at(d->diag, ymark(d->cur, kn->start_mark), "a mapping key must be a plain name");
			struct ccs_ynode *k, *v;
			CCS_TRY(convert(cv, kn, depth + 1, aliased, &k));
			CCS_TRY(convert(cv, yaml_document_get_node(cv->doc, p->value), depth + 1, aliased, &v));
			CCS_TRY(ccs_ytree_push(d->a, y, k, v));
		}
		CCS_TRY(dup_keys(d, y));
		break;
	default:
		return ccs_diag_at(d->diag, m, "empty yaml node");
	}
	*out = y;
	return CCS_OK;
}

/* The document's tree from its root node. */
static int convert_doc(struct ccs_ydoc *d, yaml_document_t *doc, yaml_node_t *top, struct ccs_ynode **root)
{
	struct conv cv = { d, doc, ccs_calloc((size_t)(doc->nodes.top - doc->nodes.start) + 1, 1), 0 };
	if (!cv.seen)
		return CCS_ENOMEM;
	int rc = convert(&cv, top, 0, 0, root);
	ccs_free(cv.seen);
	return rc;
}

/* The stream's nesting, from libyaml's events, before any document is
 * built: deeper than MAX_DEPTH is refused at the collection that crosses
 * it.  libyaml's scanner checks every open flow level for stale keys on
 * each token, so 200 KB of '[' took minutes to load before the tree's
 * own depth check saw it; the events stop at level 65.  A syntax error is
 * left to the load, which names it. */
static int depth_guard(struct ccs_ydoc *d, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t e;
	if (!yaml_parser_initialize(&p))
		return CCS_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	int depth = 0, rc = CCS_OK;
	for (;;) {
		if (!yaml_parser_parse(&p, &e)) {
			rc = p.error == YAML_MEMORY_ERROR ? CCS_ENOMEM : CCS_OK;
			break;
		}
		yaml_event_type_t t = e.type;
		struct ccs_mark m = ymark(d->cur, e.start_mark);
		yaml_event_delete(&e);
		if ((t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) && ++depth > MAX_DEPTH) {
			rc = ccs_diag_at(d->diag, m, "nesting deeper than %d levels", MAX_DEPTH);
			break;
		}
		if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT)
			depth--;
		if (t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

int ccs_ytree_parse(struct ccs_ydoc *d, const char *buf, size_t len, struct ccs_ynode **root)
{
	yaml_parser_t p;
	yaml_document_t doc;
	int rc = depth_guard(d, buf, len);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&p))
		return CCS_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &doc)) {
		struct ccs_mark m = ymark(d->cur, p.problem_mark);
		/* libyaml names every syntax error; a failure without a problem is
		 * an allocation that failed inside it */
		if (p.error == YAML_MEMORY_ERROR || !p.problem)
			rc = CCS_ENOMEM;
		else if (p.context)
			rc = ccs_diag_at(d->diag, m, "invalid yaml: %s %s", p.problem ? p.problem : "error", p.context);
		else
			rc = ccs_diag_at(d->diag, m, "invalid yaml: %s", p.problem ? p.problem : "error");
		yaml_parser_delete(&p);
		return rc;
	}
	yaml_node_t *top = yaml_document_get_root_node(&doc);
	if (!top) {
		struct ccs_mark m = { d->cur, 1, 1 };
		rc = ccs_diag_at(d->diag, m, "empty %s file", d->kind ? d->kind : "topology");
	} else if (top->type != YAML_MAPPING_NODE) {
		rc = ccs_diag_at(d->diag, ymark(d->cur, top->start_mark), "a %s file must be a mapping of keys",
		                 d->kind ? d->kind : "topology");
	} else {
		rc = convert_doc(d, &doc, top, root);
	}
	yaml_document_delete(&doc);
	if (rc == CCS_OK) {
		/* A second document is an error: topologies are one document. */
		yaml_document_t more;
		if (!yaml_parser_load(&p, &more)) {
			rc = ccs_diag_at(d->diag, ymark(d->cur, p.problem_mark), "invalid yaml: %s",
			                 p.problem ? p.problem : "error");
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&more);
			if (r2)
				rc = ccs_diag_at(d->diag, ymark(d->cur, r2->start_mark), "a second yaml document; a %s file holds one",
				                 d->kind ? d->kind : "topology");
			yaml_document_delete(&more);
		}
	}
	yaml_parser_delete(&p);
	return rc;
}

/* ---- --set overrides ---- */

int ccs_ytree_set(struct ccs_ydoc *d, struct ccs_ynode *root, const char *arg, int src)
{
	struct ccs_mark m0 = { src, 1, 1 };
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return ccs_diag_at(d->diag, m0, "expected key.path=value");
	struct ccs_mark mv = { src, 1, (int32_t)(eq - arg) + 2 };
	char *path = ccs_arena_strndup(d->a, arg, (size_t)(eq - arg));
	const char *val = ccs_arena_strdup(d->a, eq + 1);
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
			return ccs_diag_at(d->diag, ms, "empty part in key path");
		struct ccs_ynode **slot = NULL;
		if (cur->kind == CCS_Y_MAP) {
			for (uint32_t i = 0; i < cur->n; i++)
				if (!strcmp(cur->k[i]->str, seg))
					slot = &cur->v[i];
			if (!slot) {
				struct ccs_ynode *k = ccs_ytree_node(d->a, CCS_Y_SCALAR, ms);
				struct ccs_ynode *v = ccs_ytree_node(d->a, last ? CCS_Y_SCALAR : CCS_Y_MAP, last ? mv : ms);
				if (!k || !v || !(k->str = ccs_arena_strdup(d->a, seg)))
					return CCS_ENOMEM;
				CCS_TRY(ccs_ytree_push(d->a, cur, k, v));
				slot = &cur->v[cur->n - 1];
			}
		} else if (cur->kind == CCS_Y_SEQ) {
			char *end;
			long i = strtol(seg, &end, 10);
			if (*end || end == seg || i < 0 || i >= (long)cur->n)
				return ccs_diag_at(d->diag, ms, "'%s' is not an index of this list (0 to %u)",
				                   seg, cur->n ? cur->n - 1 : 0);
			slot = &cur->v[i];
		} else {
			return ccs_diag_at(d->diag, ms, "'%s' is inside a value, not a section", seg);
		}
		if (last) {
			struct ccs_ynode *v = ccs_ytree_node(d->a, CCS_Y_SCALAR, mv);
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

/* ---- reading values with positions ---- */

struct ccs_ynode *ccs_ytree_get(const struct ccs_ynode *m, const char *key)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!strcmp(m->k[i]->str, key))
			return m->v[i];
	return NULL;
}

int ccs_ytree_keys(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *const *keys, int nkeys,
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
			return ccs_diag_at(d->diag, m->k[i]->mark, "unknown key '%s' in %s (did you mean '%s'?)",
			                   m->k[i]->str, where, s);
		return ccs_diag_at(d->diag, m->k[i]->mark, "unknown key '%s' in %s", m->k[i]->str, where);
	}
	return CCS_OK;
}

int ccs_ytree_need(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *where)
{
	if (ccs_ytree_get(m, key))
		return CCS_OK;
	return ccs_diag_at(d->diag, m->mark, "missing '%s' in %s", key, where);
}

int ccs_ytree_kind(struct ccs_ydoc *d, const struct ccs_ynode *y, int kind, const char *what)
{
	static const char *const kn[] = { "a value", "a mapping", "a list" };
	if (y->kind == kind)
		return CCS_OK;
	return ccs_diag_at(d->diag, y->mark, "'%s' must be %s", what, kn[kind]);
}

int ccs_ytree_str(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char **out)
{
	struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(d, y, CCS_Y_SCALAR, key));
	*out = y->str;
	return CCS_OK;
}

int ccs_ytree_long(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, long lo, long hi,
                    long *out, struct ccs_mark *mk)
{
	struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(d, y, CCS_Y_SCALAR, key));
	const char *s = y->str;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	int digits = *s >= '0' && *s <= '9';
	if (*s == '-' && s[1] >= '0' && s[1] <= '9')
		digits = 1;
	if (!digits || *end || errno || v < lo || v > hi)
		return ccs_diag_at(d->diag, y->mark, "'%s' must be a whole number from %ld to %ld, got '%s'",
		                   key, lo, hi, s);
	*out = v;
	if (mk)
		*mk = y->mark;
	return CCS_OK;
}

int ccs_ytree_qty(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, enum ccs_qty q, double *out)
{
	struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(d, y, CCS_Y_SCALAR, key));
	char err[256];
	if (ccs_parse_qty(y->str, q, out, err, sizeof err))
		return ccs_diag_at(d->diag, y->mark, "%s: %s", key, err);
	return CCS_OK;
}

int ccs_ytree_bool(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, int *out, struct ccs_mark *mk)
{
	struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(d, y, CCS_Y_SCALAR, key));
	static const char *const t[] = { "true", "yes", "on" }, *const f[] = { "false", "no", "off" };
	for (int i = 0; i < 3; i++) {
		if (!strcmp(y->str, t[i])) { *out = 1; goto ok; }
		if (!strcmp(y->str, f[i])) { *out = 0; goto ok; }
	}
	return ccs_diag_at(d->diag, y->mark, "'%s' must be true or false, got '%s'", key, y->str);
ok:
	if (mk)
		*mk = y->mark;
	return CCS_OK;
}

/* Look s up in names[0..n); aliases map through to[] when given. */
int ccs_ytree_enum(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *const *names,
                    const int *to, int n, int *out)
{
	struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (!y)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(d, y, CCS_Y_SCALAR, key));
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
		return ccs_diag_at(d->diag, y->mark, "unknown %s '%s' (did you mean '%s'?)", key, y->str, s);
	return ccs_diag_at(d->diag, y->mark, "unknown %s '%s'; one of: %s", key, y->str, list);
}

/* Read a whole file into a ccs_malloc'd buffer.  On failure the message
 * names the file, at mark m when the file was named inside another. */
int ccs_ytree_read_file(struct ccs_ydoc *d, const char *path, const struct ccs_mark *m, char **out, size_t *outlen)
{
	FILE *f = fopen(path, "rb");
	*out = NULL;
	if (!f) {
		if (m)
			return ccs_diag_at(d->diag, *m, "cannot open '%s': %s", path, strerror(errno));
		return ccs_diag_msg(d->diag, "%s: cannot open: %s", path, strerror(errno));
	}
	size_t max = d->max_file ? d->max_file : MAX_FILE;
	int rc = ccs_stream_read(f, max, out, outlen);
	if (rc == CCS_EINPUT)
		ccs_diag_msg(d->diag, "%s: larger than %zu MiB; not a %s file", path, max >> 20, d->kind ? d->kind : "topology");
	else if (rc == CCS_EIO)
		rc = ccs_diag_msg(d->diag, "%s: cannot read: %s", path, strerror(errno));
	fclose(f);
	return rc;
}

/* Overlay 'over' on 'base': mappings merge key by key, anything else is
 * replaced.  Both trees live in the arena; base is changed in place. */
int ccs_ytree_merge(struct ccs_ydoc *d, struct ccs_ynode *base, const struct ccs_ynode *over)
{
	for (uint32_t i = 0; i < over->n; i++) {
		struct ccs_ynode **slot = NULL;
		for (uint32_t j = 0; j < base->n; j++)
			if (!strcmp(base->k[j]->str, over->k[i]->str))
				slot = &base->v[j];
		if (!slot)
			CCS_TRY(ccs_ytree_push(d->a, base, over->k[i], over->v[i]));
		else if ((*slot)->kind == CCS_Y_MAP && over->v[i]->kind == CCS_Y_MAP)
			CCS_TRY(ccs_ytree_merge(d, *slot, over->v[i]));
		else
			*slot = over->v[i];
	}
	return CCS_OK;
}

#define MAX_EXTENDS 8

/* Parse buf (named name) and the files it extends, merged into *root. */
int ccs_ytree_load_tree(struct ccs_ydoc *d, const char *name, const char *buf, size_t len, int depth,
                     struct ccs_ynode **root)
{
	int src;
	CCS_TRY(ccs_ytree_add_src(d, name, &src));
	d->cur = src;
	CCS_TRY(ccs_ytree_parse(d, buf, len, root));
	struct ccs_ynode *ext = NULL;
	uint32_t at = 0;
	for (uint32_t i = 0; i < (*root)->n; i++)
		if (!strcmp((*root)->k[i]->str, "extends")) {
			ext = (*root)->v[i];
			at = i;
		}
	if (!ext)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(d, ext, CCS_Y_SCALAR, "extends"));
	if (depth >= MAX_EXTENDS)
		return ccs_diag_at(d->diag, ext->mark, "'extends' goes more than %d files deep (a cycle?)", MAX_EXTENDS);
	/* Relative paths are relative to the file that names them. */
	const char *slash = strrchr(name, '/');
	const char *path = ext->str[0] == '/' || !slash
		? ext->str
		: ccs_arena_printf(d->a, "%.*s/%s", (int)(slash - name), name, ext->str);
	if (!path)
		return CCS_ENOMEM;
	char *bbuf;
	size_t blen;
	CCS_TRY(ccs_ytree_read_file(d, path, &ext->mark, &bbuf, &blen));
	struct ccs_ynode *base = NULL;
	int rc = ccs_ytree_load_tree(d, path, bbuf, blen, depth + 1, &base);
	ccs_free(bbuf);
	if (rc)
		return rc;
	/* Drop 'extends' from the overlay, then merge it on the base. */
	(*root)->n--;
	for (uint32_t i = at; i < (*root)->n; i++) {
		(*root)->k[i] = (*root)->k[i + 1];
		(*root)->v[i] = (*root)->v[i + 1];
	}
	CCS_TRY(ccs_ytree_merge(d, base, *root));
	*root = base;
	return CCS_OK;
}

/* ---- a whole document ---- */

int ccs_ytree_load(struct ccs_ydoc *d, const char *path, const char *kind, struct ccs_diag *diag,
                   struct ccs_ynode **root)
{
	memset(d, 0, sizeof *d);
	d->kind = kind;
	ccs_arena_init(&d->own);
	d->a = &d->own;
	d->diag = diag;
	char *buf;
	size_t len;
	CCS_TRY(ccs_ytree_read_file(d, path, NULL, &buf, &len));
	int src, rc = ccs_ytree_add_src(d, path, &src);
	if (!rc) {
		d->cur = src;
		rc = ccs_ytree_parse(d, buf, len, root);
	}
	ccs_free(buf);
	return rc;
}

void ccs_ytree_release(struct ccs_ydoc *d)
{
	if (d->diag) {
		d->diag->srcs = NULL;
		d->diag->nsrcs = 0;
	}
	ccs_arena_release(&d->own);
	memset(d, 0, sizeof *d);
}

int ccs_ytree_error(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *msg)
{
	return ccs_diag_at(d->diag, y->mark, "%s", msg);
}
