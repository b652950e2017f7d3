/*
 * Tests of the live OA capture (lib/oa/capture.c) against a fake i915
 * device put behind the ioctl layer (struct pk_oa_dev_ops):
 *
 *  1. the exponent chosen for a period (2^(e+1) ticks nearest the request);
 *  2. discovery in a fixture sysfs tree (card0 amdgpu, card1 i915): PCI id,
 *     revision, timestamp frequency fallback, topology, GT frequencies,
 *     metric set ids; the errors of describing the device (PCI id, topology
 *     query) in words, and the three sources of the timestamp frequency;
 *  3. a capture of 0.4 s from a Broadwell (0x1616, 12.5 MHz) whose stream
 *     returns A32u40_A4u32_B8_C8 reports with two contexts and idle, a 40-bit
 *     counter wrap, a 32-bit timestamp wrap, an OA_REPORT_LOST record and one
 *     ENOSPC: the file read back with pk_oa_recording_read_file has every
 *     report byte for byte, the lost counts, correlation points around the
 *     reports and three timeline segments; i915-perf-reader (when installed)
 *     and perfkit oa report (when built) decode it with the same report count;
 *  4. the errors: no i915 GPU, EACCES with the paranoid hint, EINVAL naming
 *     the stream's parameters, EBUSY, ENODEV and any other errno in words,
 *     an unknown metric set, EIO while reading or polling; the kernel's
 *     OA_BUFFER_LOST kept, a record of an unknown type or shorter than its
 *     header ending the capture with a complete file, and so do 100 ENOSPC
 *     in a row and the GPU timestamp register refused mid-capture (refused
 *     from the start: no stream, no file); ENOSPC but one read in 60 never
 *     ends it; poll() never ready: the end's drain reads it all; the loop
 *     held up (a slow control() command) on an idle stream: the
 *     correlation point that came due is taken at once, then one a period
 *     later, no catch-up, and held up past the end it waits no more;
 *  5. the ends a user meets: should_stop (Ctrl-C) ends the capture early
 *     with a complete file; a file size limit reached mid-capture (a full
 *     disk: RLIMIT_FSIZE, EFBIG) and /dev/full (ENOSPC) give the write error
 *     and leave whole records only: the file reads back with the reports
 *     the stats say it holds, the same bytes the stream gave; /dev/full in
 *     circular-buffer mode fails at the start, before the stream is read;
 *  6. the driver's poll period: its property, the 100 us minimum, refused
 *     below i915 perf revision 5, named in the kernel's EINVAL;
 *  7. circular-buffer mode: a 16 KiB ring keeps the newest reports, the
 *     file holds them with correlation points around them (the reader
 *     decodes it); a snapshot from control() mid-capture, one into a
 *     missing directory, one into the output file itself, one without a
 *     ring; control() ending the capture; a ring too small; a size limit
 *     reached while the ring is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <sys/resource.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libdrm/i915_drm.h>
#include <perfkit/oa.h>
#include "../shared_data.h"
#include "../tap.h"
#include "fixture_files.h"
#include "../fake_oa_report.h"

#define GUID_RENDER_BASIC "b541bd57-0e0f-4154-b4c0-5858010a2bf7"
#define CARD_FD 100
#define STREAM_FD 101
#define FREQ FAKE_OA_FREQ
#define REPORT_SIZE FAKE_OA_REPORT_SIZE
#define MAX_REPORTS 20000
#define WRAP_TICKS (FREQ / 5)      /* 200 ms */
#define POLLS_KEPT 256             /* the fake keeps the timeouts of this many polls */

static char root[256];
#ifndef I915_PARAM_OA_TIMESTAMP_FREQUENCY
#define I915_PARAM_OA_TIMESTAMP_FREQUENCY 57   /* Linux 5.19's uapi; older libdrm headers lack it */
#endif

/*
 * What a fake device says of itself: I915_PARAM_PERF_REVISION (0: the
 * kernel has none), and where it differs from a Broadwell GT2 (0: as it
 * says it): its CHIPSET_ID (-1: refused), OA_TIMESTAMP_FREQUENCY (0 or -1:
 * refused, as before 5.19; -2: CS_TIMESTAMP_FREQUENCY too), QUERY's error,
 * and the topology's length. fake_next is the next device's.
 */
struct fake_setup {
	int perf_revision, pci_id, oa_freq, query_err, topology_length;
};
static const struct fake_setup fake_default = { .perf_revision = 7 };   /* Linux 6.x's revision */
static struct fake_setup fake_next = { .perf_revision = 7 };

/* ---- the fake device -------------------------------------------------------------- */

struct fake {
	char node[PATH_MAX];          /* the only path open() accepts */
	int perf_open_err;            /* DRM_IOCTL_I915_PERF_OPEN's answer when non-zero */
	int eio_at_read;              /* read number answered with EIO (0: never) */
	int enospc_at_read;           /* read number answered with ENOSPC once */
	int enospc_from_read;         /* read number answered with ENOSPC, and every one after it */
	int enospc_gap;               /* ...but every enospc_gap-th of those served (0: none) */
	bool poll_never_ready;        /* poll() always times out, after its whole timeout as the kernel's */
	unsigned poll_err_from;       /* poll() number answered with EIO, and every one after it */
	unsigned polls;
	int poll_timeouts[POLLS_KEPT]; /* the timeout of each of the first polls, in ms */
	unsigned reg_read_err_from;   /* REG_READ number refused with EIO, and every one after it */
	int lost_at_read;             /* read number whose chunk starts with OA_REPORT_LOST */
	int extra_at_read;            /* read number whose chunk starts with the record extra_type, */
	uint32_t extra_type;          /* of extra_size bytes (its payload zeros) */
	uint16_t extra_size;
	uint32_t reports_before_extra; /* reports given before that read */
	int open_sleep_ms;            /* DRM_IOCTL_I915_PERF_OPEN returns this late (its reports start on time) */
	struct fake_setup says;       /* fake_next when it was made */
	uint64_t t0_ns, gpu_base;     /* the GPU clock: gpu_base + (now - t0) * 12.5 MHz */
	/* what the capture asked for */
	uint64_t props[16];
	uint32_t n_props, flags;
	int stream_open, stream_closed, card_closed;
	unsigned reg_reads, reads;
	/* what the stream gave */
	unsigned reads_with_data;
	uint64_t bytes_given;
	uint64_t next_ts;
	uint32_t period;              /* ticks */
	uint32_t n_reports;
	uint8_t *reports;             /* MAX_REPORTS * REPORT_SIZE */
};

static uint64_t gpu_now(struct fake *f)
{
	return f->gpu_base + (pk_now_ns() - f->t0_ns) * FREQ / 1000000000ull;
}

static int f_open(void *ctx, const char *path, int flags)
{
	struct fake *f = ctx;

	if (strcmp(path, f->node))
		return -ENOENT;
	return (flags & O_ACCMODE) == O_RDWR ? CARD_FD : -EINVAL;
}

static int f_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	if (fd == STREAM_FD)
		f->stream_closed++;
	else if (fd == CARD_FD)
		f->card_closed++;
	else
		return -EBADF;
	return 0;
}

static int f_getparam(struct fake *f, drm_i915_getparam_t *gp)
{
	switch (gp->param) {
	case I915_PARAM_PERF_REVISION:
		if (!f->says.perf_revision)
			return -EINVAL;
		*gp->value = f->says.perf_revision;
		return 0;
	case I915_PARAM_CHIPSET_ID:
		if (f->says.pci_id < 0)
			return -EINVAL;
		*gp->value = f->says.pci_id ? f->says.pci_id : FAKE_OA_PCI_ID;
		return 0;
	case I915_PARAM_REVISION: *gp->value = FAKE_OA_REVISION; return 0;
	case I915_PARAM_CS_TIMESTAMP_FREQUENCY:
		if (f->says.oa_freq == -2)
			return -EINVAL;
		*gp->value = (int)FREQ;
		return 0;
	case I915_PARAM_OA_TIMESTAMP_FREQUENCY:
		if (f->says.oa_freq <= 0)
			return -EINVAL;   /* a kernel before 5.19 */
		*gp->value = f->says.oa_freq;
		return 0;
	default: return -EINVAL;
	}
}

/* BDW GT2: 1 slice, 3 subslices of 8 EUs. */
static int f_query(struct fake *f, struct drm_i915_query *q)
{
	const uint16_t *h = fake_oa_topology_header;
	const uint8_t *data = fake_oa_topology_masks;
	struct drm_i915_query_item *item = (void *)(uintptr_t)q->items_ptr;

	if (f->says.query_err)
		return f->says.query_err;
	if (q->num_items != 1 || item->query_id != DRM_I915_QUERY_TOPOLOGY_INFO)
		return -EINVAL;
	if (item->length == 0) {
		item->length = f->says.topology_length ? f->says.topology_length : (int)(16 + sizeof(fake_oa_topology_masks));
		return 0;
	}
	if (item->length < (int)(16 + sizeof(fake_oa_topology_masks)))
		return -EINVAL;
	memcpy((void *)(uintptr_t)item->data_ptr, h, 16);
	memcpy((uint8_t *)(uintptr_t)item->data_ptr + 16, data, sizeof(fake_oa_topology_masks));
	return 0;
}

static int f_perf_open(struct fake *f, struct drm_i915_perf_open_param *p)
{
	const uint64_t *props = (const void *)(uintptr_t)p->properties_ptr;

	f->flags = p->flags;
	f->n_props = p->num_properties;
	if (f->n_props > 8)
		return -EINVAL;
	memcpy(f->props, props, f->n_props * 16);
	if (f->perf_open_err)
		return f->perf_open_err;
	for (uint32_t i = 0; i < f->n_props; i++)
		if (props[2 * i] == DRM_I915_PERF_PROP_OA_EXPONENT)
			f->period = 2u << props[2 * i + 1];
	f->next_ts = gpu_now(f) + f->period;
	f->stream_open++;
	if (f->open_sleep_ms) {
		struct timespec ts = { f->open_sleep_ms / 1000, f->open_sleep_ms % 1000 * 1000000L };

		while (nanosleep(&ts, &ts))
			;
	}
	return STREAM_FD;
}

