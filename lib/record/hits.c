/*
 * What perf record learns from the records it writes: samples per event,
 * the first and last sample time (SAMPLE_TIME), lost samples, and the DSOs
 * samples hit (the sampled ip and the call chain), whose build-ids go into
 * the BUILD_ID feature. Side band is replayed into a pk_symbols address
 * space model; no symbol table is ever loaded here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include <perfkit/sample.h>
#include <perfkit/symbols.h>
#include "internal.h"

int pk_rec_hits_init(struct pk_rec_hits *h, struct pk_sampler *s, int track_dsos)
{
	size_t n = pk_sampler_nr_events(s);

	memset(h, 0, sizeof(*h));
	h->s = s;
	h->layouts = calloc(n, sizeof(*h->layouts));
	h->samples = calloc(n, sizeof(*h->samples));
	if (!h->layouts || !h->samples)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		pk_sample_layout_init(&h->layouts[i], pk_sampler_attr(s, i));
	if (track_dsos) {
		struct pk_symbols_opts so = { .sz = sizeof(so) };

		h->syms = pk_symbols_new(&so);
		if (!h->syms)
			return -ENOMEM;
	}
	h->first_time = UINT64_MAX;
	return 0;
}

void pk_rec_hits_release(struct pk_rec_hits *h)
{
	pk_symbols_free(h->syms);
	free(h->layouts);
	free(h->samples);
	free(h->dsos);
	memset(h, 0, sizeof(*h));
}

/* Remember @dso once (a linear probe set over the pointer). */
static int mark_dso(struct pk_rec_hits *h, struct pk_dso *dso)
{
	size_t i;

	if (!dso)
		return 0;
	if ((h->nr_dsos + 1) * 2 > h->cap_dsos) {
		size_t ncap = h->cap_dsos ? h->cap_dsos * 2 : 64;
		struct pk_dso **nd = calloc(ncap, sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		for (size_t k = 0; k < h->cap_dsos; k++) {
			if (!h->dsos[k])
				continue;
			for (i = ((uintptr_t)h->dsos[k] >> 4) & (ncap - 1); nd[i]; i = (i + 1) & (ncap - 1))
				;
			nd[i] = h->dsos[k];
		}
		free(h->dsos);
		h->dsos = nd;
		h->cap_dsos = ncap;
	}
	for (i = ((uintptr_t)dso >> 4) & (h->cap_dsos - 1); h->dsos[i]; i = (i + 1) & (h->cap_dsos - 1))
		if (h->dsos[i] == dso)
			return 0;
	h->dsos[i] = dso;
	h->nr_dsos++;
	return 0;
}

static int mark_ip(struct pk_rec_hits *h, const struct pk_thread *t, uint8_t cpumode, uint64_t ip)
{
	const struct pk_map *m = pk_symbols_find_map(h->syms, t, cpumode, ip);

	return m ? mark_dso(h, m->dso) : 0;
}

static int sample_dsos(struct pk_rec_hits *h, const struct pk_sample *s)
{
	const struct pk_thread *t = pk_symbols_thread(h->syms, (int32_t)s->pid, (int32_t)s->tid);
	uint8_t cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int err = mark_ip(h, t, cpumode, s->ip);

	for (uint64_t i = 0; i < s->callchain_nr && !err; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= PERF_CONTEXT_MAX) {
			cpumode = ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
				  ip == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER : cpumode;
			continue;
		}
		if (i == 0 && ip == s->ip)
			continue;
		err = mark_ip(h, t, cpumode, ip);
	}
	return err;
}

int pk_rec_hits_add(struct pk_rec_hits *h, const struct perf_event_header *rec)
{
	struct pk_diag d;
	struct pk_sample s;
	int ev = 0;

	pk_diag_init(&d);
	if (rec->type == PERF_RECORD_LOST || rec->type == PERF_RECORD_LOST_SAMPLES) {
		union pk_rec u;

		if (pk_rec_decode(rec, rec->size, h->layouts[0].id_trailer_size, &u, 0, &d))
			return 0;   /* the kernel wrote it; a decoding gap must not stop recording */
		if (rec->type == PERF_RECORD_LOST)
			h->lost += u.lost.lost;
		else
			h->lost_samples += u.lost_samples;
		return 0;
	}
	if (rec->type != PERF_RECORD_SAMPLE)
		return h->syms ? pk_symbols_feed(h->syms, rec, h->layouts[0].id_trailer_size, 0, &d) : 0;
	if (pk_sampler_nr_events(h->s) > 1 && h->layouts[0].id_pos >= 0 &&
	    rec->size >= 8 + h->layouts[0].id_pos + 8) {
		uint64_t id;

		memcpy(&id, (const char *)rec + 8 + h->layouts[0].id_pos, sizeof(id));
		ev = pk_sampler_event_of_id(h->s, id);
		if (ev < 0)
			return 0;
	}
	h->samples[ev]++;
	h->nr_samples++;
	if (!h->syms && !(h->layouts[ev].sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (pk_sample_parse(&h->layouts[ev], rec, rec->size, &s, 0, &d))
		return 0;   /* the kernel wrote it; a decoding gap here must not stop recording */
	if (s.present & PERF_SAMPLE_TIME) {
		if (s.time < h->first_time)
			h->first_time = s.time;
		if (s.time > h->last_time)
			h->last_time = s.time;
	}
	return h->syms ? sample_dsos(h, &s) : 0;
}

/*
 * The build-id of one hit DSO: from its MMAP2, the kernel's notes, a
 * module's notes, the running [vdso] image (every process maps the same), or
 * the file.
 */
static int dso_build_id(const struct pk_dso *dso, uint8_t bid[20])
{
	char path[512];

	if (dso->build_id_size) {
		memcpy(bid, dso->build_id, dso->build_id_size);
		return dso->build_id_size;
	}
	if (!strcmp(dso->name, "[kernel.kallsyms]"))
		return pk_build_id_of_notes("/sys/kernel/notes", bid, 20);
	if (dso->kernel && dso->short_name && dso->short_name[0] == '[') {
		size_t n = strlen(dso->short_name);

		snprintf(path, sizeof(path), "/sys/module/%.*s/notes/.note.gnu.build-id",
			 (int)(n > 2 ? n - 2 : 0), dso->short_name + 1);
		return pk_build_id_of_notes(path, bid, 20);
	}
	if (!strcmp(dso->name, "[vdso]"))
		return pk_build_id_of_vdso(bid, 20);
	if (dso->name[0] != '/')
		return -ENOENT;       /* anonymous memory, JIT maps, [vsyscall] */
	return pk_build_id_of_elf(dso->name, bid, 20);
}

int pk_rec_hits_build_ids(const struct pk_rec_hits *h, struct pk_features *f)
{
	uint32_t n = 0;

	if (!h->syms || !h->nr_dsos)
		return 0;
	f->build_ids = calloc(h->nr_dsos, sizeof(*f->build_ids));
	if (!f->build_ids)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap_dsos; i++) {
		const struct pk_dso *dso = h->dsos[i];
		struct pk_feat_build_id *b = &f->build_ids[n];
		int len;

		if (!dso || (len = dso_build_id(dso, b->build_id)) <= 0)
			continue;
		b->pid = -1;          /* the host machine, as perf writes it */
		b->misc = dso->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		b->size = (uint8_t)len;
		b->filename = strdup(dso->name);
		if (!b->filename)
			return -ENOMEM;
		n++;
	}
	f->nr_build_ids = n;
	if (n)
		pk_features_set(f, PK_FEAT_BUILD_ID);
	return 0;
}
