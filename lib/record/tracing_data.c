/*
 * The TRACING_DATA blob that `perf record` stores for tracepoint events (the
 * HEADER_TRACING_DATA feature in file mode, the payload after record 66 in
 * pipe mode): the tracefs format files that let `perf script` decode the raw
 * payload of each recorded tracepoint.
 *
 * Layout written (perf 6.1, ../shared/reference/perf-data.md §7 feature 1),
 * integers in host byte order:
 *
 *   size  field
 *   10    "\x17\x08\x44tracing"
 *   4     "0.6\0"                   version
 *   1     1 if the host is big-endian, else 0
 *   1     sizeof(long)
 *   4     page size
 *   12    "header_page\0"          8  size   size bytes of events/header_page
 *   13    "header_event\0"         8  size   size bytes of events/header_event
 *   4     nr ftrace formats       nr x { u64 size; events/ftrace/E/format }
 *   4     nr systems              per system { name\0; u32 nr; nr x { u64 size; format } }
 *   4     kallsyms size           always 0: perf 6.1 writes an empty kallsyms
 *   4     printk_formats size     contents of printk_formats (0 when missing)
 *   8     saved_cmdlines size     contents of saved_cmdlines (0 when missing)
 *
 * Selection follows perf: the systems are those of the recorded events
 * ("ftrace" excluded from the per-system part), and within a system (and
 * within events/ftrace) an event is written when its name equals the name
 * part of any recorded tracepoint. Directories are walked in readdir order,
 * as perf walks them, so the blob matches perf's byte for byte on the same
 * machine. tracefs files report size 0 from stat and are read to the end.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/core.h>
#include <perfkit/event.h>
#include <perfkit/record.h>

#define TD_MAGIC "\x17\x08\x44tracing"
#define TD_VERSION "0.6"
#define TD_FILE_MAX (256u << 20)   /* no tracefs file perf copies comes near this */

/* One recorded tracepoint split into system and event name. */
struct td_tp {
	char sys[NAME_MAX + 1];
	char name[NAME_MAX + 1];
};

struct td_ctx {
	const char *tracefs;
	const struct td_tp *tps;
	size_t nr;
	struct pk_buf *out;
	struct pk_buf file;   /* scratch for one file's contents */
	struct pk_diag *d;
};

static int put(struct td_ctx *c, const void *p, size_t n)
{
	return pk_buf_append(c->out, p, n);
}

static int put_u32(struct td_ctx *c, uint32_t v)
{
	return put(c, &v, sizeof(v));
}

static int put_u64(struct td_ctx *c, uint64_t v)
{
	return put(c, &v, sizeof(v));
}

/* Overwrite a u32 written earlier at @off (counts known only after a walk). */
static void patch_u32(struct td_ctx *c, size_t off, uint32_t v)
{
	memcpy(c->out->data + off, &v, sizeof(v));
}

/* Append the whole of @path preceded by its size in @size_bytes (4 or 8). */
static int put_file(struct td_ctx *c, const char *path, size_t size_bytes)
{
	int err = pk_file_read_all(path, &c->file, TD_FILE_MAX);

	if (err) {
		pk_diag_subject(c->d, path);
		return pk_diag_fail(c->d, err, "cannot read tracefs file: %s", strerror(-err));
	}
	if (size_bytes == 4) {
		if (c->file.len > UINT32_MAX)
			return pk_diag_fail(c->d, -EFBIG, "tracefs file too large for a u32 size");
		err = put_u32(c, (uint32_t)c->file.len);
	} else {
		err = put_u64(c, c->file.len);
	}
	if (!err)
		err = put(c, c->file.data, c->file.len);
	return err ? pk_diag_fail(c->d, err, "out of memory") : 0;
}

/* Like put_file() but a missing file writes size 0, as perf does. */
static int put_file_opt(struct td_ctx *c, const char *path, size_t size_bytes)
{
	struct stat st;
	int err;

	if (stat(path, &st) == 0)
		return put_file(c, path, size_bytes);
	err = size_bytes == 4 ? put_u32(c, 0) : put_u64(c, 0);
	return err ? pk_diag_fail(c->d, err, "out of memory") : 0;
}