static int f_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct fake *f = ctx;

	if (fd != CARD_FD)
		return -ENOTTY;
	if (req == DRM_IOCTL_I915_GETPARAM)
		return f_getparam(f, arg);
	if (req == DRM_IOCTL_I915_QUERY)
		return f_query(f, arg);
	if (req == DRM_IOCTL_I915_PERF_OPEN)
		return f_perf_open(f, arg);
	if (req == DRM_IOCTL_I915_REG_READ) {
		struct drm_i915_reg_read *rr = arg;

		if (rr->offset != (0x2358 | I915_REG_READ_8B_WA))
			return -EINVAL;
		if (f->reg_read_err_from && f->reg_reads + 1 >= f->reg_read_err_from)
			return -EIO;
		rr->val = gpu_now(f);
		f->reg_reads++;
		return 0;
	}
	return -ENOTTY;
}

/* Every report whose time has come, behind a LOST record on the read so chosen. */
static ssize_t f_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake *f = ctx;
	uint8_t *p = buf;
	size_t off = 0;
	uint64_t now = gpu_now(f);

	if (fd != STREAM_FD)
		return -EBADF;
	f->reads++;
	if (f->reads == (unsigned)f->eio_at_read)
		return -EIO;
	if (f->reads == (unsigned)f->enospc_at_read ||
	    (f->enospc_from_read && f->reads >= (unsigned)f->enospc_from_read &&
	     !(f->enospc_gap && (f->reads - (unsigned)f->enospc_from_read) % (unsigned)f->enospc_gap ==
				(unsigned)f->enospc_gap - 1)))
		return -ENOSPC;
	if (f->reads == (unsigned)f->lost_at_read && len >= 8) {
		struct drm_i915_perf_record_header h = { .type = DRM_I915_PERF_RECORD_OA_REPORT_LOST, .size = 8 };

		memcpy(p, &h, 8);
		off = 8;
	}
	if (f->reads == (unsigned)f->extra_at_read && len >= 8 + (size_t)f->extra_size) {
		struct drm_i915_perf_record_header h = { .type = f->extra_type, .size = f->extra_size };

		memcpy(p, &h, 8);
		off = f->extra_size >= 8 ? f->extra_size : 8;
		memset(p + 8, 0, off - 8);
		f->reports_before_extra = f->n_reports;
	}
	while (f->next_ts < now && off + 8 + REPORT_SIZE <= len && f->n_reports < MAX_REPORTS) {
		struct drm_i915_perf_record_header h = { .type = DRM_I915_PERF_RECORD_SAMPLE,
							  .size = 8 + REPORT_SIZE };
		uint8_t *r = f->reports + (size_t)f->n_reports * REPORT_SIZE;

		fake_oa_report(r, f->n_reports, f->next_ts);
		memcpy(p + off, &h, 8);
		memcpy(p + off + 8, r, REPORT_SIZE);
		off += 8 + REPORT_SIZE;
		f->n_reports++;
		f->next_ts += f->period;
	}
	if (!off)
		return -EAGAIN;
	f->reads_with_data++;
	f->bytes_given += off;
	return (ssize_t)off;
}

static int f_poll(void *ctx, int fd, int timeout_ms)
{
	struct fake *f = ctx;
	struct timespec ts = { 0, 2000000 };

	if (fd != STREAM_FD)
		return -EBADF;
	if (f->polls < POLLS_KEPT)
		f->poll_timeouts[f->polls] = timeout_ms;
	f->polls++;
	if (timeout_ms < 2 || f->poll_never_ready) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
	}
	nanosleep(&ts, NULL);
	if (f->poll_err_from && f->polls >= f->poll_err_from)
		return -EIO;
	return !f->poll_never_ready;
}

static int f_sysfs_read(void *ctx, const char *path, char *buf, size_t sz)
{
	(void)ctx;
	return pk_file_read_line(path, buf, sz);
}

static void fake_init(struct fake *f, struct pk_oa_dev_ops *ops)
{
	static uint8_t *reports;

	if (!reports)
		reports = malloc((size_t)MAX_REPORTS * REPORT_SIZE);
	memset(f, 0, sizeof(*f));
	f->reports = reports;
	f->says = fake_next;
	snprintf(f->node, sizeof(f->node), "%s/dev/dri/card1", root);
	f->t0_ns = pk_now_ns();
	/*
	 * The low 32 bits wrap 200 ms in, while the idle tail runs: IGT's reader
	 * asserts when a context boundary lies between correlation points on
	 * either side of a wrap, since it compares masked 32-bit values.
	 */
	f->gpu_base = 0x400000000ull - WRAP_TICKS;
	*ops = (struct pk_oa_dev_ops){
		.sz = sizeof(*ops), .ctx = f, .open = f_open, .close = f_close, .ioctl = f_ioctl,
		.read = f_read, .poll = f_poll, .sysfs_read = f_sysfs_read,
	};
}

static void make_tree(void)
{
	char sys[512];

	snprintf(sys, sizeof(sys), "%s/sys/class/drm", root);
	mkdirs("%s/card0/device", sys);
	lnk("../../../bus/pci/drivers/amdgpu", "%s/card0/device/driver", sys);
	mkdirs("%s/card0-DP-1", sys);
	mkdirs("%s/card1/device/drm/renderD129", sys);
	lnk("../../../bus/pci/drivers/i915", "%s/card1/device/driver", sys);
	put("300\n", "%s/card1/gt_min_freq_mhz", sys);
	put("1000\n", "%s/card1/gt_max_freq_mhz", sys);
	mkdirs("%s/card1/metrics/%s", sys, GUID_RENDER_BASIC);
	put("5\n", "%s/card1/metrics/%s/id", sys, GUID_RENDER_BASIC);
	mkdirs("%s/empty/class/drm", root);
	mkdirs("%s/proc/sys/dev/i915", root);
	put("1\n", "%s/proc/sys/dev/i915/perf_stream_paranoid", root);
	mkdirs("%s/dev/dri", root);
}

