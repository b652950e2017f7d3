/*
 * Tracepoints through tracefs: finding the mount (from /proc/mounts, a
 * tracefs mount or debugfs's tracing/ directory, mounting tracefs at
 * /sys/kernel/tracing when nothing is mounted and we are allowed to), and
 * resolving `sys:name` with globs in either part to the ids found in
 *
 *   <tracefs>/events/<sys>/<name>/id     decimal id, perf_event_attr.config
 *
 * An event directory without an id file (ftrace's internal entries) is not
 * a tracepoint perf can open, so it is neither matched nor listed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

#define MOUNTS_MAX (4u << 20)
#define DEFAULT_TRACEFS "/sys/kernel/tracing"

/* Decode /proc/mounts octal escapes ("\040" for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Scan /proc/mounts for tracefs, else debugfs/tracing. 0 with @buf set, or -ENOENT. */
static int find_mount(char *buf, size_t sz)
{
	char tracefs[PATH_MAX] = "", debugfs[PATH_MAX] = "";
	struct pk_buf b;
	char *line, *save = NULL;
	int err;

	pk_buf_init(&b);
	err = pk_file_read_all("/proc/mounts", &b, MOUNTS_MAX);
	if (err || !b.data) {
		pk_buf_release(&b);
		return err ? err : -ENOENT;
	}
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f_save = NULL, *mnt, *type;

		if (!strtok_r(line, " ", &f_save))
			continue;
		mnt = strtok_r(NULL, " ", &f_save);
		type = strtok_r(NULL, " ", &f_save);
		if (!mnt || !type)
			continue;
		unescape(mnt);
		if (!strcmp(type, "tracefs") && (!tracefs[0] || !strcmp(mnt, DEFAULT_TRACEFS)))
			snprintf(tracefs, sizeof(tracefs), "%s", mnt);
		else if (!strcmp(type, "debugfs") && !debugfs[0])
			snprintf(debugfs, sizeof(debugfs), "%s", mnt);
	}
	pk_buf_release(&b);
	if (tracefs[0])
		return pk_path_fmt(buf, sz, "%s", tracefs);
	if (debugfs[0] && !pk_path_fmt(buf, sz, "%s/tracing", debugfs)) {
		char events[PATH_MAX];

		if (!pk_path_fmt(events, sizeof(events), "%s/events", buf) && is_dir(events))
			return 0;
	}
	return -ENOENT;
}

int pk_tracefs_path(char *buf, size_t sz)
{
	int err = find_mount(buf, sz);

	if (err != -ENOENT)
		return err;
	if (mount("nodev", DEFAULT_TRACEFS, "tracefs", 0, NULL))
		return errno == EPERM || errno == EACCES ? -EACCES : -ENOENT;
	return pk_path_fmt(buf, sz, "%s", DEFAULT_TRACEFS);
}

const char *ev_ctx_tracefs(struct ev_ctx *c, int *err)
{
	if (c->tracefs_err == 1) {
		if (c->tracefs_opt)
			c->tracefs_err = pk_path_fmt(c->tracefs, sizeof(c->tracefs), "%s", c->tracefs_opt);
		else
			c->tracefs_err = pk_tracefs_path(c->tracefs, sizeof(c->tracefs));
	}
	*err = c->tracefs_err;
	return c->tracefs_err ? NULL : c->tracefs;
}

/* Whether <tracefs>/events/<sys>/<name>/id exists. */
static bool has_id(const char *tracefs, const char *sys, const char *name)
{
	char path[PATH_MAX];

	return !pk_path_fmt(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name) &&
	       !access(path, R_OK);
}

