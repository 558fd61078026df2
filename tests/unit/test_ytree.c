/*
** tests/unit/test_ytree.c: model/ytree.h on documents written here, each
** value and error checked by hand: positions (1-based line and column of
** the node), unknown keys with the nearest suggestion, kinds, whole numbers
** in range, quantities with units (and a missing unit refused), booleans,
** names from a list, a --set override positioned in its own source, a
** mapping merged key by key over another, anchors expanding, and a billion-
** laughs document refused with its position.
*/
#include "../check.h"

#include "../../model/ytree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* d set up on its own arena for text named name; the root in *root. */
static int parse(struct ccs_ydoc *d, struct ccs_diag *diag, const char *name, const char *text,
                 struct ccs_ynode **root)
{
	memset(d, 0, sizeof *d);
	memset(diag, 0, sizeof *diag);
	ccs_arena_init(&d->own);
	d->a = &d->own;
	d->diag = diag;
	int src;
	CCS_TRY(ccs_ytree_add_src(d, name, &src));
	d->cur = src;
	return ccs_ytree_parse(d, text, strlen(text), root);
}

static void test_values(void)
{
	struct ccs_ydoc d;
	struct ccs_diag g;
	struct ccs_ynode *root = NULL;
	const char *text = "name: hgx\n"
	                   "nodes: 4\n"
	                   "nic:\n"
	                   "  bandwidth: 400Gb/s\n"
	                   "  latency: 1.5us\n"
	                   "sharp: yes\n"
	                   "routing: dmodk\n"
	                   "list: [a, b, c]\n";
	CHECK(parse(&d, &g, "t.yaml", text, &root) == CCS_OK && root && root->kind == CCS_Y_MAP);
	const char *name = NULL;
	CHECK(ccs_ytree_str(&d, root, "name", &name) == CCS_OK && name && !strcmp(name, "hgx"));
	long n = 0;
	struct ccs_mark mk;
	CHECK(ccs_ytree_long(&d, root, "nodes", 1, 64, &n, &mk) == CCS_OK && n == 4);
	CHECK(mk.line == 2 && mk.col == 8);
	CHECK(ccs_ytree_long(&d, root, "nodes", 8, 64, &n, NULL) == CCS_EINPUT);
	CHECK(strstr(g.msg, "t.yaml:2:8:") == g.msg);
	struct ccs_ynode *nic = ccs_ytree_get(root, "nic");
	CHECK(nic && nic->kind == CCS_Y_MAP && nic->mark.line == 4 && nic->mark.col == 3);
	double bw = 0, lat = 0;
	CHECK(ccs_ytree_qty(&d, nic, "bandwidth", CCS_QTY_BW, &bw) == CCS_OK);
	CHECK_NEAR(bw, 50e9, 1e-12);
	CHECK(ccs_ytree_qty(&d, nic, "latency", CCS_QTY_TIME, &lat) == CCS_OK);
	CHECK_NEAR(lat, 1.5e-6, 1e-12);
	int b = 0;
	CHECK(ccs_ytree_bool(&d, root, "sharp", &b, NULL) == CCS_OK && b == 1);
	static const char *const routes[] = { "dmodk", "ecmp", "spray" };
	int r = -1;
	CHECK(ccs_ytree_enum(&d, root, "routing", routes, NULL, 3, &r) == CCS_OK && r == 0);
	struct ccs_ynode *l = ccs_ytree_get(root, "list");
	CHECK(l && l->kind == CCS_Y_SEQ && l->n == 3 && !strcmp(l->v[2]->str, "c"));
	/* absent keys leave the output alone and are no error */
	n = 77;
	CHECK(ccs_ytree_long(&d, root, "absent", 0, 100, &n, NULL) == CCS_OK && n == 77);
	CHECK(ccs_ytree_need(&d, root, "absent", "the topology") == CCS_EINPUT);
	/* unknown keys: the nearest one named */
	static const char *const keys[] = { "name", "nodes", "nic", "sharp", "routing", "lists" };
	memset(&g, 0, sizeof g);
	d.diag = &g;
	g.srcs = d.srcs;
	g.nsrcs = d.nsrcs;
	CHECK(ccs_ytree_keys(&d, root, keys, 6, "the topology") == CCS_EINPUT);
	CHECK(strstr(g.msg, "t.yaml:8:1:") == g.msg && strstr(g.msg, "'list'") && strstr(g.msg, "lists"));
	/* kinds and units */
	CHECK(ccs_ytree_kind(&d, nic, CCS_Y_SEQ, "nic") == CCS_EINPUT);
	ccs_ytree_release(&d);
}

