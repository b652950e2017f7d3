/*
 * Live capture of an i915 OA stream into IGT's recording format.
 *
 * Discovery: the first @sys_root/class/drm/cardN whose device/driver link
 * names i915; its node @dev_root/dri/cardN (renderD when the card node will
 * not open). The device is described with the i915 uapi
 * (/usr/include/libdrm/i915_drm.h):
 *
 *   what                        how
 *   PCI id, revision            DRM_IOCTL_I915_GETPARAM I915_PARAM_CHIPSET_ID, _REVISION
 *   OA timestamp frequency      _GETPARAM I915_PARAM_OA_TIMESTAMP_FREQUENCY (57, Linux 5.19+),
 *                               else I915_PARAM_CS_TIMESTAMP_FREQUENCY, else the platform's
 *   topology                    DRM_IOCTL_I915_QUERY DRM_I915_QUERY_TOPOLOGY_INFO, twice:
 *                               the length, then the data
 *   GT min/max frequency        sysfs cardN/gt_min_freq_mhz, gt_max_freq_mhz (MHz)
 *   metric set id               sysfs cardN/metrics/<GUID>/id
 *   GPU timestamp               DRM_IOCTL_I915_REG_READ 0x2358 | I915_REG_READ_8B_WA
 *
 * The stream: DRM_IOCTL_I915_PERF_OPEN with the properties SAMPLE_OA = 1,
 * OA_METRICS_SET, OA_FORMAT, OA_EXPONENT (and POLL_OA_PERIOD when asked,
 * i915 perf revision 5 and later) and the flags FD_CLOEXEC | FD_NONBLOCK;
 * the ioctl returns the stream's fd, read with poll + read(). Each read()
 * returns whole records {u32 type; u16 pad; u16 size} (SAMPLE,
 * OA_REPORT_LOST, OA_BUFFER_LOST), copied into the recording as they are,
 * the way IGT's i915-perf-recorder does (gpu.md 1.7). In circular-buffer
 * mode they go to a ring (lib/oa/ring.c) instead, written out at the end
 * (over the header and first correlation point the file holds meanwhile)
 * and on pk_oa_capture_snapshot.
 *
 * Every kernel call goes through the struct pk_oa_dev_ops of lib/oa/device.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdrm/i915_drm.h>
#include <perfkit/oa.h>

#include "capture_int.h"
#include "ring_int.h"

/* ---- the stream ------------------------------------------------------------------- */

struct pk_oa_capture {
	struct pk_oa_device *dev;
	const struct pk_oa_capture_opts *o;
	struct pk_oa_capture_stats *st;
	const char *path;
	int out_fd;
	int stream_fd;
	struct pk_buf header;          /* VERSION, DEVICE_INFO, TOPOLOGY */
	struct pk_buf buf;             /* records not yet in the file (or the ring) */
	uint64_t buf_reports;          /* SAMPLE records in buf */
	struct oa_ring ring;           /* circular-buffer mode (data set): the records kept */
	uint8_t *chunk;
	size_t chunk_size;
	unsigned enospc_in_a_row;
};

static bool in_ring_mode(const struct pk_oa_capture *c)
{
	return c->ring.data != NULL;
}

/* Why the kernel refused the stream, in the user's terms. */
static int open_failed(struct pk_oa_capture *c, int err, uint64_t metric_id, int format, int exponent,
		       struct pk_diag *diag)
{
	const struct pk_oa_format_info *fi = pk_oa_format_info(format);
	uint64_t poll_ns = OPT(c->o, poll_period_ns, 0);
	char path[PATH_MAX], line[32] = "", poll[40] = "";

