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

PK_API void pk_oa_metrics_default_dir(char *dir, size_t sz)
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
	char installed[PATH_MAX];
	struct stat st;

	if (!file && !dir) {
		const char *env = getenv(PK_OA_METRICS_ENV);

		if (env && *env && stat(env, &st) == 0 && S_ISREG(st.st_mode)) {
			file = env;
		} else if (env && *env) {
			dir = env;
		} else {
			pk_oa_metrics_default_dir(installed, sizeof(installed));
			dir = installed;
		}
	}
	if (file) {
		if ((size_t)snprintf(path, sz, "%s", file) >= sz)
			return pk_diag_fail(diag, -ENAMETOOLONG, "metric file name too long");
		return 0;
	}
	return pk_oa_metrics_find_platform(dir, platform, path, sz, diag);
}