static int open_dev(struct fake *f, struct pk_oa_dev_ops *ops, struct pk_oa_device **dev,
		    struct pk_diag *d)
{
	char sys[512], dev_root[512], proc[512];
	struct pk_oa_device_opts o = { .sz = sizeof(o), .card = -1, .ops = ops };

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(dev_root, sizeof(dev_root), "%s/dev", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	o.sys_root = sys;
	o.dev_root = dev_root;
	o.proc_root = proc;
	fake_init(f, ops);
	pk_diag_init(d);
	return pk_oa_device_open(&o, dev, d);
}

/* ---- 1. exponent ------------------------------------------------------------------- */

static void test_exponent(void)
{
	is_int(pk_oa_exponent_for_period(1000000, 12500000), 13, "1 ms at 12.5 MHz: e 13 (16384 ticks, 1.31 ms)");
	is_int(pk_oa_exponent_for_period(1000000, 12000000), 12, "1 ms at 12 MHz: e 12 (8192 ticks, 0.68 ms)");
	is_int(pk_oa_exponent_for_period(1000000, 19200000), 13, "1 ms at 19.2 MHz: e 13 (16384 ticks, 0.85 ms)");
	is_int(pk_oa_exponent_for_period(3, 1000000000), 0, "a tie picks the shorter period");
	is_int(pk_oa_exponent_for_period(1, 12500000), 0, "1 ns: the shortest exponent");
	is_int(pk_oa_exponent_for_period(UINT64_MAX / 2, 12500000), PK_OA_EXPONENT_MAX,
	       "a huge period: the longest exponent");
	is_int(pk_oa_exponent_for_period(0, 12500000), -EINVAL, "no period: -EINVAL");
	is_int(pk_oa_exponent_for_period(1000000, 0), -EINVAL, "no frequency: -EINVAL");
	is_int(pk_oa_exponent_period_ns(13, 12500000), 1310720, "e 13 at 12.5 MHz is 1310720 ns");
	is_int(pk_oa_exponent_period_ns(0, 1000000000), 2, "e 0 at 1 GHz is 2 ns");
	is_int(pk_oa_exponent_period_ns(13, 0), 0, "no frequency: period 0");
}

/* ---- 2. discovery ------------------------------------------------------------------ */

static void test_discovery(void)
{
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct fake f;
	struct pk_diag d;
	uint64_t id = 0;
	int err;

	err = open_dev(&f, &ops, &dev, &d);
	is_int(err, 0, "the i915 card of the fixture opens (%s)", d.msg);
	if (err)
		return;
	is_int(pk_oa_device_card(dev), 1, "card1 is the i915 one (card0 is amdgpu)");
	is_str(pk_oa_device_node(dev), f.node, "its card node is opened");
	is_str(pk_oa_device_platform(dev)->name, "broadwell", "0x1616 is broadwell");
	is_int(pk_oa_device_info(dev)->device_id, 0x1616, "PCI id");
	is_int(pk_oa_device_info(dev)->revision, 9, "revision");
	is_int(pk_oa_device_info(dev)->timestamp_frequency, FREQ,
	       "timestamp frequency from CS_TIMESTAMP_FREQUENCY when OA_TIMESTAMP_FREQUENCY is refused");
	is_int(pk_oa_device_info(dev)->gt_min_frequency, 300000000, "GT min frequency in Hz");
	is_int(pk_oa_device_info(dev)->gt_max_frequency, 1000000000, "GT max frequency in Hz");
	is_int(pk_oa_device_info(dev)->oa_format, PK_OA_FORMAT_A32u40_A4u32_B8_C8, "the platform's OA format");
	is_int(pk_oa_device_topology(dev)->n_eus, 24, "topology: 24 EUs");
	is_int(pk_oa_device_topology(dev)->subslice_mask, 0x7, "topology: subslice mask 0x7");
	is_int(pk_oa_device_metric_id(dev, GUID_RENDER_BASIC, &id, &d), 0, "RenderBasic's id from sysfs");
	is_int(id, 5, "is 5");
	pk_diag_init(&d);
	is_int(pk_oa_device_metric_id(dev, "01234567-89ab-cdef-0123-456789abcdef", &id, &d), -ENOENT,
	       "a set the kernel lacks: -ENOENT");
	ok(strstr(d.msg, "no metric set 01234567") != NULL, "the message names the set: %s", d.msg);
	pk_diag_init(&d);
	is_int(pk_oa_device_metric_id(dev, "../../etc", &id, &d), -EINVAL, "a GUID that is a path: -EINVAL");
	pk_oa_device_close(dev);
	is_int(f.card_closed, 1, "closing the device closes its node");
}

/*
 * What the device may say while it is described, each in words naming its
 * node: the PCI id refused or of no platform perfkit knows, the topology
 * query refused (before Linux 4.17), failed in its item, too short or too
 * long; and the timestamp frequency from OA_TIMESTAMP_FREQUENCY (5.19),
 * else from CS_TIMESTAMP_FREQUENCY, else the platform's.
 */
static void test_discovery_says(void)
{
	static const struct { int pci_id, query_err, topology_length, err; const char *msg, *hint; } cases[] = {
		{ -1, 0, 0, -EINVAL, "cannot read the PCI id: Invalid argument", "the node is not driven by i915" },
		{ 0x1234, 0, 0, -EOPNOTSUPP, "PCI id 0x1234 is not a platform perfkit oa knows",
		  "perfkit oa knows Haswell, Broadwell, Skylake, Tiger Lake and DG2" },
		{ 0, -EINVAL, 0, -EINVAL, "cannot query the topology: Invalid argument",
		  "the i915 topology query needs Linux 4.17 or later" },
		{ 0, 0, -ENODEV, -ENODEV, "cannot query the topology: No such device", "" },
		{ 0, 0, 15, -EPROTO, "cannot query the topology: Protocol error", "" },
		{ 0, 0, 16 + PK_OA_TOPOLOGY_MAX_DATA + 1, -EOVERFLOW,
		  "the topology (4113 bytes) is larger than perfkit takes (4112)", "" },
	};
	static const struct { int oa_freq; uint64_t want; const char *from; } freqs[] = {
		{ 19200000, 19200000, "OA_TIMESTAMP_FREQUENCY" },
		{ -1, FREQ, "CS_TIMESTAMP_FREQUENCY when OA_TIMESTAMP_FREQUENCY is refused" },
		{ -2, 12500000, "the platform's (Broadwell: 12.5 MHz) when both are refused" },
	};
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct fake f;
	struct pk_diag d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_next.pci_id = cases[i].pci_id;
		fake_next.query_err = cases[i].query_err;
		fake_next.topology_length = cases[i].topology_length;
		is_int(open_dev(&f, &ops, &dev, &d), cases[i].err, "%s", cases[i].msg);
		is_str(d.msg, cases[i].msg, "in words");
		is_str(d.hint, cases[i].hint, "with its hint, if any");
		is_str(d.subject, f.node, "naming the node");
		ok(dev == NULL, "no device");
		is_int(f.card_closed, 1, "the node is closed again");
		if (dev)
			pk_oa_device_close(dev);
		dev = NULL;
	}
	fake_next = fake_default;
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		fake_next.oa_freq = freqs[i].oa_freq;
		if (open_dev(&f, &ops, &dev, &d)) {
			ok(0, "the fake device opens: %s", d.msg);
			continue;
		}
		is_int(pk_oa_device_info(dev)->timestamp_frequency, freqs[i].want, "timestamp frequency from %s",
		       freqs[i].from);
		pk_oa_device_close(dev);
	}
	fake_next = fake_default;
}

/* ---- 3. capture -------------------------------------------------------------------- */

static char *run(const char *cmd, int *status)
{
	char *out = calloc(1, 1 << 20);
	size_t n = 0, r;
	FILE *p = popen(cmd, "r");

	if (!p || !out) {
		free(out);
		*status = -1;
		return NULL;
	}
	while (n < (1 << 20) - 1 && (r = fread(out + n, 1, (1 << 20) - 1 - n, p)) > 0)
		n += r;
	*status = pclose(p);
	return out;
}

/* perfkit next to the test binary: build/tests/unit/x -> build/perfkit. */
static int perfkit_path(char *buf, size_t sz)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = 0;
	snprintf(buf, sz, "%s/../../perfkit", dirname(exe));
	return access(buf, X_OK);
}

static void check_oracles(const char *file, size_t n_reports)
{
	char cmd[3 * PATH_MAX], perfkit[PATH_MAX], want[64];
	char *out;
	int st;

	snprintf(want, sizeof(want), "Reports: %zu\n", n_reports);
	if (system("command -v i915-perf-reader >/dev/null 2>&1") != 0) {
		ok(1, "# SKIP i915-perf-reader not installed (intel-gpu-tools)");
	} else {
		snprintf(cmd, sizeof(cmd), "i915-perf-reader -c GpuTime,GpuCoreClocks '%s' 2>&1", file);
		out = run(cmd, &st);
		is_int(st, 0, "i915-perf-reader decodes the capture");
		ok(out && strstr(out, want), "i915-perf-reader counts %zu reports", n_reports);
		ok(out && strstr(out, "Context switches: 3\n"), "i915-perf-reader finds 3 timeline items");
		{
			/* the two context segments last 40 periods of 16384 ticks at 12.5 MHz */
			const char *g1 = out ? strstr(out, "GpuTime: ") : NULL;
			const char *g2 = g1 ? strstr(g1 + 1, "GpuTime: ") : NULL;

			ok(g1 && g2 && strtoull(g1 + 9, NULL, 10) == 52428800 &&
			   strtoull(g2 + 9, NULL, 10) == 52428800,
			   "i915-perf-reader's GpuTime of the context segments is perfkit's (52428800 ns)");
		}
		if (st || !out || !strstr(out, want))
			diag("%s", out ? out : "(no output)");
		free(out);
	}
	if (perfkit_path(perfkit, sizeof(perfkit))) {
		ok(1, "# SKIP perfkit not built next to the test");
		return;
	}
	{
		char xml[PATH_MAX];

		snprintf(xml, sizeof(xml), "%s/data/intel-oa/oa-bdw.xml", shared_dir());
		if (access(xml, R_OK)) {
			ok(1, "# SKIP no oa-bdw.xml under $PK_SHARED/data/intel-oa for perfkit oa report");
			return;
		}
		snprintf(cmd, sizeof(cmd), "'%s' oa report --json --metrics '%s' '%s' 2>&1", perfkit, xml, file);
	}
	out = run(cmd, &st);
	if (!out || (st && (strstr(out, "unknown") || strstr(out, "usage")))) {
		ok(1, "# SKIP perfkit oa report is not available: %.80s", out ? out : "");
	} else {
		snprintf(want, sizeof(want), "\"reports\":%zu", n_reports);
		is_int(st, 0, "perfkit oa report decodes the capture");
		ok(strstr(out, want) || (snprintf(want, sizeof(want), "\"reports\": %zu", n_reports),
					  strstr(out, want)),
		   "perfkit oa report counts %zu reports", n_reports);
		if (st)
			diag("%.400s", out);
	}
	free(out);
}

/* RenderBasic at 1 ms for @duration_ns, a correlation point every 50 ms, 16 KiB reads. */
static struct pk_oa_capture_opts capture_opts(uint64_t duration_ns)
{
	return (struct pk_oa_capture_opts){
		.sz = sizeof(struct pk_oa_capture_opts), .metric_set_name = "RenderBasic",
		.metric_set_uuid = GUID_RENDER_BASIC, .exponent = -1, .period_ns = 1000000,
		.duration_ns = duration_ns, .correlation_period_ns = 50000000, .read_size = 16 << 10,
	};
}

