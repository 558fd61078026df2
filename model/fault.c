/* model/fault.c: faults on a loaded topology (fault.h). */
#include "fault.h"
#include "params.h"

#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find(const struct ccs_topo *t, const char *name, size_t len, uint32_t *out)
{
	for (uint32_t d = 0; d < t->ndev; d++)
		if (strlen(t->dev[d].name) == len && !strncmp(t->dev[d].name, name, len)) {
			*out = d;
			return 0;
		}
	return -1;
}

/* "50%" -> 0.5 in (0, 1); -1 when not a share */
static double share(const char *s)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || strcmp(end, "%") || !(x > 0) || !(x < 100))
		return -1;
	return x / 100;
}

/* Remember spec among the topology's faults (for messages). */
static int note_fault(struct ccs_topo *t, const char *spec)
{
	const char **nv = ccs_arena_alloc(&t->arena, (t->nfault + 1) * sizeof *nv);
	const char *cp = ccs_arena_strdup(&t->arena, spec);
	if (!nv || !cp)
		return CCS_ENOMEM;
	if (t->nfault)
		memcpy(nv, t->fault, t->nfault * sizeof *nv);
	nv[t->nfault++] = cp;
	t->fault = nv;
	return CCS_OK;
}

/* Record a timed fault: share (0 down) of the links selected by k (0 link
 * a-b, 1 nic a's network links, 2 switch a's links, 4 the link a alone, 5
 * none) and of GPU gmem's memory (-1: none) from at_s on, kept in time
 * order (equal times in the order given); note: list the spec too. */
static int add_timed(struct ccs_topo *t, const char *spec, int k, uint32_t a, uint32_t b, double share, double at_s,
                     int32_t gmem, int note)
{
	uint32_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t *list = NULL;
		if (pass) {
			list = ccs_arena_alloc(&t->arena, (n ? n : 1) * sizeof *list);
			if (!list)
				return CCS_ENOMEM;
		}
		uint32_t m = 0;
		for (uint32_t l = 0; l < t->nlink; l++) {
			const struct ccs_link *x = &t->link[l];
			int hit = k == 0 ? (x->a == a && x->b == b) || (x->a == b && x->b == a)
			        : k == 1 ? (x->a == a || x->b == a) && ccs_link_is_network(x->type)
			        : k == 2 ? x->a == a || x->b == a
			        : k == 4 ? l == a : 0;
			if (!hit)
				continue;
			if (pass)
				list[m] = l;
			m++;
		}
		n = m;
		if (!pass)
			continue;
		struct ccs_timed_fault *nv = ccs_arena_alloc(&t->arena, (t->ntimed + 1) * sizeof *nv);
		const char *cp = ccs_arena_strdup(&t->arena, spec);
		if (!nv || !cp)
			return CCS_ENOMEM;
		uint32_t at = 0;
		while (at < t->ntimed && t->timed[at].at_s <= at_s)
			at++;
		if (at)
			memcpy(nv, t->timed, at * sizeof *nv);
		if (at < t->ntimed)
			memcpy(nv + at + 1, t->timed + at, (t->ntimed - at) * sizeof *nv);
		nv[at] = (struct ccs_timed_fault){ at_s, cp, share, k == 1 ? a : UINT32_MAX, gmem, n, list };
		t->timed = nv;
		t->ntimed++;
	}
	return note ? note_fault(t, spec) : CCS_OK;
}

/* A fault spec read apart: kind (link, nic, switch, pcie, straggler, gdr),
 * target devices a (and b for a link), what happens (down, a share f, added
 * latency), and the time it strikes (at_s, -1: from the start). */
struct fspec {
	const char *spec;
	char *target, *what;
	int k, down;
	uint32_t a, b;
	double at_s, f, lat;
};

/* link:A-B: down, at a share, or with added latency: CCS_OK for the common tail (noted, NICs refreshed), else done with
 * *done set. */
