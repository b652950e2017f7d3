/*
 * Dynamic PMUs described in sysfs, under <root>/bus/event_source/devices/<pmu>/:
 *
 *   type              the perf_event_attr.type to use, decimal ("4")
 *   format/<term>     where a term's value goes: "config:0-7", "config:0-7,21",
 *                     "config1:0-63" (value bits fill the listed bits, lowest
 *                     first; the value must fit in as many bits as listed)
 *   events/<alias>    a term list naming an event: "event=0x3c,umask=0x00"
 *   events/<alias>.scale, .unit
 *                     multiplier and unit for the alias's counts
 *
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-format and -events.)
 * The spec `pmu/term=val,term,alias/` sets each term in turn: config=,
 * config1=, config2= the whole word, period= the sample period, name= the
 * display name, a format term its bits (a bare format term means 1), an
 * alias its own terms. A bare alias (`tsc`) is looked up in every PMU.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

#define DEVICES "bus/event_source/devices"
#define ALIAS_MAX 4096

struct pmu {
	char dir[PATH_MAX];
	const char *name;
	size_t len;
	__u32 type;
};

/* Where terms come from: the spec itself, or an alias file (errors point at the alias). */
struct term_src {
	const char *alias;   /* the alias word in the spec, NULL for the spec's own terms */
	size_t alias_len;
};

static const char *const config_terms[] = { "config", "config1", "config2", "name", "period" };

/* Directory of PMU @name (@len bytes) under @c's sysfs, in @buf. */
static int pmu_dir(const struct ev_ctx *c, const char *name, size_t len, char *buf, size_t sz)
{
	return pk_path_fmt(buf, sz, "%s/" DEVICES "/%.*s", c->sysfs, (int)len, name);
}

int ev_pmu_list(const char *sysfs, struct ev_names *out)
{
	char path[PATH_MAX];
	int err = pk_path_fmt(path, sizeof(path), "%s/" DEVICES, sysfs);

	return err ? err : ev_dir_list(path, EV_DIR_DIRS, out);
}

static bool is_alias_file(const char *name)
{
	static const char *const suffixes[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);

		if (n > k && !strcmp(name + n - k, suffixes[i]))
			return false;
	}
	return true;
}

int ev_pmu_aliases(const char *sysfs, const char *pmu, struct ev_names *out)
{
	char path[PATH_MAX];
	size_t keep = 0;
	int err = pk_path_fmt(path, sizeof(path), "%s/" DEVICES "/%s/events", sysfs, pmu);

	if (!err)
		err = ev_dir_list(path, EV_DIR_FILES, out);
	if (err)
		return err;
	for (size_t i = 0; i < out->n; i++) {
		if (is_alias_file(out->v[i]))
			out->v[keep++] = out->v[i];
		else
			free(out->v[i]);
	}
	out->n = keep;
	return 0;
}

/* Record a failure at @at, prefixed with the alias it came from, if any. */
static int term_fail(struct ev_ctx *c, const struct term_src *src, const char *at, int err,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int term_fail(struct ev_ctx *c, const struct term_src *src, const char *at, int err,
		     const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!src->alias)
		return pk_diag_fail_at(c->diag, err, ev_off(c, at), "%s", msg);
	return pk_diag_fail_at(c->diag, err, ev_off(c, src->alias), "alias '%.*s': %s",
			       (int)src->alias_len, src->alias, msg);
}

/* Decimal or 0x-hex @len bytes at @s. 0, -EINVAL (not a number), -ERANGE. */
static int parse_u64(const char *s, size_t len, __u64 *v)
{
	unsigned base = 10;
	__u64 x = 0;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned d;

		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned)(s[i] - '0');
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned)(s[i] - 'a' + 10);
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned)(s[i] - 'A' + 10);
		else
			return -EINVAL;
		if (x > (UINT64_MAX - d) / base)
			return -ERANGE;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

static __u64 *config_word(struct perf_event_attr *a, unsigned which)
{
	return which == 0 ? &a->config : which == 1 ? &a->config1 : &a->config2;
}

/* Parse a format file's text "config1:0-7,21" into the word index and bit mask. */
static int parse_format(const char *s, unsigned *which, __u64 *mask)
{
	const char *p;
	char *end;

	if (!strncmp(s, "config1:", 8)) {
		*which = 1;
		p = s + 8;
	} else if (!strncmp(s, "config2:", 8)) {
		*which = 2;
		p = s + 8;
	} else if (!strncmp(s, "config:", 7)) {
		*which = 0;
		p = s + 7;
	} else {
		return -EBADMSG;
	}
	*mask = 0;
	for (;;) {
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			return -EBADMSG;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return -EBADMSG;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			return -EBADMSG;
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ull << b;
		if (*p != ',')
			break;
		p++;
	}
	return *p ? -EBADMSG : 0;
}

