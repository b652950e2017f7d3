/*
 * The i915 device of a live OA capture: the card found in sysfs, its node
 * opened, what the recording's header needs (chipset, revision, timestamp
 * frequency, topology, GT frequencies), metric set ids by GUID from sysfs,
 * timestamp correlations read as IGT's recorder reads them, and the OA
 * exponent for a period. Every kernel call goes through the replaceable
 * operations of device.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <libdrm/i915_drm.h>
#include <perfkit/oa.h>

#include "capture_int.h"

/* ---- discovery ------------------------------------------------------------------- */

/* The i915 card to use: @want, or the lowest-numbered one (pk_oa_cards_list). */
static int find_card(const char *sys_root, int want, int *card, struct pk_diag *diag)
{
	struct pk_oa_card *cards;
	size_t n;
	int err = pk_oa_cards_list(sys_root, &cards, &n, diag);

	if (err)
		return err;
	*card = -1;
	for (size_t i = 0; i < n && *card < 0; i++)
		if (want < 0 || cards[i].card == want)
			*card = cards[i].card;
	pk_oa_cards_free(cards, n);
	if (*card >= 0)
		return 0;
	if (want >= 0)
		pk_diag_fail(diag, -ENODEV, "card%d under %s/class/drm is not an i915 GPU", want, sys_root);
	else
		pk_diag_fail(diag, -ENODEV, "no i915 GPU found under %s/class/drm", sys_root);
	pk_diag_hint(diag, "perfkit oa needs an Intel GPU driven by i915 (xe and other drivers have no i915 perf stream)");
	return -ENODEV;
}

/* The render node of the card, "renderD128", from @card_dir/device/drm. */
static int find_render_node(const char *card_dir, char *name, size_t sz)
{
	char path[PATH_MAX];
	struct dirent *de;
	int found = -ENOENT;
	DIR *d;

	pk_path_fmt(path, sizeof(path), "%s/device/drm", card_dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "renderD", 7)) {
			pk_path_fmt(name, sz, "%s", de->d_name);
			found = 0;
			break;
		}
	closedir(d);
	return found;
}

static int open_node(struct pk_oa_device *dev, const char *dev_root, struct pk_diag *diag)
{
	char render[64];
	int fd, err;

	pk_path_fmt(dev->node, sizeof(dev->node), "%s/dri/card%d", dev_root, dev->card);
	fd = dev->ops.open(dev->ops.ctx, dev->node, O_RDWR);
	if (fd >= 0) {
		dev->fd = fd;
		return 0;
	}
	err = fd;
	if (find_render_node(dev->card_dir, render, sizeof(render)) == 0) {
		char path[PATH_MAX];

		pk_path_fmt(path, sizeof(path), "%s/dri/%s", dev_root, render);
		fd = dev->ops.open(dev->ops.ctx, path, O_RDWR);
		if (fd >= 0) {
			pk_path_fmt(dev->node, sizeof(dev->node), "%s", path);
			dev->fd = fd;
			return 0;
		}
	}
	pk_diag_subject(diag, dev->node);
	pk_diag_fail(diag, err, "cannot open the i915 device: %s", strerror(-err));
	if (err == -EACCES || err == -EPERM)
		pk_diag_hint(diag, "run as root, or as a member of the group that owns %s (video or render)",
			     dev->node);
	return err;
}

static int getparam(struct pk_oa_device *dev, int param, int *value)
{
	drm_i915_getparam_t gp = { .param = param, .value = value };

	*value = 0;
	return dev->ops.ioctl(dev->ops.ctx, dev->fd, DRM_IOCTL_I915_GETPARAM, &gp) < 0 ? -1 : 0;
}

static int getparam_err(struct pk_oa_device *dev, int param, int *value)
{
	drm_i915_getparam_t gp = { .param = param, .value = value };
	int r;

	*value = 0;
	r = dev->ops.ioctl(dev->ops.ctx, dev->fd, DRM_IOCTL_I915_GETPARAM, &gp);
	return r < 0 ? r : 0;
}

