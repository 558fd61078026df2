/* sim/cli/plot.c: .gp scripts and running gnuplot (plot.h). */
#define _DEFAULT_SOURCE
#include "plot.h"

#include "../../model/ccs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int ccs_plot_have_gnuplot(void)
{
	static int have = -1;
	if (have >= 0)
		return have;
	have = 0;
	const char *path = getenv("PATH");
	if (!path)
		return have;
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char p[4200];
		snprintf(p, sizeof p, "%s/gnuplot", *d ? d : ".");
		if (!access(p, X_OK)) {
			have = 1;
			break;
		}
	}
	return have;
}

void ccs_plot_slug(const char *in, char *out, size_t n)
{
	size_t k = 0;
	for (const char *p = in; *p && k + 1 < n; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
		if (!ok)
			c = '-';
		if (c == '-' && (k == 0 || out[k - 1] == '-'))
			continue;
		out[k++] = c;
	}
	while (k && out[k - 1] == '-')
		k--;
	out[k] = 0;
	if (!k)
		snprintf(out, n, "x");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ccs_plot_list(const char *dir, const char *ext, char ***paths, size_t *n)
{
	size_t cap = 0, el = strlen(ext);
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(dp))) {
		size_t l = strlen(e->d_name);
		if (l <= el || strcmp(e->d_name + l - el, ext))
			continue;
		if (ccs_grow(paths, &cap, *n + 1, sizeof **paths) || !((*paths)[*n] = ccs_malloc(strlen(dir) + l + 2)))
			rc = -1;
		else
			sprintf((*paths)[(*n)++], "%s/%s", dir, e->d_name);
	}
	closedir(dp);
	qsort(*paths, *n, sizeof **paths, by_name);
	return rc;
}

void ccs_plot_quote(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);   /* a line break in a title */
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '_' || *s == '^' || *s == '@' || *s == '&' || *s == '{' || *s == '}')
			fputs("\\\\", f);
		fputc(*s, f);
	}
}

int ccs_plot_script(const char *dir, const char *name, const char *title, const char *body)
{
	char path[2048];
	snprintf(path, sizeof path, "%s/%s.gp", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "ccsim: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# %s: written by ccsim; edit and run `gnuplot %s.gp` in this folder to redraw\n", name, name);
	fprintf(f, "set title \"");
	ccs_plot_quote(f, title);
	fprintf(f, "\" noenhanced\nset key outside right top\nset grid\n");
	fprintf(f, "set terminal pngcairo size 1100,650 font 'sans,11'\nset output '%s.png'\n%s\n", name, body);
	fprintf(f, "set terminal svg size 1100,650 dynamic font 'sans,11'\nset output '%s.svg'\nreplot\nset output\n",
	        name);
	if (fclose(f)) {
		fprintf(stderr, "ccsim: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int ccs_plot_render(const char *dir, const char *name)
{
	char gp[1200], errp[2048];
	snprintf(gp, sizeof gp, "%s.gp", name);
	snprintf(errp, sizeof errp, "%s/%s.gnuplot-errors", dir, name);
	fflush(stdout);
	fflush(stderr);
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		int fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		if (chdir(dir))
			_exit(126);
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0) {
			dup2(nul, 1);
			close(nul);
		}
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	char img[2100];
	struct stat sb;
	for (int k = 0; k < 2 && ok; k++) {
		snprintf(img, sizeof img, "%s/%s.%s", dir, name, k ? "svg" : "png");
		ok = !stat(img, &sb) && sb.st_size > 0;
	}
	if (ok) {
		unlink(errp);
		return 0;
	}
	FILE *f = fopen(errp, "r");
	fprintf(stderr, "ccsim: gnuplot failed on %s/%s.gp (its messages: %s)\n", dir, name, errp);
	if (f) {
		/* gnuplot's own line: "FILE" line N: message */
		char line[512];
		while (fgets(line, sizeof line, f))
			if (strstr(line, "\" line "))
				fprintf(stderr, "  %s", line);
		fclose(f);
	}
	return -1;
}