/* Put @v into the bits of @mask in @word, lowest value bit into the lowest mask bit. */
static void scatter(__u64 *word, __u64 mask, __u64 v)
{
	*word &= ~mask;
	for (unsigned b = 0; b < 64 && v; b++) {
		if (!(mask >> b & 1))
			continue;
		if (v & 1)
			*word |= 1ull << b;
		v >>= 1;
	}
}

static int set_format(struct ev_ctx *c, const struct term_src *src, const char *path,
		      const char *key, size_t klen, __u64 v, const char *vat,
		      struct perf_event_attr *a)
{
	char fmt[256];
	unsigned which;
	__u64 mask;
	int nbits, err = pk_file_read_line(path, fmt, sizeof(fmt));

	if (!err)
		err = parse_format(fmt, &which, &mask);
	if (err)
		return term_fail(c, src, key, err, "bad format file for term '%.*s': %s",
				 (int)klen, key,
				 err == -EBADMSG ? fmt : strerror(-err));
	nbits = __builtin_popcountll(mask);
	if (nbits < 64 && v >> nbits)
		return term_fail(c, src, vat, -EINVAL,
				 "value 0x%llx does not fit format term '%.*s' (%s)",
				 (unsigned long long)v, (int)klen, key, fmt);
	scatter(config_word(a, which), mask, v);
	return 0;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int apply_terms(struct ev_ctx *c, const struct pmu *p, const char *s, size_t len,
		       struct pk_event *ev, const struct term_src *src, int *form);

/* Apply alias @name (@len bytes at @at in the spec) of PMU @p to @ev. */
static int apply_alias(struct ev_ctx *c, const struct pmu *p, const char *at, size_t len,
		       struct pk_event *ev, int *form)
{
	struct term_src src = { .alias = at, .alias_len = len };
	char path[PATH_MAX], line[64], *end;
	struct pk_buf b;
	int err;

	err = pk_path_fmt(path, sizeof(path), "%s/events/%.*s", p->dir, (int)len, at);
	if (err)
		return pk_diag_fail_at(c->diag, err, ev_off(c, at), "alias name too long");
	pk_buf_init(&b);
	err = pk_file_read_all(path, &b, ALIAS_MAX);
	if (err) {
		pk_buf_release(&b);
		return term_fail(c, &src, at, err, "cannot read %s: %s", path, strerror(-err));
	}
	while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == ' '))
		b.data[--b.len] = '\0';
	err = apply_terms(c, p, b.data ? b.data : "", b.len, ev, &src, form);
	pk_buf_release(&b);
	if (err)
		return err;
	if (!pk_path_fmt(path, sizeof(path), "%s/events/%.*s.scale", p->dir, (int)len, at) &&
	    !pk_file_read_line(path, line, sizeof(line))) {
		double d = strtod(line, &end);

		if (end == line || !isfinite(d))
			return term_fail(c, &src, at, -EBADMSG, "bad scale '%s'", line);
		ev->scale = d;
	}
	if (!pk_path_fmt(path, sizeof(path), "%s/events/%.*s.unit", p->dir, (int)len, at) &&
	    !pk_file_read_line(path, line, sizeof(line)) && line[0]) {
		free(ev->scale_unit);
		ev->scale_unit = strdup(line);
		if (!ev->scale_unit)
			return -ENOMEM;
	}
	return 0;
}

static void suggest_term(struct ev_ctx *c, const struct pmu *p, const char *key, size_t klen)
{
	struct pk_suggest s;
	struct ev_names n;
	char path[PATH_MAX];

	pk_suggest_init(&s, key, klen);
	for (size_t i = 0; i < sizeof(config_terms) / sizeof(config_terms[0]); i++)
		pk_suggest_add(&s, config_terms[i]);
	if (!pk_path_fmt(path, sizeof(path), "%s/format", p->dir) && !ev_dir_list(path, EV_DIR_FILES, &n)) {
		for (size_t i = 0; i < n.n; i++)
			pk_suggest_add(&s, n.v[i]);
		ev_names_release(&n);
	}
	if (!pk_path_fmt(path, sizeof(path), "%s/events", p->dir) && !ev_dir_list(path, EV_DIR_FILES, &n)) {
		for (size_t i = 0; i < n.n; i++)
			if (is_alias_file(n.v[i]))
				pk_suggest_add(&s, n.v[i]);
		ev_names_release(&n);
	}
	pk_suggest_hint(&s, c->diag);
}

