/*
 * The reader of the gpu recording (format: the top of recording.c): every
 * line checked as untrusted input, scans replayed through a tracker so
 * `perfkit gpu report` sees the snapshots `perfkit gpu` saw live.
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

/* ---- reader -------------------------------------------------------------------- */

/* One fd entry of a scan line, validated, pointing into the parsed line. */
struct rp_fd {
	pid_t pid;
	int fd, major, minor;
	uint64_t time_ns;
	const char *comm;
	json_object *text;      /* "fdinfo" or "fdinfo_base64" */
	bool base64;
};

struct rp {
	const char *name;
	struct pk_diag *diag;
	uint64_t off;               /* offset of the current line */
	const char *what;           /* "header", "device", "scan" */
	json_tokener *tok;
	struct pk_gpu_tracker *t;
	struct pk_gpu_device *devs;
	size_t devs_cap;
	uint32_t n_devs;
	bool have_header, scanning;
	struct pk_fdinfo fi;
	struct pk_buf raw;          /* decoded base64 text */
	struct rp_fd *fds;
	size_t fds_cap;
};

__attribute__((format(printf, 2, 3)))
static int bad(struct rp *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pk_diag_subject(r->diag, r->name);
	if (r->what)
		return PK_CORRUPT(r->diag, r->off, "%s line: %s", r->what, msg);
	return PK_CORRUPT(r->diag, r->off, "%s", msg);
}

