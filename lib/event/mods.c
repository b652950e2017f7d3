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
 *   P  the highest precision  precise_ip 3, pk_event.precise_max
 *   S  read counts in samples sample_type |= PERF_SAMPLE_READ
 *   D  pinned to the PMU      pinned
 *
 * Letters combine as unions of what is counted ("uk" counts user and
 * kernel, "GH" guest and host). A letter may appear once ('p' up to three
 * times). Group modifiers ({a,b}:u) merge with each member's own by the same
 * union rule, and the precision is the higher of the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_PRECISE 3
#define PRIV_MODS (EV_MOD_U | EV_MOD_K | EV_MOD_HV)
#define VIRT_MODS (EV_MOD_GUEST | EV_MOD_HOST)

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

struct ev_mods ev_mods_merge(const struct ev_mods *a, const struct ev_mods *b)
{
	struct ev_mods m;

	m.set = a->set | b->set;
	m.precise = a->precise > b->precise ? a->precise : b->precise;
	return m;
}

void ev_mods_apply(const struct ev_mods *m, struct pk_event *ev)
{
	struct perf_event_attr *a = &ev->attr;
	bool priv = m->set & PRIV_MODS, virt = m->set & VIRT_MODS;

	a->exclude_user = priv && !(m->set & EV_MOD_U);
	a->exclude_kernel = priv && !(m->set & EV_MOD_K);
	a->exclude_hv = priv && !(m->set & EV_MOD_HV);
	a->exclude_host = virt && !(m->set & EV_MOD_HOST);
	a->exclude_guest = virt && !(m->set & EV_MOD_GUEST);
	a->exclude_idle = !!(m->set & EV_MOD_IDLE);
	a->precise_ip = (m->set & EV_MOD_PMAX) ? MAX_PRECISE : m->precise;
	ev->precise_max = !!(m->set & EV_MOD_PMAX);
	a->pinned = !!(m->set & EV_MOD_PIN);
	if (m->set & EV_MOD_READ)
		a->sample_type |= PERF_SAMPLE_READ;
	else
		a->sample_type &= ~(__u64)PERF_SAMPLE_READ;
}

int ev_mods_name(struct pk_event *ev, const struct ev_pending *p, const char *gtext, size_t glen)
{
	size_t old, n;
	unsigned precise = 0;
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
		if (gtext[i] == 'p') {
			if (++precise > p->mods.precise)
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