/* Layout: struct drm_i915_query_topology_info, eight u16 then the masks (gpu.md 1.5). */
static int query_topology(struct pk_oa_device *dev, struct pk_diag *diag)
{
	struct drm_i915_query_item item = { .query_id = DRM_I915_QUERY_TOPOLOGY_INFO };
	struct drm_i915_query q = { .num_items = 1, .items_ptr = (uintptr_t)&item };
	struct pk_oa_topology *t = &dev->topo;
	uint8_t *buf;
	uint16_t h[8];
	int r;

	r = dev->ops.ioctl(dev->ops.ctx, dev->fd, DRM_IOCTL_I915_QUERY, &q);
	if (r >= 0 && item.length < 0)
		r = item.length;
	if (r >= 0 && item.length < 16)
		r = -EPROTO;
	if (r < 0)
		goto fail;
	if ((size_t)item.length - 16 > PK_OA_TOPOLOGY_MAX_DATA) {
		pk_diag_subject(diag, dev->node);
		return pk_diag_fail(diag, -EOVERFLOW, "the topology (%d bytes) is larger than perfkit takes (%d)",
				    item.length, 16 + PK_OA_TOPOLOGY_MAX_DATA);
	}
	buf = calloc(1, (size_t)item.length);
	if (!buf)
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	item.data_ptr = (uintptr_t)buf;
	r = dev->ops.ioctl(dev->ops.ctx, dev->fd, DRM_IOCTL_I915_QUERY, &q);
	if (r >= 0 && item.length < 0)
		r = item.length;
	if (r >= 0 && item.length < 16)
		r = -EPROTO;
	if (r < 0) {
		free(buf);
		goto fail;
	}
	memcpy(h, buf, sizeof(h));
	t->flags = h[0];
	t->max_slices = h[1];
	t->max_subslices = h[2];
	t->max_eus_per_subslice = h[3];
	t->subslice_offset = h[4];
	t->subslice_stride = h[5];
	t->eu_offset = h[6];
	t->eu_stride = h[7];
	t->data_len = (uint32_t)item.length - 16;
	memcpy(t->data, buf + 16, t->data_len);
	free(buf);
	return pk_oa_topology_derive(t, dev->platform->graphics_ver);
fail:
	pk_diag_subject(diag, dev->node);
	pk_diag_fail(diag, r, "cannot query the topology: %s", strerror(-r));
	if (r == -EINVAL)
		pk_diag_hint(diag, "the i915 topology query needs Linux 4.17 or later");
	return r;
}

/* A sysfs value in MHz as Hz, 0 when absent. */
static uint32_t gt_freq(struct pk_oa_device *dev, const char *file)
{
	char path[PATH_MAX], line[64], *end;
	unsigned long long mhz;

	pk_path_fmt(path, sizeof(path), "%s/%s", dev->card_dir, file);
	if (dev->ops.sysfs_read(dev->ops.ctx, path, line, sizeof(line)))
		return 0;
	mhz = strtoull(line, &end, 10);
	if (end == line || mhz > UINT32_MAX / 1000000u)
		return 0;
	return (uint32_t)(mhz * 1000000u);
}

static int describe(struct pk_oa_device *dev, struct pk_diag *diag)
{
	struct pk_oa_device_info *di = &dev->info;
	int v, r;

	if ((r = getparam_err(dev, I915_PARAM_CHIPSET_ID, &v)) < 0) {
		pk_diag_subject(diag, dev->node);
		pk_diag_fail(diag, r, "cannot read the PCI id: %s", strerror(-r));
		if (r == -EINVAL || r == -ENOTTY)
			pk_diag_hint(diag, "the node is not driven by i915");
		return r;
	}
	di->device_id = (uint32_t)v & 0xffff;
	dev->platform = pk_oa_platform_by_pci_id(di->device_id);
	if (!dev->platform) {
		pk_diag_subject(diag, dev->node);
		pk_diag_fail(diag, -EOPNOTSUPP, "PCI id 0x%04x is not a platform perfkit oa knows",
			     di->device_id);
		pk_diag_hint(diag, "perfkit oa knows Haswell, Broadwell, Skylake, Tiger Lake and DG2");
		return -EOPNOTSUPP;
	}
	if (getparam(dev, I915_PARAM_REVISION, &v) == 0)
		di->revision = (uint32_t)v;
	dev->perf_revision = getparam(dev, I915_PARAM_PERF_REVISION, &v) == 0 ? v : 0;
	if (getparam(dev, I915_PARAM_OA_TIMESTAMP_FREQUENCY, &v) == 0 && v > 0)
		di->timestamp_frequency = (uint64_t)v;
	else if (getparam(dev, I915_PARAM_CS_TIMESTAMP_FREQUENCY, &v) == 0 && v > 0)
		di->timestamp_frequency = (uint64_t)v;
	else
		di->timestamp_frequency = dev->platform->timestamp_frequency;
	di->gt_min_frequency = gt_freq(dev, "gt_min_freq_mhz");
	di->gt_max_frequency = gt_freq(dev, "gt_max_freq_mhz");
	di->engine_class = 0;    /* render, as IGT 1.27.1's recorder */
	di->engine_instance = 0;
	di->oa_format = (uint32_t)dev->platform->oa_format;
	return query_topology(dev, diag);
}

