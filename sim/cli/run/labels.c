/* sim/cli/run/labels.c: what a study's plots call its axes, series and
 * points: the scenario's keys in words (run.h). */
#include "run.h"

#include <stdio.h>
#include <string.h>

/* Keys a planner sweeps, as a chart should name them. */
static const struct {
	const char *key, *words;
} known[] = {
	{ "nodes", "nodes" },
	{ "ranks", "ranks" },
	{ "ppn", "ranks per node" },
	{ "bytes", "message size" },
	{ "algo", "algorithm" },
	{ "proto", "protocol" },
	{ "channels", "channels" },
	{ "tokens", "tokens per rank" },
	{ "hidden", "hidden size" },
	{ "topk", "top-k" },
	{ "experts", "experts" },
	{ "ep", "EP group size" },
	{ "scaleout.oversubscription", "scale-out oversubscription (down:up)" },
	{ "scaleout.tiers", "scale-out tiers" },
	{ "scaleout.radix", "switch radix" },
	{ "scaleout.topology", "scale-out topology" },
	{ "scaleout.routing", "scale-out routing" },
	{ "scaleout.spray", "paths sprayed over" },
	{ "scaleout.rails", "rails" },
	{ "scaleout.planes", "planes" },
	{ "nodes_per_domain", "nodes per scale-up domain" },
	{ "model.nccl_version", "NCCL release" },
	{ "model.transport", "transport" },
};

void ccs_label_key(const char *key, char *out, size_t n)
{
	if (!strncmp(key, "workload.", 9))
		key += 9;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(key, known[i].key)) {
			snprintf(out, n, "%s", known[i].words);
			return;
		}
	/* a path into the topology: "node.devices.3.bandwidth" reads
	 * "node device 3 bandwidth"; the last word first where it is what
	 * changes ("bandwidth of node device 3") */
	char tmp[256];
	size_t k = 0;
	for (const char *p = key; *p && k + 2 < sizeof tmp; p++) {
		if (*p == '.' || *p == '_') {
			tmp[k++] = ' ';
			continue;
		}
		tmp[k++] = *p;
	}
	tmp[k] = 0;
	/* plural containers before an index: "devices 3" -> "device 3" */
	static const char *const plural[] = { "devices ", "links ", "tiers ", "nics " };
	for (size_t i = 0; i < sizeof plural / sizeof plural[0]; i++) {
		char *at = strstr(tmp, plural[i]);
		size_t l = strlen(plural[i]);
		if (at && at[l] >= '0' && at[l] <= '9')
			memmove(at + l - 2, at + l - 1, strlen(at + l - 1) + 1);
	}
	char *last = strrchr(tmp, ' ');
	if (last && last[1] && !(last[1] >= '0' && last[1] <= '9')) {
		*last = 0;
		snprintf(out, n, "%s of %s", last + 1, tmp);
	} else
		snprintf(out, n, "%s", tmp);
}

void ccs_label_axes(const char *axes, char *out, size_t n)
{
	size_t o = 0;
	out[0] = 0;
	for (const char *p = axes; *p && o + 1 < n;) {
		while (*p == ' ')
			p++;
		const char *e = strchr(p, ' ');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (!l)
			break;
		const char *eq = memchr(p, '=', l);
		char key[200], words[240];
		if (eq) {
			snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
			ccs_label_key(key, words, sizeof words);
			o += (size_t)snprintf(out + o, n - o, "%s%s %.*s", o ? ", " : "", words, (int)(l - (size_t)(eq + 1 - p)),
			                      eq + 1);
		} else
			o += (size_t)snprintf(out + o, n - o, "%s%.*s", o ? ", " : "", (int)l, p);
		if (o >= n)
			o = n - 1;
		p += l;
	}
}

void ccs_label_wrap(const char *in, int width, char *out, size_t n)
{
	size_t k = 0;
	int col = 0;
	for (const char *p = in; *p && k + 1 < n; p++) {
		/* break at a space once the line is full, or before a '(' past
		 * half of it */
		int word = 1 + (int)strcspn(p + 1, " \n");   /* to the next break */
		if (*p == ' ' && col > 0 && (col + word > width || (p[1] == '(' && col > width / 2))) {
			out[k++] = '\n';
			col = 0;
			continue;
		}
		out[k++] = *p;
		col = *p == '\n' ? 0 : col + 1;
	}
	out[k] = 0;
}
