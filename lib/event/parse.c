/*
 * The event-spec grammar (perf 6.1's, as perf-list(1) describes it):
 *
 *   list  := item { ',' item }
 *   item  := '{' term { ',' term } '}' [ ':' mods ] | term
 *   term  := pmu '/' [ terms ] '/' [ [':'] mods ]
 *          | name [ ':' mods ]                 generic, cache, rNNN or sysfs alias
 *          | sys ':' tpname [ ':' mods ]        tracepoint, globs allowed
 *
 * Blanks around items are skipped. A word before ':' that names no event is
 * taken as a tracepoint system. Events are appended to the caller's list as
 * they are found; any error truncates the list back to where it started, so
 * a failed parse appends nothing. Every diagnostic carries the character
 * offset in the whole spec of the word or character at fault.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Field @f of @opts if the caller's struct is recent enough to have it. */
#define OPT(opts, f) ((opts) && (opts)->sz >= offsetof(struct pk_event_opts, f) + \
		      sizeof((opts)->f) ? (opts)->f : NULL)

#define RAW_DIGITS_MAX 16

void ev_ctx_init(struct ev_ctx *c, struct pk_event_list *l, const char *spec,
		 const struct pk_event_opts *opts, struct pk_diag *diag)
{
	const char *sysfs = OPT(opts, sysfs_root);

	memset(c, 0, sizeof(*c));
	c->spec = spec;
	c->diag = diag;
	if (pk_path_fmt(c->sysfs, sizeof(c->sysfs), "%s", sysfs ? sysfs : "/sys"))
		c->sysfs[0] = '\0';
	c->tracefs_opt = OPT(opts, tracefs_root);
	c->tracefs_err = 1;
	c->l = l;
	c->n0 = l->n;
}

void ev_ctx_release(struct ev_ctx *c)
{
	free(c->pend);
	c->pend = NULL;
	c->pend_cap = 0;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* Ends a term or a group's modifiers. */
static bool is_stop(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f || ch == ',' || ch == '{' || ch == '}' ||
	       ch == ' ';
}

static int unexpected(struct ev_ctx *c, const char *p)
{
	if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p), "unexpected byte 0x%02x",
				       (unsigned char)*p);
	return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p), "unexpected '%c'", *p);
}

/*
 * Modifiers of the events appended since index @from: parse @mods (@mlen
 * letters, present when @has_mods), remember them and the name form, and
 * set each attr.
 */
static int finish_term(struct ev_ctx *c, size_t from, const char *mods, size_t mlen,
		       bool has_mods, int form)
{
	struct ev_mods m = { 0 };
	int err = has_mods ? ev_mods_parse(c, mods, mlen, &m) : 0;

	if (err)
		return err;
	for (size_t i = from; i < c->l->n; i++) {
		struct ev_pending *p = &c->pend[i - c->n0];

		p->mods = m;
		if (p->name_form != EV_NAME_USER)
			p->name_form = form;
		ev_mods_apply_own(&m, has_mods && mlen > 0, &c->l->ev[i]);
	}
	return 0;
}

static int add_generic(struct ev_ctx *c, enum pk_event_kind kind, __u32 type, __u64 config,
		       const char *name, size_t nlen)
{
	struct pk_event *ev = ev_list_push(c->l, c, kind, name, nlen);

	if (!ev)
		return -ENOMEM;
	ev->attr.type = type;
	ev->attr.config = config;
	/* The clocks count nanoseconds; perf shows them in msec. */
	if (type == PERF_TYPE_SOFTWARE &&
	    (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK)) {
		ev->scale = 1e-6;
		ev->scale_unit = strdup("msec");
		if (!ev->scale_unit)
			return -ENOMEM;
	}
	return 0;
}

static bool all_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* `rNNN`: @s[0] is 'r' followed by @len - 1 hex digits. */
static int add_raw(struct ev_ctx *c, const char *s, size_t len, const char *name, size_t nlen)
{
	size_t i = 1;
	__u64 v = 0;

	while (i < len - 1 && s[i] == '0')
		i++;
	if (len - i > RAW_DIGITS_MAX)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s),
				       "raw event '%.*s' does not fit in 64 bits", (int)len, s);
	for (; i < len; i++)
		v = v << 4 | (__u64)(isdigit((unsigned char)s[i]) ? s[i] - '0' :
				     tolower((unsigned char)s[i]) - 'a' + 10);
	return add_generic(c, PK_EVENT_RAW, PERF_TYPE_RAW, v, name, nlen);
}