static void test_capture(void)
{
	struct pk_oa_capture_opts co = capture_opts(400000000);
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct pk_oa_recording *rec = NULL;
	struct pk_oa_timeline tl = { 0 };
	const struct pk_oa_correlation *corr;
	const struct pk_oa_device_info *di;
	char file[512];
	struct fake f;
	struct pk_diag d;
	size_t n_corr = 0, same = 0;
	int err;

	snprintf(file, sizeof(file), "%s/capture.i915perf", root);
	if (open_dev(&f, &ops, &dev, &d)) {
		ok(0, "open the fake device: %s", d.msg);
		return;
	}
	f.lost_at_read = 3;
	f.enospc_at_read = 5;
	/*
	 * 4 periods pass before the open returns, as on a loaded machine: a
	 * first correlation point taken after it came after the first reports
	 */
	f.open_sleep_ms = 5;
	err = pk_oa_capture_run(dev, &co, file, &st, &d);
	is_int(err, 0, "a 0.4 s capture from the fake device succeeds (%s)", d.msg);
	is_int(f.flags, I915_PERF_FLAG_FD_CLOEXEC | I915_PERF_FLAG_FD_NONBLOCK, "the stream is close-on-exec, non-blocking");
	is_int(f.n_props, 4, "four properties");
	ok(f.props[0] == DRM_I915_PERF_PROP_SAMPLE_OA && f.props[1] == 1, "SAMPLE_OA 1");
	ok(f.props[2] == DRM_I915_PERF_PROP_OA_METRICS_SET && f.props[3] == 5, "OA_METRICS_SET 5 (from sysfs)");
	ok(f.props[4] == DRM_I915_PERF_PROP_OA_FORMAT && f.props[5] == I915_OA_FORMAT_A32u40_A4u32_B8_C8,
	   "OA_FORMAT A32u40_A4u32_B8_C8");
	ok(f.props[6] == DRM_I915_PERF_PROP_OA_EXPONENT && f.props[7] == 13, "OA_EXPONENT 13 for 1 ms");
	is_int(st.exponent, 13, "stats: exponent");
	is_int(st.period_ns, 1310720, "stats: period");
	is_int(f.stream_closed, 1, "the stream is closed at the end");
	is_int(st.reports, f.n_reports, "stats count every report the stream gave (%u)", f.n_reports);
	ok(st.reads == f.reads_with_data && st.bytes == f.bytes_given,
	   "stats: the reads that gave data (%" PRIu64 ") and their bytes (%" PRIu64 ")", st.reads, st.bytes);
	ok(f.n_reports > 81, "the capture spans the three contexts (%u reports)", f.n_reports);
	is_int(st.reports_lost, 1, "stats: one OA_REPORT_LOST");
	is_int(st.enospc, 1, "stats: one ENOSPC");
	is_int(st.buffers_lost, 1, "stats: the ENOSPC counted as a lost buffer");
	ok(st.correlations >= 4, "correlations: first, periodic, last (%" PRIu64 ")", st.correlations);
	is_int(f.reg_reads, 3 * st.correlations, "three register reads per correlation point");

	pk_diag_init(&d);
	err = pk_oa_recording_read_file(file, &rec, &d);
	is_int(err, 0, "the recording reads back (%s)", d.msg);
	if (err)
		goto out;
	di = pk_oa_recording_device(rec);
	is_int(pk_oa_recording_version(rec), 1, "VERSION 1");
	is_int(di->device_id, 0x1616, "DEVICE_INFO: PCI id");
	is_int(di->revision, 9, "DEVICE_INFO: revision");
	is_int(di->timestamp_frequency, FREQ, "DEVICE_INFO: timestamp frequency");
	is_int(di->gt_max_frequency, 1000000000, "DEVICE_INFO: GT max frequency");
	is_str(di->metric_set_name, "RenderBasic", "DEVICE_INFO: metric set name");
	is_str(di->metric_set_uuid, GUID_RENDER_BASIC, "DEVICE_INFO: metric set uuid");
	is_int(pk_oa_recording_topology(rec)->n_eus, 24, "TOPOLOGY: 24 EUs");
	is_int(pk_oa_recording_n_reports(rec), f.n_reports, "every report is in the file");
	for (size_t i = 0; i < pk_oa_recording_n_reports(rec) && i < f.n_reports; i++)
		same += memcmp(pk_oa_recording_report(rec, i), f.reports + i * REPORT_SIZE, REPORT_SIZE) == 0;
	is_int(same, f.n_reports, "byte for byte, in order");
	is_int(pk_oa_recording_reports_lost(rec), 1, "the OA_REPORT_LOST record is in the file");
	is_int(pk_oa_recording_buffers_lost(rec), 1, "an OA_BUFFER_LOST record marks the ENOSPC");
	corr = pk_oa_recording_correlations(rec, &n_corr);
	is_int(n_corr, st.correlations, "every correlation point is in the file");
	if (n_corr >= 2) {
		int mono = 1;
		uint32_t first_ts, last_ts;

		for (size_t i = 1; i < n_corr; i++)
			mono &= corr[i].cpu_ns > corr[i - 1].cpu_ns && corr[i].gpu_ts > corr[i - 1].gpu_ts;
		ok(mono, "correlation points increase in CPU and GPU time");
		memcpy(&first_ts, f.reports + 4, 4);
		memcpy(&last_ts, f.reports + (size_t)(f.n_reports - 1) * REPORT_SIZE + 4, 4);
		ok(corr[0].gpu_ts >> 32 == 3 && (uint32_t)corr[0].gpu_ts < first_ts,
		   "the first point comes before the first report, before the 32-bit wrap");
		ok(last_ts < 0x10000000u && (uint32_t)corr[n_corr - 1].gpu_ts > last_ts &&
		   corr[n_corr - 1].gpu_ts >> 32 == 4,
		   "the last point comes after the last report, past the 32-bit wrap");
	}
	pk_diag_init(&d);
	err = pk_oa_timeline_build(rec, &tl, &d);
	is_int(err, 0, "timelines build");
	is_int(tl.n_segments, 3, "three segments: context 0x20, context 0x40, idle");
	if (tl.n_segments == 3) {
		const struct pk_oa_decoder *dec = pk_oa_recording_decoder(rec);
		uint64_t d0[PK_OA_MAX_VALUES] = { 0 }, d1[PK_OA_MAX_VALUES] = { 0 };

		pk_oa_timeline_deltas(&tl, rec, 0, d0);
		pk_oa_timeline_deltas(&tl, rec, 1, d1);
		is_int(tl.segments[0].ctx_id, 0x20, "segment 1: context 0x20");
		is_int(tl.segments[1].ctx_id, 0x40, "segment 2: context 0x40");
		is_int(tl.segments[2].ctx_id, PK_OA_CTX_INVALID, "segment 3: idle");
		is_int(d0[dec->fmt->gpu_time], 40ull * 16384, "segment 1 lasts 40 periods");
		is_int(d0[dec->fmt->a], 40ull * 4096, "A0 counts across its 40-bit wrap");
		is_int(d1[dec->fmt->a + 1], 40ull * 7, "A1 counts by 7");
		ok(tl.segments[0].cpu_ns_start >= corr[0].cpu_ns &&
		   tl.segments[2].cpu_ns_end <= corr[n_corr - 1].cpu_ns,
		   "report CPU times lie between the first and last correlation points");
	}
	pk_oa_timeline_release(&tl);
	check_oracles(file, f.n_reports);
out:
	pk_oa_recording_free(rec);
	pk_oa_device_close(dev);
}

/*
 * The CPU clock of the correlation points (-k) and their period: a 0.2 s
 * capture with a point every 20 ms, timed with CLOCK_MONOTONIC_RAW, then
 * with the default CLOCK_MONOTONIC: every point lies between that clock's
 * readings before and after the run. Where the two clocks differ by more
 * than a run takes (247 ms against 200 ms here), the wrong clock could
 * not pass; elsewhere a diagnostic says it could.
 */
static void test_capture_clock(void)
{
	static const struct { enum pk_oa_cpu_clock clock; const char *name; } runs[] = {
		{ PK_OA_CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
		{ PK_OA_CLOCK_MONOTONIC, "CLOCK_MONOTONIC (default)" },
	};
	int64_t apart = (int64_t)(pk_oa_cpu_clock_now(PK_OA_CLOCK_MONOTONIC_RAW) -
				  pk_oa_cpu_clock_now(PK_OA_CLOCK_MONOTONIC));
	uint64_t longest = 0;

	is_int(pk_oa_cpu_clock_parse("mono"), PK_OA_CLOCK_MONOTONIC, "-k mono");
	is_int(pk_oa_cpu_clock_parse("monotonic_raw"), PK_OA_CLOCK_MONOTONIC_RAW, "-k monotonic_raw");
	is_int(pk_oa_cpu_clock_parse("mono_raw"), PK_OA_CLOCK_MONOTONIC_RAW, "-k mono_raw");
	is_int(pk_oa_cpu_clock_parse("BOOT"), PK_OA_CLOCK_BOOTTIME, "-k BOOT");
	is_int(pk_oa_cpu_clock_parse("realtime"), -1, "-k realtime: not a clock the recorder offers");
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct pk_oa_capture_opts co = capture_opts(200000000);
		struct pk_oa_capture_stats st;
		struct pk_oa_dev_ops ops;
		struct pk_oa_device *dev = NULL;
		struct pk_oa_recording *rec = NULL;
		const struct pk_oa_correlation *corr;
		char file[512];
		struct fake f;
		struct pk_diag d;
		size_t n_corr = 0, inside = 0;
		uint64_t t0, t1;
		int err;

		snprintf(file, sizeof(file), "%s/clock%zu.i915perf", root, k);
		if (open_dev(&f, &ops, &dev, &d)) {
			ok(0, "open the fake device: %s", d.msg);
			return;
		}
		if (runs[k].clock != PK_OA_CLOCK_MONOTONIC)
			co.cpu_clock = runs[k].clock;
		co.correlation_period_ns = 20000000;
		t0 = pk_oa_cpu_clock_now(runs[k].clock);
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		t1 = pk_oa_cpu_clock_now(runs[k].clock);
		longest = t1 - t0 > longest ? t1 - t0 : longest;
		is_int(err, 0, "%s: a 0.2 s capture succeeds (%s)", runs[k].name, d.msg);
		ok(st.correlations >= 3 && st.correlations <= 13,
		   "%s: a point every 20 ms, the first and the last (%" PRIu64 ", at most 13)", runs[k].name,
		   st.correlations);
		pk_diag_init(&d);
		if (ok(pk_oa_recording_read_file(file, &rec, &d) == 0, "%s: the recording reads back", runs[k].name)) {
			corr = pk_oa_recording_correlations(rec, &n_corr);
			for (size_t i = 0; i < n_corr; i++)
				inside += corr[i].cpu_ns >= t0 && corr[i].cpu_ns <= t1;
			ok(n_corr == st.correlations && inside == n_corr,
			   "%s: its %zu correlation points lie within the run on that clock (%zu do; "
			   "the clocks are %" PRId64 " ns apart, the run took %" PRIu64 ")", runs[k].name,
			   n_corr, inside, apart, t1 - t0);
		}
		pk_oa_recording_free(rec);
		pk_oa_device_close(dev);
	}
	if ((uint64_t)(apart < 0 ? -apart : apart) <= longest)
		diag("CLOCK_MONOTONIC_RAW and CLOCK_MONOTONIC are %" PRId64 " ns apart, less than a run: "
		     "a point on the wrong clock could still fall within the run", apart);
}

