/*
 * The recording of `perfkit gpu record`, read back by `perfkit gpu report`:
 * the raw fdinfo text of every DRM fd of every scan, so that a report
 * replays the scans through the same tracker as the live view and any later
 * fix to parsing or utilization math applies to old recordings too.
 *
 * FORMAT (JSON Lines, version 1)
 *
 * UTF-8 text, one JSON object per line, each line ending in '\n' (a last
 * line without it is read if it is complete). Blank lines are ignored.
 * Times are nanoseconds of CLOCK_MONOTONIC unless named otherwise. Integers
 * are JSON integers (never 1e3 or 1.0). Readers ignore keys they do not know
 * and skip lines whose "type" they do not know; a change that old readers
 * would misread raises "version".
 *
 * Line 1, the header (always first):
 *   {"format":"perfkit-gpu-recording", "version":1,
 *    "clock":"CLOCK_MONOTONIC",          clock of every time_ns
 *    "interval_ns":N,                    requested scan period
 *    "start_realtime_ns":N,              CLOCK_REALTIME when recording began
 *    "start_monotonic_ns":N,             CLOCK_MONOTONIC at the same moment
 *    "hostname":"...", "perfkit":"0.1.0"}
 *   Only "format" and "version" are required.
 *
 * Then one line per device known from sysfs, before the first scan:
 *   {"type":"device", "key":"0000:03:00.0", "driver":"xe", "pdev":"0000:03:00.0",
 *    "vendor_id":32902, "device_id":22176, "subsys_vendor_id":N,
 *    "subsys_device_id":N, "revision":N, "vendor":"Intel Corporation",
 *    "name":"...", "accel":false,
 *    "nodes":[{"name":"card0","major":226,"minor":0}, ...]}
 *   Only "key" is required; ids are 0..2^32-1; at most 8 nodes.
 *
 * Then one line per scan:
 *   {"type":"scan", "seq":N, "time_ns":N,   scan number and start time
 *    "processes":N, "unreadable":N, "first_unreadable":PID, "vanished":N,
 *    "drm_fds":N, "fds_identified":N, "fdinfo_read":N, "malformed":N,
 *    "fds":[{"pid":N, "comm":"...", "fd":N, "major":N, "minor":N,
 *            "time_ns":N, "fdinfo":"<the text exactly as read>"}, ...]}
 *   "comm" is the process name with bytes that are not UTF-8 written as '?'.
 *   Required: "time_ns", "fds", and per fd "pid" (1..2^31-1), "fd"
 *   (0..2^31-1) and the text. The text is "fdinfo" when it is valid UTF-8,
 *   else "fdinfo_base64" (RFC 4648 base64 of the bytes). "major"/"minor" are
 *   -1 (or absent) when unknown; an fd without "time_ns" was read at the
 *   scan's time_ns. The counters are those of struct pk_gpu_scan_stats;
 *   absent ones are 0, except drm_fds and fdinfo_read (the number of fds)
 *   and malformed (recomputed from the texts).
 *
 * Limits a reader enforces (the file is untrusted input): a line is at most
 * 64 MiB and holds at most 2^20 JSON values; strings fit the fields of
 * include/perfkit/gpu.h (device key, driver, pdev < 64 bytes, comm and
 * hostname <= 256 bytes) and, except the fdinfo text, hold no NUL; times
 * and counters are non-negative and below 2^63. Any violation is an error
 * that names the byte offset of the line and the field ("scan line:
 * 'fds[2].pid' is not a positive integer"). No scan at all (an empty file,
 * or only a header) is a valid recording of nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <perfkit/gpu.h>
#include "recording_int.h"

/* ---- writer ------------------------------------------------------------------ */

struct pk_gpu_recorder {
	FILE *f;
	bool is_stdout;
	char *path;
	char *fbuf;          /* stdio buffer of f */
	int err;             /* first write error, -errno */
	int pending;         /* why an fd entry could not be buffered, -errno */
	json_object *fds;    /* this scan's fd entries, NULL when none */
};

/* Add @val under @key; false (and @val freed) on allocation failure. */
static bool jset(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return false;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return false;
	}
	return true;
}

static bool jset_u64(json_object *obj, const char *key, uint64_t v)
{
	return jset(obj, key, json_object_new_uint64(v));
}

static bool jset_i64(json_object *obj, const char *key, int64_t v)
{
	return jset(obj, key, json_object_new_int64(v));
}

static bool jset_str(json_object *obj, const char *key, const char *s)
{
	return jset(obj, key, json_object_new_string(s ? s : ""));
}

static int rec_fail(struct pk_gpu_recorder *rec, struct pk_diag *diag, int err)
{
	pk_diag_subject(diag, rec->path);
	if (err == -ENOMEM)
		return pk_diag_fail(diag, err, "out of memory");
	return pk_diag_fail(diag, err, "cannot write the recording: %s", strerror(-err));
}