	pk_diag_subject(diag, c->dev->node);
	switch (err) {
	case -EACCES:
	case -EPERM:
		pk_path_fmt(path, sizeof(path), "%s/sys/dev/i915/perf_stream_paranoid", c->dev->proc_root);
		c->dev->ops.sysfs_read(c->dev->ops.ctx, path, line, sizeof(line));
		if (line[0] == '0' && !line[1] && c->st->period_ns < 10000) {
			pk_diag_fail(diag, err, "the kernel refused a sampling period of %llu ns: %s",
				     (unsigned long long)c->st->period_ns, strerror(-err));
			pk_diag_hint(diag, "choose a longer period with -p, raise /proc/sys/dev/i915/oa_max_sample_rate, or run as root");
		} else {
			pk_diag_fail(diag, err, "no permission to open an i915 perf stream%s%s%s: %s",
				     line[0] ? " (perf_stream_paranoid is " : "", line,
				     line[0] ? ")" : "", strerror(-err));
			pk_diag_hint(diag, "set /proc/sys/dev/i915/perf_stream_paranoid to 0 or run as root");
		}
		break;
	case -EINVAL:
		if (poll_ns)
			snprintf(poll, sizeof(poll), ", poll period %llu us", (unsigned long long)poll_ns / 1000);
		pk_diag_fail(diag, err, "the kernel refused the OA stream: metric set id %llu, format %d (%s), exponent %d%s",
			     (unsigned long long)metric_id, format, fi ? fi->name : "unknown", exponent, poll);
		pk_diag_hint(diag, "the metric set must be one of %s/metrics, the format one this GPU produces, and the exponent at most %d",
			     c->dev->card_dir, PK_OA_EXPONENT_MAX);
		break;
	case -ENODEV:
	case -ENOTTY:
		pk_diag_fail(diag, err, "this GPU or kernel has no i915 perf (OA) support: %s", strerror(-err));
		break;
	case -EBUSY:
		pk_diag_fail(diag, err, "another i915 perf stream is open: %s", strerror(-err));
		pk_diag_hint(diag, "i915 allows one OA stream at a time: stop the other recorder first");
		break;
	default:
		pk_diag_fail(diag, err, "cannot open the i915 perf stream: %s", strerror(-err));
	}
	return err;
}

static int open_stream(struct pk_oa_capture *c, uint64_t metric_id, int format, int exponent,
		       struct pk_diag *diag)
{
	uint64_t poll_ns = OPT(c->o, poll_period_ns, 0);
	uint64_t props[] = {
		DRM_I915_PERF_PROP_SAMPLE_OA, 1,
		DRM_I915_PERF_PROP_OA_METRICS_SET, metric_id,
		DRM_I915_PERF_PROP_OA_FORMAT, (uint64_t)format,
		DRM_I915_PERF_PROP_OA_EXPONENT, (uint64_t)exponent,
		DRM_I915_PERF_PROP_POLL_OA_PERIOD, poll_ns,
	};
	struct drm_i915_perf_open_param param = {
		.flags = I915_PERF_FLAG_FD_CLOEXEC | I915_PERF_FLAG_FD_NONBLOCK,
		.num_properties = sizeof(props) / sizeof(props[0]) / 2 - (poll_ns ? 0 : 1),
		.properties_ptr = (uintptr_t)props,
	};
	int fd;

	if (poll_ns && poll_ns < PK_OA_POLL_PERIOD_MIN_NS)
		return pk_diag_fail(diag, -EINVAL, "a poll period of %llu ns is below the driver's minimum of %llu us",
				    (unsigned long long)poll_ns, PK_OA_POLL_PERIOD_MIN_NS / 1000);
	if (poll_ns && c->dev->perf_revision < PERF_REVISION_POLL_PERIOD) {
		pk_diag_subject(diag, c->dev->node);
		pk_diag_fail(diag, -EOPNOTSUPP, "this kernel's i915 perf (revision %d) takes no poll period: revision %d added it",
			     c->dev->perf_revision, PERF_REVISION_POLL_PERIOD);
		pk_diag_hint(diag, "leave the poll period out: the driver then looks every 5 ms");
		return -EOPNOTSUPP;
	}
	fd = c->dev->ops.ioctl(c->dev->ops.ctx, c->dev->fd, DRM_IOCTL_I915_PERF_OPEN, &param);
	if (fd < 0)
		return open_failed(c, fd, metric_id, format, exponent, diag);
	c->stream_fd = fd;
	return 0;
}

