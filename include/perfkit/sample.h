/*
 * perfkit sample: decoding PERF_RECORD_* records given the attr that
 * produced them (sample_type, read_format, branch_sample_type,
 * sample_id_all), byte-swapping records written on a machine of the other
 * byte order, and decoding perf_mem_data_src the way perf prints it.
 *
 * Layouts: ../shared/reference/perf-data.md §3-§6 (field order of
 * PERF_RECORD_SAMPLE as perf_output_sample() writes it, the sample_id
 * trailer, kernel and perf-tool record payloads).
 *
 * Every decoder takes a record in native byte order, starting at an 8-byte
 * aligned address (the perfdata reader guarantees both), checks every size
 * against the record length, and fails through PK_CORRUPT with the file
 * offset @off of the record plus the position inside it. Pointers in the
 * decoded structs point into the record; they stay valid as long as it does.
 */
#ifndef PERFKIT_SAMPLE_H
#define PERFKIT_SAMPLE_H

#include <stdint.h>
#include <linux/perf_event.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf_event_attr as stored in a file: the kernel struct plus VER8's config3. */
struct pk_attr {
	struct perf_event_attr attr;   /* attr.size is what the file stored */
	uint64_t config3;              /* VER8 (136 bytes), 0 if absent */
};

/*
 * Import an attr of @len bytes (the file's attr.size, 0 meaning VER0 = 64)
 * from @buf in the writer's byte order (@swap). Copies what perfkit knows,
 * zero-fills the rest; bytes beyond the largest known size must be zero
 * (the kernel's rule), otherwise -EBADMSG. Bitfields of swapped attrs are
 * fixed up as perf does. @off is the file offset of @buf, for the message.
 */
PK_API int pk_attr_import(struct pk_attr *out, const void *buf, size_t len, int swap,
			  uint64_t off, struct pk_diag *d);

/* What one attr's records look like; derive once per attr with pk_sample_layout_init(). */
struct pk_sample_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint64_t regs_user_mask;
	uint64_t regs_intr_mask;
	int sample_id_all;
	uint32_t id_trailer_size;   /* bytes of the sample_id trailer on non-sample kernel records */
	int id_pos;                 /* byte offset of the id in a SAMPLE after the 8-byte header, -1 if none */
	int id_pos_from_end;        /* bytes from the record end to the id in other kernel records, -1 if none */
};

PK_API void pk_sample_layout_init(struct pk_sample_layout *l, const struct perf_event_attr *attr);

/* One counter value in PERF_SAMPLE_READ / PERF_RECORD_READ. */
struct pk_read_value {
	uint64_t value, id, lost;
};

/* read_format values; group members are decoded with pk_sample_read_value(). */
struct pk_read_values {
	uint64_t time_enabled, time_running;
	uint64_t nr;                 /* 1 without PERF_FORMAT_GROUP */
	const uint64_t *entries;     /* nr entries of entry_words u64 each */
	uint32_t entry_words;
};

/* Entry @i (< rv->nr) of @rv under @read_format. */
PK_API void pk_sample_read_value(const struct pk_read_values *rv, uint64_t read_format,
				 uint64_t i, struct pk_read_value *out);

/* A decoded PERF_RECORD_SAMPLE, or the sample_id trailer of another kernel record. */
struct pk_sample {
	uint64_t present;            /* sample_type bits actually decoded */
	uint16_t misc;               /* header.misc: cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint32_t pid, tid;
	uint32_t cpu;
	uint64_t id, stream_id;
	uint64_t ip, time, addr, period;
	uint64_t weight;             /* WEIGHT, or var1_dw of WEIGHT_STRUCT */
	uint16_t ins_lat, weight3;   /* WEIGHT_STRUCT var2_w / var3_w */
	uint64_t data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
	struct pk_read_values read;
	uint64_t callchain_nr;
	const uint64_t *callchain;   /* may contain PERF_CONTEXT_* markers */
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr, branch_hw_idx;      /* hw_idx is -1 (all ones) when absent */
	const struct perf_branch_entry *branch;
	const uint64_t *branch_counters;        /* NULL unless BRANCH_COUNTERS */
	uint64_t regs_user_abi;
	const uint64_t *regs_user;              /* popcount(regs_user_mask) values if abi != 0 */
	uint64_t stack_user_size, stack_user_dyn_size;
	const void *stack_user;
	uint64_t regs_intr_abi;
	const uint64_t *regs_intr;
	uint64_t aux_size;
	const void *aux;
};

/*
 * Decode a PERF_RECORD_SAMPLE (@rec points at its perf_event_header, @len =
 * header.size). The whole record must be consumed exactly or be followed only
 * by padding inside header.size; anything else is corrupt.
 */
PK_API int pk_sample_parse(const struct pk_sample_layout *l, const void *rec, size_t len,
			   struct pk_sample *s, uint64_t off, struct pk_diag *d);

/*
 * Decode the sample_id trailer of a non-sample kernel record (types 1..22
 * except 9) into @s (pid, tid, time, id, stream_id, cpu). With
 * !sample_id_all, @s is zeroed (present == 0) and 0 is returned.
 */
PK_API int pk_sample_id_parse(const struct pk_sample_layout *l, const void *rec, size_t len,
			      struct pk_sample *s, uint64_t off, struct pk_diag *d);

/* ---- kernel and perf-tool records -------------------------------------- */

/* PERF_RECORD_MMAP and MMAP2 (mmap2 set for the latter). */
struct pk_rec_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	int mmap2;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size;       /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID, else 0 */
	const uint8_t *build_id;
	uint32_t prot, flags;
	const char *filename;        /* NUL-terminated inside the record (checked) */
};

