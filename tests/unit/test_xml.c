/*
** tests/unit/test_xml.c: the XML reader (model/xml.c) on documents written
** here: elements in document order with parent, first and last child and
** next sibling, attributes by name, 1-based line and column of each start
** tag, text and comments dropped; refusals at name:line:col for a document
** that is not well-formed or empty, and for one nested deeper than 64.
*/
#include "../check.h"

#include "../../model/xml.h"

#include <stdio.h>
#include <string.h>

static void test_tree(void)
{
	const char *text = "<?xml version=\"1.0\"?>\n"
	                   "<algo name=\"a\" ngpus=\"2\">\n"
	                   "  <!-- a comment -->\n"
	                   "  <gpu id=\"0\">text<tb id=\"0\"/>\n"
	                   "    <tb id=\"1\" chan=\"3\"></tb></gpu>\n"
	                   "  <gpu id=\"1\"/>\n"
	                   "</algo>\n";
	struct ccs_xml x;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_xml_is(text, strlen(text)));
	CHECK(!ccs_xml_is("name: yaml\n", 11));
	int rc = ccs_xml_parse("a.xml", text, strlen(text), &x, &d);
	CHECK(rc == CCS_OK);
	if (rc)
		return;
	/* algo, gpu 0, tb 0, tb 1, gpu 1 */
	CHECK(x.nn == 5);
	const struct ccs_xml_node *n = x.n;
	CHECK(!strcmp(n[0].name, "algo") && n[0].parent == -1 && n[0].child == 1 && n[0].last == 4 && n[0].next == -1);
	CHECK(n[0].line == 2 && n[0].col == 1);
	CHECK(!strcmp(n[1].name, "gpu") && n[1].parent == 0 && n[1].child == 2 && n[1].last == 3 && n[1].next == 4);
	CHECK(n[1].line == 4 && n[1].col == 3);
	CHECK(!strcmp(n[2].name, "tb") && n[2].parent == 1 && n[2].child == -1 && n[2].next == 3);
	CHECK(n[2].line == 4 && n[2].col == 19);
	CHECK(n[3].parent == 1 && n[3].next == -1 && n[3].line == 5 && n[3].col == 5);
	CHECK(n[4].parent == 0 && n[4].next == -1 && n[4].child == -1);
	const char *chan = ccs_xml_attr(&n[3], "chan"), *id = ccs_xml_attr(&n[3], "id");
	CHECK(chan && !strcmp(chan, "3") && id && !strcmp(id, "1"));
	CHECK(ccs_xml_attr(&n[3], "send") == NULL);
	CHECK(!strcmp(ccs_xml_attr(&n[0], "name"), "a"));
	ccs_xml_release(&x);
}

/* text is refused with a message that starts with at */
static void refused(const char *text, const char *at)
{
	struct ccs_xml x;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_xml_parse("b.xml", text, strlen(text), &x, &d);
	int ok = rc == CCS_EINPUT && strstr(d.msg, at) == d.msg;
	if (!ok)
		printf("refusal of <%s>: rc %d, '%s' (want '%s')\n", text, rc, d.msg, at);
	CHECK(ok);
	if (rc == CCS_OK)
		ccs_xml_release(&x);
}

static void test_refusals(void)
{
	refused("<algo>\n  <gpu>\n</algo>\n", "b.xml:3:");
	refused("<algo a=\"1\" a=\"2\"/>\n", "b.xml:1:");
	refused("", "b.xml");
	refused("<a/><b/>\n", "b.xml:1:");
	char deep[70 * 7 + 1];
	size_t k = 0;
	for (int i = 0; i < 70; i++)
		k += (size_t)snprintf(deep + k, sizeof deep - k, "<e>");
	for (int i = 0; i < 70; i++)
		k += (size_t)snprintf(deep + k, sizeof deep - k, "</e>");
	refused(deep, "b.xml:1:");
}

int main(void)
{
	test_tree();
	test_refusals();
	return CHECK_DONE("test_xml");
}