/*
 * The length of the whole records at the start of the first @done bytes of
 * @p, and (*@samples) the SAMPLE records among them.
 */
static size_t whole_records(const uint8_t *p, size_t done, uint64_t *samples)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record rec;
	struct pk_diag d;
	size_t end = 0;

	*samples = 0;
	pk_diag_init(&d);
	pk_oa_record_iter_init(&it, p, done);
	while (pk_oa_record_next(&it, &rec, &d) == 1) {
		end = it.pos;
		*samples += rec.type == PK_OA_RECORD_SAMPLE;
	}
	return end;
}

/*
 * Append @len bytes of whole records to @fd, now @at bytes long. When a
 * write fails (a full disk, a size limit), the file is cut back to the last
 * record that went out whole, so that it ends with whole records and stays
 * readable. *@kept: the bytes of @p the file holds; when it failed,
 * *@kept_samples: the SAMPLE records among them (the caller knows them
 * otherwise).
 */
static int write_records(int fd, off_t at, const uint8_t *p, size_t len, size_t *kept,
			 uint64_t *kept_samples)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			*kept = whole_records(p, off, kept_samples);
			if (*kept != off && ftruncate(fd, at + (off_t)*kept) == 0)
				lseek(fd, at + (off_t)*kept, SEEK_SET);
			return err;
		}
		off += (size_t)n;
	}
	*kept = len;
	return 0;
}

static int write_failed(const char *path, int err, uint64_t reports, struct pk_diag *diag)
{
	pk_diag_subject(diag, path);
	pk_diag_fail(diag, err, "cannot write the recording: %s", strerror(-err));
	if (reports)
		pk_diag_hint(diag, "the file keeps the %llu reports written before, whole records",
			     (unsigned long long)reports);
	return err;
}

/*
 * What is buffered goes to the file, or in circular-buffer mode to the
 * ring. When a write fails, the records that did not fit are dropped: the
 * small last correlation point may still fit after them, which IGT's
 * reader needs after the last report.
 */
static int flush_out(struct pk_oa_capture *c, struct pk_diag *diag)
{
	const uint8_t *p = (const uint8_t *)c->buf.data;
	uint64_t samples = 0;
	size_t kept;
	int err = 0;

	if (in_ring_mode(c)) {
		oa_ring_append(&c->ring, p, c->buf.len);
	} else if (c->buf.len) {
		err = write_records(c->out_fd, (off_t)c->st->file_bytes, p, c->buf.len, &kept, &samples);
		c->st->file_bytes += kept;
		c->st->reports_written += err ? samples : c->buf_reports;
		if (err)
			write_failed(c->path, err, c->st->reports_written, diag);
	}
	c->buf.len = 0;
	c->buf_reports = 0;
	return err;
}

/*
 * In circular-buffer mode the file holds, until the end writes the ring
 * over it, the header and what is buffered (the first correlation point):
 * a recorder killed (SIGKILL) before the end leaves a recording of its
 * device and no reports, not an empty file. Written at offset 0, leaving
 * the file offset there for the end.
 */
static int write_placeholder(struct pk_oa_capture *c, struct pk_diag *diag)
{
	size_t kept = 0, kept_buf = 0;
	uint64_t samples;
	int err;

	err = write_records(c->out_fd, 0, (const uint8_t *)c->header.data, c->header.len, &kept, &samples);
	if (!err)
		err = write_records(c->out_fd, (off_t)kept, (const uint8_t *)c->buf.data, c->buf.len,
				    &kept_buf, &samples);
	if (err)
		return write_failed(c->path, err, 0, diag);
	if (lseek(c->out_fd, 0, SEEK_SET) < 0)
		return write_failed(c->path, -errno, 0, diag);
	return 0;
}

