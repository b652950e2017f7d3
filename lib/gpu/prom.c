/*
 * The Prometheus text exposition (format 0.0.4) of a GPU snapshot, the body
 * `perfkit gpu serve` answers a scrape with.
 *
 * Every family is written as "# HELP", "# TYPE", then its samples; a
 * per-client family with no sample is left out. One series per DRM client,
 * labelled
 *   device     the device key (pdev for PCI devices)
 *   driver     drm-driver
 *   pid, comm  the lowest pid holding the client and its name
 *   client_id  drm-client-id, or "pid<P>-fd<F>" of the first holder when the
 *              file has none (such clients are one per fd, so this keeps
 *              series unique)
 * plus "engine" or "region". Counters carry the effective (never
 * decreasing) values the tracker keeps, so a counter that dips in fdinfo
 * never makes Prometheus see a reset. Values are printed exactly: integers
 * as integers, seconds as ns / 1e9 with nine decimals computed in integers.
 *
 * Label values are escaped as the format requires (backslash, double quote,
 * newline) and must be UTF-8: a byte that does not start or continue a valid
 * UTF-8 sequence (process names are arbitrary bytes) becomes U+FFFD, since
 * Prometheus rejects the whole scrape otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/gpu.h>

static const char *const mem_kind_names[PK_MEM_KINDS] = {
	"total", "shared", "resident", "purgeable", "active",
};

/* Length of the valid UTF-8 sequence at @s (of @n bytes), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Append @v as the inside of a quoted label value. */
static int put_label_value(struct pk_buf *out, const char *v)
{
	const unsigned char *s = (const unsigned char *)(v ? v : "");
	size_t n = strlen((const char *)s);
	int err = 0;

	while (n && !err) {
		size_t run = 0, l;

		/* copy the longest run that needs no escaping at once */
		while (run < n && s[run] != '\\' && s[run] != '"' && s[run] != '\n' &&
		       (l = utf8_seq_len(s + run, n - run)) != 0)
			run += l;
		if (run) {
			err = pk_buf_append(out, s, run);
			s += run;
			n -= run;
			continue;
		}
		if (*s == '\\')
			err = pk_buf_append(out, "\\\\", 2);
		else if (*s == '"')
			err = pk_buf_append(out, "\\\"", 2);
		else if (*s == '\n')
			err = pk_buf_append(out, "\\n", 2);
		else
			err = pk_buf_append(out, "\xef\xbf\xbd", 3);
		s++;
		n--;
	}
	return err;
}

