/*
 * perf script's side band (Linux perf 6.1): the records --show-*-events
 * asks for, each as the sample start fields of its thread (comm, pid/tid,
 * cpu, time) and then perf_event__fprintf()'s "PERF_RECORD_<TYPE>..." text:
 *
 *   --show-mmap-events       MMAP, MMAP2
 *   --show-task-events       COMM, FORK, EXIT
 *   --show-switch-events     SWITCH ("IN", "OUT", "OUT preempt"), SWITCH_CPU_WIDE
 *                            (with the next or previous pid/tid)
 *   --show-lost-events       LOST ("lost N"; perf 6.1 prints no LOST_SAMPLES)
 *   --show-namespace-events  NAMESPACES (four {dev, inode} pairs a line)
 *   --show-cgroup-events     CGROUP
 *   --show-bpf-events        KSYMBOL, BPF_EVENT (without the start when the
 *                            event has no sample_id_all, as perf)
 *
 * The thread whose comm starts the line is the record's own for task, mmap
 * and namespace records, the sample_id's for the others.
 */
#include <sys/mman.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include <perfkit/sample.h>
#include <perfkit/symbols.h>
#include "script/internal.h"

static void put_mmap(struct pk_obuf *o, const struct perf_event_header *h, const struct pk_rec_mmap *m)
{
	pk_obuf_putc(o, ' ');
	pk_obuf_int(o, (int32_t)m->pid, 0);
	pk_obuf_putc(o, '/');
	pk_obuf_int(o, (int32_t)m->tid, 0);
	pk_obuf_write(o, ": [", 3);
	pk_obuf_hex_alt(o, m->start);
	pk_obuf_putc(o, '(');
	pk_obuf_hex_alt(o, m->len);
	pk_obuf_write(o, ") @ ", 4);
	pk_obuf_hex_alt(o, m->pgoff);
	if (!m->mmap2) {
		pk_obuf_write(o, "]: ", 3);
		pk_obuf_putc(o, (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x');
	} else {
		if (m->build_id_size) {
			pk_obuf_write(o, " <", 2);
			for (unsigned i = 0; i < m->build_id_size; i++) {
				pk_obuf_putc(o, pk_hex_digits[m->build_id[i] >> 4]);
				pk_obuf_putc(o, pk_hex_digits[m->build_id[i] & 15]);
			}
			pk_obuf_putc(o, '>');
		} else {
			pk_obuf_printf(o, " %02x:%02x %llu %llu", m->maj, m->min,
				       (unsigned long long)m->ino, (unsigned long long)m->ino_generation);
		}
		pk_obuf_write(o, "]: ", 3);
		pk_obuf_putc(o, (m->prot & PROT_READ) ? 'r' : '-');
		pk_obuf_putc(o, (m->prot & PROT_WRITE) ? 'w' : '-');
		pk_obuf_putc(o, (m->prot & PROT_EXEC) ? 'x' : '-');
		pk_obuf_putc(o, (m->flags & MAP_SHARED) ? 's' : 'p');
	}
	pk_obuf_putc(o, ' ');
	pk_obuf_puts(o, m->filename);
	pk_obuf_putc(o, '\n');
}

/* perf's names of the namespaces a NAMESPACES record lists, by index */
static const char *const ns_names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };

static void put_namespaces(struct pk_obuf *o, const struct pk_rec_namespaces *n)
{
	pk_obuf_printf(o, " %d/%d - nr_namespaces: %llu\n\t\t[", (int32_t)n->pid, (int32_t)n->tid,
		       (unsigned long long)n->nr);
	for (uint64_t i = 0; i < n->nr; i++) {
		uint64_t dev, ino;

		pk_rec_namespace_link(n, i, &dev, &ino);
		if (i && i % 4 == 0)
			pk_obuf_write(o, "\n\t\t ", 4);
		pk_obuf_printf(o, "%llu/%s: %llu/%#llx%s", (unsigned long long)i,
			       i < sizeof(ns_names) / sizeof(ns_names[0]) ? ns_names[i] : "UNKNOWN",
			       (unsigned long long)dev, (unsigned long long)ino,
			       i + 1 < n->nr ? ", " : "]\n");
	}
	if (!n->nr)
		pk_obuf_write(o, "\n", 1);
}

static void put_switch(struct pk_obuf *o, uint32_t type, const struct pk_rec_switch *sw)
{
	const char *in_out = !sw->out ? "IN         " : sw->preempt ? "OUT preempt" : "OUT        ";

	if (type == PERF_RECORD_SWITCH)
		pk_obuf_printf(o, " %s\n", in_out);
	else
		pk_obuf_printf(o, " %s  %s pid/tid: %5d/%-5d\n", in_out, sw->out ? "next" : "prev",
			       (int32_t)sw->next_prev_pid, (int32_t)sw->next_prev_tid);
}

/* Whether --show-*-events asks for records of @type. */
static int wanted(const struct pk_script_opts *o, uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: return o->show_mmap_events;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: return o->show_task_events;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: return o->show_switch_events;
	case PERF_RECORD_LOST: return o->show_lost_events;
	case PERF_RECORD_NAMESPACES: return o->show_namespace_events;
	case PERF_RECORD_CGROUP: return o->show_cgroup_events;
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT: return o->show_bpf_events;
	default: return 0;
	}
}

