/*
 * Unit tests for lib/gpu/devices.c: sysfs fixture trees built in a temporary
 * directory with the layout of tests/cli/gpu-lib.bash (relative symlinks
 * from class/drm to the device directories) — a PCI GPU with a card, a
 * render node and a connector, a platform GPU, an accelerator, an empty and
 * a missing tree — and the lookup of a device by node number.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/gpu.h>
#include "../tap.h"

static char tmp[256];

#include "fixture_files.h"

/* A device directory @devdir (relative to sys/devices) with DRM-style nodes of class @cls. */
static void add_nodes(const char *sys, const char *devdir, const char *cls, int major,
		      const char *const *nodes)
{
	char rel[512], buf[64];

	for (; *nodes; nodes++) {
		const char *node = *nodes, *m = node + strlen(node);

		while (m > node && m[-1] >= '0' && m[-1] <= '9')
			m--;
		mkdirs("%s/devices/%s/%s/%s", sys, devdir, cls, node);
		snprintf(buf, sizeof(buf), "%d:%s\n", major, m);
		put(buf, "%s/devices/%s/%s/%s/dev", sys, devdir, cls, node);
		lnk("../..", "%s/devices/%s/%s/%s/device", sys, devdir, cls, node);
		mkdirs("%s/class/%s", sys, cls);
		snprintf(rel, sizeof(rel), "../../devices/%s/%s/%s", devdir, cls, node);
		lnk(rel, "%s/class/%s/%s", sys, cls, node);
	}
}

/* gpu_pci_dev of tests/cli/gpu-lib.bash. */
static void pci_dev(const char *sys, const char *pdev, const char *driver, const char *vendor,
		    const char *device, const char *const *nodes)
{
	char devdir[256], v[32];

	snprintf(devdir, sizeof(devdir), "pci0000:00/%s", pdev);
	mkdirs("%s/devices/%s", sys, devdir);
	mkdirs("%s/bus/pci/drivers/%s", sys, driver);
	snprintf(v, sizeof(v), "%s\n", vendor);
	put(v, "%s/devices/%s/vendor", sys, devdir);
	snprintf(v, sizeof(v), "%s\n", device);
	put(v, "%s/devices/%s/device", sys, devdir);
	put("0x1028\n", "%s/devices/%s/subsystem_vendor", sys, devdir);
	put("0x0a2b\n", "%s/devices/%s/subsystem_device", sys, devdir);
	put("0x04\n", "%s/devices/%s/revision", sys, devdir);
	snprintf(v, sizeof(v), "../../../bus/pci/drivers/%s", driver);
	lnk(v, "%s/devices/%s/driver", sys, devdir);
	add_nodes(sys, devdir, "drm", 226, nodes);
}