int pk_oa_device_open(const struct pk_oa_device_opts *opts, struct pk_oa_device **out,
		      struct pk_diag *diag)
{
	const char *sys_root = OPT(opts, sys_root, "/sys");
	const char *dev_root = OPT(opts, dev_root, "/dev");
	const char *proc_root = OPT(opts, proc_root, "/proc");
	const struct pk_oa_dev_ops *ops = OPT(opts, ops, pk_oa_dev_ops_system());
	int want = opts && opts->sz >= offsetof(struct pk_oa_device_opts, card) + sizeof(int) ?
		   opts->card : -1;
	struct pk_oa_device *dev;
	int err;

	*out = NULL;
	if (ops->sz < offsetof(struct pk_oa_dev_ops, sysfs_read) + sizeof(ops->sysfs_read) ||
	    !ops->open || !ops->close || !ops->ioctl || !ops->read || !ops->poll || !ops->sysfs_read)
		return pk_diag_fail(diag, -EINVAL, "incomplete device operations table");
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	dev->ops = *ops;
	dev->fd = -1;
	if (pk_path_fmt(dev->proc_root, sizeof(dev->proc_root), "%s", proc_root) ||
	    strlen(sys_root) > PATH_MAX / 2 || strlen(dev_root) > PATH_MAX / 2) {
		err = pk_diag_fail(diag, -ENAMETOOLONG, "a root directory's name is too long");
		goto fail;
	}
	if ((err = find_card(sys_root, want, &dev->card, diag)))
		goto fail;
	pk_path_fmt(dev->card_dir, sizeof(dev->card_dir), "%s/class/drm/card%d", sys_root, dev->card);
	if ((err = open_node(dev, dev_root, diag)) || (err = describe(dev, diag)))
		goto fail;
	*out = dev;
	return 0;
fail:
	pk_oa_device_close(dev);
	return err;
}

void pk_oa_device_close(struct pk_oa_device *dev)
{
	if (!dev)
		return;
	if (dev->fd >= 0)
		dev->ops.close(dev->ops.ctx, dev->fd);
	free(dev);
}

int pk_oa_device_card(const struct pk_oa_device *dev)
{
	return dev->card;
}

const char *pk_oa_device_node(const struct pk_oa_device *dev)
{
	return dev->node;
}

const struct pk_oa_platform *pk_oa_device_platform(const struct pk_oa_device *dev)
{
	return dev->platform;
}

const struct pk_oa_device_info *pk_oa_device_info(const struct pk_oa_device *dev)
{
	return &dev->info;
}

const struct pk_oa_topology *pk_oa_device_topology(const struct pk_oa_device *dev)
{
	return &dev->topo;
}

/* A GUID as sysfs names it: hex digits and dashes only (it becomes a path). */
static int guid_ok(const char *g)
{
	size_t n = 0;

	for (; g[n]; n++)
		if (!(g[n] == '-' || (g[n] >= '0' && g[n] <= '9') || (g[n] >= 'a' && g[n] <= 'f') ||
		      (g[n] >= 'A' && g[n] <= 'F')))
			return 0;
	return n > 0 && n < 40;
}

int pk_oa_device_metric_id(const struct pk_oa_device *dev, const char *guid, uint64_t *id,
			   struct pk_diag *diag)
{
	char path[PATH_MAX], line[64], *end;
	unsigned long long v;
	int err;

