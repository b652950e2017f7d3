/*
 * Event modifiers, the letters after ':' (perf-list(1)):
 *
 *   u  user space only        exclude_kernel, exclude_hv
 *   k  kernel only            exclude_user, exclude_hv
 *   h  hypervisor only        exclude_user, exclude_kernel
 *   G  guest only             exclude_host
 *   H  host only              exclude_guest
 *   I  not while idle         exclude_idle
 *   p  precise, 1 to 3 times  precise_ip
 *   P  the highest precision  pk_event.precise_max (precise_ip: the p's)
 *   S  read counts in samples sample_type |= PERF_SAMPLE_READ
 *   D  pinned to the PMU      pinned
 *
 * Letters combine as unions of what is counted ("uk" counts user and
 * kernel, "GH" guest and host). A letter may appear once ('p' up to three
 * times). The attr bits follow perf 6.1 (get_event_modifier):
 *  - an event without modifiers counts the host only (exclude_guest);
 *  - an event's own modifiers start from nothing: of the letters without G
 *    or H, only u and p leave the guest out (so "cycles:k" counts guests);
 *  - group modifiers ({a,b}:u) start from what each member has: the 'p's
 *    add to the member's (3 at most), u and p leave the guest out unless the
 *    member has G or H, and P and S are the group's alone (a member's own P
 *    or S is dropped).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_PRECISE 3
#define PRIV_MODS (EV_MOD_U | EV_MOD_K | EV_MOD_HV)
#define VIRT_MODS (EV_MOD_GUEST | EV_MOD_HOST)

/* What modifiers decide for one event, as perf tracks it while reading letters. */
struct mod_state {
	bool ex_user, ex_kernel, ex_hv, ex_guest, ex_host, ex_idle;
	bool priv_chosen;   /* a u, k or h was seen: count only what they name */
	bool virt_chosen;   /* a G or H was seen: likewise for guest and host */
	bool pmax, read, pinned;
	unsigned precise;
};

static unsigned mod_bit(char ch)
{
	switch (ch) {
	case 'u': return EV_MOD_U;
	case 'k': return EV_MOD_K;
	case 'h': return EV_MOD_HV;
	case 'G': return EV_MOD_GUEST;
	case 'H': return EV_MOD_HOST;
	case 'I': return EV_MOD_IDLE;
	case 'P': return EV_MOD_PMAX;
	case 'S': return EV_MOD_READ;
	case 'D': return EV_MOD_PIN;
	default: return 0;
	}
}

int ev_mods_parse(struct ev_ctx *c, const char *s, size_t len, struct ev_mods *m)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < len; i++) {
		unsigned bit = mod_bit(s[i]);

		if (s[i] == 'p') {
			if (m->precise == MAX_PRECISE)
				return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s + i),
						       "too many 'p' modifiers (at most %d)",
						       MAX_PRECISE);
			m->precise++;
			continue;
		}
		if (!bit) {
			if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
				return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s + i),
						       "unknown modifier 0x%02x",
						       (unsigned char)s[i]);
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s + i),
					       "unknown modifier '%c'", s[i]);
		}
		if (m->set & bit)
			return pk_diag_fail_at(c->diag, -EINVAL, ev_off(c, s + i),
					       "repeated modifier '%c'", s[i]);
		m->set |= bit;
	}
	return 0;
}

/* @m on top of @s. -EINVAL when the precision goes above 3. */
static int state_add(struct mod_state *s, const struct ev_mods *m)
{
	if (m->set & PRIV_MODS) {
		if (!s->priv_chosen)
			s->ex_user = s->ex_kernel = s->ex_hv = s->priv_chosen = true;
		s->ex_user &= !(m->set & EV_MOD_U);
		s->ex_kernel &= !(m->set & EV_MOD_K);
		s->ex_hv &= !(m->set & EV_MOD_HV);
	}
	if (((m->set & EV_MOD_U) || m->precise) && !s->virt_chosen)
		s->ex_guest = true;
	if (m->set & VIRT_MODS) {
		if (!s->virt_chosen)
			s->ex_guest = s->ex_host = s->virt_chosen = true;
		s->ex_guest &= !(m->set & EV_MOD_GUEST);
		s->ex_host &= !(m->set & EV_MOD_HOST);
	}
	s->ex_idle |= !!(m->set & EV_MOD_IDLE);
	s->pinned |= !!(m->set & EV_MOD_PIN);
	s->pmax = m->set & EV_MOD_PMAX;
	s->read = m->set & EV_MOD_READ;
	s->precise += m->precise;
	return s->precise > MAX_PRECISE ? -EINVAL : 0;
}

static void state_set(const struct mod_state *s, struct pk_event *ev)
{
	struct perf_event_attr *a = &ev->attr;

	a->exclude_user = s->ex_user;
	a->exclude_kernel = s->ex_kernel;
	a->exclude_hv = s->ex_hv;
	a->exclude_guest = s->ex_guest;
	a->exclude_host = s->ex_host;
	a->exclude_idle = s->ex_idle;
	a->precise_ip = s->precise;
	a->pinned = s->pinned;
	ev->precise_max = s->pmax;
	if (s->read)
		a->sample_type |= PERF_SAMPLE_READ;
	else
		a->sample_type &= ~(__u64)PERF_SAMPLE_READ;
}

void ev_mods_apply_own(const struct ev_mods *m, bool has_mods, struct pk_event *ev)
{
	struct mod_state s = { .ex_guest = !has_mods };

	state_add(&s, m);           /* one event's own letters hold at most 3 'p's */
	state_set(&s, ev);
}

int ev_mods_apply_group(const struct ev_mods *own, const struct ev_mods *gm, struct pk_event *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	struct mod_state s = {
		.ex_user = a->exclude_user, .ex_kernel = a->exclude_kernel, .ex_hv = a->exclude_hv,
		.ex_guest = a->exclude_guest, .ex_host = a->exclude_host, .ex_idle = a->exclude_idle,
		.priv_chosen = a->exclude_user || a->exclude_kernel || a->exclude_hv,
		.virt_chosen = own->set & VIRT_MODS,
		.pinned = a->pinned, .precise = a->precise_ip,
	};
	int err = state_add(&s, gm);

	if (!err)
		state_set(&s, ev);
	return err;
}

int ev_mods_name(struct pk_event *ev, const struct ev_pending *p, const char *gtext, size_t glen)
{
	size_t old, n;
	char *name;

	if (p->name_form == EV_NAME_USER || !glen)
		return 0;
	old = strlen(ev->name);
	name = malloc(old + glen + 2);
	if (!name)
		return -ENOMEM;
	memcpy(name, ev->name, old);
	n = old;
	if (p->name_form == EV_NAME_PLAIN)
		name[n++] = ':';
	for (size_t i = 0; i < glen; i++) {
		if (gtext[i] == 'p') {      /* the group's p's add to the member's */
			name[n++] = 'p';
		} else if (!(p->mods.set & mod_bit(gtext[i]))) {
			name[n++] = gtext[i];
		}
	}
	name[n] = '\0';
	free(ev->name);
	ev->name = name;
	return 0;
}
