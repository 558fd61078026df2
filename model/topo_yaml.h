/*
** model/topo_yaml.h: load a topology from YAML (the schema: docs/topology.md).
**
** The one module that includes <yaml.h>.  It reads the file into a tree with
** a position on every node, applies --set overrides (key.path=value, numeric
** path parts index sequences), checks every key and value, turns units into
** base units, fills a struct ccs_topo_spec and calls the generators.
** Any error leaves *out NULL and a message "file:line:col: what" in diag;
** errors in a --set value point into that argument ("--set 'k=v':1:col").
*/
#ifndef CCS_TOPO_YAML_H
#define CCS_TOPO_YAML_H

#include "topo.h"

/* Load the file at path.  sets[0..nsets) are "key.path=value" overrides,
 * applied before the build, and "faults+=SPEC" faults (model/fault.h),
 * applied after it and after the file's own 'faults'. */
int ccs_topo_yaml_load(const char *path, const char *const *sets, int nsets,
                       struct ccs_topo **out, struct ccs_diag *diag);

/* An NCCL topology dump at path as topology YAML (model/topo_xml.h): *yaml
 * and *warn (NULL: none) are the caller's to ccs_free; a file that is not
 * XML is refused at its first position. */
int ccs_topo_yaml_import(const char *path, char **yaml, char **warn, struct ccs_diag *diag);

/* The same from a buffer; name is used in messages. */
int ccs_topo_yaml_load_buf(const char *name, const char *buf, size_t len,
                           const char *const *sets, int nsets,
                           struct ccs_topo **out, struct ccs_diag *diag);

#endif
