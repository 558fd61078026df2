/* calibrate/bl.c: ccsim-bench logs (ccs_bl_*, ingest.h): the benches' own
** records, warnings, host and versions. */
#include "ingest.h"
#include "lines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cat_kv(char *dst, size_t n, const char *k, const char *v)
{
	size_t l = strlen(dst);
	if (l < n)
		snprintf(dst + l, n - l, "%s%s=%s", l ? " " : "", k, v);
}

/* One record line into r; 0, or -1 with why (and the column) set. */
static int bl_record(const struct ccs_lines_toks *k, struct ccs_bl_rec *r, char *msg, size_t msgn, int *col)
{
	static const char *const keys[] = { "name", "class", "size", "iters", "median", "min", "max", "unit",
	                                    "devices", "host", "driver", "runtime", "firmware", "gpu", "nic" };
	enum { NAME, CLASS, SIZE, ITERS, MEDIAN, MIN, MAX, UNIT, NKEYS = 15 };
	const char *v[NKEYS] = { 0 };
	int c[NKEYS] = { 0 };
	memset(r, 0, sizeof *r);
	for (int i = 0; i < k->n; i++) {
		const char *eq = strchr(k->t[i], '=');
		*col = k->col[i];
		if (!eq || eq == k->t[i]) {
			snprintf(msg, msgn, "expected key=value, got '%.200s'", k->t[i]);
			return -1;
		}
		int j = 0;
		while (j < NKEYS && (strlen(keys[j]) != (size_t)(eq - k->t[i]) || strncmp(keys[j], k->t[i], (size_t)(eq - k->t[i]))))
			j++;
		if (j == NKEYS) {
			snprintf(msg, msgn, "unknown key in '%.200s'", k->t[i]);
			return -1;
		}
		v[j] = eq + 1;
		c[j] = k->col[i] + (int)(eq + 1 - k->t[i]);
	}
	static const int req[] = { NAME, SIZE, ITERS, MEDIAN, UNIT };
	for (int i = 0; i < 5; i++)
		if (!v[req[i]] || !*v[req[i]]) {
			*col = k->n ? k->col[k->n - 1] : 1;
			snprintf(msg, msgn, "record without '%s' (cut short?)", keys[req[i]]);
			return -1;
		}
	double scale = !strcmp(v[UNIT], "s") ? 1 : !strcmp(v[UNIT], "ms") ? 1e-3 : !strcmp(v[UNIT], "us") ? 1e-6
	             : !strcmp(v[UNIT], "ns") ? 1e-9 : 0;
	if (!scale) {
		*col = c[UNIT];
		snprintf(msg, msgn, "unknown time unit '%s' (s, ms, us or ns)", v[UNIT]);
		return -1;
	}
	snprintf(r->name, sizeof r->name, "%s", v[NAME]);
	snprintf(r->cls, sizeof r->cls, "%s", v[CLASS] ? v[CLASS] : "");
	for (int i = 0; i < 2; i++) {
		const char *s = v[i ? ITERS : SIZE];
		if (ccs_lines_u63(s, i ? &r->iters : &r->size)) {
			*col = c[i ? ITERS : SIZE];
			snprintf(msg, msgn, "expected a whole number below 2^63, got '%s'", s);
			return -1;
		}
	}
	const int tk[3] = { MEDIAN, MIN, MAX };
	double *dst[3] = { &r->median_s, &r->min_s, &r->max_s };
	for (int i = 0; i < 3; i++) {
		*dst[i] = NAN;
		if (!v[tk[i]])
			continue;
		double x;
		if (ccs_lines_num(v[tk[i]], &x) || !(x > 0) || x > 1e9) {
			*col = c[tk[i]];
			snprintf(msg, msgn, "expected a positive time, got '%s'", v[tk[i]]);
			return -1;
		}
		*dst[i] = x * scale;
	}
	if ((r->min_s == r->min_s && r->min_s > r->median_s * (1 + 1e-9)) ||
	    (r->max_s == r->max_s && r->max_s < r->median_s * (1 - 1e-9))) {
		*col = c[MEDIAN];
		snprintf(msg, msgn, "median '%s' outside [min, max]", v[MEDIAN]);
		return -1;
	}
	if (v[8])
		snprintf(r->devices, sizeof r->devices, "%s", v[8]);
	return 0;
}

struct bl_read {
	struct ccs_bl_log *out;
	size_t cap;
};

static void bl_comment(void *o, const struct ccs_lines_toks *k)
{
	struct ccs_bl_log *out = ((struct bl_read *)o)->out;
	if (k->n >= 3 && !strcmp(k->t[1], "host:") && !out->host[0]) {
		snprintf(out->host, sizeof out->host, "%s", k->t[2]);
	} else if (k->n >= 3 && (!strcmp(k->t[1], "driver:") || !strcmp(k->t[1], "runtime:") ||
	                         !strcmp(k->t[1], "firmware:"))) {
		char key[16];
		snprintf(key, sizeof key, "%.*s", (int)strlen(k->t[1]) - 1, k->t[1]);
		cat_kv(out->versions, sizeof out->versions, key, k->t[2]);
	}
}

static int bl_line(void *o, const struct ccs_lines_toks *k, int line, char *msg, size_t msgn, int *col)
{
	struct bl_read *b = o;
	struct ccs_bl_rec r;
	if (bl_record(k, &r, msg, msgn, col))
		return 1;
	r.line = line;
	CCS_TRY(ccs_grow(&b->out->rec, &b->cap, b->out->nrec + 1, sizeof *b->out->rec));
	b->out->rec[b->out->nrec++] = r;
	return CCS_OK;
}

static int bl_end(void *o, const char *src, int magic, const char **msg)
{
	(void)src;
	struct bl_read *b = o;
	*msg = b->out->nrec ? NULL
	     : magic ? "no usable ccsim-bench record in the log" : "not a ccsim-bench log: no '# ccsim-bench 1' line";
	return CCS_OK;
}

int ccs_bl_parse(const char *src, const char *text, size_t len, struct ccs_bl_log *out, struct ccs_diag *d)
{
	static const struct ccs_lines_records rd = { "ccsim-bench", bl_comment, bl_line, bl_end };
	memset(out, 0, sizeof *out);
	struct bl_read b = { out, 0 };
	int rc = ccs_lines_records(src, text, len, &rd, &b, &out->warn, &out->nwarn, d);
	if (rc)
		ccs_bl_release(out);
	return rc;
}

void ccs_bl_release(struct ccs_bl_log *l)
{
	ccs_free(l->rec);
	ccs_lines_warn_free(l->warn, l->nwarn);
	memset(l, 0, sizeof *l);
}
