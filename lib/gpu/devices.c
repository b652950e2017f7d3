/*
 * The DRM and accel devices of a sysfs tree: one pk_gpu_device per device
 * directory, with the nodes (card0, renderD128, accel0) that belong to it,
 * the kernel driver bound to it and, for PCI devices, the ids and the names
 * the PCI id database gives them.
 *
 * The sysfs layout read (Documentation/ABI/testing/sysfs-class-drm and the
 * driver core's class links):
 *
 *   <sys>/class/drm/<node>          -> ../../devices/<bus path>/<dev>/drm/<node>
 *   <sys>/class/accel/<node>        -> ../../devices/<bus path>/<dev>/accel/<node>
 *   <node>/dev                      "MAJOR:MINOR"
 *   <node>/device                   -> the device directory <dev>
 *   <dev>/driver                    -> .../drivers/<driver name>
 *   <dev>/vendor, device,           "0x8086" (PCI devices only)
 *        subsystem_vendor, subsystem_device, revision
 *
 * <dev>'s basename is the PCI address ("0000:00:02.0") for PCI devices and
 * the platform device name ("fd00000.gpu") otherwise. Connector entries
 * (card0-HDMI-A-1) and "version" are not nodes and are skipped.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pci/pci.h>
#include <perfkit/gpu.h>

/* A device being collected, with the real path of its directory (the grouping key). */
struct dev_acc {
	struct pk_gpu_device dev;
	char *path;
};

