/*
** sim/cli/run/mpi_abi.h: what ccsim asks of MPI, as a table of calls that
** the plugin bin/ccsim-mpi.so (sim/cli/mpi/plugin.c, built with mpicc only
** where mpicc is found) fills in.  bin/ccsim itself never links MPI: `run
** --mpi` loads the plugin (dlopen, RTLD_GLOBAL so Open MPI's own
** components find libmpi) and calls ccsim_mpi_ops().
** Messages are bytes with a tag; receives block.  Every call returns 0, or
** non-zero after MPI failed (the plugin has printed why).
*/
#ifndef CCS_MPI_ABI_H
#define CCS_MPI_ABI_H

#include <stddef.h>

#define CCS_MPI_ABI_VERSION 1
#define CCS_MPI_ANY (-1)

struct ccs_mpi_ops {
	int version;                /* CCS_MPI_ABI_VERSION */
	int (*init)(int *argc, char ***argv, int *rank, int *size);
	int (*send)(const void *buf, size_t n, int dest, int tag);
	/* a message from src (CCS_MPI_ANY: any rank) into buf[0..cap): its
	 * sender, tag and length */
	int (*recv)(void *buf, size_t cap, int src, int *from, int *tag, size_t *n);
	void (*finalize)(void);
	void (*abort)(int code);
};

typedef const struct ccs_mpi_ops *ccs_mpi_ops_fn(void);

#endif