/* Correlation point @k into the recording. */
static int put_correlation(struct pk_oa_capture *c, const struct pk_oa_correlation *k, struct pk_diag *diag)
{
	int err = pk_oa_write_correlation(&c->buf, k->cpu_ns, k->gpu_ts);

	if (err)
		return pk_diag_fail(diag, err, "out of memory");
	c->st->correlations++;
	return 0;
}

/* A correlation point taken now, into the recording. */
static int correlate(struct pk_oa_capture *c, struct pk_diag *diag)
{
	struct pk_oa_correlation k;
	int err = pk_oa_device_correlation(c->dev, OPT(c->o, cpu_clock, PK_OA_CLOCK_MONOTONIC), &k, diag);

	return err ? err : put_correlation(c, &k, diag);
}

/*
 * One read() chunk: its records checked and appended. The kernel only
 * returns whole records; one that is not is an -EIO, with the offset.
 */
static int take_chunk(struct pk_oa_capture *c, size_t len, struct pk_diag *diag)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record rec;
	struct pk_diag d;
	int r, err = 0;

	pk_diag_init(&d);
	pk_oa_record_iter_init(&it, c->chunk, len);
	while ((r = pk_oa_record_next(&it, &rec, &d)) == 1) {
		switch (rec.type) {
		case PK_OA_RECORD_SAMPLE:
			err = pk_oa_write_sample(&c->buf, rec.payload, rec.payload_len);
			c->st->reports++;
			c->buf_reports++;
			break;
		case PK_OA_RECORD_REPORT_LOST:
			err = pk_oa_write_lost(&c->buf, rec.type);
			c->st->reports_lost++;
			break;
		case PK_OA_RECORD_BUFFER_LOST:
			err = pk_oa_write_lost(&c->buf, rec.type);
			c->st->buffers_lost++;
			break;
		default:
			pk_diag_subject(diag, c->dev->node);
			return pk_diag_fail(diag, -EIO, "the i915 perf stream returned a record of type %u",
					    rec.type);
		}
		if (err)
			return pk_diag_fail(diag, err, "out of memory");
	}
	if (r < 0) {
		pk_diag_subject(diag, c->dev->node);
		return pk_diag_fail(diag, -EIO, "the i915 perf stream returned a malformed record: %s", d.msg);
	}
	return 0;
}

/* One read(): 1 when it gave data, 0 when there was none, or -errno. */
static int read_once(struct pk_oa_capture *c, struct pk_diag *diag)
{
	ssize_t n = c->dev->ops.read(c->dev->ops.ctx, c->stream_fd, c->chunk, c->chunk_size);
	int err;

	if (n > 0) {
		c->enospc_in_a_row = 0;
		c->st->reads++;
		c->st->bytes += (uint64_t)n;
		return take_chunk(c, (size_t)n, diag) ?: 1;
	}
	if (n == 0 || n == -EAGAIN)
		return 0;
	if (n == -ENOSPC) {
		/*
		 * The kernel could not hand over the next record: what it held
		 * is lost. Mark the place as the kernel marks an overflow.
		 */
		c->st->enospc++;
		c->st->buffers_lost++;
		if ((err = pk_oa_write_lost(&c->buf, PK_OA_RECORD_BUFFER_LOST)))
			return pk_diag_fail(diag, err, "out of memory");
		if (++c->enospc_in_a_row >= ENOSPC_IN_A_ROW_MAX) {
			pk_diag_subject(diag, c->dev->node);
			return pk_diag_fail(diag, -ENOSPC, "the i915 perf stream refused %d reads in a row with ENOSPC",
					    ENOSPC_IN_A_ROW_MAX);
		}
		return 0;
	}
	pk_diag_subject(diag, c->dev->node);
	pk_diag_fail(diag, (int)n, "reading the i915 perf stream failed: %s", strerror((int)-n));
	if (n == -EIO)
		pk_diag_hint(diag, "the stream was disabled or the GPU was reset; the recording holds what came before");
	return (int)n;
}

/* What the kernel holds now. */
static int drain(struct pk_oa_capture *c, struct pk_diag *diag)
{
	for (int i = 0; i < DRAIN_READS_MAX; i++) {
		int r = read_once(c, diag);

		if (r <= 0)
			return r;
	}
	return 0;
}