static int apply_link(struct ccs_topo *t, const struct fspec *fs, int *done, char *err, size_t errn)
{
	const char *spec = fs->spec;
	uint32_t a = fs->a;
	uint32_t b = fs->b;
	int down = fs->down;
	double f = fs->f;
	double lat = fs->lat;
	int hit = 0;
	for (uint32_t l = 0; l < t->nlink; l++) {
		struct ccs_link *x = &t->link[l];
		if (!((x->a == a && x->b == b) || (x->a == b && x->b == a)))
			continue;
		hit++;
		if (down)
			x->bw_Bps = 0;
		else if (f > 0)
			x->bw_Bps *= f;
		else
			x->lat_s += lat;
	}
	if (!hit) {
		snprintf(err, errn, "fault '%s': '%s' and '%s' share no link", spec, t->dev[a].name, t->dev[b].name);
		*done = 1;
		return CCS_EINPUT;
	}
	return CCS_OK;
}

/* nic:N: down or at a share: CCS_OK for the common tail (noted, NICs refreshed), else done with
 * *done set. */
static int apply_nic(struct ccs_topo *t, const struct fspec *fs, int *done, char *err, size_t errn)
{
	const char *spec = fs->spec;
	uint32_t a = fs->a;
	int down = fs->down;
	double f = fs->f;
	if (t->dev[a].kind != CCS_DEV_NIC || (!down && f < 0)) {
		snprintf(err, errn, "fault '%s': %s", spec,
		         t->dev[a].kind != CCS_DEV_NIC ? "not a nic" : "a nic goes 'down' or runs at a share ('50%')");
		*done = 1;
		return CCS_EINPUT;
	}
	for (uint32_t j = t->adj_off[a]; j < t->adj_off[a + 1]; j++) {
		struct ccs_link *x = &t->link[t->adj[j]];
		if (ccs_link_is_network(x->type))
			x->bw_Bps = down ? 0 : x->bw_Bps * f;
	}
	if (t->dev[a].bw_Bps > 0)
		t->dev[a].bw_Bps = down ? 0 : t->dev[a].bw_Bps * f;
	if (down)
		t->dev[a].bw_Bps = -1;   /* marks it dead even with a port speed */
	return CCS_OK;
}

/* switch:S:down: every link of it: CCS_OK for the common tail (noted, NICs refreshed), else done with
 * *done set. */
static int apply_switch(struct ccs_topo *t, const struct fspec *fs, int *done, char *err, size_t errn)
{
	const char *spec = fs->spec;
	uint32_t a = fs->a;
	int down = fs->down;
	if ((t->dev[a].kind != CCS_DEV_NETSW && t->dev[a].kind != CCS_DEV_SUSW && t->dev[a].kind != CCS_DEV_PCISW) ||
	    !down) {
		snprintf(err, errn, "fault '%s': %s", spec,
		         down ? "not a switch" : "a switch goes 'down' (degrade its links with link:A-B:50%)");
		*done = 1;
		return CCS_EINPUT;
	}
	for (uint32_t j = t->adj_off[a]; j < t->adj_off[a + 1]; j++)
		t->link[t->adj[j]].bw_Bps = 0;
	return CCS_OK;
}

/* pcie:GPU: a width or a generation, now or striking later: CCS_OK for the common tail (noted, NICs refreshed), else done with
 * *done set. */