static bool key_is(const char *key, size_t klen, const char *w)
{
	return strlen(w) == klen && !memcmp(key, w, klen);
}

/* One term `key[=val]`; @key/@val point into the spec or into an alias's text. */
static int apply_term(struct ev_ctx *c, const struct pmu *p, const char *key, size_t klen,
		      const char *val, size_t vlen, bool has_val, struct pk_event *ev,
		      const struct term_src *src, int *form)
{
	struct perf_event_attr *a = &ev->attr;
	char path[PATH_MAX];
	__u64 v = 1;
	int err;

	if (key_is(key, klen, "name")) {
		if (!has_val || !vlen)
			return term_fail(c, src, key, -EINVAL, "term 'name' needs a value");
		*form = EV_NAME_USER;
		return ev_set_name(ev, val, vlen);
	}
	if (has_val) {
		err = parse_u64(val, vlen, &v);
		if (err)
			return term_fail(c, src, val, -EINVAL, err == -ERANGE ?
					 "value '%.*s' does not fit in 64 bits" :
					 "value '%.*s' is not a number", (int)vlen, val);
	}
	for (unsigned w = 0; w < 3; w++) {
		if (key_is(key, klen, config_terms[w])) {
			if (!has_val)
				return term_fail(c, src, key, -EINVAL, "term '%s' needs a value",
						 config_terms[w]);
			*config_word(a, w) = v;
			return 0;
		}
	}
	if (key_is(key, klen, "period")) {
		if (!has_val)
			return term_fail(c, src, key, -EINVAL, "term 'period' needs a value");
		a->sample_period = v;
		return 0;
	}
	if (!ev_word_ok(key, klen))
		return term_fail(c, src, key, -EINVAL, "invalid term '%.*s'", (int)klen, key);
	if (pk_path_fmt(path, sizeof(path), "%s/format/%.*s", p->dir, (int)klen, key))
		return term_fail(c, src, key, -ENAMETOOLONG, "term name too long");
	if (file_exists(path))
		return set_format(c, src, path, key, klen, v, has_val ? val : key, a);
	if (pk_path_fmt(path, sizeof(path), "%s/events/%.*s", p->dir, (int)klen, key))
		return term_fail(c, src, key, -ENAMETOOLONG, "term name too long");
	if (file_exists(path) && is_alias_file(path)) {
		if (has_val)
			return term_fail(c, src, key, -EINVAL, "alias '%.*s' takes no value",
					 (int)klen, key);
		if (src->alias)
			return term_fail(c, src, key, -EBADMSG, "alias refers to alias '%.*s'",
					 (int)klen, key);
		return apply_alias(c, p, key, klen, ev, form);
	}
	err = term_fail(c, src, key, -EINVAL, "unknown term '%.*s' for pmu '%.*s'",
			(int)klen, key, (int)p->len, p->name);
	suggest_term(c, p, key, klen);
	return err;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n';
}

/* Ends a key or a value: ',', a blank, or a byte that is no text. */
static bool ends_word(char ch)
{
	return ch == ',' || ch == ' ' || (unsigned char)ch < 0x20 || ch == 0x7f;
}

static int apply_terms(struct ev_ctx *c, const struct pmu *p, const char *s, size_t len,
		       struct pk_event *ev, const struct term_src *src, int *form)
{
	size_t i = 0;

	while (i < len && is_space(s[i]))
		i++;
	if (i == len)
		return 0;	/* `pmu//` : every term zero */
	for (;;) {
		size_t ks, ke, vs = 0, ve = 0;
		bool has_val = false;
		int err;

		while (i < len && is_space(s[i]))
			i++;
		ks = i;
		while (i < len && s[i] != '=' && !ends_word(s[i]))
			i++;
		ke = i;
		while (i < len && is_space(s[i]))
			i++;
		if (i < len && s[i] == '=') {
			has_val = true;
			i++;
			while (i < len && is_space(s[i]))
				i++;
			vs = i;
			while (i < len && !ends_word(s[i]))
				i++;
			ve = i;
			while (i < len && is_space(s[i]))
				i++;
		}
		if (ks == ke)
			return term_fail(c, src, s + (ks < len ? ks : len - 1), -EINVAL,
					 "empty term");
		if (i < len && s[i] != ',' && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f))
			return term_fail(c, src, s + i, -EINVAL,
					 "unexpected byte 0x%02x in term list", (unsigned char)s[i]);
		if (i < len && s[i] != ',')
			return term_fail(c, src, s + i, -EINVAL, "unexpected '%c' in term list",
					 s[i]);
		err = apply_term(c, p, s + ks, ke - ks, s + vs, ve - vs, has_val, ev, src, form);
		if (err)
			return err;
		if (i == len)
			return 0;
		i++;	/* the ',' */
	}
}