/* ---- 4. errors --------------------------------------------------------------------- */

static void test_errors(void)
{
	struct pk_oa_capture_opts co = {
		.sz = sizeof(co), .metric_set_name = "RenderBasic", .metric_set_uuid = GUID_RENDER_BASIC,
		.exponent = -1, .duration_ns = 200000000,
	};
	struct pk_oa_device_opts o = { .sz = sizeof(o), .card = -1 };
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct pk_oa_recording *rec = NULL;
	char sys[512], file[512];
	struct fake f;
	struct pk_diag d;
	int err;

	/* no i915 */
	snprintf(sys, sizeof(sys), "%s/empty", root);
	o.sys_root = sys;
	pk_diag_init(&d);
	is_int(pk_oa_device_open(&o, &dev, &d), -ENODEV, "no i915 card: -ENODEV");
	ok(strstr(d.msg, "no i915 GPU found under") && strstr(d.msg, "/empty/class/drm"),
	   "the message names the directory: %s", d.msg);

	/* the card node does not open */
	if (!open_dev(&f, &ops, &dev, &d)) {
		pk_oa_device_close(dev);
		dev = NULL;
	}
	snprintf(sys, sizeof(sys), "%s/nodev", root);
	{
		struct pk_oa_device_opts o2 = { .sz = sizeof(o2), .card = 1, .ops = &ops, .dev_root = sys };
		char s2[512];

		snprintf(s2, sizeof(s2), "%s/sys", root);
		o2.sys_root = s2;
		pk_diag_init(&d);
		is_int(pk_oa_device_open(&o2, &dev, &d), -ENOENT, "a missing node: the open's error");
		ok(strstr(d.subject, "/nodev/dri/card1") != NULL, "names the node: %s", d.subject);
	}

	/* EACCES */
	snprintf(file, sizeof(file), "%s/eacces.i915perf", root);
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		f.perf_open_err = -EACCES;
		pk_diag_init(&d);
		is_int(pk_oa_capture_run(dev, &co, file, &st, &d), -EACCES, "EACCES from PERF_OPEN");
		ok(strstr(d.msg, "perf_stream_paranoid is 1") != NULL, "the message gives the setting: %s", d.msg);
		is_str(d.hint, "set /proc/sys/dev/i915/perf_stream_paranoid to 0 or run as root", "the hint");
		ok(access(file, F_OK) != 0, "no file is left behind");
		pk_oa_device_close(dev);
	}

	/* EINVAL */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		f.perf_open_err = -EINVAL;
		pk_diag_init(&d);
		is_int(pk_oa_capture_run(dev, &co, file, &st, &d), -EINVAL, "EINVAL from PERF_OPEN");
		ok(strstr(d.msg, "metric set id 5") && strstr(d.msg, "A32u40_A4u32_B8_C8") &&
		   strstr(d.msg, "exponent 13"), "the message gives id, format and exponent: %s", d.msg);
		ok(strstr(d.hint, "/metrics") != NULL, "the hint points at the sysfs metric sets");
		pk_oa_device_close(dev);
	}

	/* a set the kernel does not have */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		struct pk_oa_capture_opts c2 = co;

		c2.metric_set_uuid = "00000000-0000-0000-0000-000000000000";
		pk_diag_init(&d);
		is_int(pk_oa_capture_run(dev, &c2, file, &st, &d), -ENOENT, "an unknown metric set: -ENOENT");
		is_int(f.stream_open, 0, "no stream is opened");
		pk_diag_init(&d);
		c2.metric_set_uuid = NULL;
		is_int(pk_oa_capture_run(dev, &c2, file, &st, &d), -EINVAL, "neither GUID nor id: -EINVAL");
		c2.metric_id = 7;
		c2.duration_ns = 20000000;
		pk_diag_init(&d);
		is_int(pk_oa_capture_run(dev, &c2, file, &st, &d), 0, "an id given directly needs no sysfs");
		is_int(f.props[3], 7, "and is the one used");
		pk_oa_device_close(dev);
	}

	/* EIO while reading: the file is still complete */
	snprintf(file, sizeof(file), "%s/eio.i915perf", root);
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		f.eio_at_read = 4;
		pk_diag_init(&d);
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, -EIO, "EIO from read ends the capture");
		ok(strstr(d.msg, "reading the i915 perf stream failed") != NULL, "message: %s", d.msg);
		ok(d.hint[0] != 0, "with a hint");
		is_int(f.stream_closed, 1, "the stream is closed");
		pk_diag_init(&d);
		is_int(pk_oa_recording_read_file(file, &rec, &d), 0, "the file written so far reads back");
		if (rec) {
			size_t n = 0;

			pk_oa_recording_correlations(rec, &n);
			is_int(n, 2, "with its first and last correlation points");
			is_int(pk_oa_recording_n_reports(rec), f.n_reports, "and the reports read before the error");
		}
		pk_oa_recording_free(rec);
		pk_oa_device_close(dev);
	}
}

/* ---- 5. Ctrl-C and a full disk ------------------------------------------------------ */

static int stop_after(void *ctx)
{
	unsigned *polls = ctx;

	return ++*polls >= 20;
}

/* The number of fake report @r (A1 counts by 7). */
static uint32_t report_number(const uint8_t *r)
{
	uint32_t a1;

	memcpy(&a1, r + 5 * 4, 4);
	return a1 / 7;
}

/*
 * @file reads back with @n reports, a run of the fake stream's reports
 * ending at or before its last, with a correlation point before the first
 * and after the last. *@first: the number of the first.
 */
static void holds_reports(const char *file, const struct fake *f, uint64_t n, uint32_t *first,
			 const char *what)
{
	struct pk_oa_recording *rec = NULL;
	const struct pk_oa_correlation *corr;
	struct pk_diag d;
	size_t n_corr = 0, same = 0, got;
	uint32_t first_ts, last_ts;
	int err;

	*first = UINT32_MAX;
	pk_diag_init(&d);
	err = pk_oa_recording_read_file(file, &rec, &d);
	is_int(err, 0, "%s: the file reads back (%s)", what, d.msg);
	if (err)
		return;
	got = pk_oa_recording_n_reports(rec);
	is_int(got, n, "%s: %" PRIu64 " reports, as the stats say", what, n);
	if (!got)
		goto out;
	*first = report_number(pk_oa_recording_report(rec, 0));
	for (size_t i = 0; i < got && *first + i < f->n_reports; i++)
		same += memcmp(pk_oa_recording_report(rec, i), f->reports + (*first + i) * REPORT_SIZE,
			       REPORT_SIZE) == 0;
	is_int(same, got, "%s: the stream's reports %u to %zu, in a run, byte for byte", what, *first,
	       *first + got - 1);
	corr = pk_oa_recording_correlations(rec, &n_corr);
	memcpy(&first_ts, pk_oa_recording_report(rec, 0) + 4, 4);
	memcpy(&last_ts, pk_oa_recording_report(rec, got - 1) + 4, 4);
	ok(n_corr >= 2 && (uint32_t)(first_ts - (uint32_t)corr[0].gpu_ts) < 0x80000000u &&
	   (uint32_t)(corr[n_corr - 1].gpu_ts - last_ts) < 0x80000000u,
	   "%s: a correlation point before the first report and one after the last (%zu points)", what,
	   n_corr);
out:
	pk_oa_recording_free(rec);
}

/* @file reads back with @n reports, those the fake stream gave first, and correlation points around them. */
static void reads_back(const char *file, const struct fake *f, uint64_t n, const char *what)
{
	uint32_t first;

	holds_reports(file, f, n, &first, what);
	ok(n == 0 || first == 0, "%s: from the stream's first report", what);
}

/* A capture from @dev into @file that must end with @want (0: succeed), @msg in *@d ("" then). */
static void capture_ends(struct pk_oa_device *dev, const struct pk_oa_capture_opts *co, const char *file,
			 struct pk_oa_capture_stats *st, struct pk_diag *d, int want, const char *msg,
			 const char *what)
{
	pk_diag_init(d);
	is_int(pk_oa_capture_run(dev, co, file, st, d), want, "%s: ends with %s", what,
	       want ? strerror(-want) : "no error");
	is_str(d->msg, msg, "%s: in words", what);
}

/* i915-perf-reader (when installed) decodes @file and counts @n reports. */
static void reader_counts(const char *file, uint64_t n, const char *what)
{
	char cmd[PATH_MAX + 64], want[64];
	char *out;
	int st;

	if (system("command -v i915-perf-reader >/dev/null 2>&1") != 0) {
		ok(1, "# SKIP i915-perf-reader not installed (intel-gpu-tools)");
		return;
	}
	snprintf(cmd, sizeof(cmd), "i915-perf-reader -c GpuTime '%s' 2>&1", file);
	snprintf(want, sizeof(want), "Reports: %" PRIu64 "\n", n);
	out = run(cmd, &st);
	ok(st == 0 && out && strstr(out, want), "%s: i915-perf-reader decodes the file, %" PRIu64 " reports",
	   what, n);
	if (st || !out || !strstr(out, want))
		diag("%.400s", out ? out : "(no output)");
	free(out);
}

/* A capture whose file may grow to @limit bytes (RLIMIT_FSIZE: writes past it fail with EFBIG). */
static int capture_limited(struct pk_oa_device *dev, const struct pk_oa_capture_opts *co, const char *file,
			   rlim_t limit, struct pk_oa_capture_stats *st, struct pk_diag *d)
{
	struct rlimit old, lim;
	int err;

	if (getrlimit(RLIMIT_FSIZE, &old))
		return -errno;
	lim = old;
	lim.rlim_cur = limit;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &lim);
	pk_diag_init(d);
	err = pk_oa_capture_run(dev, co, file, st, d);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	return err;
}