static int td_path(struct td_ctx *c, char *buf, size_t sz, const char *a, const char *b,
		   const char *e)
{
	int n;

	if (b && e)
		n = snprintf(buf, sz, "%s/%s/%s/%s/%s", c->tracefs, a, b, e, "format");
	else if (b)
		n = snprintf(buf, sz, "%s/%s/%s", c->tracefs, a, b);
	else
		n = snprintf(buf, sz, "%s/%s", c->tracefs, a);
	if (n < 0 || (size_t)n >= sz)
		return pk_diag_fail(c->d, -ENAMETOOLONG, "tracefs path too long");
	return 0;
}

static int name_wanted(const struct td_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->tps[i].name, name))
			return 1;
	return 0;
}

static int sys_wanted(const struct td_ctx *c, const char *sys)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->tps[i].sys, sys))
			return 1;
	return 0;
}

/* Whether entry @de of directory @dir is a directory (d_type, else stat). */
static int is_dir(const char *dir, const struct dirent *de)
{
	char path[PATH_MAX];
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The formats of system directory @sys (relative to events/) whose event
 * name is wanted: u32 count, then per event u64 size + format text.
 */
/*
 * Open tracefs directory @dir and append a u32 count placeholder (patched
 * once the entries are written, at *@count_off). 0 or -errno with c->d set.
 */
static int open_counted(struct td_ctx *c, const char *dir, DIR **dp, size_t *count_off)
{
	int err;

	*dp = opendir(dir);
	if (!*dp) {
		err = -errno;
		pk_diag_subject(c->d, dir);
		return pk_diag_fail(c->d, err, "cannot open tracefs directory: %s", strerror(-err));
	}
	*count_off = c->out->len;
	if ((err = put_u32(c, 0))) {
		closedir(*dp);
		return pk_diag_fail(c->d, err, "out of memory");
	}
	return 0;
}

static int put_system(struct td_ctx *c, const char *sys)
{
	char dir[PATH_MAX], fmt[PATH_MAX];
	struct dirent *de;
	size_t count_off;
	uint32_t count = 0;
	struct stat st;
	DIR *dp;
	int err;

	err = td_path(c, dir, sizeof(dir), "events", sys, NULL);
	if (err)
		return err;
	if ((err = open_counted(c, dir, &dp, &count_off)))
		return err;
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !name_wanted(c, de->d_name) || !is_dir(dir, de))
			continue;
		err = td_path(c, fmt, sizeof(fmt), "events", sys, de->d_name);
		if (err)
			goto out;
		if (stat(fmt, &st))
			continue;
		err = put_file(c, fmt, 8);
		if (err)
			goto out;
		count++;
	}
	patch_u32(c, count_off, count);
out:
	closedir(dp);
	return err;
}

/* The ftrace formats (a tracefs without events/ftrace gives count 0). */
static int put_ftrace(struct td_ctx *c)
{
	char dir[PATH_MAX];
	struct stat st;
	int err;

	err = td_path(c, dir, sizeof(dir), "events", "ftrace", NULL);
	if (err)
		return err;
	if (stat(dir, &st) && errno == ENOENT) {
		err = put_u32(c, 0);
		return err ? pk_diag_fail(c->d, err, "out of memory") : 0;
	}
	return put_system(c, "ftrace");
}

/* The per-system part: u32 nr systems, then name\0 + put_system() for each. */
static int put_event_systems(struct td_ctx *c)
{
	char dir[PATH_MAX];
	struct dirent *de;
	size_t count_off;
	uint32_t count = 0;
	DIR *dp;
	int err;

	err = td_path(c, dir, sizeof(dir), "events", NULL, NULL);
	if (err)
		return err;
	if ((err = open_counted(c, dir, &dp, &count_off)))
		return err;
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "ftrace") || !sys_wanted(c, de->d_name) ||
		    !is_dir(dir, de))
			continue;
		err = put(c, de->d_name, strlen(de->d_name) + 1);
		if (err) {
			err = pk_diag_fail(c->d, err, "out of memory");
			goto out;
		}
		err = put_system(c, de->d_name);
		if (err)
			goto out;
		count++;
	}
	patch_u32(c, count_off, count);
out:
	closedir(dp);
	return err;
}