/* True if @name is @prefix followed by one or more decimal digits only. */
static int node_name_is(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, n) != 0 || !name[n])
		return 0;
	for (p = name + n; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

static int is_node_name(const char *name, int accel)
{
	if (accel)
		return node_name_is(name, "accel");
	return node_name_is(name, "card") || node_name_is(name, "renderD") ||
	       node_name_is(name, "controlD");
}

/* True if @s is a PCI address DDDD:BB:DD.F (hex digits). */
static int is_pci_addr(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.x";
	size_t i;

	if (strlen(s) != sizeof(shape) - 1)
		return 0;
	for (i = 0; i < sizeof(shape) - 1; i++) {
		if (shape[i] == 'x') {
			if (!isxdigit((unsigned char)s[i]))
				return 0;
		} else if (s[i] != shape[i]) {
			return 0;
		}
	}
	return 1;
}

static void copy_name(char *dst, size_t sz, const char *src)
{
	size_t n = strlen(src);

	if (n >= sz)
		n = sz - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static uint32_t read_hex_attr(const char *dir, const char *attr)
{
	char path[PATH_MAX];
	uint64_t v = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, attr) >= sizeof(path))
		return 0;
	if (pk_file_read_u64(path, &v) < 0 || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

/* Fill the identity of a new device from its directory @path. */
static void device_identify(struct pk_gpu_device *d, const char *path, int accel)
{
	const char *base = strrchr(path, '/');
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	int pci;

	base = base ? base + 1 : path;
	d->accel = accel;
	copy_name(d->key, sizeof(d->key), base);

	if ((size_t)snprintf(link, sizeof(link), "%s/driver", path) < sizeof(link)) {
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			const char *drv;

			target[n] = '\0';
			drv = strrchr(target, '/');
			copy_name(d->driver, sizeof(d->driver), drv ? drv + 1 : target);
		}
	}

	pci = is_pci_addr(base);
	if (!pci && (size_t)snprintf(link, sizeof(link), "%s/vendor", path) < sizeof(link))
		pci = access(link, F_OK) == 0;
	if (!pci)
		return;
	copy_name(d->pdev, sizeof(d->pdev), base);
	d->vendor_id = read_hex_attr(path, "vendor");
	d->device_id = read_hex_attr(path, "device");
	d->subsys_vendor_id = read_hex_attr(path, "subsystem_vendor");
	d->subsys_device_id = read_hex_attr(path, "subsystem_device");
	d->revision = read_hex_attr(path, "revision");
}

/* Parse "MAJOR:MINOR" from @path. 0 or -errno. */
static int read_devnum(const char *path, int *major, int *minor)
{
	char line[64], *end;
	long ma, mi;
	int err = pk_file_read_line(path, line, sizeof(line));

	if (err < 0)
		return err;
	errno = 0;
	ma = strtol(line, &end, 10);
	if (end == line || *end != ':' || ma < 0 || ma > INT_MAX)
		return -EINVAL;
	mi = strtol(end + 1, &end, 10);
	if (errno || *end || mi < 0 || mi > INT_MAX)
		return -EINVAL;
	*major = (int)ma;
	*minor = (int)mi;
	return 0;
}

/* Add node @name of <root>/class/<cls> to the device it belongs to. 0 or -ENOMEM. */
static int add_node(const char *root, const char *cls, const char *name, int accel,
		    struct dev_acc **acc, size_t *n, size_t *cap)
{
	char path[PATH_MAX], *real;
	struct pk_gpu_device *d = NULL;
	struct pk_gpu_node *node;
	int major, minor;
	size_t i;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/%s/%s/dev", root, cls, name) >= sizeof(path))
		return 0;
	if (read_devnum(path, &major, &minor) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/class/%s/%s/device", root, cls, name);
	real = realpath(path, NULL);
	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;

	for (i = 0; i < *n; i++) {
		if (strcmp((*acc)[i].path, real) == 0) {
			d = &(*acc)[i].dev;
			free(real);
			break;
		}
	}
	if (!d) {
		if (pk_array_grow((void **)acc, cap, *n + 1, sizeof(**acc), 4) < 0) {
			free(real);
			return -ENOMEM;
		}
		memset(&(*acc)[*n], 0, sizeof(**acc));
		(*acc)[*n].path = real;
		d = &(*acc)[*n].dev;
		device_identify(d, real, accel);
		(*n)++;
	}
	if (d->n_nodes >= PK_GPU_MAX_NODES)
		return 0;
	node = &d->nodes[d->n_nodes++];
	copy_name(node->name, sizeof(node->name), name);
	node->major = major;
	node->minor = minor;
	return 0;
}

static int scan_class(const char *root, const char *cls, int accel, struct dev_acc **acc,
		      size_t *n, size_t *cap)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/%s", root, cls) >= sizeof(path))
		return 0;
	dir = opendir(path);
	if (!dir)
		return errno == ENOMEM ? -ENOMEM : 0;
	while (!err && (de = readdir(dir)) != NULL) {
		if (strchr(de->d_name, '-') || !is_node_name(de->d_name, accel))
			continue;
		err = add_node(root, cls, de->d_name, accel, acc, n, cap);
	}
	closedir(dir);
	return err;
}

static int cmp_node(const void *a, const void *b)
{
	const struct pk_gpu_node *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_device(const void *a, const void *b)
{
	const struct pk_gpu_device *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->accel - y->accel;
}

/*
 * libpci's error callback must not return; it jumps back to the lookup
 * (pci_generic_error, the default, would exit the program).
 */
static __thread jmp_buf *pci_escape;
static __thread char pci_error[200];     /* what libpci said when it gave up */

static void pci_quiet_error(char *msg, ...) __attribute__((noreturn));
static void pci_quiet_error(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_error, sizeof(pci_error), msg, ap);
	va_end(ap);
	longjmp(*pci_escape, 1);
}

static void pci_quiet_msg(char *msg, ...)
{
}

/*
 * Vendor and device names from the PCI id database. pci_init() is not
 * called: name lookups need only the id file, and pci_init() would pick an
 * access method for the real bus. The network cache mode is turned off
 * (it would read and write ~/.pciids-cache), and so is udev's hwdb, so the
 * names come from pci.ids alone; an id it does not know gives "".
 */
static void lookup_pci_names(struct pk_gpu_device *devs, size_t n)
{
	struct pci_access *volatile pacc;
	jmp_buf env;
	size_t i;
	int any = 0;

	for (i = 0; i < n; i++)
		any |= devs[i].pdev[0] != '\0';
	if (!any)
		return;
	pacc = pci_alloc();
	if (!pacc) {
		pk_log(PK_LOG_WARN, "cannot read the PCI id database: out of memory: devices are shown "
		       "without their names");
		return;
	}
	pacc->error = pci_quiet_error;
	pacc->warning = pci_quiet_msg;
	pacc->debug = pci_quiet_msg;
	pacc->id_lookup_mode = 0;
	pacc->numeric_ids = 0;
	pci_escape = &env;
	if (setjmp(env) == 0) {
		for (i = 0; i < n; i++) {
			struct pk_gpu_device *d = &devs[i];
			const int fl = PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
			char buf[256];
			const char *s;

			if (!d->pdev[0] || !d->vendor_id)
				continue;
			s = pci_lookup_name(pacc, buf, sizeof(buf), PCI_LOOKUP_VENDOR | fl,
					    (int)d->vendor_id);
			if (s)
				copy_name(d->vendor_name, sizeof(d->vendor_name), s);
			s = pci_lookup_name(pacc, buf, sizeof(buf), PCI_LOOKUP_DEVICE | fl,
					    (int)d->vendor_id, (int)d->device_id);
			if (s)
				copy_name(d->device_name, sizeof(d->device_name), s);
		}
	} else {
		pk_log(PK_LOG_WARN, "cannot read the PCI id database: %s: devices are shown without "
		       "their names", pci_error);
	}
	pci_escape = NULL;
	pci_cleanup(pacc);
}

int pk_gpu_devices_load(const char *sys_root, struct pk_gpu_device **devs, uint32_t *n,
			struct pk_diag *diag)
{
	const char *root = sys_root ? sys_root : "/sys";
	struct dev_acc *acc = NULL;
	struct pk_gpu_device *out;
	size_t na = 0, cap = 0, i;
	int err;

	*devs = NULL;
	*n = 0;
	err = scan_class(root, "drm", 0, &acc, &na, &cap);
	if (!err)
		err = scan_class(root, "accel", 1, &acc, &na, &cap);
	if (err) {
		for (i = 0; i < na; i++)
			free(acc[i].path);
		free(acc);
		pk_diag_subject(diag, root);
		return pk_diag_fail(diag, err, "cannot list the gpu devices: %s", strerror(-err));
	}
	out = calloc(na ? na : 1, sizeof(*out));
	if (!out) {
		for (i = 0; i < na; i++)
			free(acc[i].path);
		free(acc);
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}
	for (i = 0; i < na; i++) {
		out[i] = acc[i].dev;
		free(acc[i].path);
		qsort(out[i].nodes, out[i].n_nodes, sizeof(out[i].nodes[0]), cmp_node);
	}
	free(acc);
	qsort(out, na, sizeof(*out), cmp_device);
	lookup_pci_names(out, na);
	*devs = out;
	*n = (uint32_t)na;
	return 0;
}

const struct pk_gpu_device *pk_gpu_device_by_node(const struct pk_gpu_device *devs, uint32_t n,
						  int major, int minor)
{
	uint32_t i, j;

	if (!devs)
		return NULL;
	for (i = 0; i < n; i++)
		for (j = 0; j < devs[i].n_nodes; j++)
			if (devs[i].nodes[j].major == major && devs[i].nodes[j].minor == minor)
				return &devs[i];
	return NULL;
}
