/*
** tests/fuzz/fuzz.h: what the harnesses share.  Each tests/fuzz/fuzz_NAME.c
** defines LLVMFuzzerTestOneInput for one reader and checks, after every
** input the reader accepts, that the result is self-consistent; a broken
** promise calls FUZZ_REQUIRE, which aborts (libFuzzer keeps the input as a
** crash).  `make fuzz` links each with libFuzzer (clang, ASan, UBSan and
** float-cast-overflow); `make test` links each with tests/fuzz/replay.c
** and runs the saved corpus and crash inputs through it.  Harnesses run
** from the repository root (they read topologies/hgx-h100.yaml).
*/
#ifndef CCS_FUZZ_H
#define CCS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

#define FUZZ_REQUIRE(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

/* data as a NUL-terminated copy (the caller frees). */
char *fuzz_text(const uint8_t *data, size_t n);
/* data written to a file of this process named with suffix (".yaml"),
 * under dir (made when missing); its path, valid until the next call. */
const char *fuzz_file(const uint8_t *data, size_t n, const char *dir, const char *suffix);
/* HGX H100's eight ranks (topologies/hgx-h100.yaml), built at the first
 * call and kept for the process: the communicator the schedule readers
 * load against. */
struct ccs_comm;
const struct ccs_comm *fuzz_hgx_h100(void);
/* A rejection must carry a message; one naming a position must name the
 * file it was given (src). */
void fuzz_check_diag(int rc, const char *msg, int set);

#endif