	if (!guid || !guid_ok(guid))
		return pk_diag_fail(diag, -EINVAL, "'%s' is not a metric set GUID", guid ? guid : "");
	pk_path_fmt(path, sizeof(path), "%s/metrics/%s/id", dev->card_dir, guid);
	err = dev->ops.sysfs_read(dev->ops.ctx, path, line, sizeof(line));
	if (err) {
		pk_diag_subject(diag, path);
		pk_diag_fail(diag, err, "the kernel has no metric set %s: %s", guid, strerror(-err));
		pk_diag_hint(diag, "the sets this kernel offers are the directories of %s/metrics", dev->card_dir);
		return err;
	}
	errno = 0;
	v = strtoull(line, &end, 10);
	if (errno || end == line || v == 0) {
		pk_diag_subject(diag, path);
		return pk_diag_fail(diag, -EINVAL, "not a metric set id: '%s'", line);
	}
	*id = v;
	return 0;
}

PK_API int pk_oa_cpu_clock_parse(const char *name)
{
	static const struct { const char *name; enum pk_oa_cpu_clock clock; } names[] = {
		{ "mono", PK_OA_CLOCK_MONOTONIC }, { "monotonic", PK_OA_CLOCK_MONOTONIC },
		{ "mono_raw", PK_OA_CLOCK_MONOTONIC_RAW }, { "monotonic_raw", PK_OA_CLOCK_MONOTONIC_RAW },
		{ "raw", PK_OA_CLOCK_MONOTONIC_RAW },
		{ "boot", PK_OA_CLOCK_BOOTTIME }, { "boottime", PK_OA_CLOCK_BOOTTIME },
	};

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(name, names[i].name))
			return (int)names[i].clock;
	return -1;
}

PK_API uint64_t pk_oa_cpu_clock_now(enum pk_oa_cpu_clock clock)
{
	return pk_clock_ns(clock == PK_OA_CLOCK_MONOTONIC_RAW ? CLOCK_MONOTONIC_RAW :
			   clock == PK_OA_CLOCK_BOOTTIME ? CLOCK_BOOTTIME : CLOCK_MONOTONIC);
}

int pk_oa_device_correlation(const struct pk_oa_device *dev, enum pk_oa_cpu_clock clock,
			     struct pk_oa_correlation *c, struct pk_diag *diag)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		struct drm_i915_reg_read rr = { .offset = RENDER_RING_TIMESTAMP | I915_REG_READ_8B_WA };
		uint64_t t0 = pk_oa_cpu_clock_now(clock), t1;
		int r = dev->ops.ioctl(dev->ops.ctx, dev->fd, DRM_IOCTL_I915_REG_READ, &rr);

		t1 = pk_oa_cpu_clock_now(clock);
		if (r < 0) {
			pk_diag_subject(diag, dev->node);
			return pk_diag_fail(diag, r, "cannot read the GPU timestamp register: %s",
					    strerror(-r));
		}
		if (t1 - t0 < best) {
			best = t1 - t0;
			c->cpu_ns = t0 + (t1 - t0) / 2;
			c->gpu_ts = rr.val;
		}
	}
	return 0;
}

/* ---- period ---------------------------------------------------------------------- */

int pk_oa_exponent_for_period(uint64_t period_ns, uint64_t freq)
{
	/* compare in ticks scaled by 10^9 so nothing is rounded: ticks(e) * 10^9 vs period * freq */
	unsigned __int128 want = (unsigned __int128)period_ns * freq;
	int best = 0;
	unsigned __int128 best_diff = 0;

	if (!period_ns || !freq)
		return -EINVAL;
	for (int e = 0; e <= PK_OA_EXPONENT_MAX; e++) {
		unsigned __int128 have = ((unsigned __int128)2 << e) * NS_PER_SEC;
		unsigned __int128 diff = have > want ? have - want : want - have;

		if (e == 0 || diff < best_diff) {
			best = e;
			best_diff = diff;
		}
	}
	return best;
}

uint64_t pk_oa_exponent_period_ns(int e, uint64_t freq)
{
	if (!freq || e < 0 || e > PK_OA_EXPONENT_MAX)
		return 0;
	return (uint64_t)(((unsigned __int128)2 << e) * NS_PER_SEC / freq);
}
