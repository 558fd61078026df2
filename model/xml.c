/* model/xml.c: XML text to a tree of positioned elements (xml.h); the one
** file that includes <expat.h>. */
#include "xml.h"

#include <ctype.h>
#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define XML_MAX_NODES 4000000
#define XML_MAX_DEPTH 64

struct build {
	struct ccs_xml *x;
	XML_Parser p;
	int cur, depth, err;        /* err: -1 too big or deep, -2 out of memory */
};

static int add_node(struct build *b, const char *name, const char **atts)
{
	struct ccs_xml *x = b->x;
	if (x->nn >= XML_MAX_NODES || b->depth >= XML_MAX_DEPTH)
		return -1;
	if (ccs_grow(&x->n, &x->cap, x->nn + 1, sizeof *x->n))
		return -2;
	int na = 0;
	while (atts[na])
		na++;
	const char **at = ccs_arena_alloc(&x->a, (size_t)(na + 1) * sizeof *at);
	const char *nm = ccs_arena_strdup(&x->a, name);
	if (!at || !nm)
		return -2;
	for (int i = 0; i < na; i++)
		if (!(at[i] = ccs_arena_strdup(&x->a, atts[i])))
			return -2;
	at[na] = NULL;
	int id = (int)x->nn++;
	struct ccs_xml_node *e = &x->n[id];
	e->name = nm;
	e->attr = at;
	e->line = (int)XML_GetCurrentLineNumber(b->p);
	e->col = (int)XML_GetCurrentColumnNumber(b->p) + 1;
	e->parent = b->cur;
	e->child = e->next = e->last = -1;
	if (b->cur >= 0) {
		struct ccs_xml_node *p = &x->n[b->cur];
		if (p->last >= 0)
			x->n[p->last].next = id;
		else
			p->child = id;
		p->last = id;
	}
	b->cur = id;
	b->depth++;
	return 0;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	struct build *b = ud;
	if (b->err)
		return;
	int rc = add_node(b, name, atts);
	if (rc) {
		b->err = rc;
		XML_StopParser(b->p, XML_FALSE);
	}
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	struct build *b = ud;
	(void)name;
	if (b->err || b->cur < 0)
		return;
	b->cur = b->x->n[b->cur].parent;
	b->depth--;
}

int ccs_xml_parse(const char *name, const char *text, size_t len, struct ccs_xml *x, struct ccs_diag *d)
{
	memset(x, 0, sizeof *x);
	ccs_arena_init(&x->a);
	struct build b = { x, XML_ParserCreate(NULL), -1, 0, 0 };
	if (!b.p) {
		ccs_arena_release(&x->a);
		return CCS_ENOMEM;
	}
	XML_SetUserData(b.p, &b);
	XML_SetElementHandler(b.p, on_start, on_end);
	int rc = CCS_OK;
	if (XML_Parse(b.p, text, (int)(len > 0x7fffffff ? 0x7fffffff : len), XML_TRUE) == XML_STATUS_ERROR || b.err) {
		int line = (int)XML_GetCurrentLineNumber(b.p), col = (int)XML_GetCurrentColumnNumber(b.p) + 1;
		if (b.err == -2)
			(void)ccs_diag_msg(d, "%s: out of memory", name), rc = CCS_ENOMEM;
		else if (b.err == -1)
			rc = ccs_diag_msg(d, "%s:%d:%d: more than %d elements or deeper than %d", name, line, col, XML_MAX_NODES,
			                  XML_MAX_DEPTH);
		else
			rc = ccs_diag_msg(d, "%s:%d:%d: not well-formed XML: %s", name, line, col,
			                  XML_ErrorString(XML_GetErrorCode(b.p)));
	} else if (!x->nn) {
		rc = ccs_diag_msg(d, "%s:1:1: an empty XML document", name);
	}
	XML_ParserFree(b.p);
	if (rc)
		ccs_xml_release(x);
	return rc;
}

void ccs_xml_release(struct ccs_xml *x)
{
	ccs_free(x->n);
	ccs_arena_release(&x->a);
	memset(x, 0, sizeof *x);
}

const char *ccs_xml_attr(const struct ccs_xml_node *e, const char *k)
{
	for (int i = 0; e->attr[i]; i += 2)
		if (!strcmp(e->attr[i], k))
			return e->attr[i + 1];
	return NULL;
}

int ccs_xml_is(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	return i < len && text[i] == '<';
}

int ccs_xml_at(struct ccs_diag *d, const char *name, const struct ccs_xml_node *e, const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ccs_diag_msg(d, "%s:%d:%d: <%s>: %s", name, e->line, e->col, e->name, buf);
}