static int loop(struct pk_oa_capture *c, struct pk_diag *diag)
{
	const struct pk_oa_capture_opts *o = c->o;
	uint64_t start = pk_now_ns();
	uint64_t duration = OPT(o, duration_ns, 0);
	uint64_t corr_period = OPT(o, correlation_period_ns, NS_PER_SEC);
	uint64_t timeout_max = (uint64_t)OPT(o, poll_timeout_ms, 100) * 1000000u;
	int (*should_stop)(void *) = OPT(o, should_stop, NULL);
	void *stop_ctx = OPT(o, stop_ctx, NULL);
	int (*control)(void *, struct pk_oa_capture *) = OPT(o, control, NULL);
	void *control_ctx = OPT(o, control_ctx, NULL);
	uint64_t next_corr = start + corr_period;
	int err;

	for (;;) {
		uint64_t now, wait = timeout_max;
		int r;

		if (should_stop && should_stop(stop_ctx))
			break;
		if (control && control(control_ctx, c))
			break;
		now = pk_now_ns();          /* after control(): a command (a dump) can take a while */
		if (duration && now - start >= duration)
			break;
		if (duration && start + duration - now < wait)
			wait = start + duration - now;
		if (next_corr > now && next_corr - now < wait)
			wait = next_corr - now;
		if (next_corr <= now)
			wait = 0;
		r = c->dev->ops.poll(c->dev->ops.ctx, c->stream_fd, (int)((wait + 999999) / 1000000));
		if (r < 0) {
			pk_diag_subject(diag, c->dev->node);
			return pk_diag_fail(diag, r, "waiting for the i915 perf stream failed: %s", strerror(-r));
		}
		if (r > 0 && (err = read_once(c, diag)) < 0)
			return err;
		if (pk_now_ns() >= next_corr) {
			if ((err = correlate(c, diag)))
				return err;
			next_corr += corr_period;
			now = pk_now_ns();
			if (next_corr <= now)       /* behind by a period or more: from now on */
				next_corr = now + corr_period;
		}
		if ((err = flush_out(c, diag)))
			return err;
	}
	return drain(c, diag);
}

/*
 * The ring as a whole recording into @fd (empty): the header, the newest
 * correlation point the ring dropped, the ring's records, then a
 * correlation point taken now (counted in the stats). When the records do
 * not all fit, the last point is still tried after the whole ones that
 * did; when it cannot be taken, the file goes without it and its error is
 * returned. *@bytes, *@reports: what the file holds.
 */
static int write_ring(struct pk_oa_capture *c, int fd, const char *path, uint64_t *bytes,
		      uint64_t *reports, struct pk_diag *diag)
{
	enum { HEADER, DROPPED, RECORDS, LAST, N_PIECES };
	struct { const uint8_t *p; size_t n; } piece[N_PIECES];
	struct pk_oa_correlation k;
	struct pk_diag later;
	struct pk_buf tail;
	off_t at = 0;
	int err, werr = 0;

	err = pk_oa_device_correlation(c->dev, OPT(c->o, cpu_clock, PK_OA_CLOCK_MONOTONIC), &k, diag);
	pk_buf_init(&tail);
	if (!err) {
		c->st->correlations++;
		if (pk_oa_write_correlation(&tail, k.cpu_ns, k.gpu_ts))
			return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}
	piece[HEADER].p = (const uint8_t *)c->header.data;
	piece[HEADER].n = c->header.len;
	piece[DROPPED].p = c->ring.dropped_corr;
	piece[DROPPED].n = c->ring.have_dropped_corr ? sizeof(c->ring.dropped_corr) : 0;
	piece[RECORDS].p = c->ring.data + c->ring.start;
	piece[RECORDS].n = c->ring.len;
	piece[LAST].p = (const uint8_t *)tail.data;
	piece[LAST].n = tail.len;
	*reports = c->ring.reports;
	for (int i = 0; i < N_PIECES; i++) {
		size_t kept;
		uint64_t samples = 0;
		int e;

		if (werr && i != LAST)
			continue;
		e = write_records(fd, at, piece[i].p, piece[i].n, &kept, &samples);
		at += (off_t)kept;
		if (e && i <= RECORDS)
			*reports = i == RECORDS ? samples : 0;
		if (e && !werr)
			werr = e;
	}
	pk_buf_release(&tail);
	*bytes = (uint64_t)at;
	pk_diag_init(&later);
	if (werr)
		write_failed(path, werr, *reports, err ? &later : diag);
	return err ?: werr;
}