static void test_errors(void)
{
	struct ccs_ydoc d;
	struct ccs_diag g;
	struct ccs_ynode *root = NULL;
	/* a bandwidth with no unit is refused at its column */
	CHECK(parse(&d, &g, "u.yaml", "nic:\n  bandwidth: 400\n", &root) == CCS_OK);
	double bw = 0;
	CHECK(ccs_ytree_qty(&d, ccs_ytree_get(root, "nic"), "bandwidth", CCS_QTY_BW, &bw) == CCS_EINPUT);
	CHECK(strstr(g.msg, "u.yaml:2:14:") == g.msg);
	ccs_ytree_release(&d);
	/* malformed YAML: an error with a position, no tree */
	CHECK(parse(&d, &g, "bad.yaml", "a: [1, 2\nb: 3\n", &root) == CCS_EINPUT);
	CHECK(strstr(g.msg, "bad.yaml:") == g.msg);
	ccs_ytree_release(&d);
	/* nested anchors past the expansion limit */
	const char *lol = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	                  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	                  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	                  "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	                  "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
	                  "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
	CHECK(parse(&d, &g, "lol.yaml", lol, &root) == CCS_EINPUT);
	/* at the anchored node whose copy passes the limit (line 1's list) */
	CHECK(strstr(g.msg, "lol.yaml:1:") == g.msg && strstr(g.msg, "aliases expand"));
	ccs_ytree_release(&d);
	/* a small anchor expands */
	CHECK(parse(&d, &g, "ok.yaml", "a: &a {x: 1}\nb: *a\n", &root) == CCS_OK);
	long x = 0;
	CHECK(ccs_ytree_long(&d, ccs_ytree_get(root, "b"), "x", 0, 9, &x, NULL) == CCS_OK && x == 1);
	ccs_ytree_release(&d);
}

static void test_set_merge(void)
{
	struct ccs_ydoc d;
	struct ccs_diag g;
	struct ccs_ynode *root = NULL, *over = NULL;
	CHECK(parse(&d, &g, "base.yaml", "nodes: 2\nnic: {bandwidth: 400Gb/s, count: 8}\n", &root) == CCS_OK);
	/* --set in its own source, positioned there */
	int src;
	CHECK(ccs_ytree_add_src(&d, "--set 'nic.bandwidth=800Gb/s'", &src) == CCS_OK);
	CHECK(ccs_ytree_set(&d, root, "nic.bandwidth=800Gb/s", src) == CCS_OK);
	double bw = 0;
	struct ccs_ynode *nic = ccs_ytree_get(root, "nic");
	CHECK(ccs_ytree_qty(&d, nic, "bandwidth", CCS_QTY_BW, &bw) == CCS_OK);
	CHECK_NEAR(bw, 100e9, 1e-12);
	CHECK(ccs_ytree_get(nic, "bandwidth")->mark.src == src);
	CHECK(ccs_ytree_set(&d, root, "nic.bandwidth=fast", src) == CCS_OK);
	CHECK(ccs_ytree_qty(&d, nic, "bandwidth", CCS_QTY_BW, &bw) == CCS_EINPUT);
	CHECK(strstr(g.msg, "--set 'nic.bandwidth=800Gb/s':1:") == g.msg);
	/* a mapping merged key by key; a scalar replaced */
	d.cur = 0;
	CHECK(ccs_ytree_parse(&d, "nodes: 16\nnic: {count: 4}\n", strlen("nodes: 16\nnic: {count: 4}\n"), &over) ==
	      CCS_OK);
	CHECK(ccs_ytree_merge(&d, root, over) == CCS_OK);
	long n = 0, c = 0;
	CHECK(ccs_ytree_long(&d, root, "nodes", 1, 64, &n, NULL) == CCS_OK && n == 16);
	nic = ccs_ytree_get(root, "nic");
	CHECK(ccs_ytree_long(&d, nic, "count", 1, 64, &c, NULL) == CCS_OK && c == 4);
	CHECK(ccs_ytree_get(nic, "bandwidth") != NULL);   /* kept from the base */
	ccs_ytree_release(&d);
}

/* A file past the document's size limit (d.max_file; 0: 64 MiB) refused,
 * naming the limit and what the file should have been; within it, read
 * whole. */
static void test_file_limit(void)
{
	char path[] = "/tmp/ccsim-ytree-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		CHECK(0);
		return;
	}
	size_t big = ((size_t)1 << 20) + 1;
	for (size_t i = 0; i < big; i++)
		fputc(i % 64 ? '#' : '\n', f);
	fclose(f);
	struct ccs_ydoc d;
	struct ccs_diag diag;
	memset(&d, 0, sizeof d);
	memset(&diag, 0, sizeof diag);
	d.diag = &diag;
	d.kind = "schedule";
	d.max_file = (size_t)1 << 20;
	char *buf = NULL;
	size_t len = 0;
	CHECK(ccs_ytree_read_file(&d, path, NULL, &buf, &len) == CCS_EINPUT && buf == NULL);
	CHECK(strstr(diag.msg, "larger than 1 MiB; not a schedule file") != NULL);
	d.max_file = (size_t)2 << 20;
	CHECK(ccs_ytree_read_file(&d, path, NULL, &buf, &len) == CCS_OK && len == big);
	ccs_free(buf);
	unlink(path);
}

int main(void)
{
	test_values();
	test_errors();
	test_set_merge();
	test_file_limit();
	return CHECK_DONE("test_ytree");
}
