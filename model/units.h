/*
** model/units.h: quantities with units, as users write them.
**
** A quantity is a decimal number, optional blanks, and a unit:
**   bandwidth  <prefix><b|B>/s  or <prefix><b|B>ps     -> bytes/second
**   time       ps ns us (or µs) ms s                   -> seconds
**   size       B, <prefix>B                             -> bytes
** Prefixes: k K M G T P are powers of 1000; Ki Mi Gi Ti Pi are powers of 1024.
** 'b' is a bit, 'B' a byte: 400Gb/s = 400e9/8 B/s = 50e9 B/s,
** 450GB/s = 450e9 B/s, 16MiB = 16 * 2^20 B.  Written exactly so, never guessed:
** a bare number where a unit is needed is an error, and so is a unit of the
** wrong kind (a time where a bandwidth is needed).
** Bandwidths must be > 0; times and sizes >= 0; all finite.  Limits
** (docs/topology.md): a bandwidth at least 1 kB/s, a time at most 1000 s, a
** size at most 2^53 bytes (8 PiB, exact in a double); past them the input is
** refused, so that simulated times stay inside int64 picoseconds.
*/
#ifndef CCS_UNITS_H
#define CCS_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum ccs_qty { CCS_QTY_BW, CCS_QTY_TIME, CCS_QTY_SIZE };

#define CCS_QTY_MIN_BPS 1e3
#define CCS_QTY_MAX_S   1e3
#define CCS_QTY_MAX_B   9007199254740992.0   /* 2^53 */

/* Parse s as a quantity of kind q.  On success store the value in base units
 * (B/s, s, or B as a double) and return 0.  On failure write a message without
 * position to err (lowercase, quoting s) and return -1. */
int ccs_parse_qty(const char *s, enum ccs_qty q, double *out, char *err, size_t errn);

/* Sizes as exact byte counts (must be a whole number of bytes). */
int ccs_parse_size(const char *s, uint64_t *out, char *err, size_t errn);

/* Formatting for reports, with 3-4 significant digits, decimal prefixes:
 * "450 GB/s", "400 Gb/s" (bits), "1.5 us", "16 MiB" (binary for sizes). */
void ccs_fmt_Bps(double Bps, char *buf, size_t n);
void ccs_fmt_bps(double Bps, char *buf, size_t n);
void ccs_fmt_time(double s, char *buf, size_t n);
void ccs_fmt_size(double bytes, char *buf, size_t n);

#endif
