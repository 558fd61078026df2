/*
** model/escape.h: text that ccsim writes: UTF-8 kept whole, JSON and CSV
** fields escaped.
**
** Messages quote what users wrote, cut to fit a buffer; a cut must not split
** a multi-byte character.  JSON strings escape '"', '\' and control bytes
** (RFC 8259, section 7); CSV fields holding ',', '"' or a line break are
** quoted with '"' doubled (RFC 4180, section 2).  The escapers write into
** the caller's buffer and never split a character or an escape: a text too
** long for it ends in "..." and stays valid.
*/
#ifndef CCS_ESCAPE_H
#define CCS_ESCAPE_H

#include <stddef.h>

/* Drop, in place, any multi-byte UTF-8 sequence that is cut short, and turn
 * bytes that cannot start one into '?'. */
void ccs_escape_utf8_fix(char *s);

/* s as the inside of a JSON string (no quotes) in buf; returns buf. */
const char *ccs_escape_json(const char *s, char *buf, size_t n);

/* s as one CSV field (quoted where it must be) in buf; returns buf. */
const char *ccs_escape_csv(const char *s, char *buf, size_t n);

#endif
