/*
** tests/fuzz/replay.c: a harness without libFuzzer: runs every file named
** on the command line (or each file of a named folder) through
** LLVMFuzzerTestOneInput once.  `make test` replays the corpus and the
** crash inputs this way under the test build's sanitizers; prints
** "fuzz NAME: N inputs replayed".
*/
#include "fuzz.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);
	for (size_t r; b && (r = fread(b + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	if (!b)
		return -1;
	LLVMFuzzerTestOneInput(b, n);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			n += replay_file(argv[i]) == 0;
			continue;
		}
		DIR *d = opendir(argv[i]);
		for (struct dirent *e; d && (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
			n += replay_file(p) == 0;
		}
		if (d)
			closedir(d);
	}
	const char *name = strrchr(argv[0], '/');
	printf("fuzz %s: %d inputs replayed\n", name ? name + 1 : argv[0], n);
	return 0;
}
