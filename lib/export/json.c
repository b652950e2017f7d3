/*
 * JSON export: one document with the events and the aggregated call stacks.
 *
 * Schema (version 1):
 *
 *   {
 *     "format": "perfkit-stacks",
 *     "version": 1,
 *     "events": [                         one entry per event that had samples,
 *       { "name": "cpu-clock",              in the order they were first seen
 *         "unit": "nanoseconds",          unit of "period": "nanoseconds" or "count"
 *         "samples": 3006,                samples of this event
 *         "period": 601320240 }           sum of their periods
 *     ],
 *     "stacks": [                         one entry per distinct (event, comm, call chain)
 *       { "event": 0,                     index into "events"
 *         "comm": "pk-workload",          process (thread) name
 *         "count": 12,                    samples with exactly this stack
 *         "period": 2400480,              sum of their periods
 *         "frames": [                     root first, leaf last (the sampled ip)
 *           { "sym": "main",              symbol name, null when unresolved
 *             "dso": "/usr/bin/x",        object name as mapped, null when unmapped
 *             "addr": "0x1139" }          DSO-relative address (hex string: u64 exceeds
 *         ] }                             JSON's exact integer range)
 *     ]
 *   }
 *
 * Strings are escaped per RFC 8259; bytes that are not valid UTF-8 are
 * written as \u00XX (read as Latin-1) so the document is always valid.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "export/internal.h"

static int utf8_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	int n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)n > left)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	if (!s) {
		fputs("null", f);
		return;
	}
	len = strlen(s);
	fputc('"', f);
	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		int n;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c == '\n') {
			fputs("\\n", f);
			i++;
		} else if (c == '\t') {
			fputs("\\t", f);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if ((n = utf8_len(p + i, len - i)) > 0) {
			fwrite(p + i, 1, (size_t)n, f);
			i += (size_t)n;
		} else {
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', f);
}

int pk_exp_write_json(struct pk_export *e, FILE *f, struct pk_diag *d)
{
	const struct pk_exp_trie *t = &e->trie;
	uint32_t path[PK_EXP_MAX_STACK + 2];
	int first = 1;

	(void)d;
	fputs("{\n  \"format\": \"perfkit-stacks\",\n  \"version\": 1,\n  \"events\": [", f);
	for (uint32_t i = 0; i < e->nr_events; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		json_str(f, pk_exp_event_name(&e->events[i]));
		fputs(", \"unit\": ", f);
		json_str(f, pk_exp_event_unit(&e->events[i]));
		fprintf(f, ", \"samples\": %" PRIu64 ", \"period\": %" PRIu64 "}",
			e->events[i].samples, e->events[i].period);
	}
	fputs(e->nr_events ? "\n  ],\n  \"stacks\": [" : "],\n  \"stacks\": [", f);
	for (uint32_t i = 1; i < t->n; i++) {
		const struct pk_exp_node *nd = &t->nodes[i];
		uint32_t depth;

		if (!nd->count)
			continue;
		depth = pk_exp_path(t, i, path, PK_EXP_MAX_STACK + 2);
		fprintf(f, "%s\n    {\"event\": %u, \"comm\": ", first ? "" : ",",
			(unsigned)(t->nodes[path[0]].key >> 32));
		json_str(f, pk_exp_str(&e->str, (uint32_t)t->nodes[path[0]].key));
		fprintf(f, ", \"count\": %" PRIu64 ", \"period\": %" PRIu64 ", \"frames\": [",
			nd->count, nd->period);
		for (uint32_t k = 1; k < depth; k++) {
			const struct pk_exp_loc *l = &e->locs[t->nodes[path[k]].key];

			fputs(k > 1 ? ", {\"sym\": " : "{\"sym\": ", f);
			json_str(f, l->sym ? l->sym->name : NULL);
			fputs(", \"dso\": ", f);
			json_str(f, l->dso ? l->dso->name : NULL);
			fprintf(f, ", \"addr\": \"0x%" PRIx64 "\"}", l->sym || l->dso ? l->addr : l->ip);
		}
		fputs("]}", f);
		first = 0;
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
	return 0;
}
