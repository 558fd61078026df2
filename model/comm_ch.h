/*
** model/comm_ch.h: a communicator's NIC figures for a channel count of its
** own.  The closed form asks, for C channels, the rings' network rate
**   B_ring(C) = C x min over groups, NICs and directions of bw / k
** and the trees' busiest NIC and phase tg(C), tph(C) (model/ring_nic.h);
** the communicator places them for NCCL's count ring_C at build, and a
** call with another count (a tuner's or the user's) places them here once
** and keeps them in c->ch.
*/
#ifndef CCS_COMM_CH_H
#define CCS_COMM_CH_H

#include "comm.h"

/* B_ring, tg and tph with C channels into *out: kept in c->ch, else placed
 * on the first call for C and kept (the one write through a const
 * communicator: the same values whoever asks; counts above CCS_COMM_CH_MAX
 * are placed each time).  CCS_ENOMEM. */
int ccs_comm_ch_at(const struct ccs_comm *c, int C, struct ccs_comm_ch *out);

#endif