/* Split "sys:name" (or "sys/name") and check its format file exists. */
static int parse_tp(struct td_ctx *c, const char *spec, struct td_tp *tp)
{
	const char *sep = strpbrk(spec, ":/");
	char path[PATH_MAX];
	size_t sl;
	struct stat st;

	pk_diag_subject(c->d, spec);
	if (!sep || sep == spec || !sep[1] || strpbrk(sep + 1, ":/"))
		return pk_diag_fail(c->d, -EINVAL, "not a tracepoint name (want sys:name)");
	sl = (size_t)(sep - spec);
	if (sl >= sizeof(tp->sys) || strlen(sep + 1) >= sizeof(tp->name) ||
	    spec[0] == '.' || sep[1] == '.')
		return pk_diag_fail(c->d, -EINVAL, "not a tracepoint name (want sys:name)");
	memcpy(tp->sys, spec, sl);
	tp->sys[sl] = '\0';
	strcpy(tp->name, sep + 1);
	if (td_path(c, path, sizeof(path), "events", tp->sys, tp->name))
		return -ENAMETOOLONG;
	if (stat(path, &st)) {
		int err = -errno;

		pk_diag_subject(c->d, path);
		return pk_diag_fail(c->d, err, "no format for tracepoint %s:%s: %s",
				    tp->sys, tp->name, strerror(-err));
	}
	return 0;
}

static int put_header(struct td_ctx *c)
{
	const uint16_t probe = 1;
	uint8_t big_endian = *(const uint8_t *)&probe == 0;
	uint8_t long_size = sizeof(long);
	long page = sysconf(_SC_PAGESIZE);
	int err;

	err = put(c, TD_MAGIC, sizeof(TD_MAGIC) - 1);
	if (!err)
		err = put(c, TD_VERSION, sizeof(TD_VERSION));
	if (!err)
		err = put(c, &big_endian, 1);
	if (!err)
		err = put(c, &long_size, 1);
	if (!err)
		err = put_u32(c, page > 0 ? (uint32_t)page : 4096);
	return err ? pk_diag_fail(c->d, err, "out of memory") : 0;
}

/* "header_page\0" + u64 size + events/header_page, the same for header_event. */
static int put_header_files(struct td_ctx *c)
{
	static const char *const names[] = { "header_page", "header_event" };
	char path[PATH_MAX];
	int err;

	for (size_t i = 0; i < 2; i++) {
		err = td_path(c, path, sizeof(path), "events", names[i], NULL);
		if (err)
			return err;
		err = put(c, names[i], strlen(names[i]) + 1);
		if (err)
			return pk_diag_fail(c->d, err, "out of memory");
		err = put_file(c, path, 8);
		if (err)
			return err;
	}
	return 0;
}

/* kallsyms (empty, as perf 6.1), printk_formats, saved_cmdlines. */
static int put_tail(struct td_ctx *c)
{
	char path[PATH_MAX];
	int err;

	err = put_u32(c, 0);
	if (err)
		return pk_diag_fail(c->d, err, "out of memory");
	err = td_path(c, path, sizeof(path), "printk_formats", NULL, NULL);
	if (!err)
		err = put_file_opt(c, path, 4);
	if (!err)
		err = td_path(c, path, sizeof(path), "saved_cmdlines", NULL, NULL);
	if (!err)
		err = put_file_opt(c, path, 8);
	return err;
}

int pk_tracing_data_build(const char *const *names, size_t nr, const char *tracefs,
			  struct pk_buf *out, struct pk_diag *d)
{
	char found[PATH_MAX];
	struct td_ctx c = { .out = out, .d = d };
	struct td_tp *tps;
	size_t start = out->len;
	int err;

	if (!names && nr)
		return pk_diag_fail(d, -EINVAL, "no tracepoint names");
	if (!tracefs) {
		err = pk_tracefs_path(found, sizeof(found));
		if (err) {
			pk_diag_subject(d, "tracefs");
			pk_diag_fail(d, err, "cannot find tracefs: %s", strerror(-err));
			pk_diag_hint(d, "mount it: mount -t tracefs nodev /sys/kernel/tracing");
			return err;
		}
		tracefs = found;
	}
	c.tracefs = tracefs;
	tps = calloc(nr ? nr : 1, sizeof(*tps));
	if (!tps)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	c.tps = tps;
	c.nr = nr;
	pk_buf_init(&c.file);
	err = 0;
	for (size_t i = 0; i < nr && !err; i++)
		err = parse_tp(&c, names[i], &tps[i]);
	if (!err)
		err = put_header(&c);
	if (!err)
		err = put_header_files(&c);
	if (!err)
		err = put_ftrace(&c);
	if (!err)
		err = put_event_systems(&c);
	if (!err)
		err = put_tail(&c);
	pk_buf_release(&c.file);
	free(tps);
	if (err)
		out->len = start;   /* leave @out as it was */
	return err;
}
