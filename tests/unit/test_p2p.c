/*
** tests/unit/test_p2p.c: model/p2p.h's round order (NCCL's ncclP2pSchedule)
** on 16 ranks over 2 nodes of 8, 24 over 3, 12 over 2 nodes of 6 and 16 over
** 4 of 4: gs = gcd(8, the nodes' sizes); every round a permutation that
** never sends to the rank itself; receiving the inverse of sending; every
** rank reaching every other exactly once in its m = n - 1 rounds.
*/
#include "../check.h"

#include "../../model/ccs.h"
#include "../../model/p2p.h"

#include <string.h>

static void check_order(int n, const int32_t *sizes, int nnodes, int gs)
{
	struct ccs_p2p_order o;
	CHECK(ccs_p2p_order_init(&o, n, sizes, nnodes) == CCS_OK);
	CHECK(o.n == n && o.m == n - 1 && o.gs == gs && o.nG == n / gs);
	int bad = 0;
	unsigned char seen[64][64];
	memset(seen, 0, sizeof seen);
	for (int k = 0; k < o.m; k++) {
		unsigned char hit[64] = { 0 };
		for (int r = 0; r < n; r++) {
			int p = ccs_p2p_peer(&o, r, k, 1);
			bad += p < 0 || p >= n || p == r;           /* never itself */
			bad += hit[p]++;                              /* a permutation */
			bad += ccs_p2p_peer(&o, p, k, -1) != r;      /* receive: the inverse */
			seen[r][p]++;
		}
	}
	for (int r = 0; r < n; r++)
		for (int p = 0; p < n; p++)
			bad += seen[r][p] != (r != p);               /* every peer once */
	CHECK(bad == 0);
	ccs_p2p_order_release(&o);
}

int main(void)
{
	const int32_t two[] = { 8, 8 }, three[] = { 8, 8, 8 }, six[] = { 6, 6 }, four[] = { 4, 4, 4, 4 };
	check_order(16, two, 2, 8);
	check_order(24, three, 3, 8);
	check_order(12, six, 2, 2);    /* gcd(8, 6) */
	check_order(16, four, 4, 4);
	return CHECK_DONE("test_p2p");
}