int pk_oa_capture_snapshot(struct pk_oa_capture *c, const char *path, uint64_t *reports,
			   struct pk_diag *diag)
{
	uint64_t bytes, n = 0;
	int fd, err;

	if (!in_ring_mode(c))
		return pk_diag_fail(diag, -EINVAL, "a snapshot needs a capture in circular-buffer mode");
	if ((err = drain(c, diag)) || (err = flush_out(c, diag)))
		return err;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		pk_diag_subject(diag, path);
		return pk_diag_fail(diag, err, "cannot create the snapshot: %s", strerror(-err));
	}
	err = write_ring(c, fd, path, &bytes, &n, diag);
	if (close(fd) && !err) {
		err = -errno;
		write_failed(path, err, 0, diag);
	}
	if (reports)
		*reports = n;
	if (!err)
		c->st->snapshots++;
	return err;
}

/*
 * The last correlation point closes the file. In circular-buffer mode the
 * file is written now, from the ring (with what was read since the last
 * flush), also when the correlation point cannot be taken.
 */
static int finish(struct pk_oa_capture *c, struct pk_diag *diag)
{
	struct pk_diag later;
	int err, e;

	if (in_ring_mode(c)) {
		flush_out(c, diag);
		c->st->reports_dropped = c->ring.reports_dropped;
		err = write_ring(c, c->out_fd, c->path, &c->st->file_bytes, &c->st->reports_written, diag);
		/* a snapshot into this same path may have left a longer file */
		if (ftruncate(c->out_fd, (off_t)c->st->file_bytes) && !err && errno != EINVAL)
			err = write_failed(c->path, -errno, c->st->reports_written, diag);
		return err;
	}
	err = correlate(c, diag);
	pk_diag_init(&later);
	e = flush_out(c, err ? &later : diag);
	return err ?: e;
}

int pk_oa_capture_run(struct pk_oa_device *dev, const struct pk_oa_capture_opts *opts,
		      const char *path, struct pk_oa_capture_stats *stats,
		      struct pk_diag *diag)
{
	struct pk_oa_capture_stats local;
	struct pk_oa_capture c = { .dev = dev, .o = opts, .path = path, .out_fd = -1, .stream_fd = -1 };
	size_t ring_size = OPT(opts, ring_size, 0);
	struct pk_oa_device_info di = dev->info;
	const char *name = OPT(opts, metric_set_name, NULL);
	const char *uuid = OPT(opts, metric_set_uuid, NULL);
	const struct pk_oa_format_info *fi;
	int format = OPT(opts, oa_format, dev->platform->oa_format);
	int exponent = opts && opts->sz >= offsetof(struct pk_oa_capture_opts, exponent) + sizeof(int) ?
		       opts->exponent : -1;
	struct pk_oa_correlation first;
	struct pk_diag later;
	int err, err2;

	c.st = stats ? stats : &local;
	memset(c.st, 0, sizeof(*c.st));
	pk_buf_init(&c.buf);
	pk_buf_init(&c.header);
	if (!name || !*name)
		return pk_diag_fail(diag, -EINVAL, "no metric set name given");
	if (strlen(name) > 255 || (uuid && strlen(uuid) > 39))
		return pk_diag_fail(diag, -EINVAL, "metric set name or GUID too long: '%s'", name);
	fi = pk_oa_format_info(format);
	if (!fi)
		return pk_diag_fail(diag, -EINVAL, "OA format %d is not one perfkit decodes", format);

