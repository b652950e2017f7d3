/*
 * Private pieces of the OA live capture shared by capture_device.c (finding
 * and describing the i915 device), capture.c (the stream) and cards.c (the
 * i915 cards of sysfs): the device handle, card discovery, a few constants.
 */
#ifndef PERFKIT_OA_CAPTURE_INT_H
#define PERFKIT_OA_CAPTURE_INT_H

#include <limits.h>
#include <stddef.h>
#include <perfkit/oa.h>

#ifndef I915_PARAM_OA_TIMESTAMP_FREQUENCY
#define I915_PARAM_OA_TIMESTAMP_FREQUENCY 57   /* Linux uapi, not in older libdrm headers */
#endif

#define RENDER_RING_TIMESTAMP 0x2358
#define NS_PER_SEC 1000000000ull
#define DEFAULT_READ_SIZE (4u << 20)
#define ENOSPC_IN_A_ROW_MAX 100
#define DRAIN_READS_MAX 64

#define OPT(o, f, def) \
	((o) && (o)->sz >= offsetof(__typeof__(*(o)), f) + sizeof((o)->f) && (o)->f ? (o)->f : (def))

struct pk_oa_device {
	struct pk_oa_dev_ops ops;
	int fd;
	int card;
	char node[PATH_MAX];
	char card_dir[PATH_MAX];      /* @sys_root/class/drm/cardN */
	char proc_root[PATH_MAX];
	const struct pk_oa_platform *platform;
	struct pk_oa_device_info info;
	struct pk_oa_topology topo;
	int perf_revision;            /* I915_PARAM_PERF_REVISION; 0 when the kernel has none */
};

/* i915 perf revision that takes DRM_I915_PERF_PROP_POLL_OA_PERIOD (i915_drm.h) */
#define PERF_REVISION_POLL_PERIOD 5

#endif
