/*
** model/topo_state.c: a topology's state put aside and back (topo_state.h).
*/
#include "topo_state.h"

#include "ccs.h"

#include <string.h>

struct ccs_topo_state {
	uint32_t ndev, nlink, ngpu, nfault, ntimed;
	struct ccs_dev *dev;
	struct ccs_link *link;
	struct ccs_gpu *gpu;
	struct ccs_model_params params;
	const char **fault;
	struct ccs_timed_fault *timed;
};

void ccs_topo_state_free(struct ccs_topo_state *s)
{
	if (!s)
		return;
	ccs_free(s->dev);
	ccs_free(s->link);
	ccs_free(s->gpu);
	ccs_free(s);
}

/* n elements of size sz from src into a new copy at *dst (NULL for 0). */
static int dup_array(void **dst, const void *src, size_t n, size_t sz)
{
	*dst = NULL;
	if (!n)
		return 0;
	if (!(*dst = ccs_malloc(n * sz)))
		return CCS_ENOMEM;
	memcpy(*dst, src, n * sz);
	return 0;
}

int ccs_topo_state_save(const struct ccs_topo *t, struct ccs_topo_state **out)
{
	struct ccs_topo_state *s = ccs_calloc(1, sizeof *s);
	*out = NULL;
	if (!s)
		return CCS_ENOMEM;
	s->ndev = t->ndev;
	s->nlink = t->nlink;
	s->ngpu = t->ngpu;
	s->params = t->params;
	/* the lists live in the arena and faults only ever append copies:
	 * the pointers and counts are enough */
	s->fault = t->fault;
	s->nfault = t->nfault;
	s->timed = t->timed;
	s->ntimed = t->ntimed;
	if (dup_array((void **)&s->dev, t->dev, t->ndev, sizeof *t->dev) ||
	    dup_array((void **)&s->link, t->link, t->nlink, sizeof *t->link) ||
	    dup_array((void **)&s->gpu, t->gpu, t->ngpu, sizeof *t->gpu)) {
		ccs_topo_state_free(s);
		return CCS_ENOMEM;
	}
	*out = s;
	return 0;
}

int ccs_topo_state_restore(struct ccs_topo *t, const struct ccs_topo_state *s)
{
	if (s->ndev != t->ndev || s->nlink != t->nlink || s->ngpu != t->ngpu)
		return CCS_EINPUT;   /* not saved from this topology */
	if (s->ndev)
		memcpy(t->dev, s->dev, s->ndev * sizeof *t->dev);
	if (s->nlink)
		memcpy(t->link, s->link, s->nlink * sizeof *t->link);
	if (s->ngpu)
		memcpy(t->gpu, s->gpu, s->ngpu * sizeof *t->gpu);
	t->params = s->params;
	t->fault = s->fault;
	t->nfault = s->nfault;
	t->timed = s->timed;
	t->ntimed = s->ntimed;
	return ccs_topo_refresh(t);
}
