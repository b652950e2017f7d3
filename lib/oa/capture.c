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
 * OA_METRICS_SET, OA_FORMAT, OA_EXPONENT and the flags FD_CLOEXEC |
 * FD_NONBLOCK; the ioctl returns the stream's fd, read with poll + read().
 * Each read() returns whole records {u32 type; u16 pad; u16 size} (SAMPLE,
 * OA_REPORT_LOST, OA_BUFFER_LOST), copied into the recording as they are,
 * the way IGT's i915-perf-recorder does (gpu.md 1.7).
 *
 * Every kernel call goes through the struct pk_oa_dev_ops of lib/oa/device.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdrm/i915_drm.h>
#include <perfkit/oa.h>

#include "capture_int.h"

/* ---- the stream ------------------------------------------------------------------- */

struct capture {
	struct pk_oa_device *dev;
	const struct pk_oa_capture_opts *o;
	struct pk_oa_capture_stats *st;
	const char *path;
	int out_fd;
	int stream_fd;
	struct pk_buf buf;             /* records not yet written to the file */
	uint64_t buf_reports;          /* SAMPLE records in buf */
	uint8_t *chunk;
	size_t chunk_size;
	unsigned enospc_in_a_row;
};

/* Why the kernel refused the stream, in the user's terms. */
static int open_failed(struct capture *c, int err, uint64_t metric_id, int format, int exponent,
		       struct pk_diag *diag)
{
	const struct pk_oa_format_info *fi = pk_oa_format_info(format);
	char path[PATH_MAX], line[32] = "";

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
		pk_diag_fail(diag, err, "the kernel refused the OA stream: metric set id %llu, format %d (%s), exponent %d",
			     (unsigned long long)metric_id, format, fi ? fi->name : "unknown", exponent);
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

static int open_stream(struct capture *c, uint64_t metric_id, int format, int exponent,
		       struct pk_diag *diag)
{
	uint64_t props[] = {
		DRM_I915_PERF_PROP_SAMPLE_OA, 1,
		DRM_I915_PERF_PROP_OA_METRICS_SET, metric_id,
		DRM_I915_PERF_PROP_OA_FORMAT, (uint64_t)format,
		DRM_I915_PERF_PROP_OA_EXPONENT, (uint64_t)exponent,
	};
	struct drm_i915_perf_open_param param = {
		.flags = I915_PERF_FLAG_FD_CLOEXEC | I915_PERF_FLAG_FD_NONBLOCK,
		.num_properties = sizeof(props) / sizeof(props[0]) / 2,
		.properties_ptr = (uintptr_t)props,
	};
	int fd = c->dev->ops.ioctl(c->dev->ops.ctx, c->dev->fd, DRM_IOCTL_I915_PERF_OPEN, &param);

