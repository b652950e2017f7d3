/*
 * Where a metric file (Intel's oa-<platform>.xml) is found: the file or
 * directory given, else $PERFKIT_OA_METRICS, else the directory installed
 * with the running program (<prefix>/share/perfkit/oa beside
 * <prefix>/bin/perfkit, where `make install` puts the files), else
 * PK_OA_METRICS_DIR.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <perfkit/oa.h>

/* The metric directory under an installation prefix. */
#define PREFIX_METRICS_DIR "/share/perfkit/oa"

/* PREFIX/share/perfkit/oa for the running PREFIX/bin/perfkit when it is a directory, else PK_OA_METRICS_DIR. */
static void installed_dir(char *dir, size_t sz)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;
	char *slash;
	int len;

	if (n > 0) {
		exe[n] = '\0';
		/* <prefix>/bin/perfkit: drop the program's name, then bin */
		for (int up = 0; up < 2 && (slash = strrchr(exe, '/')); up++)
			*slash = '\0';
		len = snprintf(dir, sz, "%s" PREFIX_METRICS_DIR, exe);
		if (len > 0 && (size_t)len < sz && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return;
	}
	snprintf(dir, sz, "%s", PK_OA_METRICS_DIR);
}

PK_API enum pk_oa_metrics_source pk_oa_metrics_default(char *path, size_t sz)
{
	const char *env = getenv(PK_OA_METRICS_ENV);
	struct stat st;

	if (!env || !*env) {
		installed_dir(path, sz);
		return PK_OA_METRICS_INSTALLED;
	}
	snprintf(path, sz, "%s", env);
	return stat(env, &st) == 0 && S_ISREG(st.st_mode) ? PK_OA_METRICS_ENV_FILE : PK_OA_METRICS_ENV_DIR;
}

PK_API int pk_oa_metrics_find_platform(const char *dir, const char *platform,
				       char *path, size_t sz, struct pk_diag *diag)
{
	char lower[64];
	size_t n;
	int len;

	if (!platform || !platform[0] || strpbrk(platform, "/.") ||
	    (n = strlen(platform)) >= sizeof(lower))
		return pk_diag_fail(diag, -EINVAL, "invalid platform name '%s'", platform ? platform : "");
	for (size_t i = 0; i <= n; i++)
		lower[i] = (char)tolower((unsigned char)platform[i]);
	len = snprintf(path, sz, "%s/oa-%s.xml", dir, lower);
	if (len < 0 || (size_t)len >= sz)
		return pk_diag_fail(diag, -ENAMETOOLONG, "path of the metric file for '%s' too long", lower);
	if (access(path, R_OK) != 0) {
		int err = -errno;

		pk_diag_subject(diag, dir);
		return pk_diag_fail(diag, err, "no metric file for platform '%s' (looked for oa-%s.xml): %s",
				    lower, lower, strerror(-err));
	}
	return 0;
}

PK_API int pk_oa_metrics_path(const char *file, const char *dir, const char *platform, char *path,
			      size_t sz, struct pk_diag *diag)
{
	char where[PATH_MAX];

	if (!file && !dir) {
		if (pk_oa_metrics_default(where, sizeof(where)) == PK_OA_METRICS_ENV_FILE)
			file = where;
		else
			dir = where;
	}
	if (file) {
		if ((size_t)snprintf(path, sz, "%s", file) >= sz)
			return pk_diag_fail(diag, -ENAMETOOLONG, "metric file name too long");
		return 0;
	}
	return pk_oa_metrics_find_platform(dir, platform, path, sz, diag);
}