/* Look up @key; *@v is NULL when it is absent or null. */
static json_object *field(json_object *obj, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

/*
 * The integer @pfx@key within [@lo, @hi] into *@out. Absent or null: an
 * error when @req, else *@out is left alone and 0 returned.
 */
static int get_int(struct rp *r, json_object *obj, const char *pfx, const char *key, bool req,
		   int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = field(obj, key);
	int64_t x;

	if (!v) {
		if (req)
			return bad(r, "'%s%s' is missing", pfx, key);
		return 0;
	}
	if (json_object_get_type(v) != json_type_int)
		goto type;
	x = json_object_get_int64(v);
	if (x == INT64_MAX && json_object_get_uint64(v) != (uint64_t)INT64_MAX)
		return bad(r, "'%s%s' is out of range", pfx, key);
	if (x < lo)
		goto type;
	if (x > hi)
		return bad(r, "'%s%s' is out of range (more than %lld)", pfx, key, (long long)hi);
	*out = x;
	return 0;
type:
	return bad(r, "'%s%s' is not %s", pfx, key, lo == 1 ? "a positive integer" :
		   lo == 0 ? "a non-negative integer" : "an integer");
}

static int get_u32(struct rp *r, json_object *obj, const char *key, uint32_t *out)
{
	int64_t x = *out;
	int err = get_int(r, obj, "", key, false, 0, UINT32_MAX, &x);

	*out = (uint32_t)x;
	return err;
}

/*
 * The string @pfx@key of fewer than @max bytes (0: no limit) without NUL
 * bytes (unless @nul_ok) into *@out and *@len. Absent or null: an error when
 * @req, else *@out is left alone.
 */
static int get_str(struct rp *r, json_object *obj, const char *pfx, const char *key, bool req,
		   size_t max, bool nul_ok, const char **out, size_t *len)
{
	json_object *v = field(obj, key);
	const char *s;
	size_t n;

	if (!v) {
		if (req)
			return bad(r, "'%s%s' is missing", pfx, key);
		return 0;
	}
	if (json_object_get_type(v) != json_type_string)
		return bad(r, "'%s%s' is not a string", pfx, key);
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (max && n >= max)
		return bad(r, "'%s%s' is longer than %zu bytes", pfx, key, max - 1);
	if (!nul_ok && memchr(s, '\0', n))
		return bad(r, "'%s%s' contains a NUL character", pfx, key);
	*out = s;
	if (len)
		*len = n;
	return 0;
}

/* Copy string @key into the char array @dst of @cap bytes. */
static int get_name(struct rp *r, json_object *obj, const char *pfx, const char *key, bool req,
		    char *dst, size_t cap)
{
	const char *s = NULL;
	size_t n = 0;
	int err = get_str(r, obj, pfx, key, req, cap, false, &s, &n);

	if (!err && s) {
		memcpy(dst, s, n);
		dst[n] = '\0';
	}
	return err;
}

static int rp_header(struct rp *r, json_object *o)
{
	const char *s = NULL;
	int64_t v = 0;
	int err;

	r->what = "header";
	err = get_str(r, o, "", "format", false, REC_STR_MAX, false, &s, NULL);
	if (err || !s)
		return bad(r, "not a perfkit gpu recording (the first line is not its header)");
	if (strcmp(s, REC_FORMAT) != 0)
		return bad(r, "unknown format '%s' (expected '%s')", s, REC_FORMAT);
	err = get_int(r, o, "", "version", true, 1, INT32_MAX, &v);
	if (err)
		return err;
	if (v > REC_VERSION)
		return bad(r, "recording version %lld is newer than this perfkit reads (%d); "
			   "a newer perfkit is needed", (long long)v, REC_VERSION);
	if ((err = get_str(r, o, "", "clock", false, REC_STR_MAX, false, &s, NULL)) ||
	    (err = get_str(r, o, "", "hostname", false, REC_STR_MAX + 1, false, &s, NULL)) ||
	    (err = get_str(r, o, "", "perfkit", false, REC_STR_MAX, false, &s, NULL)) ||
	    (err = get_int(r, o, "", "interval_ns", false, 0, INT64_MAX, &v)) ||
	    (err = get_int(r, o, "", "start_realtime_ns", false, 0, INT64_MAX, &v)) ||
	    (err = get_int(r, o, "", "start_monotonic_ns", false, 0, INT64_MAX, &v)))
		return err;
	r->have_header = true;
	return 0;
}

static int rp_device(struct rp *r, json_object *o)
{
	struct pk_gpu_device *d;
	json_object *nodes, *v;
	char pfx[64];
	int64_t x;
	int err;

	if (r->scanning)
		return bad(r, "device line after the first scan");
	if (r->n_devs >= REC_DEVICES_MAX)
		return bad(r, "more than %d devices", REC_DEVICES_MAX);
	if (pk_array_grow((void **)&r->devs, &r->devs_cap, r->n_devs + 1, sizeof(*r->devs), 4))
		return -ENOMEM;
	d = &r->devs[r->n_devs];
	memset(d, 0, sizeof(*d));
	if ((err = get_name(r, o, "", "key", true, d->key, sizeof(d->key))) ||
	    (err = get_name(r, o, "", "driver", false, d->driver, sizeof(d->driver))) ||
	    (err = get_name(r, o, "", "pdev", false, d->pdev, sizeof(d->pdev))) ||
	    (err = get_name(r, o, "", "vendor", false, d->vendor_name, sizeof(d->vendor_name))) ||
	    (err = get_name(r, o, "", "name", false, d->device_name, sizeof(d->device_name))) ||
	    (err = get_u32(r, o, "vendor_id", &d->vendor_id)) ||
	    (err = get_u32(r, o, "device_id", &d->device_id)) ||
	    (err = get_u32(r, o, "subsys_vendor_id", &d->subsys_vendor_id)) ||
	    (err = get_u32(r, o, "subsys_device_id", &d->subsys_device_id)) ||
	    (err = get_u32(r, o, "revision", &d->revision)))
		return err;
	if (!d->key[0])
		return bad(r, "'key' is empty");
	for (uint32_t i = 0; i < r->n_devs; i++)
		if (strcmp(r->devs[i].key, d->key) == 0)
			return bad(r, "device '%s' listed twice", d->key);
	if ((v = field(o, "accel"))) {
		if (json_object_get_type(v) != json_type_boolean)
			return bad(r, "'accel' is not a boolean");
		d->accel = json_object_get_boolean(v);
	}
	if ((nodes = field(o, "nodes"))) {
		size_t n;

		if (json_object_get_type(nodes) != json_type_array)
			return bad(r, "'nodes' is not an array");
		n = json_object_array_length(nodes);
		if (n > PK_GPU_MAX_NODES)
			return bad(r, "more than %d nodes", PK_GPU_MAX_NODES);
		for (size_t i = 0; i < n; i++) {
			json_object *no = json_object_array_get_idx(nodes, i);
			struct pk_gpu_node *nd = &d->nodes[i];

			snprintf(pfx, sizeof(pfx), "nodes[%zu].", i);
			if (json_object_get_type(no) != json_type_object)
				return bad(r, "'nodes[%zu]' is not an object", i);
			if ((err = get_name(r, no, pfx, "name", true, nd->name, sizeof(nd->name))))
				return err;
			x = -1;
			if ((err = get_int(r, no, pfx, "major", true, INT_MIN, INT_MAX, &x)))
				return err;
			nd->major = (int)x;
			if ((err = get_int(r, no, pfx, "minor", true, INT_MIN, INT_MAX, &x)))
				return err;
			nd->minor = (int)x;
		}
		d->n_nodes = (uint32_t)n;
	}
	r->n_devs++;
	return 0;
}

/* Validate fd entry @i of a scan line into r->fds[i]. */
static int rp_fd_entry(struct rp *r, json_object *e, size_t i, uint64_t scan_ns)
{
	struct rp_fd *f = &r->fds[i];
	char pfx[48];
	int64_t x;
	int err;

	snprintf(pfx, sizeof(pfx), "fds[%zu].", i);
	if (json_object_get_type(e) != json_type_object)
		return bad(r, "'fds[%zu]' is not an object", i);
	memset(f, 0, sizeof(*f));
	f->comm = "";
	if ((err = get_int(r, e, pfx, "pid", true, 1, INT_MAX, &x)))
		return err;
	f->pid = (pid_t)x;
	if ((err = get_int(r, e, pfx, "fd", true, 0, INT_MAX, &x)))
		return err;
	f->fd = (int)x;
	x = -1;
	if ((err = get_int(r, e, pfx, "major", false, INT_MIN, INT_MAX, &x)))
		return err;
	f->major = (int)x;
	x = -1;
	if ((err = get_int(r, e, pfx, "minor", false, INT_MIN, INT_MAX, &x)))
		return err;
	f->minor = (int)x;
	x = (int64_t)scan_ns;
	if ((err = get_int(r, e, pfx, "time_ns", false, 0, INT64_MAX, &x)))
		return err;
	f->time_ns = (uint64_t)x;
	if ((err = get_str(r, e, pfx, "comm", false, REC_STR_MAX + 1, false, &f->comm, NULL)))
		return err;
	if ((f->text = field(e, "fdinfo"))) {
		if (json_object_get_type(f->text) != json_type_string)
			return bad(r, "'%sfdinfo' is not a string", pfx);
	} else if ((f->text = field(e, "fdinfo_base64"))) {
		if (json_object_get_type(f->text) != json_type_string)
			return bad(r, "'%sfdinfo_base64' is not a string", pfx);
		f->base64 = true;
	} else {
		return bad(r, "'%sfdinfo' is missing", pfx);
	}
	return 0;
}

static int rp_scan(struct rp *r, json_object *o, pk_gpu_replay_fn fn, void *ctx)
{
	struct pk_gpu_scan_stats st = { 0 };
	bool has_malformed, has_drm_fds, has_read;
	uint32_t malformed = 0;
	json_object *fds;
	int64_t seq = 0, x = 0;
	size_t n;
	int err;

	if ((err = get_int(r, o, "", "seq", false, 0, INT64_MAX, &seq)) ||
	    (err = get_int(r, o, "", "time_ns", true, 0, INT64_MAX, &x)))
		return err;
	has_malformed = field(o, "malformed") != NULL;
	has_drm_fds = field(o, "drm_fds") != NULL;
	has_read = field(o, "fdinfo_read") != NULL;
	if ((err = get_u32(r, o, "processes", &st.processes)) ||
	    (err = get_u32(r, o, "unreadable", &st.unreadable)) ||
	    (err = get_u32(r, o, "vanished", &st.vanished)) ||
	    (err = get_u32(r, o, "drm_fds", &st.drm_fds)) ||
	    (err = get_u32(r, o, "fds_identified", &st.fds_identified)) ||
	    (err = get_u32(r, o, "fdinfo_read", &st.fdinfo_read)) ||
	    (err = get_u32(r, o, "malformed", &st.malformed)))
		return err;
	{
		int64_t fu = 0;

		if ((err = get_int(r, o, "", "first_unreadable", false, 0, INT_MAX, &fu)))
			return err;
		st.first_unreadable = (pid_t)fu;
	}
	fds = field(o, "fds");
	if (!fds)
		return bad(r, "'fds' is missing");
	if (json_object_get_type(fds) != json_type_array)
		return bad(r, "'fds' is not an array");
	n = json_object_array_length(fds);
	if (n > UINT32_MAX)
		return bad(r, "too many fds");
	if (n && pk_array_grow((void **)&r->fds, &r->fds_cap, n, sizeof(*r->fds), 16))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((err = rp_fd_entry(r, json_object_array_get_idx(fds, i), i, (uint64_t)x)))
			return err;

	/* the line is valid: replay it */
	if (!r->scanning) {
		err = pk_gpu_tracker_set_devices(r->t, r->devs, r->n_devs);
		if (err)
			return pk_diag_fail(r->diag, err, "cannot replay: %s", strerror(-err));
		r->scanning = true;
	}
	err = pk_gpu_tracker_begin(r->t, (uint64_t)x);
	for (size_t i = 0; !err && i < n; i++) {
		struct rp_fd *f = &r->fds[i];
		struct pk_gpu_fd_sample s;
		const char *text = json_object_get_string(f->text);
		size_t len = (size_t)json_object_get_string_len(f->text);

		if (f->base64) {
			err = b64_decode(text, len, &r->raw);
			if (err == -EINVAL)
				return bad(r, "'fds[%zu].fdinfo_base64' is not base64", i);
			if (err)
				break;
			text = r->raw.data ? r->raw.data : "";
			len = r->raw.len;
		}
		err = pk_fdinfo_parse(&r->fi, text, len);
		if (err == -ENOENT) {
			err = 0;
			continue;
		}
		if (err)
			break;
		malformed += r->fi.n_malformed;
		s = (struct pk_gpu_fd_sample){ .pid = f->pid, .comm = f->comm, .fd = f->fd,
					       .major = f->major, .minor = f->minor,
					       .time_ns = f->time_ns, .fdinfo = &r->fi };
		err = pk_gpu_tracker_add(r->t, &s);
	}
	if (!has_malformed)
		st.malformed = malformed;
	if (!has_drm_fds)
		st.drm_fds = (uint32_t)n;
	if (!has_read)
		st.fdinfo_read = (uint32_t)n;
	if (!err)
		err = pk_gpu_tracker_end(r->t, &st);
	if (err) {
		pk_diag_subject(r->diag, r->name);
		return pk_diag_fail(r->diag, err, "cannot replay: %s", strerror(-err));
	}
	return fn ? fn(ctx, pk_gpu_tracker_snapshot(r->t)) : 0;
}

/* Count the JSON values of a line cheaply (commas and openings outside strings). */
static size_t count_values(const char *p, size_t n)
{
	bool in_str = false;
	size_t values = 1;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == ',' || c == '[' || c == '{') {
			values++;
		}
	}
	return values;
}