/* Fill @p for PMU @name; -ENOENT when sysfs has no such PMU. */
static int pmu_open(const struct ev_ctx *c, const char *name, size_t len, struct pmu *p)
{
	char path[PATH_MAX];
	uint64_t type;
	int err;

	if (!ev_word_ok(name, len))
		return -EINVAL;
	err = pmu_dir(c, name, len, p->dir, sizeof(p->dir));
	if (!err)
		err = pk_path_fmt(path, sizeof(path), "%s/type", p->dir);
	if (!err)
		err = pk_file_read_u64(path, &type);
	if (err)
		return err == -ENOTDIR ? -ENOENT : err;
	if (type > UINT32_MAX)
		return -EBADMSG;
	p->name = name;
	p->len = len;
	p->type = (__u32)type;
	return 0;
}

/* Append an event of PMU @p named @name and apply the terms of @s to it. */
static int pmu_event(struct ev_ctx *c, const struct pmu *p, const char *name, size_t nlen,
		     const char *s, size_t len, bool alias)
{
	struct pk_event *ev = ev_list_push(c->l, c, PK_EVENT_PMU, name, nlen);
	int form = EV_NAME_PLAIN, err;

	if (!ev)
		return -ENOMEM;
	ev->attr.type = p->type;
	ev->pmu = strndup(p->name, p->len);
	if (!ev->pmu)
		return -ENOMEM;
	if (alias)
		err = apply_alias(c, p, s, len, ev, &form);
	else
		err = apply_terms(c, p, s, len, ev, &(struct term_src){ 0 }, &form);
	c->pend[c->l->n - 1 - c->n0].name_form = form;
	return err;
}

int ev_pmu_add(struct ev_ctx *c, const char *pmu, size_t plen, const char *terms,
	       size_t tlen, const char *name, size_t nlen)
{
	struct pmu p;
	int err;

	if (!ev_word_ok(pmu, plen))
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, pmu), "invalid pmu name '%.*s'",
				       (int)plen, pmu);
	err = pmu_open(c, pmu, plen, &p);
	if (err == -ENOENT) {
		struct pk_suggest s;
		struct ev_names n;

		err = pk_diag_fail_at(c->diag, -ENOENT, ev_off(c, pmu), "unknown pmu '%.*s'",
				      (int)plen, pmu);
		pk_suggest_init(&s, pmu, plen);
		if (!ev_pmu_list(c->sysfs, &n)) {
			for (size_t i = 0; i < n.n; i++)
				pk_suggest_add(&s, n.v[i]);
			ev_names_release(&n);
		}
		pk_suggest_hint(&s, c->diag);
		return err;
	}
	if (err)
		return pk_diag_fail_at(c->diag, err, ev_off(c, pmu), "cannot read type of pmu '%.*s': %s",
				       (int)plen, pmu, strerror(-err));
	return pmu_event(c, &p, name, nlen, terms, tlen, false);
}

int ev_alias_add(struct ev_ctx *c, const char *s, size_t len, const char *name, size_t nlen)
{
	struct ev_names pmus;
	char path[PATH_MAX];
	bool found = false;
	int err;

	if (!ev_word_ok(s, len) || !is_alias_file(s) || ev_pmu_list(c->sysfs, &pmus))
		return -ENOENT;
	err = 0;
	for (size_t i = 0; i < pmus.n && !err; i++) {
		struct pmu p;

		if (pk_path_fmt(path, sizeof(path), "%s/" DEVICES "/%s/events/%.*s", c->sysfs,
			    pmus.v[i], (int)len, s) || !file_exists(path))
			continue;
		if (pmu_open(c, pmus.v[i], strlen(pmus.v[i]), &p))
			continue;
		found = true;
		err = pmu_event(c, &p, name, nlen, s, len, true);
	}
	ev_names_release(&pmus);
	if (!err && !found)
		return -ENOENT;
	return err;
}