/*
 * What the kernel may still say: EBUSY (another stream is open), ENODEV
 * (no OA), any other errno, each in words; and records in the stream: the
 * kernel's own OA_BUFFER_LOST (the OA buffer overflowed) is kept and
 * counted, a record of a type i915 does not send or one shorter than its
 * header ends the capture with -EIO, naming it, and the file then holds
 * the reports read before it, with its last correlation point; 100 reads
 * in a row refused with ENOSPC end it too, each marked in the file.
 */
static void test_stream_says(void)
{
	static const struct { int err; const char *msg, *hint; } opens[] = {
		{ -EBUSY, "another i915 perf stream is open: Device or resource busy",
		  "i915 allows one OA stream at a time: stop the other recorder first" },
		{ -ENODEV, "this GPU or kernel has no i915 perf (OA) support: No such device", "" },
		{ -EMFILE, "cannot open the i915 perf stream: Too many open files", "" },
	};
	static const struct { uint32_t type; uint16_t size; int err; const char *msg; } records[] = {
		{ DRM_I915_PERF_RECORD_OA_BUFFER_LOST, 8, 0, "" },
		{ 9, 16, -EIO, "the i915 perf stream returned a record of type 9" },
		{ DRM_I915_PERF_RECORD_SAMPLE, 4, -EIO, "the i915 perf stream returned a malformed record: " },
	};
	struct pk_oa_capture_opts co = capture_opts(100000000);
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct pk_oa_recording *rec = NULL;
	char file[512];
	struct fake f;
	struct pk_diag d;
	int err;

	snprintf(file, sizeof(file), "%s/says.i915perf", root);
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		if (open_dev(&f, &ops, &dev, &d)) {
			ok(0, "open the fake device: %s", d.msg);
			return;
		}
		f.perf_open_err = opens[i].err;
		pk_diag_init(&d);
		is_int(pk_oa_capture_run(dev, &co, file, &st, &d), opens[i].err, "PERF_OPEN's %s", strerror(-opens[i].err));
		is_str(d.msg, opens[i].msg, "in words");
		is_str(d.hint, opens[i].hint, "with its hint, if any");
		ok(strstr(d.subject, "/dri/card1") != NULL, "naming the card: %s", d.subject);
		pk_oa_device_close(dev);
	}
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
		size_t n_corr = 0;

		if (open_dev(&f, &ops, &dev, &d)) {
			ok(0, "open the fake device: %s", d.msg);
			return;
		}
		f.extra_at_read = 3;
		f.extra_type = records[i].type;
		f.extra_size = records[i].size;
		pk_diag_init(&d);
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, records[i].err, "a record of type %u, %u bytes, at the third read", records[i].type,
		       records[i].size);
		ok(!strncmp(d.msg, records[i].msg, strlen(records[i].msg)) && (!err || *d.msg), "%s", d.msg);
		if (err)
			ok(strstr(d.subject, "/dri/card1") != NULL, "naming the card: %s", d.subject);
		is_int(f.stream_closed, 1, "the stream is closed");
		is_int(st.buffers_lost, !err, "stats: %d lost buffers", !err);
		pk_diag_init(&d);
		if (pk_oa_recording_read_file(file, &rec, &d)) {
			ok(0, "the recording reads back: %s", d.msg);
			pk_oa_device_close(dev);
			continue;
		}
		is_int(pk_oa_recording_buffers_lost(rec), !err, "the file: %d OA_BUFFER_LOST records", !err);
		is_int(pk_oa_recording_n_reports(rec), err ? f.reports_before_extra : f.n_reports,
		       "the file: the reports read%s", err ? " before it" : "");
		ok(f.reports_before_extra > 0 && f.reports_before_extra < f.n_reports,
		   "reports came before it (%u) and with it (%u in all)", f.reports_before_extra, f.n_reports);
		pk_oa_recording_correlations(rec, &n_corr);
		ok(n_corr >= 2, "the file: its first and last correlation points (%zu)", n_corr);
		pk_oa_recording_free(rec);
		rec = NULL;
		pk_oa_device_close(dev);
	}
	/*
	 * The GPU timestamp register refused from the start: no stream is
	 * opened and no file made; refused from the fourth read on (the
	 * first correlation point's three done): the capture ends at its next
	 * point, and the file holds the reports read by then after the first
	 */
	for (unsigned from = 1; from <= 4; from += 3) {
		char none[600], what[64];

		if (open_dev(&f, &ops, &dev, &d))
			break;
		snprintf(none, sizeof(none), "%s/regread-%u.i915perf", root, from);
		f.reg_read_err_from = from;
		snprintf(what, sizeof(what), "REG_READ refused from its call %u", from);
		capture_ends(dev, &co, none, &st, &d, -EIO, "cannot read the GPU timestamp register: Input/output error",
			     what);
		ok(strstr(d.subject, "/dri/card1") != NULL, "naming the card: %s", d.subject);
		if (from == 1) {
			is_int(f.stream_open, 0, "no stream is opened");
			ok(access(none, F_OK) != 0, "no file is made");
		} else {
			size_t n_corr = 0;

			is_int(f.stream_closed, 1, "the stream is closed");
			pk_diag_init(&d);
			if (pk_oa_recording_read_file(none, &rec, &d) == 0) {
				pk_oa_recording_correlations(rec, &n_corr);
				is_int(n_corr, 1, "the file: its first correlation point only");
				ok(f.n_reports > 0 && pk_oa_recording_n_reports(rec) == f.n_reports,
				   "the file: every report read (%u)", f.n_reports);
				pk_oa_recording_free(rec);
				rec = NULL;
			} else {
				ok(0, "the recording reads back: %s", d.msg);
			}
		}
		pk_oa_device_close(dev);
	}

	/*
	 * ENOSPC on every read from the third but one in 60: never 100 in a
	 * row, so the capture runs its second (more than 100 reads refused in all)
	 */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		co.duration_ns = 1000000000;
		f.enospc_from_read = 3;
		f.enospc_gap = 60;
		capture_ends(dev, &co, file, &st, &d, 0, "", "ENOSPC but one read in 60: the capture runs its time");
		ok(st.enospc > 100 && st.buffers_lost == st.enospc && st.reports > 0,
		   "ENOSPC but one read in 60: %" PRIu64 " refused in all, %" PRIu64 " reports between",
		   st.enospc, st.reports);
		pk_oa_device_close(dev);
	}

	/* poll() never says the stream is ready: what the kernel holds is read at the end */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		co.duration_ns = 100000000;
		f.poll_never_ready = true;
		capture_ends(dev, &co, file, &st, &d, 0, "", "poll never ready");
		ok(st.reports > 40 && st.reports == f.n_reports && st.reports_written == st.reports,
		   "poll never ready: the reports of its 0.1 s read at the end, and written (%" PRIu64 ")",
		   st.reports);
		pk_oa_device_close(dev);
	}

	/* poll() fails from its tenth call: the capture ends, naming it; the file holds what was read */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		co.duration_ns = 10ull * 1000000000;
		f.poll_err_from = 10;
		capture_ends(dev, &co, file, &st, &d, -EIO,
			     "waiting for the i915 perf stream failed: Input/output error", "poll fails");
		ok(strstr(d.subject, "card1") != NULL, "poll fails: the card named (%s)", d.subject);
		ok(f.n_reports > 0, "poll fails: after %u reports", f.n_reports);
		reads_back(file, &f, f.n_reports, "poll fails");
		pk_oa_device_close(dev);
	}

	/* ENOSPC on every read from the third: the capture gives up after 100 in a row */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		co.duration_ns = 10ull * 1000000000;
		f.enospc_from_read = 3;
		capture_ends(dev, &co, file, &st, &d, -ENOSPC,
			     "the i915 perf stream refused 100 reads in a row with ENOSPC", "ENOSPC on every read");
		is_int(f.reads, 102, "after 100 of them");
		is_int(st.buffers_lost, 100, "each counted as a lost buffer");
		pk_diag_init(&d);
		if (pk_oa_recording_read_file(file, &rec, &d) == 0) {
			is_int(pk_oa_recording_buffers_lost(rec), 100, "the file: 100 OA_BUFFER_LOST records");
			is_int(pk_oa_recording_n_reports(rec), f.n_reports, "the file: the reports read before (%u)",
			       f.n_reports);
			pk_oa_recording_free(rec);
		} else {
			ok(0, "the recording reads back: %s", d.msg);
		}
		pk_oa_device_close(dev);
	}
}

/* A control() that holds the capture loop up once, at its third call, for stall_ms. */
struct stall {
	struct fake *f;
	unsigned calls;
	long stall_ms;
	unsigned polls_before;        /* the fake's poll count when the loop went on */
	uint64_t end_ns;              /* when it did (CLOCK_MONOTONIC) */
};

static int stall_control(void *ctx, struct pk_oa_capture *cap)
{
	struct stall *s = ctx;
	struct timespec ts = { s->stall_ms / 1000, (s->stall_ms % 1000) * 1000000L };

	(void)cap;
	if (++s->calls == 3) {
		nanosleep(&ts, NULL);
		s->polls_before = s->f->polls;
		s->end_ns = pk_oa_cpu_clock_now(PK_OA_CLOCK_MONOTONIC);
	}
	return 0;
}

/*
 * Correlation points when the loop is held up (a slow control() command,
 * a slow disk) on an idle stream, whose poll() waits its whole timeout
 * (100 ms). Held up for 5 periods of 40 ms, the capture takes the point
 * that came due at once, without waiting on the stream: its next poll()
 * waits 0 ms, and the point comes within 50 ms (half the poll timeout).
 * It takes the next point a period later, not one for each period it
 * missed: the points (the last, taken at the end, aside) are at least
 * 5 ms apart, about 40 ms here; a catch-up would take several within
 * microseconds. Held up past the capture's end, it ends without waiting
 * again.
 */