static int apply_pcie(struct ccs_topo *t, const struct fspec *fs, int *done, char *err, size_t errn)
{
	const char *spec = fs->spec;
	const char *what = fs->what;
	uint32_t a = fs->a;
	double at_s = fs->at_s;
	int hit = 0;
	if (t->dev[a].kind != CCS_DEV_GPU) {
		snprintf(err, errn, "fault '%s': not a gpu", spec);
		*done = 1;
		return CCS_EINPUT;
	}
	long v = strtol(what + (what[0] == 'x' ? 1 : what[0] == 'g' ? 3 : 0), NULL, 10);
	int width = what[0] == 'x' && (v == 1 || v == 2 || v == 4 || v == 8 || v == 16);
	int gen = !strncmp(what, "gen", 3) && v >= 1 && v <= 6;
	if (!width && !gen) {
		snprintf(err, errn, "fault '%s': a pcie link trains at a width (x1 x2 x4 x8 x16) or a generation (gen1 to gen6)",
		         spec);
		*done = 1;
		return CCS_EINPUT;
	}
	for (uint32_t j = t->adj_off[a]; j < t->adj_off[a + 1]; j++) {
		struct ccs_link *x = &t->link[t->adj[j]];
		if (x->type != CCS_LINK_PCIE)
			continue;
		hit++;
		int lanes = x->lanes ? x->lanes : 16;
		/* generation: the rate per lane doubles per generation from
		 * gen 3; the link's own generation is read from its rate per
		 * lane */
		double cur = 3 + round(log2(x->bw_Bps / lanes / (ccs_param("pcie.lane.gen3") * 1e9)));
		double r = width ? (v < lanes ? (double)v / lanes : 1) : pow(2.0, (double)v - cur);
		if (r > 1)
			r = 1;
		if (at_s >= 0) {
			/* strikes later: this link at its share from then on */
			if (add_timed(t, spec, 4, t->adj[j], 0, r, at_s, -1, 0)) {
				snprintf(err, errn, "out of memory");
				*done = 1;
				return CCS_ENOMEM;
			}
			continue;
		}
		x->bw_Bps *= r;
		if (width && v < lanes)
			x->lanes = (uint16_t)v;   /* trained width: a later gen fault reads the rate per lane */
	}
	if (!hit) {
		snprintf(err, errn, "fault '%s': '%s' has no pcie link", spec, t->dev[a].name);
		*done = 1;
		return CCS_EINPUT;
	}
	if (at_s >= 0) {
		*done = 1;
		int rc = note_fault(t, spec);
		if (rc)
			snprintf(err, errn, "out of memory");
		return rc;
	}
	return CCS_OK;
}

/* straggler:GPU: a late start, or its memory at a share (now or later): CCS_OK for the common tail (noted, NICs refreshed), else done with
 * *done set. */
static int apply_straggler(struct ccs_topo *t, const struct fspec *fs, int *done, char *err, size_t errn)
{
	const char *spec = fs->spec;
	const char *what = fs->what;
	uint32_t a = fs->a;
	double at_s = fs->at_s;
	double d;
	char e2[128];
	int32_t g = t->gpu_of_dev[a];
	double sf = g >= 0 ? share(what) : -1;
	if (sf > 0) {
		/* a slow GPU: its memory (reductions, copies) at that share */
		if (!(t->dev[a].bw_Bps > 0)) {
			snprintf(err, errn, "fault '%s': '%s' has no memory bandwidth to slow (give the gpu memory_bandwidth)",
			         spec, t->dev[a].name);
			*done = 1;
			return CCS_EINPUT;
		}
		if (at_s >= 0) {
			*done = 1;
			int rc = add_timed(t, spec, 5, 0, 0, sf, at_s, g, 1);
			if (rc)
				snprintf(err, errn, "out of memory");
			return rc;
		}
		t->dev[a].bw_Bps *= sf;
		*done = 1;
		int rc = note_fault(t, spec);
		if (rc)
			snprintf(err, errn, "out of memory");
		return rc;
	}
	if (g < 0 || ccs_parse_qty(what, CCS_QTY_TIME, &d, e2, sizeof e2) || d < 0) {
		snprintf(err, errn, "fault '%s': %s", spec,
		         g < 0 ? "not a gpu" : "a straggler starts late by a time (20us) or reduces at a share of its memory rate (50%)");
		*done = 1;
		return CCS_EINPUT;
	}
	if (at_s >= 0) {
		snprintf(err, errn, "fault '%s': a straggler's late start applies from the start (no '@')", spec);
		*done = 1;
		return CCS_EINPUT;
	}
	t->gpu[g].delay_s += d;
	*done = 1;
	int rc = note_fault(t, spec);
	if (rc)
		snprintf(err, errn, "out of memory");
	return rc;

}

