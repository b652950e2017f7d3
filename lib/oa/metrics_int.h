/*
 * Private interface between the metric file loader (metrics.c) and the scan
 * that finds one set's bytes without parsing the rest (metrics_scan.c).
 */
#ifndef PERFKIT_OA_METRICS_INT_H
#define PERFKIT_OA_METRICS_INT_H

#include <stddef.h>

/* One <set> element of a metric file: its bytes [start, end), its first line. */
struct oa_set_span {
	size_t start, end;
	unsigned line;
};

/*
 * The <set> children of the root <metrics> of @buf whose start tag holds
 * @key (ASCII, case-insensitive), in file order, into *@spans (malloc'ed,
 * NULL when none) and *@n. Every set pk_oa_metrics_find_set(@key) could find
 * is among them when the file is well formed: its start tag holds the
 * attribute value literally. 0; -ENOTSUP when the file cannot be split that
 * way with certainty (a DOCTYPE, an encoding other than UTF-8, a reference
 * in a set's start tag, a key with markup characters, an unclosed
 * construct, another root); -ENOMEM.
 */
int oa_metrics_scan_sets(const char *buf, size_t len, const char *key, struct oa_set_span **spans,
			 size_t *n);

#endif
