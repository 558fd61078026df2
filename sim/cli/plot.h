/*
** sim/cli/plot.h: gnuplot output.  ccsim writes a NAME.dat (the numbers, with a
** header line of column names) and a NAME.gp (the script) next to each
** other, then runs `gnuplot NAME.gp` in that folder, which draws NAME.png
** (pngcairo) and NAME.svg from the same commands; users restyle the .gp
** and run it again.  gnuplot is needed at run time only: without it the
** .dat and .gp are still written and the caller says so.
*/
#ifndef CCS_PLOT_H
#define CCS_PLOT_H

#include <stdio.h>

/* Whether gnuplot can be run (looked up on PATH once). */
int ccs_plot_have_gnuplot(void);

/* Write dir/name.gp: a terminal header for PNG, body, then the same for SVG
 * (body must not set terminal or output).  0, or -1 with a message. */
int ccs_plot_script(const char *dir, const char *name, const char *title, const char *body);

/* Run gnuplot on dir/name.gp in dir: 0 when it exited 0 and both images
 * exist; -1 with gnuplot's message on stderr. */
int ccs_plot_render(const char *dir, const char *name);

/* name made safe for a file name: [A-Za-z0-9._-], others to '-', runs
 * of '-' squeezed, at most n - 1 bytes. */
void ccs_plot_slug(const char *in, char *out, size_t n);

/* The files of dir whose names end in ext (".png"), as "dir/name", sorted
 * by name: 0 (none is fine, also no dir), -1 out of memory.  The caller
 * frees each and the array (ccs_free), also after -1. */
int ccs_plot_list(const char *dir, const char *ext, char ***paths, size_t *n);

/* s quoted for a gnuplot string in double quotes (backslashes, quotes,
 * and '_' '^' '@' '&' that the enhanced text mode would interpret). */
void ccs_plot_quote(FILE *f, const char *s);

#endif