struct pk_rec_comm {
	uint32_t pid, tid;
	int exec;                    /* misc & PERF_RECORD_MISC_COMM_EXEC */
	const char *comm;
};

/* PERF_RECORD_FORK and EXIT. */
struct pk_rec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct pk_rec_lost {
	uint64_t id, lost;
};

/* PERF_RECORD_THROTTLE / UNTHROTTLE. */
struct pk_rec_throttle {
	uint64_t time, id, stream_id;
};

struct pk_rec_switch {
	int out, preempt;            /* SWITCH_OUT / SWITCH_OUT_PREEMPT */
	uint32_t next_prev_pid, next_prev_tid;   /* SWITCH_CPU_WIDE only */
};

struct pk_rec_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	const char *name;
};

/* PERF_RECORD_NAMESPACES: @nr {dev, inode} pairs at @links (16 bytes each, file order). */
struct pk_rec_namespaces {
	uint32_t pid, tid;
	uint64_t nr;
	const uint8_t *links;
};

/* PERF_RECORD_BPF_EVENT. */
struct pk_rec_bpf_event {
	uint16_t type, flags;
	uint32_t id;
};

/* PERF_RECORD_CGROUP. */
struct pk_rec_cgroup {
	uint64_t id;
	const char *path;
};

/* HEADER_BUILD_ID (67), also the entries of the BUILD_ID feature. */
struct pk_rec_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size;                /* 20 unless misc bit 15 gives the size */
	const uint8_t *build_id;
	const char *filename;
};

/* PERF_RECORD_AUXTRACE (71): the trace bytes follow the record. */
struct pk_rec_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
};

/* The decoded payload of one record; which member is valid follows header.type. */
union pk_rec {
	struct pk_rec_mmap mmap;
	struct pk_rec_comm comm;
	struct pk_rec_task task;
	struct pk_rec_lost lost;
	struct pk_rec_throttle throttle;
	struct pk_rec_switch sw;
	struct pk_rec_ksymbol ksymbol;
	struct pk_rec_namespaces namespaces;
	struct pk_rec_bpf_event bpf_event;
	struct pk_rec_cgroup cgroup;
	struct pk_rec_build_id build_id;
	struct pk_rec_auxtrace auxtrace;
	uint64_t lost_samples;       /* PERF_RECORD_LOST_SAMPLES */
};

/*
 * Decode the payload of a record of the types listed in union pk_rec
 * (MMAP, MMAP2, COMM, FORK, EXIT, LOST, THROTTLE, UNTHROTTLE, SWITCH,
 * SWITCH_CPU_WIDE, KSYMBOL, NAMESPACES, BPF_EVENT, CGROUP, LOST_SAMPLES,
 * HEADER_BUILD_ID, AUXTRACE).
 * @trailer is the sample_id trailer size to exclude (0 for perf-tool records).
 * Returns 0, -ENOENT for other types, or -EBADMSG.
 */
PK_API int pk_rec_decode(const void *rec, size_t len, uint32_t trailer, union pk_rec *out,
			 uint64_t off, struct pk_diag *d);

/* The @i-th {dev, inode} pair of a decoded NAMESPACES record (@i < n->nr). */
PK_API void pk_rec_namespace_link(const struct pk_rec_namespaces *n, uint64_t i, uint64_t *dev,
				  uint64_t *ino);

/* perf's name of a record type ("MMAP2", "FINISHED_ROUND", ...), NULL if unknown. */
PK_API const char *pk_rec_type_name(uint32_t type);

/* ---- byte order ---------------------------------------------------------- */

/*
 * Byte-swap, in place, a record of @len bytes written in the other byte
 * order. For PERF_RECORD_SAMPLE and kernel records @l is the layout of the
 * record's attr (the caller found it through pk_sample_swapped_id()); for
 * perf-tool records @l may be NULL. The header must already be swapped.
 * Strings and byte arrays are left alone; RAW data is left in the writer's
 * order (as perf does) except for its u32 size. Returns 0 or -EBADMSG.
 */
PK_API int pk_record_swap(void *rec, size_t len, const struct pk_sample_layout *l,
			  uint64_t off, struct pk_diag *d);

/*
 * The id of a record still in the other byte order, at the position @l says
 * (every attr of a file places it alike). Returns 0 and *id, or -ENOENT if
 * the record has no id or is too short.
 */
PK_API int pk_sample_swapped_id(const void *rec, size_t len, const struct pk_sample_layout *l,
				uint64_t *id);

/* ---- memory samples ---------------------------------------------------- */

/*
 * perf's text for the fields of a perf_mem_data_src value, as the sort keys
 * mem, snoop, tlb, lock and the script field data_src print them
 * ("L1 hit", "N/A", "L1 or L2 hit", "Yes", ...). Each writes a
 * NUL-terminated string into @buf and returns its length.
 */
PK_API size_t pk_mem_lvl_str(uint64_t data_src, char *buf, size_t sz);
PK_API size_t pk_mem_snoop_str(uint64_t data_src, char *buf, size_t sz);
PK_API size_t pk_mem_tlb_str(uint64_t data_src, char *buf, size_t sz);
PK_API size_t pk_mem_lock_str(uint64_t data_src, char *buf, size_t sz);
/* The whole of perf script's data_src column: "|OP LOAD|LVL L1 hit|SNP None|TLB ...|LCK No|BLK  N/A". */
PK_API size_t pk_mem_data_src_str(uint64_t data_src, char *buf, size_t sz);

#ifdef __cplusplus
}
#endif
#endif