/* Add "sys:name" for each event of @sys matching @pat (NULL: all) to @out. */
static int collect(const char *tracefs, const char *sys, const char *pat, struct ev_names *out)
{
	char path[PATH_MAX], full[2 * EV_NAME_MAX + 2];
	struct ev_names names;
	int err = pk_path_fmt(path, sizeof(path), "%s/events/%s", tracefs, sys);

	if (!err)
		err = ev_dir_list(path, EV_DIR_DIRS, &names);
	if (err)
		return err;
	for (size_t i = 0; i < names.n && !err; i++) {
		if ((pat && !ev_glob_match(pat, names.v[i])) || !has_id(tracefs, sys, names.v[i]))
			continue;
		if (pk_path_fmt(full, sizeof(full), "%s:%s", sys, names.v[i]))
			continue;
		err = ev_names_add(out, full, strlen(full));
	}
	ev_names_release(&names);
	return err;
}

/* Every "sys:name" matching the system pattern @sp and name pattern @np. */
static int matches(const char *tracefs, const char *sp, const char *np, struct ev_names *out)
{
	char path[PATH_MAX];
	struct ev_names systems;
	int err;

	memset(out, 0, sizeof(*out));
	if (!ev_is_glob(sp, strlen(sp))) {
		/* a system that is not there simply matches nothing */
		err = collect(tracefs, sp, np, out) == -ENOMEM ? -ENOMEM : 0;
	} else {
		err = pk_path_fmt(path, sizeof(path), "%s/events", tracefs);
		if (!err)
			err = ev_dir_list(path, EV_DIR_DIRS, &systems);
		if (err)
			return err;
		for (size_t i = 0; i < systems.n && !err; i++) {
			if (ev_glob_match(sp, systems.v[i]) &&
			    collect(tracefs, systems.v[i], np, out) == -ENOMEM)
				err = -ENOMEM;
		}
		ev_names_release(&systems);
	}
	if (err)
		ev_names_release(out);
	return err;
}

int ev_tracepoint_list(const char *tracefs, struct ev_names *out)
{
	int err = matches(tracefs, "*", NULL, out);

	if (!err)
		ev_names_sort(out);
	return err;
}

bool ev_tracepoint_system_exists(struct ev_ctx *c, const char *sys, size_t len)
{
	char path[PATH_MAX];
	const char *tracefs;
	int err;

	if (!ev_word_ok(sys, len))
		return false;
	tracefs = ev_ctx_tracefs(c, &err);
	return tracefs && !pk_path_fmt(path, sizeof(path), "%s/events/%.*s", tracefs, (int)len, sys) &&
	       is_dir(path);
}

/* Characters a tracepoint part may hold: a word, or a glob over words. */
static bool part_ok(const char *s, size_t len)
{
	if (!len || len > EV_NAME_MAX)
		return false;
	if (!ev_is_glob(s, len))
		return ev_word_ok(s, len);
	for (size_t i = 0; i < len; i++)
		if (!strchr("*?[]!^", s[i]) && !ev_word_ok(s + i, 1) && s[i] != '.')
			return false;
	return true;
}

/* The diag for `sys:name` matching nothing, with a suggestion. */
static int no_match(struct ev_ctx *c, const char *tracefs, const char *sys, size_t slen,
		    const char *name, size_t tlen)
{
	bool sys_glob = ev_is_glob(sys, slen), known_sys = sys_glob;
	char path[PATH_MAX], cand[2 * EV_NAME_MAX + 2];
	struct pk_suggest s;
	struct ev_names n;
	int err;

	if (!sys_glob)
		known_sys = !pk_path_fmt(path, sizeof(path), "%s/events/%.*s", tracefs, (int)slen, sys) &&
			    is_dir(path);
	if (!known_sys) {
		err = pk_diag_fail_at(c->diag, -ENOENT, ev_off(c, sys),
				      "unknown tracepoint system '%.*s'", (int)slen, sys);
		pk_suggest_init(&s, sys, slen);
		if (!pk_path_fmt(path, sizeof(path), "%s/events", tracefs) &&
		    !ev_dir_list(path, EV_DIR_DIRS, &n)) {
			for (size_t i = 0; i < n.n; i++)
				pk_suggest_add(&s, n.v[i]);
			ev_names_release(&n);
		}
		pk_suggest_hint(&s, c->diag);
		return err;
	}
	err = pk_diag_fail_at(c->diag, -ENOENT, ev_off(c, name), "unknown tracepoint '%.*s:%.*s'",
			      (int)slen, sys, (int)tlen, name);
	if (sys_glob || ev_dir_list(path, EV_DIR_DIRS, &n))
		return err;
	pk_suggest_init(&s, name, tlen);
	for (size_t i = 0; i < n.n; i++)
		pk_suggest_add(&s, n.v[i]);
	ev_names_release(&n);
	if (s.best[0] && !pk_path_fmt(cand, sizeof(cand), "%.*s:%s", (int)slen, sys, s.best) &&
	    pk_path_fmt(s.best, sizeof(s.best), "%s", cand))
		s.dist = (unsigned)-1;	/* too long to show */
	pk_suggest_hint(&s, c->diag);
	return err;
}

