/*
 * perf's build-id cache, filled the way perf record 6.1 fills it when it
 * finishes a file, so that perf report and perfkit report still find the
 * symbols of a recording after its binaries were rebuilt or removed, or the
 * kernel changed. For each DSO of the BUILD_ID feature:
 *
 *   DIR/<realpath>/<build-id>/elf        the binary (a hard link where DIR is
 *                                        on its file system, else a copy)
 *   DIR/<realpath>/<build-id>/debug      its /usr/lib/debug/.build-id/xx/rest.debug,
 *                                        where the distribution ships one
 *   DIR/[kernel.kallsyms]/<build-id>/kallsyms   a copy of /proc/kallsyms
 *   DIR/[vdso]/<build-id>/vdso           this process's vdso image
 *   DIR/.build-id/xx/rest -> ../../<realpath>/<build-id>   (xx: the first byte)
 *
 * DIR is perf's default, $HOME/.debug. A build-id already linked is left as
 * it is; a binary whose build-id changed since it was sampled is not cached.
 * Kernel modules are not cached. Files are written under a temporary name
 * and renamed, so a full disk leaves no partial file behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/record.h>
#include <perfkit/symbols.h>

#define CACHE_PATH_MAX (PATH_MAX + 128)

/* mkdir -p @path (0755). 0 or -errno. */
static int make_dirs(const char *path)
{
	char p[CACHE_PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*s = c;
	}
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* @dst from @len bytes of @buf, or (buf NULL) from the file @src read to its end. */
static int write_file(const char *dst, const void *buf, size_t len, const char *src)
{
	char tmp[CACHE_PATH_MAX + 8];
	char chunk[65536];
	int in = -1, out, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
	if (!buf && (in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		goto out;
	}
	if (buf) {
		err = write_all(out, buf, len);
	} else {
		for (;;) {
			ssize_t r = read(in, chunk, sizeof(chunk));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				err = r < 0 ? -errno : 0;
				break;
			}
			if ((err = write_all(out, chunk, (size_t)r)))
				break;
		}
	}
	if (close(out) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, dst) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
out:
	if (in >= 0)
		close(in);
	return err;
}

/* @dst as a hard link to @src, or a copy where that cannot be (another file system). */
static int link_or_copy(const char *src, const char *dst)
{
	if (link(src, dst) == 0 || errno == EEXIST)
		return 0;
	return write_file(dst, NULL, 0, src);
}

/* @out = @dir/@name; -ENAMETOOLONG if it does not fit. */
static int join(char *out, size_t n, const char *dir, const char *name)
{
	return (size_t)snprintf(out, n, "%s/%s", dir, name) < n ? 0 : -ENAMETOOLONG;
}

/* The file of one entry in @cachedir: elf (+ debug), kallsyms or vdso. */
static int put_files(const char *cachedir, const char *name, const char *real, const char *sbid)
{
	char dst[CACHE_PATH_MAX], dbg[128];
	struct stat st;
	int err;

	if (!strcmp(name, "[kernel.kallsyms]")) {
		if ((err = join(dst, sizeof(dst), cachedir, "kallsyms")))
			return err;
		return write_file(dst, NULL, 0, "/proc/kallsyms");
	}
	if (!strcmp(name, "[vdso]")) {
		const void *image;
		size_t len;

		if ((err = pk_vdso_self(&image, &len)))
			return err;
		if ((err = join(dst, sizeof(dst), cachedir, "vdso")))
			return err;
		return write_file(dst, image, len, NULL);
	}
	if ((err = join(dst, sizeof(dst), cachedir, "elf")) || (err = link_or_copy(real, dst)))
		return err;
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", sbid, sbid + 2);
	if (stat(dbg, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((err = join(dst, sizeof(dst), cachedir, "debug")))
			return err;
		return link_or_copy(dbg, dst);
	}
	return 0;
}

/* Cache one BUILD_ID entry; 1 added, 0 nothing to do, or -errno. */
static int add_one(const char *dir, const struct pk_feat_build_id *b)
{
	char sbid[2 * 20 + 1], real[PATH_MAX], cachedir[CACHE_PATH_MAX], link_path[CACHE_PATH_MAX];
	char target[CACHE_PATH_MAX];
	uint8_t now[20];
	struct stat st;
	int err;

	if (!b->filename || !b->size || b->size > 20)
		return 0;
	pk_fmt_bytes_hex(sbid, b->build_id, b->size);
	snprintf(link_path, sizeof(link_path), "%s/.build-id/%.2s/%s", dir, sbid, sbid + 2);
	if (stat(link_path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;            /* already cached (a link that leads somewhere), as perf checks */
	if (!strcmp(b->filename, "[kernel.kallsyms]") || !strcmp(b->filename, "[vdso]")) {
		snprintf(real, sizeof(real), "/%s", b->filename);
	} else if (b->filename[0] == '/') {
		if (!realpath(b->filename, real))
			return errno == ENOMEM ? -ENOMEM : 0;   /* gone since: nothing to cache */
		if (pk_build_id_of_elf(real, now, sizeof(now)) != (int)b->size ||
		    memcmp(now, b->build_id, b->size))
			return 0;        /* rebuilt since it was sampled: not this build-id */
	} else {
		return 0;            /* modules, JIT maps: no file here */
	}
	if ((size_t)snprintf(cachedir, sizeof(cachedir), "%s%s/%s", dir, real, sbid) >=
	    sizeof(cachedir))
		return -ENAMETOOLONG;
	if ((err = make_dirs(cachedir)) || (err = put_files(cachedir, b->filename, real, sbid)))
		return err;
	snprintf(target, sizeof(target), "%s/.build-id/%.2s", dir, sbid);
	if ((err = make_dirs(target)))
		return err;
	snprintf(target, sizeof(target), "../..%s/%s", real, sbid);
	if (symlink(target, link_path) < 0 && errno != EEXIST)
		return -errno;
	return 1;
}

int pk_buildid_cache_add(const char *dir, const struct pk_features *f, struct pk_diag *d)
{
	int added = 0, first_err = 0;

	for (uint32_t i = 0; f && i < f->nr_build_ids; i++) {
		int r = add_one(dir, &f->build_ids[i]);

		if (r > 0)
			added++;
		if (r < 0 && !first_err) {
			first_err = r;
			pk_diag_subject(d, f->build_ids[i].filename);
			pk_diag_fail(d, r, "cannot add it to the build-id cache '%s': %s", dir,
				     strerror(-r));
		}
	}
	return first_err ? first_err : added;
}
