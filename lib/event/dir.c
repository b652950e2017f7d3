/*
 * Sorted directory listings and safe path building for the sysfs and
 * tracefs trees the event module reads. Names that come from the user's
 * spec are checked with ev_word_ok() before they become path components, so
 * a spec can never reach outside those trees ("..", '/').
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "internal.h"

/* Entries kept from one directory, so a hostile tree cannot exhaust memory. */
#define EV_DIR_MAX 100000

void ev_names_release(struct ev_names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	n->v = NULL;
	n->n = 0;
	n->cap = 0;
}

int ev_names_add(struct ev_names *n, const char *s, size_t len)
{
	char **v;

	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 16;

		v = realloc(n->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		n->v = v;
		n->cap = cap;
	}
	n->v[n->n] = strndup(s, len);
	if (!n->v[n->n])
		return -ENOMEM;
	n->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ev_names_sort(struct ev_names *n)
{
	if (n->n > 1)
		qsort(n->v, n->n, sizeof(n->v[0]), cmp_str);
}

static bool entry_wanted(DIR *d, const struct dirent *de, int want)
{
	struct stat st;
	bool is_dir;

	if (want == EV_DIR_ANY)
		return true;
	if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK) {
		is_dir = de->d_type == DT_DIR;
	} else {
		if (fstatat(dirfd(d), de->d_name, &st, 0))
			return false;
		is_dir = S_ISDIR(st.st_mode);
	}
	return want == EV_DIR_DIRS ? is_dir : !is_dir;
}

int ev_dir_list(const char *path, int want, struct ev_names *out)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	out->v = NULL;
	out->n = 0;
	out->cap = 0;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !entry_wanted(d, de, want))
			continue;
		if (out->n == EV_DIR_MAX) {
			err = -E2BIG;
			break;
		}
		err = ev_names_add(out, de->d_name, strlen(de->d_name));
		if (err)
			break;
	}
	closedir(d);
	if (err) {
		ev_names_release(out);
		return err;
	}
	ev_names_sort(out);
	return 0;
}

bool ev_word_ok(const char *s, size_t len)
{
	if (!len || len > EV_NAME_MAX || s[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.' ||
		      ch == '+'))
			return false;
	}
	return true;
}