static int rp_line(struct rp *r, const char *p, size_t n, bool last_unterminated,
		   pk_gpu_replay_fn fn, void *ctx)
{
	enum json_tokener_error jerr;
	json_object *o, *type;
	const char *t;
	size_t end, i;
	int err;

	r->what = NULL;
	for (i = 0; i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'); i++)
		;
	if (i == n)
		return 0;                       /* blank line */
	if (memchr(p, '\0', n))
		return bad(r, "NUL byte in a line");
	if (count_values(p, n) > REC_VALUES_MAX)
		return bad(r, "line holds more than %zu JSON values", REC_VALUES_MAX);
	json_tokener_reset(r->tok);
	o = json_tokener_parse_ex(r->tok, p, (int)n);
	jerr = json_tokener_get_error(r->tok);
	if (!o || jerr != json_tokener_success) {
		json_object_put(o);
		if (jerr == json_tokener_continue)
			return bad(r, last_unterminated ? "truncated line (the recording ends mid-line)"
				   : "incomplete JSON object");
		return bad(r, "not valid JSON (%s at column %zu)", json_tokener_error_desc(jerr),
			   json_tokener_get_parse_end(r->tok) + 1);
	}
	end = json_tokener_get_parse_end(r->tok);
	for (; end < n; end++)
		if (p[end] != ' ' && p[end] != '\t' && p[end] != '\r') {
			json_object_put(o);
			return bad(r, "text after the JSON object at column %zu", end + 1);
		}
	if (json_object_get_type(o) != json_type_object) {
		json_object_put(o);
		return bad(r, "not a JSON object");
	}
	if (!r->have_header) {
		err = rp_header(r, o);
		json_object_put(o);
		return err;
	}
	type = field(o, "type");
	if (!type || json_object_get_type(type) != json_type_string) {
		bool header = field(o, "format") != NULL;

		json_object_put(o);
		return bad(r, header ? "a second header (concatenated recordings?)"
			   : "'type' is missing or not a string");
	}
	t = json_object_get_string(type);
	err = 0;
	if (strcmp(t, "device") == 0) {
		r->what = "device";
		err = rp_device(r, o);
	} else if (strcmp(t, "scan") == 0) {
		r->what = "scan";
		err = rp_scan(r, o, fn, ctx);
	}                                       /* other types: a later version's, skipped */
	json_object_put(o);
	return err;
}

int pk_gpu_replay_mem(const char *buf, size_t len, const char *name, pk_gpu_replay_fn fn,
		      void *ctx, struct pk_diag *diag)
{
	struct rp r = { .name = name ? name : "", .diag = diag };
	size_t pos = 0;
	int err = 0;

	if (len && !buf)
		return pk_diag_fail(diag, -EINVAL, "invalid arguments");
	pk_fdinfo_init(&r.fi);
	pk_buf_init(&r.raw);
	r.tok = json_tokener_new_ex(REC_JSON_DEPTH);
	r.t = pk_gpu_tracker_new();
	if (!r.tok || !r.t) {
		err = pk_diag_fail(diag, -ENOMEM, "out of memory");
		goto out;
	}
	json_tokener_set_flags(r.tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	while (pos < len && !err) {
		size_t left = len - pos, n;
		const char *nl = memchr(buf + pos, '\n', left < REC_LINE_MAX + 1 ? left : REC_LINE_MAX + 1);

		r.off = pos;
		r.what = NULL;
		n = nl ? (size_t)(nl - (buf + pos)) : left;
		if (n > REC_LINE_MAX) {
			err = bad(&r, "line longer than %zu MiB", REC_LINE_MAX >> 20);
			break;
		}
		err = rp_line(&r, buf + pos, n, !nl, fn, ctx);
		pos += n + (nl != NULL);
	}
	if (err == -ENOMEM && diag && !diag->msg[0])
		pk_diag_fail(diag, err, "out of memory");
out:
	if (err && diag && !diag->subject[0])
		pk_diag_subject(diag, r.name);
	free(r.fds);
	free(r.devs);
	pk_buf_release(&r.raw);
	pk_fdinfo_release(&r.fi);
	if (r.tok)
		json_tokener_free(r.tok);
	pk_gpu_tracker_free(r.t);
	return err;
}

/* Read all of @fd into *@buf (malloc'ed). 0 or -errno. */
static int read_fd_all(int fd, char **buf, size_t *len)
{
	struct pk_buf b;
	int err = 0;

	pk_buf_init(&b);
	for (;;) {
		ssize_t n;

		err = pk_buf_reserve(&b, 65536);
		if (err)
			break;
		n = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
	}
	if (err) {
		pk_buf_release(&b);
		return err;
	}
	*buf = b.data;
	*len = b.len;
	return 0;
}

int pk_gpu_replay_file(const char *path, pk_gpu_replay_fn fn, void *ctx, struct pk_diag *diag)
{
	bool is_stdin = path && strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;
	void *map = MAP_FAILED;
	char *data = NULL;
	struct stat st;
	size_t len = 0;
	int fd, err;

	if (!path)
		return pk_diag_fail(diag, -EINVAL, "invalid arguments");
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pk_diag_subject(diag, name);
		return pk_diag_fail(diag, err, "cannot open: %s", strerror(-err));
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && !is_stdin &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		len = (size_t)st.st_size;
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	if (map == MAP_FAILED) {
		err = read_fd_all(fd, &data, &len);
		if (err) {
			if (!is_stdin)
				close(fd);
			pk_diag_subject(diag, name);
			return pk_diag_fail(diag, err, "cannot read: %s", strerror(-err));
		}
	}
	if (!is_stdin)
		close(fd);
	err = pk_gpu_replay_mem(map != MAP_FAILED ? map : data, len, name, fn, ctx, diag);
	if (map != MAP_FAILED)
		munmap(map, len);
	free(data);
	return err;
}