static void test_capture_held_up(void)
{
	struct pk_oa_capture_opts co = capture_opts(500000000);
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct pk_oa_recording *rec = NULL;
	const struct pk_oa_correlation *corr;
	struct stall s = { .stall_ms = 200 };
	struct fake f;
	struct pk_diag d;
	char file[512];
	size_t n_corr = 0, after = 0;
	uint64_t min_gap = UINT64_MAX, first_after = 0;
	bool went_on;

	snprintf(file, sizeof(file), "%s/held_up.i915perf", root);
	if (open_dev(&f, &ops, &dev, &d)) {
		ok(0, "open the fake device: %s", d.msg);
		return;
	}
	f.poll_never_ready = true;
	s.f = &f;
	co.correlation_period_ns = 40000000;
	co.control = stall_control;
	co.control_ctx = &s;
	capture_ends(dev, &co, file, &st, &d, 0, "", "held up for 0.2 s");
	went_on = s.calls > 3 && f.polls > s.polls_before && s.polls_before < POLLS_KEPT;
	ok(went_on, "held up: the loop went on after it (%u polls before, %u in all)", s.polls_before,
	   f.polls);
	if (went_on)
		is_int(f.poll_timeouts[s.polls_before], 0,
		       "held up: a correlation point is due, so the next poll() does not wait");
	pk_diag_init(&d);
	if (!ok(pk_oa_recording_read_file(file, &rec, &d) == 0, "held up: the recording reads back (%s)", d.msg)) {
		pk_oa_device_close(dev);
		return;
	}
	corr = pk_oa_recording_correlations(rec, &n_corr);
	for (size_t i = 0; i < n_corr; i++) {
		if (i + 1 < n_corr - 1 && corr[i + 1].cpu_ns - corr[i].cpu_ns < min_gap)
			min_gap = corr[i + 1].cpu_ns - corr[i].cpu_ns;
		if (corr[i].cpu_ns >= s.end_ns && !after++)
			first_after = corr[i].cpu_ns;
	}
	ok(after >= 2 && first_after - s.end_ns < 50000000,
	   "held up: the point that came due is taken at once (%.1f ms after, %zu points after it)",
	   (double)(first_after - s.end_ns) / 1e6, after);
	ok(n_corr >= 5 && min_gap >= 5000000,
	   "held up: no catch-up, points (but the last) at least 5 ms apart (%.3f ms at the closest, %zu points)",
	   (double)min_gap / 1e6, n_corr);
	pk_oa_recording_free(rec);
	pk_oa_device_close(dev);

	/* held up past the capture's end (0.15 s): it ends there, without waiting on the stream again */
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		f.poll_never_ready = true;
		s = (struct stall){ .f = &f, .stall_ms = 200 };
		co.duration_ns = 150000000;
		capture_ends(dev, &co, file, &st, &d, 0, "", "held up past the end");
		ok(s.calls == 3 && f.polls == s.polls_before,
		   "held up past the end: no poll() after it (%u control() calls, %u polls, %u before)", s.calls,
		   f.polls, s.polls_before);
		pk_oa_device_close(dev);
	}
}

static void test_stop_and_full_disk(void)
{
	struct pk_oa_capture_opts co = capture_opts(2000000000);
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct fake f;
	struct pk_diag d;
	struct stat sb;
	char file[512];
	unsigned polls = 0;
	long long size;
	uint64_t t0;
	int err;

	/* should_stop: what Ctrl-C sets in perfkit oa record */
	snprintf(file, sizeof(file), "%s/stopped.i915perf", root);
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		co.should_stop = stop_after;
		co.stop_ctx = &polls;
		t0 = pk_now_ns();
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, 0, "stopped by should_stop: no error (%s)", d.msg);
		is_int(polls, 20, "asked after every poll, until it said stop");
		ok(pk_now_ns() - t0 < 1000000000, "well before the 2 s duration");
		ok(st.reports > 0 && st.reports_written == st.reports, "every report is in the file (%" PRIu64 ")",
		   st.reports);
		ok(stat(file, &sb) == 0 && (uint64_t)sb.st_size == st.file_bytes, "stats give the file's size");
		reads_back(file, &f, st.reports, "stopped");
		reader_counts(file, st.reports, "stopped");
		pk_oa_device_close(dev);
		co.should_stop = NULL;
	}

	/* a size limit reached mid-capture: a write fails with EFBIG after a part went out */
	snprintf(file, sizeof(file), "%s/limited.i915perf", root);
	co.duration_ns = 300000000;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		/* bytes: the header and about 110 reports */
		err = capture_limited(dev, &co, file, 30000, &st, &d);
		is_int(err, -EFBIG, "the size limit ends the capture with the write's error");
		ok(strstr(d.msg, "cannot write the recording: File too large") != NULL, "message: %s", d.msg);
		ok(strstr(d.subject, "limited.i915perf") != NULL, "names the file: %s", d.subject);
		ok(strstr(d.hint, "whole records") != NULL, "the hint says what the file keeps: %s", d.hint);
		ok(st.reports_written > 0 && st.reports_written < st.reports,
		   "stats: %" PRIu64 " of %" PRIu64 " reports written", st.reports_written, st.reports);
		size = stat(file, &sb) == 0 ? (long long)sb.st_size : -1;
		ok(size == (long long)st.file_bytes && size <= 30000,
		   "the part of the failed write is cut off (%lld bytes)", size);
		is_int(f.stream_closed, 1, "the stream is closed");
		reads_back(file, &f, st.reports_written, "size limit");
		reader_counts(file, st.reports_written, "size limit");
		pk_oa_device_close(dev);
	}

	/* /dev/full: the header cannot be written */
	if (access("/dev/full", W_OK) == 0 && open_dev(&f, &ops, &dev, &d) == 0) {
		pk_diag_init(&d);
		err = pk_oa_capture_run(dev, &co, "/dev/full", &st, &d);
		is_int(err, -ENOSPC, "/dev/full: -ENOSPC");
		ok(strstr(d.msg, "No space left on device") != NULL, "/dev/full: message %s", d.msg);
		ok(st.file_bytes == 0 && st.reports_written == 0, "/dev/full: stats say nothing was written");
		is_int(f.stream_closed, 1, "/dev/full: the stream is closed");
		pk_oa_device_close(dev);
	} else {
		ok(1, "# SKIP /dev/full is not writable");
	}
	/* the same in circular-buffer mode: the file's header, written at the start, cannot be */
	if (access("/dev/full", W_OK) == 0 && open_dev(&f, &ops, &dev, &d) == 0) {
		struct pk_oa_capture_opts ring = co;

		ring.ring_size = 16 << 10;
		pk_diag_init(&d);
		err = pk_oa_capture_run(dev, &ring, "/dev/full", &st, &d);
		is_int(err, -ENOSPC, "/dev/full, circular buffer: -ENOSPC at the start");
		ok(strstr(d.msg, "No space left on device") != NULL && !strcmp(d.subject, "/dev/full"),
		   "/dev/full, circular buffer: message %s, naming %s", d.msg, d.subject);
		is_int(f.reads, 0, "/dev/full, circular buffer: the stream is not read");
		is_int(f.stream_closed, 1, "/dev/full, circular buffer: the stream is closed");
		pk_oa_device_close(dev);
	} else {
		ok(1, "# SKIP /dev/full is not writable");
	}
}

/* ---- 6. the driver's poll period --------------------------------------------------- */

static void test_poll_period(void)
{
	struct pk_oa_capture_opts co = capture_opts(30000000);
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct fake f;
	struct pk_diag d;
	char file[512];
	int err;

	snprintf(file, sizeof(file), "%s/poll.i915perf", root);
	co.poll_period_ns = 2000000;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, 0, "-P 2 ms on perf revision 7: the capture succeeds (%s)", d.msg);
		is_int(f.n_props, 5, "a fifth property");
		ok(f.props[8] == DRM_I915_PERF_PROP_POLL_OA_PERIOD && f.props[9] == 2000000,
		   "POLL_OA_PERIOD 2000000 ns");
		pk_oa_device_close(dev);
	}
	co.poll_period_ns = 100000;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, 0, "the driver's minimum, 100 us, is accepted (%s)", d.msg);
		ok(f.n_props == 5 && f.props[9] == 100000, "POLL_OA_PERIOD 100000 ns");
		pk_oa_device_close(dev);
	}
	co.poll_period_ns = 99999;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, -EINVAL, "99.999 us: -EINVAL");
		ok(strstr(d.msg, "below the driver's minimum of 100 us") != NULL, "message: %s", d.msg);
		is_int(f.stream_open, 0, "no stream is opened");
		pk_oa_device_close(dev);
	}
	co.poll_period_ns = 5000000;
	for (int rev = 4; rev >= 0; rev -= 4) {
		fake_next.perf_revision = rev;
		if (open_dev(&f, &ops, &dev, &d) == 0) {
			char want[80];

			err = pk_oa_capture_run(dev, &co, file, &st, &d);
			is_int(err, -EOPNOTSUPP, "perf revision %d: a poll period is refused", rev);
			snprintf(want, sizeof(want), "(revision %d) takes no poll period: revision 5 added it", rev);
			ok(strstr(d.msg, want) != NULL, "message: %s", d.msg);
			ok(strstr(d.hint, "leave the poll period out") != NULL, "hint: %s", d.hint);
			is_int(f.stream_open, 0, "no stream is opened");
			pk_oa_device_close(dev);
		}
	}
	fake_next.perf_revision = 0;
	co.poll_period_ns = 0;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, 0, "no poll period on a kernel without perf revision: fine (%s)", d.msg);
		is_int(f.n_props, 4, "and no POLL_OA_PERIOD property");
		pk_oa_device_close(dev);
	}
	fake_next = fake_default;
	co.poll_period_ns = 3000000;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		f.perf_open_err = -EINVAL;
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		ok(err == -EINVAL && strstr(d.msg, ", poll period 3000 us") != NULL,
		   "the kernel's EINVAL names the poll period: %s", d.msg);
		pk_oa_device_close(dev);
	}
}

