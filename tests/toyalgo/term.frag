/* star, the toy of tests/toyalgo.sh: every rank sends its S to rank 0,
 * which reduces them in one kernel and sends the sum back to each, so
 * rank 0's port carries (p - 1) S in, then (p - 1) S out. */
static int term_star(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
{
	if (e->G > 1) {
		*why = "star needs every rank on one scale-up domain";
		return -1;
	}
	if (e->proto != CCS_PROTO_SIMPLE) {
		*why = "star runs as Simple";
		return -1;
	}
	x->W = 2.0 * (e->p - 1) * e->S;
	set_rate(x, e->su, e->su_b);
	x->kernel = 1;
	x->kernel_lat = ccs_nccl_latency(&e->c->nccl, CCS_ALGO_RING, e->proto, 2, 0);
	x->kernel_mem = (e->p + 1.0) * e->S;
	return 0;
}

