/*
 * Side-band records applied to the symbols module: MMAP/MMAP2 (prot taken
 * as executable for MMAP unless MISC_MMAP_DATA, as perf does), COMM, FORK,
 * EXIT, NAMESPACES (the cgroup namespace), CGROUP, KSYMBOL and
 * HEADER_BUILD_ID. Shared by the session (perf.data) and
 * live sampling (record's build-id tracking, top).
 */
#include <errno.h>
#include <sys/mman.h>
#include <perfkit/perfdata.h>
#include <perfkit/sample.h>
#include "internal.h"

/* perf's link_info order: net, uts, ipc, pid, user, mnt, cgroup (CGROUP_NS_INDEX) */
#define PK_CGROUP_NS_INDEX 6

int pk_symbols_feed(struct pk_symbols *s, const struct perf_event_header *h, uint32_t trailer,
		    uint64_t off, struct pk_diag *d)
{
	uint8_t cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	union pk_rec u;
	int ret;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_KSYMBOL:
	case PK_RECORD_HEADER_BUILD_ID:
		break;
	default:
		return 0;
	}
	ret = pk_rec_decode(h, h->size, trailer, &u, off, d);
	if (ret == -ENOENT)
		return 0;
	if (ret == -EBADMSG) {
		/*
		 * The record's frame was sound (the reader checked it); only its
		 * payload is malformed. perf applies such records blindly; skip it
		 * with a warning rather than give up on the whole file.
		 */
		char buf[1024];

		pk_log(PK_LOG_WARN, "skipping %s record: %s",
		       pk_rec_type_name(h->type) ? pk_rec_type_name(h->type) : "side-band",
		       pk_diag_str(d, buf, sizeof(buf)));
		pk_diag_init(d);
		return 0;
	}
	if (ret < 0)
		return ret;
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		uint32_t prot = u.mmap.prot;

		/* MMAP carries no prot: perf takes it as executable unless MISC_MMAP_DATA */
		if (!u.mmap.mmap2)
			prot = h->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC;
		sym_mmap(s, (int32_t)u.mmap.pid, (int32_t)u.mmap.tid, u.mmap.start, u.mmap.len,
			 u.mmap.pgoff, u.mmap.filename, cpumode,
			 u.mmap.build_id_size ? u.mmap.build_id : NULL, u.mmap.build_id_size, prot,
			 u.mmap.flags, u.mmap.mmap2 && !u.mmap.build_id_size ? u.mmap.ino : 0);
		break;
	}
	case PERF_RECORD_COMM:
		pk_symbols_comm(s, (int32_t)u.comm.pid, (int32_t)u.comm.tid, u.comm.comm,
				u.comm.exec);
		break;
	case PERF_RECORD_FORK:
		pk_symbols_fork(s, (int32_t)u.task.pid, (int32_t)u.task.ppid,
				(int32_t)u.task.tid, (int32_t)u.task.ptid, h->misc);
		break;
	case PERF_RECORD_EXIT:
		pk_symbols_exit(s, (int32_t)u.task.pid, (int32_t)u.task.tid);
		break;
	case PERF_RECORD_NAMESPACES: {
		uint64_t dev = 0, ino = 0;

		if (u.namespaces.nr > PK_CGROUP_NS_INDEX)
			pk_rec_namespace_link(&u.namespaces, PK_CGROUP_NS_INDEX, &dev, &ino);
		pk_symbols_namespaces(s, (int32_t)u.namespaces.pid, (int32_t)u.namespaces.tid, dev, ino);
		break;
	}
	case PERF_RECORD_CGROUP:
		pk_symbols_cgroup(s, u.cgroup.id, u.cgroup.path);
		break;
	case PERF_RECORD_KSYMBOL:
		pk_symbols_ksymbol(s, u.ksymbol.addr, u.ksymbol.len, u.ksymbol.name,
				   !!(u.ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER));
		break;
	case PK_RECORD_HEADER_BUILD_ID:
		if (u.build_id.filename)
			pk_symbols_build_id_misc(s, u.build_id.pid, h->misc, u.build_id.filename,
						 u.build_id.build_id, u.build_id.size);
		break;
	}
	return 0;
}