/* KIND:TARGET:WHAT@TIME strikes during the run: cut the '@' off buf and
 * read the time into *at_s (-1: none). */
static int strike_time(char *buf, const char *spec, double *at_s, char *err, size_t errn)
{
	*at_s = -1;
	char *at = strchr(buf, '@');
	if (at && strchr(at + 1, '@')) {
		snprintf(err, errn, "fault '%s': one '@' at most (it gives the time the fault strikes)", spec);
		return CCS_EINPUT;
	}
	if (at) {
		char e2[128] = "";
		*at++ = 0;
		if (ccs_parse_qty(at, CCS_QTY_TIME, at_s, e2, sizeof e2) || !(*at_s >= 0)) {
			snprintf(err, errn, "fault '%s': '@' gives the time it strikes (link:A-B:down@200us): %s", spec,
			         *at_s < 0 && !e2[0] ? "negative" : e2);
			return CCS_EINPUT;
		}
	}
	return CCS_OK;
}

/* gdr:GPU:off or gdr:all:off (mode 0), p2p:GPU:off or p2p:all:off (mode
 * 1), acs:GPU:on or acs:all:on (mode 2), from the start only.  ACS (or a
 * VM's IOMMU) redirects a GPU's peer-to-peer PCIe traffic to the root
 * complex: its GPUDirect traffic with its NIC goes up to the CPU and down,
 * the path of GDR off (no_gdr; host memory itself is not the bottleneck
 * there), and so does P2P with GPUs of its node when it has no scale-up
 * links (NVLink traffic does not cross PCIe). */
static int apply_gdr(struct ccs_topo *t, const char *spec, const char *target, const char *what, double at_s, char *err,
                     size_t errn, int mode)
{
	uint32_t a = 0;
	static const char *const name[] = { "GPUDirect RDMA", "P2P", "ACS redirection" };
	static const char *const word[] = { "off", "off", "on" };
	if (at_s >= 0) {
		snprintf(err, errn, "fault '%s': %s %s applies from the start (no '@')", spec, name[mode], word[mode]);
		return CCS_EINPUT;
	}
	if (strcmp(what, word[mode]) || (strcmp(target, "all") && (find(t, target, strlen(target), &a) ||
	                                                           t->gpu_of_dev[a] < 0))) {
		snprintf(err, errn, "fault '%s': %s goes '%s' for a gpu or for 'all'", spec, name[mode], word[mode]);
		return CCS_EINPUT;
	}
	for (uint32_t g = 0; g < t->ngpu; g++)
		if (!strcmp(target, "all") || t->gpu[g].dev == a) {
			if (mode == 1 || (mode == 2 && t->gpu[g].su_bw_Bps <= 0))
				t->gpu[g].no_p2p = 1;
			if (mode != 1)
				t->gpu[g].no_gdr = 1;
		}
	int rc = note_fault(t, spec);
	if (rc)
		snprintf(err, errn, "out of memory");
	return rc;
}

/* rail:GPU:NIC: the GPU uses that NIC of its node and no other (a wrong
 * NCCL_IB_HCA, a GPU-to-NIC map off by one), sharing it with the GPUs whose
 * NIC it is.  NCCL keeps GPUDirect RDMA only where the NIC is at most PXB
 * from the GPU (ncclTopoCheckGdr, NCCL_NET_GDR_LEVEL's default PXB: NCCL
 * src/graph/paths.cc); farther (through a CPU, or across sockets) the
 * traffic is staged through host memory. */
