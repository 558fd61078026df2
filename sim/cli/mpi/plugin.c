/*
** sim/cli/mpi/plugin.c: bin/ccsim-mpi.so, MPI behind the table of
** sim/cli/run/mpi_abi.h; built by the Makefile with mpicc where mpicc is
** found (Open MPI from Debian: openmpi-bin, libopenmpi-dev), nowhere else.
*/
#include "../run/mpi_abi.h"

#include <mpi.h>
#include <stdio.h>

static int ok(int rc, const char *what)
{
	if (rc == MPI_SUCCESS)
		return 0;
	char msg[MPI_MAX_ERROR_STRING];
	int n = 0;
	MPI_Error_string(rc, msg, &n);
	fprintf(stderr, "ccsim: MPI: %s: %.*s\n", what, n, msg);
	return 1;
}

static int init(int *argc, char ***argv, int *rank, int *size)
{
	if (ok(MPI_Init(argc, argv), "MPI_Init"))
		return 1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	return ok(MPI_Comm_rank(MPI_COMM_WORLD, rank), "MPI_Comm_rank") || ok(MPI_Comm_size(MPI_COMM_WORLD, size), "MPI_Comm_size");
}

static int send(const void *buf, size_t n, int dest, int tag)
{
	return ok(MPI_Send(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD), "MPI_Send");
}

static int recv(void *buf, size_t cap, int src, int *from, int *tag, size_t *n)
{
	MPI_Status st;
	if (ok(MPI_Recv(buf, (int)cap, MPI_BYTE, src == CCS_MPI_ANY ? MPI_ANY_SOURCE : src, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
	       "MPI_Recv"))
		return 1;
	int c = 0;
	MPI_Get_count(&st, MPI_BYTE, &c);
	*from = st.MPI_SOURCE;
	*tag = st.MPI_TAG;
	*n = (size_t)c;
	return 0;
}

static void finalize(void)
{
	MPI_Finalize();
}

static void abort_(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

static const struct ccs_mpi_ops ops = { CCS_MPI_ABI_VERSION, init, send, recv, finalize, abort_ };

const struct ccs_mpi_ops *ccsim_mpi_ops(void);
const struct ccs_mpi_ops *ccsim_mpi_ops(void)
{
	return &ops;
}
