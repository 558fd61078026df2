/* star, the toy of tests/toyalgo.sh: after the closed form's latency every
 * rank r > 0 sends S to rank 0; once all have arrived rank 0 sends the sum
 * to each of them. */
static int b_star(const struct req *r)
{
	struct ccs_cost cc;
	if (ccs_cost_eval(r->c, r->coll, r->algo, r->proto, r->channels, r->bytes, &cc, r->why))
		return CCS_EINPUT;
	int n = r->c->n;
	if (n - 1 > CCS_SCHED_MAXSUCC) {
		*r->why = "star is for at most 65 ranks";
		return CCS_EINPUT;
	}
	struct ccs_dag *d = NULL;
	struct ccs_op op;
	memset(&op, 0, sizeof op);
	op.nic_src = op.nic_dst = UINT32_MAX;
	uint32_t mid, id;
	int rc = ccs_dag_new(&d);
	op.kind = CCS_OP_DELAY;
	if (!rc)
		rc = ccs_dag_op(d, &op, &mid);
	op.kind = CCS_OP_XFER;
	op.bytes = (double)r->bytes;
	for (int k = 1; k < n && !rc; k++) {
		op.src = k;
		op.dst = 0;
		op.delay_s = cc.lat_s;
		rc = ccs_dag_op(d, &op, &id);
		if (!rc)
			rc = ccs_dag_edge(d, id, mid);
		op.src = 0;
		op.dst = k;
		op.delay_s = 0;
		if (!rc)
			rc = ccs_dag_op(d, &op, &id);
		if (!rc)
			rc = ccs_dag_edge(d, mid, id);
	}
	if (!rc)
		rc = ccs_dag_take(&d, r->s, r->why);
	ccs_dag_free(d);
	if (rc == CCS_ENOMEM)
		*r->why = "out of memory";
	return rc;
}