/* Write @obj as one line; remembers the first write error. */
static int rec_write(struct pk_gpu_recorder *rec, json_object *obj)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(obj, REC_JSON_FLAGS, &len);

	if (!text)
		return -ENOMEM;
	if (rec->err)
		return rec->err;
	errno = 0;
	if (fwrite(text, 1, len, rec->f) != len || putc('\n', rec->f) == EOF)
		rec->err = errno ? -errno : -EIO;
	return rec->err;
}

static json_object *header_json(uint64_t interval_ns)
{
	json_object *o = json_object_new_object();
	struct timespec ts = { 0 };
	char host[257] = "";
	bool ok;

	if (!o)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	ok = jset_str(o, "format", REC_FORMAT) &&
	     jset_i64(o, "version", REC_VERSION) &&
	     jset_str(o, "clock", "CLOCK_MONOTONIC") &&
	     jset_u64(o, "interval_ns", interval_ns) &&
	     jset_u64(o, "start_realtime_ns", (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) &&
	     jset_u64(o, "start_monotonic_ns", pk_now_ns()) &&
	     jset_str(o, "hostname", utf8_valid(host, strlen(host)) ? host : "") &&
	     jset_str(o, "perfkit", PK_VERSION);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *device_json(const struct pk_gpu_device *d)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	bool ok = o && nodes;

	ok = ok && jset_str(o, "type", "device") && jset_str(o, "key", d->key) &&
	     jset_str(o, "driver", d->driver) && jset_str(o, "pdev", d->pdev) &&
	     jset_u64(o, "vendor_id", d->vendor_id) && jset_u64(o, "device_id", d->device_id) &&
	     jset_u64(o, "subsys_vendor_id", d->subsys_vendor_id) &&
	     jset_u64(o, "subsys_device_id", d->subsys_device_id) &&
	     jset_u64(o, "revision", d->revision) && jset_str(o, "vendor", d->vendor_name) &&
	     jset_str(o, "name", d->device_name) &&
	     jset(o, "accel", json_object_new_boolean(d->accel));
	for (uint32_t i = 0; ok && i < d->n_nodes && i < PK_GPU_MAX_NODES; i++) {
		json_object *n = json_object_new_object();

		ok = n && jset_str(n, "name", d->nodes[i].name) &&
		     jset_i64(n, "major", d->nodes[i].major) && jset_i64(n, "minor", d->nodes[i].minor);
		if (ok && json_object_array_add(nodes, n) != 0)
			ok = false;
		if (!ok)
			json_object_put(n);
	}
	if (ok) {
		ok = json_object_object_add(o, "nodes", nodes) == 0;
		if (ok)
			nodes = NULL;
	}
	json_object_put(nodes);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct pk_gpu_recorder *pk_gpu_rec_open(const char *path, const struct pk_gpu_device *devs,
					uint32_t n_devs, uint64_t interval_ns, struct pk_diag *diag)
{
	struct pk_gpu_recorder *rec;
	json_object *o;
	int err = 0;

	if (!path || (n_devs && !devs)) {
		pk_diag_fail(diag, -EINVAL, "invalid arguments");
		errno = EINVAL;
		return NULL;
	}
	rec = calloc(1, sizeof(*rec));
	if (!rec || !(rec->path = strdup(path))) {
		free(rec);
		pk_diag_subject(diag, path);
		pk_diag_fail(diag, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		rec->f = stdout;
		rec->is_stdout = true;
	} else {
		rec->f = fopen(path, "we");
		if (!rec->f) {
			err = -errno;
			pk_diag_subject(diag, path);
			pk_diag_fail(diag, err, "cannot create: %s", strerror(errno));
			goto fail;
		}
		rec->fbuf = malloc(REC_FILE_BUF);
		if (rec->fbuf)
			setvbuf(rec->f, rec->fbuf, _IOFBF, REC_FILE_BUF);
	}
	o = header_json(interval_ns);
	err = o ? rec_write(rec, o) : -ENOMEM;
	json_object_put(o);
	for (uint32_t i = 0; !err && i < n_devs; i++) {
		o = device_json(&devs[i]);
		err = o ? rec_write(rec, o) : -ENOMEM;
		json_object_put(o);
	}
	if (err) {
		rec_fail(rec, diag, err);
		goto fail;
	}
	return rec;
fail:
	if (rec->f && !rec->is_stdout)
		fclose(rec->f);
	free(rec->fbuf);
	free(rec->path);
	free(rec);
	errno = -err;
	return NULL;
}

/* @comm as valid UTF-8 of at most REC_STR_MAX bytes: invalid bytes become '?'. */
static json_object *comm_json(const char *comm)
{
	char out[REC_STR_MAX + 1];
	size_t n = comm ? strnlen(comm, REC_STR_MAX) : 0, o = 0;

	for (size_t i = 0, k; i < n; i += k) {
		k = utf8_seq((const unsigned char *)comm + i, n - i);
		if (!k) {
			out[o++] = '?';
			k = 1;
		} else {
			memcpy(out + o, comm + i, k);
			o += k;
		}
	}
	return json_object_new_string_len(out, (int)o);
}

int pk_gpu_rec_fdinfo(void *ctx, const struct pk_gpu_fd_sample *s, const char *text, size_t len)
{
	struct pk_gpu_recorder *rec = ctx;
	json_object *o;
	bool ok;

	if (!rec || !s || (len && !text))
		return -EINVAL;
	if (len > REC_LINE_MAX / 8) {
		rec->pending = -EFBIG;  /* a line a reader would refuse */
		return -EFBIG;
	}
	if (!rec->fds && !(rec->fds = json_object_new_array()))
		goto nomem;
	o = json_object_new_object();
	if (!o)
		goto nomem;
	ok = jset_i64(o, "pid", s->pid) && jset(o, "comm", comm_json(s->comm)) &&
	     jset_i64(o, "fd", s->fd) && jset_i64(o, "major", s->major) &&
	     jset_i64(o, "minor", s->minor) && jset_u64(o, "time_ns", s->time_ns);
	if (ok && utf8_valid(text, len))
		ok = jset(o, "fdinfo", json_object_new_string_len(text ? text : "", (int)len));
	else if (ok)
		ok = jset(o, "fdinfo_base64", b64_json((const unsigned char *)text, len));
	if (!ok || json_object_array_add(rec->fds, o) != 0) {
		json_object_put(o);
		goto nomem;
	}
	return 0;
nomem:
	rec->pending = -ENOMEM;
	return -ENOMEM;
}

int pk_gpu_rec_scan(struct pk_gpu_recorder *rec, const struct pk_gpu_snapshot *snap,
		    struct pk_diag *diag)
{
	const struct pk_gpu_scan_stats *st;
	json_object *o;
	bool ok;
	int err;

	if (!rec || !snap)
		return pk_diag_fail(diag, -EINVAL, "invalid arguments");
	if (rec->pending) {
		err = rec->pending;
		rec->pending = 0;
		json_object_put(rec->fds);
		rec->fds = NULL;
		if (err == -EFBIG)
			return pk_diag_fail(diag, err, "an fdinfo text longer than %zu MiB",
					    REC_LINE_MAX / 8 >> 20);
		return rec_fail(rec, diag, err);
	}
	st = &snap->stats;
	o = json_object_new_object();
	ok = o && jset_str(o, "type", "scan") && jset_u64(o, "seq", snap->seq) &&
	     jset_u64(o, "time_ns", snap->time_ns) && jset_u64(o, "processes", st->processes) &&
	     jset_u64(o, "unreadable", st->unreadable) &&
	     jset_i64(o, "first_unreadable", st->first_unreadable) &&
	     jset_u64(o, "vanished", st->vanished) && jset_u64(o, "drm_fds", st->drm_fds) &&
	     jset_u64(o, "fds_identified", st->fds_identified) &&
	     jset_u64(o, "fdinfo_read", st->fdinfo_read) && jset_u64(o, "malformed", st->malformed);
	if (ok && !rec->fds)
		rec->fds = json_object_new_array();
	if (ok && rec->fds) {
		ok = json_object_object_add(o, "fds", rec->fds) == 0;
		if (ok)
			rec->fds = NULL;        /* owned by o now */
	} else {
		ok = false;
	}
	err = ok ? rec_write(rec, o) : -ENOMEM;
	json_object_put(o);
	json_object_put(rec->fds);
	rec->fds = NULL;
	/* each scan reaches the file whole: a reader of a pipe sees it live, a kill loses no scan */
	if (!err && fflush(rec->f) != 0) {
		err = -errno;
		if (!rec->err)
			rec->err = err;
	}
	return err ? rec_fail(rec, diag, err) : 0;
}

int pk_gpu_rec_close(struct pk_gpu_recorder *rec, struct pk_diag *diag)
{
	int err;

	if (!rec)
		return 0;
	err = rec->err;
	if (fflush(rec->f) != 0 && !err)
		err = -errno;
	if (ferror(rec->f) && !err)
		err = -EIO;
	if (!rec->is_stdout && fclose(rec->f) != 0 && !err)
		err = -errno;
	if (err)
		rec_fail(rec, diag, err);
	json_object_put(rec->fds);
	free(rec->fbuf);
	free(rec->path);
	free(rec);
	return err;
}