/* ---- 7. circular-buffer mode -------------------------------------------------------- */

/*
 * The dump is taken by the stream's report count, not by the clock: 100
 * reports fill the ring (62 fit) and end 131 ms in, well before the GPU
 * clock's 32-bit wrap at 200 ms. i915-perf-reader asserts on a file whose
 * correlation points lie on either side of a wrap (it compares masked
 * values), and a dump by poll count (poll 100, about 200 ms) came near
 * the wrap and crossed it when the machine was slow.
 */
#define SNAP_REPORTS 100

struct snap {
	const struct fake *fake;
	unsigned polls;
	bool snapped;
	int err, bad_err, quit_at;
	uint64_t reports;
	const char *file, *bad_file;
	struct pk_diag d, bad_d;
	const char *live_file;    /* the recording, read at poll 50 into live_* */
	int live_err;
	size_t live_reports, live_corr;
	char live_set[257];
};

/* What a reader finds in the recording being made (as after a SIGKILL at this poll). */
static void read_live(struct snap *s)
{
	struct pk_oa_recording *rec = NULL;
	struct pk_diag d;

	pk_diag_init(&d);
	s->live_err = pk_oa_recording_read_file(s->live_file, &rec, &d);
	if (s->live_err)
		return;
	s->live_reports = pk_oa_recording_n_reports(rec);
	pk_oa_recording_correlations(rec, &s->live_corr);
	snprintf(s->live_set, sizeof(s->live_set), "%s", pk_oa_recording_device(rec)->metric_set_name);
	pk_oa_recording_free(rec);
}

/*
 * What perfkit oa record's command fifo does: a dump once the stream has
 * given SNAP_REPORTS reports, a dump that fails at poll 110, QUIT.
 */
static int snap_control(void *ctx, struct pk_oa_capture *cap)
{
	struct snap *s = ctx;

	s->polls++;
	if (s->polls == 50 && s->live_file)
		read_live(s);
	if (!s->snapped && s->fake->n_reports >= SNAP_REPORTS) {
		s->snapped = true;
		pk_diag_init(&s->d);
		s->err = pk_oa_capture_snapshot(cap, s->file, &s->reports, &s->d);
	}
	if (s->polls == 110 && s->bad_file) {
		pk_diag_init(&s->bad_d);
		s->bad_err = pk_oa_capture_snapshot(cap, s->bad_file, NULL, &s->bad_d);
	}
	return s->quit_at && s->polls >= (unsigned)s->quit_at;
}

static void test_ring(void)
{
	struct pk_oa_capture_opts co = capture_opts(400000000);
	struct pk_oa_capture_stats st;
	struct pk_oa_dev_ops ops;
	struct pk_oa_device *dev = NULL;
	struct snap sn = { 0 };
	struct fake f;
	struct pk_diag d;
	struct stat sb;
	char file[512], snap_file[512], bad_file[512];
	uint32_t first, snap_first;
	long long size;
	int err;

	snprintf(file, sizeof(file), "%s/ring.i915perf", root);
	snprintf(snap_file, sizeof(snap_file), "%s/snapshot.i915perf", root);
	snprintf(bad_file, sizeof(bad_file), "%s/no/such/dir/x.i915perf", root);
	co.ring_size = 16 << 10;       /* 62 records of a report */
	co.control = snap_control;
	co.control_ctx = &sn;
	sn.fake = &f;
	sn.file = snap_file;
	sn.bad_file = bad_file;
	sn.live_file = file;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, 0, "a 0.4 s capture into a 16 KiB ring succeeds (%s)", d.msg);
		ok(st.reports > 200 && st.reports == f.n_reports, "stats count every report read (%" PRIu64 ")",
		   st.reports);
		ok(st.reports_dropped > 0 && st.reports_written + st.reports_dropped == st.reports,
		   "%" PRIu64 " kept and %" PRIu64 " dropped make the %" PRIu64 " read", st.reports_written,
		   st.reports_dropped, st.reports);
		ok(st.reports_written >= 55 && st.reports_written <= 62,
		   "the ring keeps as many as 16 KiB hold (%" PRIu64 ")", st.reports_written);
		size = stat(file, &sb) == 0 ? (long long)sb.st_size : -1;
		ok(size == (long long)st.file_bytes && st.file_bytes <= 2000 + (16 << 10) + 2 * 24,
		   "the file is the header, the ring and two correlation points (%" PRIu64 " bytes)",
		   st.file_bytes);
		holds_reports(file, &f, st.reports_written, &first, "ring");
		is_int(first + st.reports_written, f.n_reports, "ring: the file ends with the last report read");
		reader_counts(file, st.reports_written, "ring");

		ok(sn.live_err == 0 && sn.live_reports == 0 && sn.live_corr == 1 &&
		   strcmp(sn.live_set, "RenderBasic") == 0,
		   "meanwhile the file is a recording of the device (%s), one correlation point and no reports "
		   "(%zu, %zu): what a SIGKILL leaves", sn.live_set, sn.live_corr, sn.live_reports);
		is_int(sn.err, 0, "a snapshot after %d reports (%s)", SNAP_REPORTS, sn.d.msg);
		is_int(st.snapshots, 1, "stats: one snapshot written");
		holds_reports(snap_file, &f, sn.reports, &snap_first, "snapshot");
		ok(snap_first > 0 && snap_first < first && snap_first + sn.reports < f.n_reports,
		   "the snapshot holds earlier reports, from a full ring (%u to %u)", snap_first,
		   snap_first + (uint32_t)sn.reports - 1);
		reader_counts(snap_file, sn.reports, "snapshot");
		is_int(sn.bad_err, -ENOENT, "a snapshot into a missing directory: -ENOENT, the capture goes on");
		ok(strstr(sn.bad_d.msg, "cannot create the snapshot") && strstr(sn.bad_d.subject, "no/such/dir"),
		   "it names the file: %s: %s", sn.bad_d.subject, sn.bad_d.msg);
		pk_oa_device_close(dev);
	}

	/* QUIT from the control callback ends the capture; the ring is written */
	memset(&sn, 0, sizeof(sn));
	sn.fake = &f;
	sn.file = snap_file;
	sn.quit_at = 35;
	co.duration_ns = 5000000000ull;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		uint64_t t0 = pk_now_ns();

		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		ok(err == 0 && sn.polls == 35 && pk_now_ns() - t0 < 2000000000ull,
		   "control's non-zero answer stops the capture at poll %u", sn.polls);
		holds_reports(file, &f, st.reports_written, &first, "after QUIT");
		pk_oa_device_close(dev);
	}

	/* a snapshot into the recording's own path: the file at the end is the ring's, nothing after */
	memset(&sn, 0, sizeof(sn));
	sn.fake = &f;
	sn.file = file;
	sn.quit_at = 120;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		size = stat(file, &sb) == 0 ? (long long)sb.st_size : -1;
		ok(err == 0 && sn.err == 0 && size == (long long)st.file_bytes,
		   "a snapshot into the output file, then QUIT: the file is the %" PRIu64 " bytes of the end (%lld)",
		   st.file_bytes, size);
		holds_reports(file, &f, st.reports_written, &first, "snapshot into the output file");
		pk_oa_device_close(dev);
	}

	/* a snapshot of a capture without a ring */
	memset(&sn, 0, sizeof(sn));
	sn.fake = &f;
	sn.file = snap_file;
	co.ring_size = 0;
	co.duration_ns = 300000000;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		is_int(err, 0, "without a ring the capture runs");
		ok(sn.err == -EINVAL && strstr(sn.d.msg, "circular-buffer mode"),
		   "and a snapshot is refused: %s", sn.d.msg);
		is_int(st.snapshots, 0, "stats: no snapshot");
		pk_oa_device_close(dev);
	}

	/* a ring too small for one report */
	co.ring_size = 200;
	co.control = NULL;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		err = pk_oa_capture_run(dev, &co, file, &st, &d);
		ok(err == -EINVAL && strstr(d.msg, "cannot hold one report"), "a 200-byte ring: %s", d.msg);
		is_int(f.stream_open, 0, "no stream is opened");
		pk_oa_device_close(dev);
	}

	/* the file size limit reached while the ring is written at the end */
	co.ring_size = 16 << 10;
	co.duration_ns = 300000000;
	if (open_dev(&f, &ops, &dev, &d) == 0) {
		/* the header and about 30 reports */
		err = capture_limited(dev, &co, file, 10000, &st, &d);
		is_int(err, -EFBIG, "ring: the size limit gives the write's error");
		ok(strstr(d.msg, "File too large") && strstr(d.hint, "whole records"), "%s; %s", d.msg, d.hint);
		ok(st.reports_written > 0 && st.reports_written + st.reports_dropped < st.reports,
		   "stats: %" PRIu64 " reports in the file", st.reports_written);
		size = stat(file, &sb) == 0 ? (long long)sb.st_size : -1;
		ok(size == (long long)st.file_bytes && size <= 10000, "whole records only (%lld bytes)", size);
		holds_reports(file, &f, st.reports_written, &first, "ring, size limit");
		pk_oa_device_close(dev);
	}
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/pk-oa-capture-XXXXXX");
	if (!mkdtemp(root)) {
		skip_all("cannot make a temporary directory");
		return 0;
	}
	make_tree();
	test_exponent();
	test_discovery();
	test_discovery_says();
	test_capture();
	test_capture_clock();
	test_errors();
	test_stream_says();
	test_capture_held_up();
	test_stop_and_full_disk();
	test_poll_period();
	test_ring();
	if (!getenv("PK_KEEP")) rm_tree(root); else diag("kept %s", root);
	return done_testing();
}