	if (fd < 0)
		return open_failed(c, fd, metric_id, format, exponent, diag);
	c->stream_fd = fd;
	return 0;
}

/*
 * Write what is buffered to the file. When a write fails (a full disk, a
 * size limit), the part of the buffer that went out is cut off again, so
 * that the file ends with whole records and stays readable, and the buffer
 * is dropped: the small last correlation point may still fit after it,
 * which IGT's reader needs after the last report.
 */
static int flush_out(struct capture *c, struct pk_diag *diag)
{
	size_t off = 0;

	while (off < c->buf.len) {
		ssize_t n = write(c->out_fd, c->buf.data + off, c->buf.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			off_t whole = (off_t)c->st->file_bytes;

			if (off && ftruncate(c->out_fd, whole) == 0)
				lseek(c->out_fd, whole, SEEK_SET);
			pk_diag_subject(diag, c->path);
			pk_diag_fail(diag, err, "cannot write the recording: %s", strerror(-err));
			if (c->st->file_bytes)
				pk_diag_hint(diag, "the file keeps the %llu reports written before, whole records",
					     (unsigned long long)c->st->reports_written);
			c->buf.len = 0;
			c->buf_reports = 0;
			return err;
		}
		off += (size_t)n;
	}
	c->st->file_bytes += c->buf.len;
	c->st->reports_written += c->buf_reports;
	c->buf.len = 0;
	c->buf_reports = 0;
	return 0;
}

/* Correlation point @k into the recording. */
static int put_correlation(struct capture *c, const struct pk_oa_correlation *k, struct pk_diag *diag)
{
	int err = pk_oa_write_correlation(&c->buf, k->cpu_ns, k->gpu_ts);

	if (err)
		return pk_diag_fail(diag, err, "out of memory");
	c->st->correlations++;
	return 0;
}

/* A correlation point taken now, into the recording. */
static int correlate(struct capture *c, struct pk_diag *diag)
{
	struct pk_oa_correlation k;
	int err = pk_oa_device_correlation(c->dev, OPT(c->o, cpu_clock, PK_OA_CLOCK_MONOTONIC), &k, diag);

	return err ? err : put_correlation(c, &k, diag);
}

/*
 * One read() chunk: its records checked and appended. The kernel only
 * returns whole records; one that is not is an -EIO, with the offset.
 */
static int take_chunk(struct capture *c, size_t len, struct pk_diag *diag)
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
static int read_once(struct capture *c, struct pk_diag *diag)
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

static int loop(struct capture *c, struct pk_diag *diag)
{
	const struct pk_oa_capture_opts *o = c->o;
	uint64_t start = pk_now_ns();
	uint64_t duration = OPT(o, duration_ns, 0);
	uint64_t corr_period = OPT(o, correlation_period_ns, NS_PER_SEC);
	uint64_t timeout_max = (uint64_t)OPT(o, poll_timeout_ms, 100) * 1000000u;
	int (*should_stop)(void *) = OPT(o, should_stop, NULL);
	void *stop_ctx = OPT(o, stop_ctx, NULL);
	uint64_t next_corr = start + corr_period;
	int err;

	for (;;) {
		uint64_t now = pk_now_ns(), wait = timeout_max;
		int r;

		if (duration && now - start >= duration)
			break;
		if (should_stop && should_stop(stop_ctx))
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
	/* what the kernel holds now, before the last correlation point */
	for (int i = 0; i < DRAIN_READS_MAX; i++) {
		err = read_once(c, diag);
		if (err < 0)
			return err;
		if (err == 0)
			break;
	}
	return 0;
}

int pk_oa_capture_run(struct pk_oa_device *dev, const struct pk_oa_capture_opts *opts,
		      const char *path, struct pk_oa_capture_stats *stats,
		      struct pk_diag *diag)
{
	struct pk_oa_capture_stats local;
	struct capture c = { .dev = dev, .o = opts, .path = path, .out_fd = -1, .stream_fd = -1 };
	struct pk_oa_device_info di = dev->info;
	const char *name = OPT(opts, metric_set_name, NULL);
	const char *uuid = OPT(opts, metric_set_uuid, NULL);
	const struct pk_oa_format_info *fi;
	int format = OPT(opts, oa_format, dev->platform->oa_format);
	int exponent = opts && opts->sz >= offsetof(struct pk_oa_capture_opts, exponent) + sizeof(int) ?
		       opts->exponent : -1;
	struct pk_oa_correlation first;
	int err, err2;

	c.st = stats ? stats : &local;
	memset(c.st, 0, sizeof(*c.st));
	pk_buf_init(&c.buf);
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
	c.chunk = malloc(c.chunk_size);
	if (!c.chunk)
		return pk_diag_fail(diag, -ENOMEM, "out of memory");

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
	if ((err = pk_oa_write_version(&c.buf, 1)) || (err = pk_oa_write_device_info(&c.buf, &di)) ||
	    (err = pk_oa_write_topology(&c.buf, &dev->topo))) {
		pk_diag_fail(diag, err, "cannot build the recording's header: %s", strerror(-err));
		goto out;
	}
	if ((err = put_correlation(&c, &first, diag)) || (err = flush_out(&c, diag)))
		goto out;

	err = loop(&c, diag);
	/* the last correlation point closes the file, also after a read error */
	{
		struct pk_diag d2;

		pk_diag_init(&d2);
		err2 = correlate(&c, err ? &d2 : diag);
		if (!err2)
			err2 = flush_out(&c, err ? &d2 : diag);
		if (!err)
			err = err2;
	}
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
	return err;
}