/*
 * Resolve the event word @s (@len bytes, no ':'): generic, cache, raw or a
 * sysfs alias, appended with the name @name. -ENOENT (nothing recorded)
 * when the word names none of these.
 */
static int add_named(struct ev_ctx *c, const char *s, size_t len, const char *name, size_t nlen)
{
	const struct ev_sym *sym = ev_sym_find(s, len);
	const char *why = NULL;
	size_t bad = 0;
	__u64 config;
	int err;

	if (sym)
		return add_generic(c, sym->type == PERF_TYPE_HARDWARE ? PK_EVENT_HARDWARE :
				   PK_EVENT_SOFTWARE, sym->type, sym->config, name, nlen);
	err = ev_cache_parse(s, len, &config, &bad, &why);
	if (!err)
		return add_generic(c, PK_EVENT_CACHE, PERF_TYPE_HW_CACHE, config, name, nlen);
	if (err == -EINVAL)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s + bad),
				       "invalid cache event '%.*s': %s", (int)len, s, why);
	if (len > 1 && s[0] == 'r' && all_hex(s + 1, len - 1))
		return add_raw(c, s, len, name, nlen);
	return ev_alias_add(c, s, len, name, nlen);
}

/* The diag for an event word that names nothing. */
static int unknown_event(struct ev_ctx *c, const char *s, size_t len)
{
	struct pk_suggest sg;
	size_t i = 1;
	int err;

	/* r + hex digits up to a bad character: a mistyped raw event */
	while (len > 1 && s[0] == 'r' && i < len && isxdigit((unsigned char)s[i]))
		i++;
	if (i > 1 && i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s + i),
				       "invalid raw event '%.*s': '%c' is not a hex digit",
				       (int)len, s, s[i]);
	err = pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s), "unknown event '%.*s'", (int)len, s);
	pk_suggest_init(&sg, s, len);
	ev_suggest_events(&sg, c);
	pk_suggest_hint(&sg, c->diag);
	return err;
}

static bool all_mods(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr("ukhGHIpPSD", s[i]))
			return false;
	return true;
}

/* `sys:name[:mods]`: @colon is the first ':' of the term [@s, @end). */
static int add_tracepoint(struct ev_ctx *c, const char *s, const char *colon, const char *end)
{
	const char *name = colon + 1, *c2 = memchr(name, ':', (size_t)(end - name));
	const char *tend = c2 ? c2 : end;
	size_t from = c->l->n;
	int err;

	if (!c2 && all_mods(name, (size_t)(end - name)) &&
	    !ev_tracepoint_system_exists(c, s, (size_t)(colon - s)))
		return unknown_event(c, s, (size_t)(colon - s));
	if (tend == name)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, name),
				       "missing tracepoint name after '%.*s:'", (int)(colon - s), s);
	err = ev_tracepoint_add(c, s, (size_t)(colon - s), name, (size_t)(tend - name),
				c2 ? c2 + 1 : end, c2 ? (size_t)(end - c2 - 1) : 0, c2 != NULL,
				s, (size_t)(end - s));
	if (err)
		return err;
	return finish_term(c, from, c2 ? c2 + 1 : end, c2 ? (size_t)(end - c2 - 1) : 0,
			   c2 != NULL, c2 ? EV_NAME_MODS : EV_NAME_PLAIN);
}

/* `pmu/terms/[:]mods`: @slash is the first '/' of the term [@s, @end). */
static int add_pmu_term(struct ev_ctx *c, const char *s, const char *slash, const char *end)
{
	const char *close = memchr(slash + 1, '/', (size_t)(end - slash - 1));
	const char *mods = close + 1;
	size_t from = c->l->n;
	bool has_mods;
	int err;

	if (slash == s)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s), "missing pmu name before '/'");
	if (slash - s > EV_NAME_MAX)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s),
				       "pmu name too long (at most %d characters)", EV_NAME_MAX);
	err = ev_pmu_add(c, s, (size_t)(slash - s), slash + 1, (size_t)(close - slash - 1),
			 s, (size_t)(end - s));
	if (err)
		return err;
	has_mods = mods < end;
	if (has_mods && *mods == ':')
		mods++;
	return finish_term(c, from, mods, (size_t)(end - mods), has_mods,
			   has_mods ? EV_NAME_MODS : EV_NAME_SLASH);
}