/* Append tracepoint "sys:name" (@full) with @id, named @name. */
static int add_one(struct ev_ctx *c, const char *tracefs, const char *full, const char *name,
		   size_t nlen)
{
	char path[PATH_MAX];
	const char *colon = strchr(full, ':');
	struct pk_event *ev;
	uint64_t id;
	int err;

	err = pk_path_fmt(path, sizeof(path), "%s/events/%.*s/%s/id", tracefs, (int)(colon - full),
		      full, colon + 1);
	if (!err)
		err = pk_file_read_u64(path, &id);
	if (err)
		return pk_diag_fail_at(c->diag, err == -ENOENT ? -ENOENT : err, PK_NO_OFFSET,
				       "cannot read tracepoint id %s: %s", path, strerror(-err));
	ev = ev_list_push(c->l, c, PK_EVENT_TRACEPOINT, name, nlen);
	if (!ev)
		return -ENOMEM;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	return 0;
}

int ev_tracepoint_add(struct ev_ctx *c, const char *sys, size_t slen, const char *name,
		      size_t tlen, const char *mods, size_t mlen, bool has_mods,
		      const char *written, size_t wlen)
{
	char sp[EV_NAME_MAX + 1], np[EV_NAME_MAX + 1];
	bool glob = ev_is_glob(sys, slen) || ev_is_glob(name, tlen);
	const char *tracefs;
	struct ev_names found;
	struct pk_buf nm;
	int err;

	if (!part_ok(sys, slen))
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, sys),
				       "invalid tracepoint system '%.*s'", (int)slen, sys);
	if (!part_ok(name, tlen))
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, name),
				       "invalid tracepoint name '%.*s'", (int)tlen, name);
	tracefs = ev_ctx_tracefs(c, &err);
	if (!tracefs) {
		err = pk_diag_fail_at(c->diag, err, ev_off(c, sys), "tracefs is not available: %s",
				      strerror(-err));
		pk_diag_hint(c->diag, "mount it: mount -t tracefs nodev " DEFAULT_TRACEFS);
		return err;
	}
	snprintf(sp, sizeof(sp), "%.*s", (int)slen, sys);
	snprintf(np, sizeof(np), "%.*s", (int)tlen, name);
	err = matches(tracefs, sp, np, &found);
	if (err)
		return pk_diag_fail_at(c->diag, err, ev_off(c, sys), "cannot list tracepoints: %s",
				       strerror(-err));
	if (!found.n)
		return no_match(c, tracefs, sys, slen, name, tlen);
	ev_names_sort(&found);
	pk_buf_init(&nm);
	for (size_t i = 0; i < found.n && !err; i++) {
		if (!glob) {
			err = add_one(c, tracefs, found.v[i], written, wlen);
			continue;
		}
		nm.len = 0;
		err = pk_buf_printf(&nm, "%s%s%.*s", found.v[i], has_mods ? ":" : "", (int)mlen,
				    mods);
		if (!err)
			err = add_one(c, tracefs, found.v[i], nm.data, nm.len);
	}
	pk_buf_release(&nm);
	ev_names_release(&found);
	return err;
}