static int apply_rail(struct ccs_topo *t, const struct fspec *fs, int *done, char *err, size_t errn)
{
	uint32_t nic = 0;
	int32_t g = t->gpu_of_dev[fs->a];
	*done = 1;
	if (g < 0 || find(t, fs->what, strlen(fs->what), &nic) || t->dev[nic].kind != CCS_DEV_NIC ||
	    t->dev[nic].node != t->gpu[g].node) {
		snprintf(err, errn, "fault '%s': a rail fault names a gpu and a nic of its node (rail:node0/gpu0:node0/nic1)",
		         fs->spec);
		return CCS_EINPUT;
	}
	if (!ccs_nic_live(t, nic)) {
		snprintf(err, errn, "fault '%s': '%s' is down", fs->spec, t->dev[nic].name);
		return CCS_EINPUT;
	}
	struct ccs_gpu *gp = &t->gpu[g];
	gp->nic_force = nic + 1;
	int rc = note_fault(t, fs->spec);
	if (!rc)
		rc = ccs_topo_refresh(t);
	if (rc) {
		snprintf(err, errn, "out of memory");
		return rc;
	}
	if (!gp->nic_count || t->gnic[gp->nic_first].nic != nic) {
		gp->nic_force = 0;
		snprintf(err, errn, "fault '%s': '%s' reaches '%s' over no host link", fs->spec, t->dev[fs->a].name,
		         t->dev[nic].name);
		return CCS_EINPUT;
	}
	if (t->gnic[gp->nic_first].path >= CCS_PATH_PHB)
		gp->no_gdr = 1;
	return CCS_OK;
}

/* A link, nic or switch fault striking at at_s: only bandwidth faults may. */
static int strike_later(struct ccs_topo *t, const char *spec, int k, uint32_t a, uint32_t b, int down, double f,
                        double at_s, char *err, size_t errn)
{
	int sw = t->dev[a].kind == CCS_DEV_NETSW || t->dev[a].kind == CCS_DEV_SUSW || t->dev[a].kind == CCS_DEV_PCISW;
	int ok = (k == 0 && (down || f > 0)) || (k == 1 && t->dev[a].kind == CCS_DEV_NIC && (down || f > 0)) ||
	         (k == 2 && down && sw);
	if (k == 2 && !sw) {
		snprintf(err, errn, "fault '%s': not a switch", spec);
		return CCS_EINPUT;
	}
	if (!ok) {
		snprintf(err, errn, "fault '%s': only bandwidth faults (a link, nic or switch down or at a share, a pcie "
		         "link's width or generation, a straggler's memory share) can strike during a run ('@'); the others "
		         "apply from the start", spec);
		return CCS_EINPUT;
	}
	if (k == 0) {
		uint32_t l = 0;
		while (l < t->nlink && !((t->link[l].a == a && t->link[l].b == b) || (t->link[l].a == b && t->link[l].b == a)))
			l++;
		if (l == t->nlink) {
			snprintf(err, errn, "fault '%s': '%s' and '%s' share no link", spec, t->dev[a].name, t->dev[b].name);
			return CCS_EINPUT;
		}
	}
	int rc = add_timed(t, spec, k, a, b, down ? 0 : f, at_s, -1, 1);
	if (rc)
		snprintf(err, errn, "out of memory");
	return rc;
}