static void test_pci(void)
{
	static const char *const nodes[] = { "renderD128", "card0", NULL };
	struct pk_gpu_device *devs = NULL;
	struct pk_diag d;
	char sys[512];
	uint32_t n = 99;
	int err;

	snprintf(sys, sizeof(sys), "%s/pci/sys", tmp);
	pci_dev(sys, "0000:00:02.0", "i915", "0x8086", "0x5917", nodes);
	/* a connector: a directory under the card and a class link, not a node */
	mkdirs("%s/devices/pci0000:00/0000:00:02.0/drm/card0/card0-DP-1", sys);
	lnk("../../devices/pci0000:00/0000:00:02.0/drm/card0/card0-DP-1", "%s/class/drm/card0-DP-1", sys);
	put("1.6.0 20201103 0\n", "%s/class/drm/version", sys);

	pk_diag_init(&d);
	err = pk_gpu_devices_load(sys, &devs, &n, &d);
	is_int(err, 0, "pci: load succeeds");
	is_int(n, 1, "pci: one device for card0 + renderD128 (connector and version skipped)");
	if (n != 1) {
		free(devs);
		return;
	}
	is_str(devs[0].key, "0000:00:02.0", "pci: key is the pdev");
	is_str(devs[0].pdev, "0000:00:02.0", "pci: pdev");
	is_str(devs[0].driver, "i915", "pci: driver from the driver link");
	is_int(devs[0].vendor_id, 0x8086, "pci: vendor id");
	is_int(devs[0].device_id, 0x5917, "pci: device id");
	is_int(devs[0].subsys_vendor_id, 0x1028, "pci: subsystem vendor id");
	is_int(devs[0].subsys_device_id, 0x0a2b, "pci: subsystem device id");
	is_int(devs[0].revision, 4, "pci: revision");
	ok(!devs[0].accel, "pci: not an accelerator");
	is_int(devs[0].n_nodes, 2, "pci: two nodes");
	is_str(devs[0].nodes[0].name, "card0", "pci: nodes sorted, card0 first");
	is_int(devs[0].nodes[0].major, 226, "pci: card0 major");
	is_int(devs[0].nodes[0].minor, 0, "pci: card0 minor");
	is_str(devs[0].nodes[1].name, "renderD128", "pci: renderD128 second");
	is_int(devs[0].nodes[1].minor, 128, "pci: renderD128 minor");
	if (access("/usr/share/misc/pci.ids", R_OK) == 0) {
		is_str(devs[0].vendor_name, "Intel Corporation", "pci: vendor name from pci.ids");
		ok(strstr(devs[0].device_name, "HD Graphics 620") != NULL,
		   "pci: device name from pci.ids (%s)", devs[0].device_name);
	} else {
		ok(1, "# SKIP no /usr/share/misc/pci.ids");
		ok(1, "# SKIP no /usr/share/misc/pci.ids");
	}
	ok(pk_gpu_device_by_node(devs, n, 226, 128) == &devs[0], "by_node: renderD128");
	ok(pk_gpu_device_by_node(devs, n, 226, 0) == &devs[0], "by_node: card0");
	ok(pk_gpu_device_by_node(devs, n, 226, 129) == NULL, "by_node: unknown minor");
	ok(pk_gpu_device_by_node(devs, n, 261, 0) == NULL, "by_node: other major");
	ok(pk_gpu_device_by_node(NULL, 0, 226, 0) == NULL, "by_node: no devices");
	free(devs);
}