int pk_script_record(void *ctx, const struct pk_record *r)
{
	struct pk_script *sc = ctx;
	struct pk_obuf *o = sc->o = &sc->out;      /* side band goes to the main output, dumps or not */
	const struct perf_event_header *h = r->hdr;
	const struct pk_evsel *ev = r->evsel;
	const struct pk_sample *s = &r->sample;
	int id_all, own_thread = 1;
	struct pk_diag d;
	union pk_rec u;
	int32_t pid = -1, tid = -1, cpu = 0, tpid = -1, ttid = -1;
	uint64_t time = 0;
	uint32_t f;

	if (h->type == PK_RECORD_HEADER_TRACING_DATA && r->payload) {
		pk_script_tracing(sc, r->payload, (size_t)r->payload_size);
		return 0;
	}
	if (!wanted(&sc->opts, h->type))
		return 0;
	if (!ev && pk_perfdata_nr_evsels(sc->data))
		ev = pk_perfdata_evsel(sc->data, 0);
	if (!ev)
		return 0;
	id_all = ev->layout.sample_id_all;
	pk_diag_init(&d);
	if (pk_rec_decode(h, h->size, id_all ? ev->layout.id_trailer_size : 0, &u, r->file_offset, &d) < 0)
		return 0;   /* the session already fed (and checked) it; nothing to print */
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: tpid = (int32_t)u.mmap.pid; ttid = (int32_t)u.mmap.tid; break;
	case PERF_RECORD_COMM: tpid = (int32_t)u.comm.pid; ttid = (int32_t)u.comm.tid; break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		tpid = (int32_t)u.task.pid;
		ttid = (int32_t)u.task.tid;
		time = u.task.time;
		break;
	case PERF_RECORD_NAMESPACES: tpid = (int32_t)u.namespaces.pid; ttid = (int32_t)u.namespaces.tid; break;
	default: own_thread = 0; break;       /* the sample_id's thread */
	}
	pid = tpid;
	tid = ttid;
	if (id_all) {
		if (s->present & PERF_SAMPLE_TID) {
			pid = (int32_t)s->pid;
			tid = (int32_t)s->tid;
		}
		cpu = (s->present & PERF_SAMPLE_CPU) ? (int32_t)s->cpu : -1;
		time = (s->present & PERF_SAMPLE_TIME) ? s->time : 0;
	}
	if (!own_thread) {
		tpid = pid;
		ttid = tid;
	}
	/* perf prints a BPF record of an event without sample_id_all bare */
	if (id_all || (h->type != PERF_RECORD_KSYMBOL && h->type != PERF_RECORD_BPF_EVENT)) {
		f = sc->set[pk_output_type(ev->attr.attr.type)].fields;
		pk_script_put_start(sc, f,
				    (f & PK_SF_IP) && sc->use_callchain &&
					    (ev->attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN),
				    ttid == -1 ? NULL : pk_symbols_thread(sc->syms, tpid, ttid), pid, tid, cpu,
				    h->type, h->misc, time);
	}
	pk_obuf_write(o, "PERF_RECORD_", 12);
	pk_obuf_puts(o, pk_rec_type_name(h->type) ? pk_rec_type_name(h->type) : "?");
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		put_mmap(o, h, &u.mmap);
		break;
	case PERF_RECORD_COMM:
		if (u.comm.exec)
			pk_obuf_write(o, " exec", 5);
		pk_obuf_write(o, ": ", 2);
		pk_obuf_puts(o, u.comm.comm);
		pk_obuf_putc(o, ':');
		pk_obuf_int(o, (int32_t)u.comm.pid, 0);
		pk_obuf_putc(o, '/');
		pk_obuf_int(o, (int32_t)u.comm.tid, 0);
		pk_obuf_putc(o, '\n');
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		pk_obuf_printf(o, "(%d:%d):(%d:%d)\n", (int32_t)u.task.pid, (int32_t)u.task.tid,
			       (int32_t)u.task.ppid, (int32_t)u.task.ptid);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put_switch(o, h->type, &u.sw);
		break;
	case PERF_RECORD_LOST:
		pk_obuf_printf(o, " lost %llu\n", (unsigned long long)u.lost.lost);
		break;
	case PERF_RECORD_NAMESPACES:
		put_namespaces(o, &u.namespaces);
		break;
	case PERF_RECORD_CGROUP:
		pk_obuf_printf(o, " cgroup: %llu %s\n", (unsigned long long)u.cgroup.id, u.cgroup.path);
		break;
	case PERF_RECORD_KSYMBOL:
		pk_obuf_printf(o, " addr %llx len %u type %u flags 0x%x name %s\n",
			       (unsigned long long)u.ksymbol.addr, u.ksymbol.len, u.ksymbol.ksym_type,
			       u.ksymbol.flags, u.ksymbol.name);
		break;
	case PERF_RECORD_BPF_EVENT:
		pk_obuf_printf(o, " type %u, flags %u, id %u\n", u.bpf_event.type, u.bpf_event.flags,
			       u.bpf_event.id);
		break;
	}
	return o->err;
}