int ccs_fault_apply(struct ccs_topo *t, const char *spec, char *err, size_t errn)
{
	char buf[256];
	if (strlen(spec) >= sizeof buf) {
		snprintf(err, errn, "fault '%.40s...' is too long", spec);
		return CCS_EINPUT;
	}
	snprintf(buf, sizeof buf, "%s", spec);
	double at_s;
	if (strike_time(buf, spec, &at_s, err, errn))
		return CCS_EINPUT;
	char *kind = buf, *target = strchr(buf, ':'), *what = NULL;
	if (target) {
		*target++ = 0;
		what = strrchr(target, ':');
		if (what)
			*what++ = 0;
	}
	static const char *const kinds[] = { "link", "nic", "switch", "pcie", "straggler", "rail", "gdr", "p2p", "acs" };
	int k = 0;
	while (k < 9 && strcmp(kind, kinds[k]))
		k++;
	if (k == 9 || !target || !*target || !what || !*what) {
		snprintf(err, errn, "fault '%s': expected KIND:TARGET:WHAT with KIND link, nic, switch, pcie, straggler, rail, "
		         "gdr, p2p or acs (link:A-B:down, nic:node0/nic1:down, switch:spine0:down, pcie:node0/gpu3:x8, "
		         "straggler:node1/gpu2:20us, rail:node0/gpu0:node0/nic1, gdr:all:off, p2p:all:off, acs:all:on)",
		         spec);
		return CCS_EINPUT;
	}
	uint32_t a = 0, b = 0;
	if (k == 0) {
		/* A-B: device names may hold '-' themselves; try every split */
		int found = 0;
		for (char *dash = strchr(target, '-'); dash && !found; dash = strchr(dash + 1, '-'))
			if (!find(t, target, (size_t)(dash - target), &a) && !find(t, dash + 1, strlen(dash + 1), &b))
				found = 1;
		if (!found) {
			snprintf(err, errn, "fault '%s': no link '%s' (write it as A-B with two device names)", spec, target);
			return CCS_EINPUT;
		}
	} else if (k >= 6) {
		return apply_gdr(t, spec, target, what, at_s, err, errn, k - 6);
	} else if (find(t, target, strlen(target), &a)) {
		snprintf(err, errn, "fault '%s': no device '%s'", spec, target);
		return CCS_EINPUT;
	}
	int down = !strcmp(what, "down");
	double f = share(what), lat = 0;
	if (k == 0 && !down && f < 0) {
		char e2[128];
		if (what[0] != '+' || ccs_parse_qty(what + 1, CCS_QTY_TIME, &lat, e2, sizeof e2)) {
			snprintf(err, errn, "fault '%s': a link goes 'down', runs at a share ('50%%') or adds latency ('+2us')",
			         spec);
			return CCS_EINPUT;
		}
	}
	if (at_s >= 0 && k != 3 && k != 4)
		return strike_later(t, spec, k, a, b, down, f, at_s, err, errn);
	struct fspec x = { spec, target, what, k, down, a, b, at_s, f, lat };
	static int (*const apply_of[])(struct ccs_topo *, const struct fspec *, int *, char *, size_t) = {
		apply_link, apply_nic, apply_switch, apply_pcie, apply_straggler, apply_rail,
	};
	int done = 0;
	int rc = apply_of[k](t, &x, &done, err, errn);
	if (done || rc)
		return rc;
	rc = note_fault(t, spec);
	if (!rc)
		rc = ccs_topo_refresh(t);
	if (rc)
		snprintf(err, errn, "out of memory");
	return rc;
}

int ccs_fault_settle(struct ccs_topo *t, uint32_t upto)
{
	for (uint32_t i = 0; i < upto && i < t->ntimed; i++) {
		const struct ccs_timed_fault *x = &t->timed[i];
		for (uint32_t j = 0; j < x->nlink; j++)
			t->link[x->link[j]].bw_Bps *= x->share;
		/* as ccs_fault_apply: a nic's port speed too; -1 marks it dead */
		if (x->gpu_mem >= 0)
			t->dev[t->gpu[x->gpu_mem].dev].bw_Bps *= x->share;
		if (x->nic != UINT32_MAX && t->dev[x->nic].bw_Bps > 0)
			t->dev[x->nic].bw_Bps = x->share > 0 ? t->dev[x->nic].bw_Bps * x->share : -1;
		else if (x->nic != UINT32_MAX && !(x->share > 0))
			t->dev[x->nic].bw_Bps = -1;
	}
	return ccs_topo_refresh(t);
}

double ccs_fault_progress(const double *at_s, const double *full_s, int n)
{
	double w = 0;
	for (int k = 0; k < n; k++) {
		if (full_s[k] < 0)
			return -(double)(k + 1);
		double end = at_s[k] + (1 - w) * full_s[k];
		if (k + 1 == n || end <= at_s[k + 1])
			return end;
		w += full_s[k] > 0 ? (at_s[k + 1] - at_s[k]) / full_s[k] : 1;
		if (w >= 1)
			return at_s[k + 1];
	}
	return 0;
}