	c.st->metric_id = OPT(opts, metric_id, 0);
	if (!c.st->metric_id) {
		if (!uuid)
			return pk_diag_fail(diag, -EINVAL, "metric set '%s': neither its GUID nor its id is known", name);
		if ((err = pk_oa_device_metric_id(dev, uuid, &c.st->metric_id, diag)))
			return err;
	}
	if (exponent < 0)
		exponent = pk_oa_exponent_for_period(OPT(opts, period_ns, 1000000), di.timestamp_frequency);
	if (exponent < 0 || exponent > PK_OA_EXPONENT_MAX)
		return pk_diag_fail(diag, -EINVAL, "OA exponent %d out of range (0 to %d)", exponent,
				    PK_OA_EXPONENT_MAX);
	c.st->exponent = exponent;
	c.st->period_ns = pk_oa_exponent_period_ns(exponent, di.timestamp_frequency);

	c.chunk_size = OPT(opts, read_size, DEFAULT_READ_SIZE);
	if (c.chunk_size < 8 + fi->report_size)
		c.chunk_size = 8 + fi->report_size;
	if (ring_size) {
		if ((err = oa_ring_init(&c.ring, ring_size, 8 + fi->report_size)))
			return pk_diag_fail(diag, err, err == -ENOMEM ?
					    "cannot allocate a circular buffer of %zu bytes" :
					    "a circular buffer of %zu bytes cannot hold one report", ring_size);
	}
	c.chunk = malloc(c.chunk_size);
	if (!c.chunk) {
		oa_ring_release(&c.ring);
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}

	/*
	 * The first correlation point is taken before the stream opens, so
	 * that it comes before every report: the first report can be due one
	 * period after the open, and creating the file and its header can
	 * take longer than that on a loaded machine.
	 */
	if ((err = pk_oa_device_correlation(dev, OPT(opts, cpu_clock, PK_OA_CLOCK_MONOTONIC), &first, diag)) ||
	    (err = open_stream(&c, c.st->metric_id, format, exponent, diag)))
		goto out;
	c.out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c.out_fd < 0) {
		err = -errno;
		pk_diag_subject(diag, path);
		pk_diag_fail(diag, err, "cannot create the recording: %s", strerror(-err));
		goto out;
	}
	di.oa_format = (uint32_t)format;
	snprintf(di.metric_set_name, sizeof(di.metric_set_name), "%s", name);
	snprintf(di.metric_set_uuid, sizeof(di.metric_set_uuid), "%s", uuid ? uuid : "");
	if ((err = pk_oa_write_version(&c.header, 1)) || (err = pk_oa_write_device_info(&c.header, &di)) ||
	    (err = pk_oa_write_topology(&c.header, &dev->topo)) ||
	    (!in_ring_mode(&c) && (err = pk_buf_append(&c.buf, c.header.data, c.header.len)))) {
		pk_diag_fail(diag, err, "cannot build the recording's header: %s", strerror(-err));
		goto out;
	}
	if ((err = put_correlation(&c, &first, diag)) ||
	    (in_ring_mode(&c) && (err = write_placeholder(&c, diag))) || (err = flush_out(&c, diag)))
		goto out;

	err = loop(&c, diag);
	/* the last correlation point closes the file, also after a read error */
	pk_diag_init(&later);
	err2 = finish(&c, err ? &later : diag);
	if (!err)
		err = err2;
out:
	if (c.stream_fd >= 0)
		dev->ops.close(dev->ops.ctx, c.stream_fd);
	if (c.out_fd >= 0 && close(c.out_fd) && !err) {
		err = -errno;
		pk_diag_subject(diag, path);
		pk_diag_fail(diag, err, "cannot write the recording: %s", strerror(-err));
	}
	free(c.chunk);
	pk_buf_release(&c.buf);
	pk_buf_release(&c.header);
	oa_ring_release(&c.ring);
	return err;
}
