/*
** model/xml.h: an XML document as a tree of elements with their attributes
** and positions, for the readers of NCCL topology dumps (topo_xml.c) and
** MSCCL algorithms (sim/sched/msccl.c); the one user of expat.
**
** Elements are nodes 0..n-1 in document order, node 0 the root; each knows
** its parent, first and last child and next sibling (-1: none), its name, its
** attributes as key, value pairs ending in NULL, and the 1-based line and
** column of its start tag.  Text and comments are dropped.  Limits: 4,000,000
** elements, 64 levels (a bigger or deeper file is refused, positioned).
*/
#ifndef CCS_XML_H
#define CCS_XML_H

#include "ccs.h"

#include <stddef.h>

struct ccs_xml_node {
	const char *name;
	const char **attr;          /* key, value, ..., NULL */
	int line, col;
	int parent, child, next;
	int last;                   /* the last child, -1 none (appending in O(1)) */
};

struct ccs_xml {
	struct ccs_arena a;
	struct ccs_xml_node *n;
	size_t nn, cap;
};

/* Parse text[0..len) named name.  CCS_EINPUT with d at name:line:col (not
 * well-formed, empty, too big), CCS_ENOMEM; nothing to release then. */
int  ccs_xml_parse(const char *name, const char *text, size_t len, struct ccs_xml *x, struct ccs_diag *d);
void ccs_xml_release(struct ccs_xml *x);
/* Whether text (its first non-blank byte) looks like XML. */
int ccs_xml_is(const char *text, size_t len);
/* "name:line:col: <elem>: message" for element e into d; CCS_EINPUT. */
int ccs_xml_at(struct ccs_diag *d, const char *name, const struct ccs_xml_node *e, const char *fmt, ...) CCS_PRINTF(4, 5);
/* The value of attribute k of e, NULL when absent. */
const char *ccs_xml_attr(const struct ccs_xml_node *e, const char *k);

#endif