static int parse_term(struct ev_ctx *c, const char *s, const char *end)
{
	const char *slash = memchr(s, '/', (size_t)(end - s));
	const char *colon, *body_end;
	size_t from = c->l->n;
	int err;

	if (slash)
		return add_pmu_term(c, s, slash, end);
	colon = memchr(s, ':', (size_t)(end - s));
	body_end = colon ? colon : end;
	if (body_end == s)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s), "missing event name");
	if (body_end - s > EV_NAME_MAX)
		return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s),
				       "event name too long (at most %d characters)", EV_NAME_MAX);
	err = add_named(c, s, (size_t)(body_end - s), s, (size_t)(end - s));
	if (err == -ENOENT && colon)
		return add_tracepoint(c, s, colon, end);
	if (err == -ENOENT)
		return unknown_event(c, s, (size_t)(body_end - s));
	if (err)
		return err;
	return finish_term(c, from, colon ? colon + 1 : end, colon ? (size_t)(end - colon - 1) : 0,
			   colon != NULL, colon ? EV_NAME_MODS : EV_NAME_PLAIN);
}

/* One term starting at *@pp; *@pp is left after it. */
static int parse_item(struct ev_ctx *c, const char **pp)
{
	const char *s = *pp, *p = s;

	while (!is_stop(*p)) {
		if (*p == '/') {
			const char *close = strchr(p + 1, '/');

			if (!close)
				return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p),
						       "unterminated term list (missing '/')");
			p = close + 1;
			continue;
		}
		p++;
	}
	if (p == s)
		return unexpected(c, p);
	*pp = p;
	return parse_term(c, s, p);
}

/* A group starting at the '{' at *@pp; *@pp is left after it and its modifiers. */
static int parse_group(struct ev_ctx *c, const char **pp)
{
	const char *open = *pp, *p = open + 1, *mods;
	size_t leader = c->l->n;
	struct ev_mods gm = { 0 };
	int err;

	for (;;) {
		p = skip_blanks(p);
		if (!*p)
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, open), "unterminated group");
		if (*p == '{')
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p),
					       "nested groups are not supported");
		if (*p == ',' || *p == '}')
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p), "%s",
					       *p == '}' && leader == c->l->n ? "empty group" :
					       "empty event");
		err = parse_item(c, &p);
		if (err)
			return err;
		p = skip_blanks(p);
		if (*p == '}')
			break;
		if (!*p)
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, open), "unterminated group");
		if (*p != ',')
			return unexpected(c, p);
		p++;
	}
	mods = ++p;
	if (*p == ':') {
		mods = ++p;
		while (!is_stop(*p))
			p++;
		err = ev_mods_parse(c, mods, (size_t)(p - mods), &gm);
		if (err)
			return err;
	}
	for (size_t i = leader; i < c->l->n; i++) {
		struct ev_pending *pend = &c->pend[i - c->n0];
		struct pk_event *ev = &c->l->ev[i];

		if (mods != p && ev_mods_apply_group(&pend->mods, &gm, ev))
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, mods),
					       "'%s' and its group ask for more than %d 'p' "
					       "modifiers", ev->name, 3);
		err = ev_mods_name(ev, pend, mods, (size_t)(p - mods));
		if (err)
			return err;
		ev->leader = (int)leader;
		ev->nr_members = i == leader ? (int)(c->l->n - leader) : 0;
	}
	*pp = p;
	return 0;
}

static int parse_list(struct ev_ctx *c)
{
	const char *p = c->spec;
	int err;

	for (;;) {
		p = skip_blanks(p);
		if (*p == '}')
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p), "unexpected '}'");
		if (!*p || *p == ',')
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, p), "empty event");
		if (*p == '{')
			err = parse_group(c, &p);
		else
			err = parse_item(c, &p);
		if (err)
			return err;
		p = skip_blanks(p);
		if (!*p)
			return 0;
		if (*p != ',')
			return unexpected(c, p);
		p++;
	}
}

int pk_event_parse(struct pk_event_list *l, const char *spec, const struct pk_event_opts *opts,
		   struct pk_diag *diag)
{
	struct ev_ctx c;
	int err;

	pk_diag_init(diag);
	if (!l || !spec)
		return pk_diag_fail(diag, -EINVAL, "no event list or spec");
	ev_ctx_init(&c, l, spec, opts, diag);
	if (!c.sysfs[0])
		err = pk_diag_fail(diag, -ENAMETOOLONG, "sysfs root too long");
	else
		err = parse_list(&c);
	ev_ctx_release(&c);
	if (!err)
		return 0;
	ev_list_truncate(l, c.n0);
	pk_diag_subject(diag, spec);
	if (diag && !diag->msg[0])
		pk_diag_fail(diag, err, "%s", strerror(-err));
	return err;
}