static void test_mixed(void)
{
	static const char *const amd[] = { "card1", "renderD129", NULL };
	static const char *const msm[] = { "card0", "renderD128", NULL };
	static const char *const acc[] = { "accel0", NULL };
	struct pk_gpu_device *devs = NULL;
	char sys[512];
	uint32_t n = 0;
	int err;

	snprintf(sys, sizeof(sys), "%s/mixed/sys", tmp);
	/* an unknown PCI id: ids read, names stay "" */
	pci_dev(sys, "0000:03:00.0", "amdgpu", "0x1002", "0xfffe", amd);
	/* a platform device */
	mkdirs("%s/devices/platform/soc/ae00000.display/fd00000.gpu", sys);
	mkdirs("%s/bus/platform/drivers/msm", sys);
	lnk("../../../../../bus/platform/drivers/msm",
	    "%s/devices/platform/soc/ae00000.display/fd00000.gpu/driver", sys);
	add_nodes(sys, "platform/soc/ae00000.display/fd00000.gpu", "drm", 226, msm);
	/* an accelerator with a PCI address but no vendor file */
	mkdirs("%s/devices/pci0000:00/0000:00:0b.0", sys);
	mkdirs("%s/bus/pci/drivers/intel_vpu", sys);
	lnk("../../../bus/pci/drivers/intel_vpu", "%s/devices/pci0000:00/0000:00:0b.0/driver", sys);
	add_nodes(sys, "pci0000:00/0000:00:0b.0", "accel", 261, acc);

	err = pk_gpu_devices_load(sys, &devs, &n, NULL);
	is_int(err, 0, "mixed: load succeeds");
	is_int(n, 3, "mixed: three devices");
	if (n != 3) {
		free(devs);
		return;
	}
	is_str(devs[0].key, "0000:00:0b.0", "mixed: sorted by key, accel first");
	ok(devs[0].accel, "mixed: accel device");
	is_str(devs[0].pdev, "0000:00:0b.0", "mixed: accel pdev from its address");
	is_str(devs[0].driver, "intel_vpu", "mixed: accel driver");
	is_int(devs[0].n_nodes, 1, "mixed: accel one node");
	is_str(devs[0].nodes[0].name, "accel0", "mixed: accel0");
	is_int(devs[0].nodes[0].major, 261, "mixed: accel major");

	is_str(devs[1].key, "0000:03:00.0", "mixed: amdgpu second");
	is_str(devs[1].driver, "amdgpu", "mixed: amdgpu driver");
	is_int(devs[1].vendor_id, 0x1002, "mixed: amd vendor id");
	is_int(devs[1].device_id, 0xfffe, "mixed: amd device id");
	is_str(devs[1].device_name, "", "mixed: unknown device id has no name");
	if (access("/usr/share/misc/pci.ids", R_OK) == 0)
		ok(strstr(devs[1].vendor_name, "AMD") != NULL, "mixed: AMD vendor name (%s)",
		   devs[1].vendor_name);
	else
		ok(1, "# SKIP no /usr/share/misc/pci.ids");

	is_str(devs[2].key, "fd00000.gpu", "mixed: platform key is the basename");
	is_str(devs[2].pdev, "", "mixed: platform has no pdev");
	is_str(devs[2].driver, "msm", "mixed: platform driver");
	is_int(devs[2].vendor_id, 0, "mixed: platform no vendor id");
	is_str(devs[2].vendor_name, "", "mixed: platform no vendor name");
	is_int(devs[2].n_nodes, 2, "mixed: platform two nodes");
	ok(!devs[2].accel, "mixed: platform not accel");

	ok(pk_gpu_device_by_node(devs, n, 226, 129) == &devs[1], "mixed: by_node renderD129");
	ok(pk_gpu_device_by_node(devs, n, 226, 128) == &devs[2], "mixed: by_node renderD128");
	ok(pk_gpu_device_by_node(devs, n, 261, 0) == &devs[0], "mixed: by_node accel0");
	free(devs);
}

static void test_empty(void)
{
	struct pk_gpu_device *devs = (struct pk_gpu_device *)1;
	char sys[512];
	uint32_t n = 7;
	int err;

	snprintf(sys, sizeof(sys), "%s/empty/sys", tmp);
	mkdirs("%s/class/drm", sys);
	err = pk_gpu_devices_load(sys, &devs, &n, NULL);
	is_int(err, 0, "empty: load succeeds");
	is_int(n, 0, "empty: no devices");
	free(devs);

	n = 7;
	snprintf(sys, sizeof(sys), "%s/missing/sys", tmp);
	err = pk_gpu_devices_load(sys, &devs, &n, NULL);
	is_int(err, 0, "missing: load succeeds");
	is_int(n, 0, "missing: no devices");
	free(devs);

	/* a node whose dev file is missing is no node */
	snprintf(sys, sizeof(sys), "%s/nodev/sys", tmp);
	mkdirs("%s/devices/platform/x.gpu/drm/card0", sys);
	lnk("../..", "%s/devices/platform/x.gpu/drm/card0/device", sys);
	mkdirs("%s/class/drm", sys);
	lnk("../../devices/platform/x.gpu/drm/card0", "%s/class/drm/card0", sys);
	n = 7;
	err = pk_gpu_devices_load(sys, &devs, &n, NULL);
	is_int(err, 0, "no dev file: load succeeds");
	is_int(n, 0, "no dev file: no device");
	free(devs);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/pk-gpu-devices-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp)) {
		skip_all("cannot create a temporary directory");
		return 0;
	}
	test_pci();
	test_mixed();
	test_empty();
	rm_tree(tmp);
	return done_testing();
}
