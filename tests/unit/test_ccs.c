/* tests/unit/test_ccs.c: the base helpers of model/ccs.h: reading a whole
** stream (the one reader behind topology files and saved logs). */
#include "../check.h"
#include "../../model/ccs.h"

#include <string.h>

/* A stream of n bytes, 'a' + i % 26, read back with limit max: the
 * status, and on success the length, the bytes and the NUL after them. */
static int read_n(size_t n, size_t max, size_t *len)
{
	FILE *f = tmpfile();
	if (!f)
		return -1;
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	rewind(f);
	char *b = (char *)"x";
	int rc = ccs_stream_read(f, max, &b, len);
	fclose(f);
	if (rc == CCS_OK) {
		int same = b[*len] == 0;
		for (size_t i = 0; i < *len && same; i++)
			same = b[i] == 'a' + (int)(i % 26);
		ccs_free(b);
		return same ? CCS_OK : -2;
	}
	return b == NULL ? rc : -3;   /* nothing handed back on failure */
}

int main(void)
{
	size_t len = 0;
	/* empty, small, and across the buffer's growth (64 KiB, then doubling) */
	CHECK(read_n(0, 0, &len) == CCS_OK && len == 0);
	CHECK(read_n(100, 0, &len) == CCS_OK && len == 100);
	CHECK(read_n(65535, 0, &len) == CCS_OK && len == 65535);
	CHECK(read_n(65536, 0, &len) == CCS_OK && len == 65536);
	CHECK(read_n(300000, 0, &len) == CCS_OK && len == 300000);
	/* a limit refuses max bytes or more, exactly, below and above the
	 * first buffer */
	CHECK(read_n(99, 100, &len) == CCS_OK && len == 99);
	CHECK(read_n(100, 100, &len) == CCS_EINPUT);
	CHECK(read_n(131071, 131072, &len) == CCS_OK && len == 131071);
	CHECK(read_n(131072, 131072, &len) == CCS_EINPUT);
	CHECK(read_n(500000, 131072, &len) == CCS_EINPUT);
	/* a stream that cannot be read (a directory) is CCS_EIO */
	FILE *d = fopen(".", "rb");
	if (d) {
		char *b = NULL;
		CHECK(ccs_stream_read(d, 0, &b, &len) == CCS_EIO && b == NULL);
		fclose(d);
	}
	return CHECK_DONE("test_ccs");
}