static int put_family(struct pk_buf *out, const char *name, const char *type, const char *help)
{
	return pk_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static const char *client_device_key(const struct pk_gpu_snapshot *s, const struct pk_gpu_client *c)
{
	if (c->device < s->n_devices && s->devices[c->device].dev)
		return s->devices[c->device].dev->key;
	return c->pdev ? c->pdev : "";
}

/* "{device=...,client_id=...," (the caller adds its own label and the "}"). */
static int put_client_labels(struct pk_buf *out, const struct pk_gpu_snapshot *s,
			     const struct pk_gpu_client *c)
{
	char id[64];
	int err;

	if (c->has_client_id)
		snprintf(id, sizeof(id), "%" PRIu64, c->client_id);
	else if (c->n_holders)
		snprintf(id, sizeof(id), "pid%d-fd%d", (int)c->holders[0].pid, c->holders[0].fd);
	else
		snprintf(id, sizeof(id), "pid%d", (int)c->pid);

	if ((err = pk_buf_append(out, "{device=\"", 9)) ||
	    (err = put_label_value(out, client_device_key(s, c))) ||
	    (err = pk_buf_append(out, "\",driver=\"", 10)) ||
	    (err = put_label_value(out, c->driver)) ||
	    (err = pk_buf_printf(out, "\",pid=\"%d\",comm=\"", (int)c->pid)) ||
	    (err = put_label_value(out, c->comm)) ||
	    (err = pk_buf_append(out, "\",client_id=\"", 13)) ||
	    (err = put_label_value(out, id)))
		return err;
	return pk_buf_append(out, "\",", 2);
}

/* Engine families: which engines carry the value, and how it is printed. */
enum engine_value { EV_SECONDS, EV_CYCLES, EV_TOTAL_CYCLES, EV_CAPACITY, EV_MAXFREQ };

static const struct {
	const char *name, *type, *help;
	enum engine_value what;
} engine_families[] = {
	{ "perfkit_gpu_engine_busy_seconds_total", "counter",
	  "Time the engine spent busy with the client's work (drm-engine-<engine>).", EV_SECONDS },
	{ "perfkit_gpu_engine_busy_cycles_total", "counter",
	  "Busy cycles of the engine for the client (drm-cycles-<engine>).", EV_CYCLES },
	{ "perfkit_gpu_engine_total_cycles_total", "counter",
	  "GPU timestamp advancing at the rate of the busy cycles (drm-total-cycles-<engine>).",
	  EV_TOTAL_CYCLES },
	{ "perfkit_gpu_engine_capacity", "gauge",
	  "Identical engines behind the engine name (drm-engine-capacity-<engine>, 1 when absent).",
	  EV_CAPACITY },
	{ "perfkit_gpu_engine_max_frequency_hertz", "gauge",
	  "Maximum frequency of the engine (drm-maxfreq-<engine>).", EV_MAXFREQ },
};

static bool engine_has(const struct pk_gpu_engine_use *e, enum engine_value what)
{
	switch (what) {
	case EV_SECONDS: return e->raw.fields & PK_ENGINE_NS;
	case EV_CYCLES: return e->raw.fields & PK_ENGINE_CYCLES;
	case EV_TOTAL_CYCLES: return e->raw.fields & PK_ENGINE_TOTAL_CYCLES;
	case EV_CAPACITY: return true;
	case EV_MAXFREQ: return e->raw.fields & PK_ENGINE_MAXFREQ;
	}
	return false;
}

static int put_engine_value(struct pk_buf *out, const struct pk_gpu_engine_use *e,
			    enum engine_value what)
{
	switch (what) {
	case EV_SECONDS:
		return pk_buf_printf(out, "%" PRIu64 ".%09" PRIu64 "\n", e->ns / 1000000000u,
				     e->ns % 1000000000u);
	case EV_CYCLES:
		return pk_buf_printf(out, "%" PRIu64 "\n", e->cycles);
	case EV_TOTAL_CYCLES:
		return pk_buf_printf(out, "%" PRIu64 "\n", e->total_cycles);
	case EV_CAPACITY:
		return pk_buf_printf(out, "%" PRIu32 "\n", e->raw.capacity ? e->raw.capacity : 1);
	case EV_MAXFREQ:
		return pk_buf_printf(out, "%" PRIu64 "\n", e->raw.maxfreq_hz);
	}
	return -EINVAL;
}

static int write_engine_family(const struct pk_gpu_snapshot *s, size_t f, struct pk_buf *out)
{
	bool any = false;
	int err;

	for (uint32_t i = 0; i < s->n_clients && !any; i++)
		for (uint32_t j = 0; j < s->clients[i].n_engines && !any; j++)
			any = engine_has(&s->clients[i].engines[j], engine_families[f].what);
	if (!any)
		return 0;
	err = put_family(out, engine_families[f].name, engine_families[f].type,
			 engine_families[f].help);
	for (uint32_t i = 0; i < s->n_clients && !err; i++) {
		const struct pk_gpu_client *c = &s->clients[i];

		for (uint32_t j = 0; j < c->n_engines && !err; j++) {
			const struct pk_gpu_engine_use *e = &c->engines[j];

			if (!engine_has(e, engine_families[f].what))
				continue;
			if ((err = pk_buf_append(out, engine_families[f].name,
						 strlen(engine_families[f].name))) ||
			    (err = put_client_labels(out, s, c)) ||
			    (err = pk_buf_append(out, "engine=\"", 8)) ||
			    (err = put_label_value(out, e->raw.name)) ||
			    (err = pk_buf_append(out, "\"} ", 3)))
				break;
			err = put_engine_value(out, e, engine_families[f].what);
		}
	}
	return err;
}

static int write_memory_family(const struct pk_gpu_snapshot *s, enum pk_gpu_mem_kind k,
			       struct pk_buf *out)
{
	static const char *const help[PK_MEM_KINDS] = {
		"Size of all buffers the client requested in the region, shared and private (drm-total-<region>).",
		"Size of the client's buffers in the region shared with another file (drm-shared-<region>).",
		"Size of the client's buffers resident in the region (drm-resident-<region>).",
		"Size of the client's resident buffers in the region that are purgeable (drm-purgeable-<region>).",
		"Size of the client's buffers in the region active on an engine (drm-active-<region>).",
	};
	char name[64];
	bool any = false;
	int err;

	for (uint32_t i = 0; i < s->n_clients && !any; i++)
		for (uint32_t j = 0; j < s->clients[i].n_memory && !any; j++)
			any = s->clients[i].memory[j].fields & (1u << k);
	if (!any)
		return 0;
	snprintf(name, sizeof(name), "perfkit_gpu_memory_%s_bytes", mem_kind_names[k]);
	err = put_family(out, name, "gauge", help[k]);
	for (uint32_t i = 0; i < s->n_clients && !err; i++) {
		const struct pk_gpu_client *c = &s->clients[i];

		for (uint32_t j = 0; j < c->n_memory && !err; j++) {
			const struct pk_fdinfo_region *r = &c->memory[j];

			if (!(r->fields & (1u << k)))
				continue;
			if ((err = pk_buf_append(out, name, strlen(name))) ||
			    (err = put_client_labels(out, s, c)) ||
			    (err = pk_buf_append(out, "region=\"", 8)) ||
			    (err = put_label_value(out, r->name)))
				break;
			err = pk_buf_printf(out, "\"} %" PRIu64 "\n", r->bytes[k]);
		}
	}
	return err;
}

static int write_scan_gauges(const struct pk_gpu_snapshot *s, struct pk_buf *out)
{
	int err;

	err = put_family(out, "perfkit_gpu_clients", "gauge",
			 "DRM clients of the device (open DRM files, each counted once).");
	for (uint32_t i = 0; i < s->n_devices && !err; i++) {
		const struct pk_gpu_device_view *d = &s->devices[i];

		if (!d->dev)
			continue;
		if ((err = pk_buf_append(out, "perfkit_gpu_clients{device=\"", 28)) ||
		    (err = put_label_value(out, d->dev->key)) ||
		    (err = pk_buf_append(out, "\",driver=\"", 10)) ||
		    (err = put_label_value(out, d->dev->driver)))
			break;
		err = pk_buf_printf(out, "\"} %" PRIu32 "\n", d->n_clients);
	}
	if (err)
		return err;
	err = put_family(out, "perfkit_gpu_processes_unreadable", "gauge",
			 "Processes whose file descriptors could not be read (run as root or with CAP_SYS_PTRACE).");
	if (!err)
		err = pk_buf_printf(out, "perfkit_gpu_processes_unreadable %" PRIu32 "\n",
				    s->stats.unreadable);
	if (!err)
		err = put_family(out, "perfkit_gpu_drm_fds", "gauge",
				 "DRM file descriptors found by the scan.");
	if (!err)
		err = pk_buf_printf(out, "perfkit_gpu_drm_fds %" PRIu32 "\n", s->stats.drm_fds);
	return err;
}

int pk_gpu_prom_write(const struct pk_gpu_snapshot *s, struct pk_buf *out)
{
	size_t start = out->len;
	int err = 0;

	for (size_t f = 0; f < sizeof(engine_families) / sizeof(engine_families[0]) && !err; f++)
		err = write_engine_family(s, f, out);
	for (int k = 0; k < PK_MEM_KINDS && !err; k++)
		err = write_memory_family(s, (enum pk_gpu_mem_kind)k, out);
	if (!err)
		err = write_scan_gauges(s, out);
	if (err) {
		/* leave @out as it was rather than half a scrape */
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
	}
	return err;
}
