/*
 * perfkit core: error diagnostics, a bounded byte reader, growable buffers,
 * small file helpers and the library's logging callback.
 *
 * Conventions every module follows (STYLE.md):
 *  - functions return 0 or a negative errno;
 *  - the human-readable reason goes into a caller-provided struct pk_diag,
 *    which names the subject (file, event spec, ...), the byte offset when
 *    there is one, and optionally a hint for the user;
 *  - the library never prints and never exits; warnings go through the
 *    logging callback set with pk_log_set_callback().
 */
#ifndef PERFKIT_CORE_H
#define PERFKIT_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PK_API __attribute__((visibility("default")))

/* perfkit's version (the VERSION feature of files it writes, --version). */
#define PK_VERSION "0.1.0"

/* Offset value meaning "no byte offset applies". */
#define PK_NO_OFFSET UINT64_MAX

/* Where and why an operation failed. Zero-initialize before use. */
struct pk_diag {
	int err;             /* negative errno of the failure, 0 if none */
	uint64_t offset;     /* byte (or character) offset, PK_NO_OFFSET if none */
	char subject[256];   /* the file, event spec or object concerned */
	char msg[512];       /* what went wrong, lowercase, no full stop */
	char hint[256];      /* how to get past it, empty if unknown */
};

/* Reset @d to "no error" (offset PK_NO_OFFSET, empty strings). */
PK_API void pk_diag_init(struct pk_diag *d);

/*
 * Record a failure with errno @err (negative) and a printf-style message.
 * Returns @err so callers can write `return pk_diag_fail(d, -EINVAL, ...)`.
 * @d may be NULL.
 */
PK_API int pk_diag_fail(struct pk_diag *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like pk_diag_fail() but also records a byte offset. */
PK_API int pk_diag_fail_at(struct pk_diag *d, int err, uint64_t offset,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Set the subject (file name, spec) of @d; NULL-safe. */
PK_API void pk_diag_subject(struct pk_diag *d, const char *subject);

/* Set the hint of @d; NULL-safe. */
PK_API void pk_diag_hint(struct pk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Format @d as perfkit prints errors:
 *   "'subject': msg at offset N"  (parts that are empty are left out)
 * into @buf. Returns @buf.
 */
PK_API const char *pk_diag_str(const struct pk_diag *d, char *buf, size_t sz);

/* The single funnel for corrupt input: records offset and reason, returns -EBADMSG. */
#define PK_CORRUPT(diag, off, ...) pk_diag_fail_at((diag), -EBADMSG, (off), __VA_ARGS__)

/* ---- logging ---------------------------------------------------------- */

enum pk_log_level { PK_LOG_WARN, PK_LOG_INFO, PK_LOG_DEBUG };

typedef void (*pk_log_fn)(enum pk_log_level level, const char *fmt, va_list ap);

/* Install the callback that receives library warnings; NULL silences them (default). */
PK_API void pk_log_set_callback(pk_log_fn fn);
PK_API void pk_log(enum pk_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- growable byte buffer --------------------------------------------- */

struct pk_buf {
	char *data;  /* always NUL-terminated when len > 0 or after pk_buf_printf */
	size_t len;
	size_t cap;
};

PK_API void pk_buf_init(struct pk_buf *b);
PK_API void pk_buf_release(struct pk_buf *b);
/* Ensure room for @extra more bytes (plus a NUL). 0 or -ENOMEM. */
PK_API int pk_buf_reserve(struct pk_buf *b, size_t extra);
PK_API int pk_buf_append(struct pk_buf *b, const void *p, size_t n);
PK_API int pk_buf_printf(struct pk_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Make room for @need elements of @elem bytes in the array *@p of capacity
 * *@cap (elements): the capacity doubles from @first until it holds @need.
 * Contents are kept. 0, or -ENOMEM (also on size overflow) leaving *@p alone.
 */
PK_API int pk_array_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);

/*
 * Map the pages of [@p, @p + @len), memory the caller is about to write, in
 * one system call instead of a page fault each (MADV_POPULATE_WRITE; on
 * kernels before 5.14 nothing happens). Contents are unchanged. Below 64 KB
 * it does nothing.
 */
PK_API void pk_prefault_write(void *p, size_t len);

/*
 * realloc(@p, @len) for an array that is about to be filled (@old_len: the
 * bytes of @p that hold contents). From 2 MB on, the new block is aligned
 * to a huge page and asks the kernel for huge pages (MADV_HUGEPAGE), so
 * that filling it takes a page fault per 2 MB instead of per 4 KB: 20 us
 * each in virtual machines that trap page table updates, 5 ms a megabyte.
 * NULL when out of memory, @p then unchanged. Freed with free().
 */
PK_API void *pk_realloc_huge(void *p, size_t old_len, size_t len);

/* ---- numbers as text ---------------------------------------------------- */

/* @v in decimal at @p (at most 20 bytes, no NUL); returns the length. */
PK_API size_t pk_fmt_uint(char *p, uint64_t v);
/* The @n bytes at @b in lowercase hex at @out (2 * @n + 1 bytes, with its NUL): build-ids. */
PK_API void pk_fmt_bytes_hex(char *out, const uint8_t *b, size_t n);

#define PK_PAGE_SIZE_MAX 24  /* enough for pk_format_page_size(), with its NUL */

/*
 * A page size as perf writes it (its get_page_size_name): "4K", "2M", "1G"
 * (whole units, rounded down), "N/A" for 0, into @out (PK_PAGE_SIZE_MAX
 * bytes); returns the length.
 */
PK_API size_t pk_format_page_size(uint64_t size, char *out);

#define PK_FIXED6_MAX 352   /* enough for printf("%f") of any double, with its NUL */

/*
 * @v as printf("%f") prints it (six decimals, exact rounding half to even,
 * "-" for negative values and -0.0, "inf"/"nan" as glibc spells them) into
 * @out (PK_FIXED6_MAX bytes); returns the length.
 */
PK_API size_t pk_format_fixed6(double v, char *out);

#define PK_G17_MAX 32       /* enough for printf("%.17g") of any double, with its NUL */

/*
 * @v as printf("%.17g") prints it (17 significant digits, exact rounding
 * half to even, so that it reads back as @v) into @out (PK_G17_MAX bytes);
 * returns the length.
 */
PK_API size_t pk_format_g17(double v, char *out);

/* ---- bounded reader over untrusted bytes ------------------------------ */

struct pk_reader {
	const uint8_t *data;
	size_t len;
	size_t off;
	int swap;               /* byte-swap multi-byte reads */
	struct pk_diag *diag;   /* where failures are recorded, may be NULL */
};

PK_API void pk_reader_init(struct pk_reader *r, const void *data, size_t len,
			   struct pk_diag *diag);
/* Bytes left after the cursor. */
PK_API size_t pk_reader_left(const struct pk_reader *r);
/* Reads fail with PK_CORRUPT ("truncated ...") instead of reading past the end. */
PK_API int pk_reader_bytes(struct pk_reader *r, void *out, size_t n);
PK_API int pk_reader_u8(struct pk_reader *r, uint8_t *v);
PK_API int pk_reader_u16(struct pk_reader *r, uint16_t *v);
PK_API int pk_reader_u32(struct pk_reader *r, uint32_t *v);
PK_API int pk_reader_u64(struct pk_reader *r, uint64_t *v);
PK_API int pk_reader_skip(struct pk_reader *r, size_t n);

/* True if [off, off+size) lies within [0, len), without overflow. */
static inline int pk_range_ok(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

/* ---- hashing ---------------------------------------------------------------- */

/* A 64-bit finalizer (murmur3's fmix64): spreads every input bit over the result. */
static inline uint64_t pk_hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---- small files (sysfs, procfs) -------------------------------------- */

/*
 * Read the whole of @path into @b (replacing its contents), up to @max bytes.
 * Works for files that report size 0 (procfs, sysfs). Returns 0 or -errno;
 * -EFBIG if the file is longer than @max.
 */
PK_API int pk_file_read_all(const char *path, struct pk_buf *b, size_t max);
/* The same from the open @fd, to its end (not closed). */
PK_API int pk_fd_read_all(int fd, struct pk_buf *b, size_t max);

/* The whole of a file, as pk_file_data_load() gives it. */
struct pk_file_data {
	const char *data;       /* its bytes, not NUL-terminated; NULL when empty */
	size_t len;
	void *map;              /* the mapping, when mapped */
	struct pk_buf buf;      /* the bytes, when read */
};

/*
 * The whole of @path, up to @max bytes, into *@f: a regular file is mapped
 * read-only (its pages mapped at once), anything else is read as
 * pk_file_read_all() reads it. 0 or -errno; -EFBIG when it is longer than
 * @max. *@f is to be released with pk_file_data_release() either way.
 */
PK_API int pk_file_data_load(const char *path, size_t max, struct pk_file_data *f);
PK_API void pk_file_data_release(struct pk_file_data *f);

/* Read the first line of a small file into @buf without its newline. 0 or -errno. */
PK_API int pk_file_read_line(const char *path, char *buf, size_t sz);

/* Read an unsigned integer (decimal, or 0x hex) from a small file. 0 or -errno. */
PK_API int pk_file_read_u64(const char *path, uint64_t *v);
/* Read a signed decimal integer (sysfs ids may be -1) from a small file. 0 or -errno. */
PK_API int pk_file_read_s64(const char *path, int64_t *v);

/* snprintf for a path into @buf: 0, or -ENAMETOOLONG when it did not fit (then cut). */
PK_API int pk_path_fmt(char *buf, size_t sz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Parse a CPU list like "0-3,8,10-11" into a sorted, de-duplicated array of
 * CPU numbers (caller frees *cpus). Returns the count (>= 0) or -EINVAL with
 * @diag naming the offending character offset.
 */
PK_API int pk_cpulist_parse(const char *s, int **cpus, struct pk_diag *diag);

/* ---- a command to measure ---------------------------------------------- */

/*
 * A child process forked and held before execvp() until pk_workload_start(),
 * so counters can be opened on its pid first (with enable_on_exec they start
 * at the exec). A failed exec is reported back through a close-on-exec pipe.
 */
struct pk_workload {
	pid_t pid;     /* the child, or -1 */
	int go_fd;     /* write end: releases the child */
	int err_fd;    /* read end: the child's errno if execvp failed */
	int status;    /* the child's wait status when it ended before it was released, else -1 */
};

/* Fork @argv[0] (searched in PATH) held before exec. 0 or -errno. */
PK_API int pk_workload_prepare(struct pk_workload *w, char *const argv[],
			       struct pk_diag *diag);
/*
 * Let the child exec. Returns 0 once the exec succeeded, or the exec's
 * -errno (the child has then exited with 127, or 126 for EACCES, and is reaped)
 * with @diag naming the command. -ECHILD: the child ended before it was
 * released (killed while the caller prepared); it is reaped, its wait
 * status in @w->status.
 */
PK_API int pk_workload_start(struct pk_workload *w, struct pk_diag *diag);
/*
 * The exit status a command-line tool gives when pk_workload_start failed
 * with @err: 126 (not executable) or 127 (not found, not run), and for a
 * command that ended before it started, as it ended (128 + signal).
 */
PK_API int pk_workload_start_exit_code(const struct pk_workload *w, int err);
/* Kill (if still running) and reap a workload that will not be started. */
PK_API void pk_workload_abort(struct pk_workload *w);

/* ---- this machine ------------------------------------------------------------ */

/* True if @osrelease (a recording's `uname -r`) is the running kernel's; NULL is not. */
PK_API int pk_kernel_is_running(const char *osrelease);

/*
 * This process's vDSO ELF image (getauxval(AT_SYSINFO_EHDR)) and its length
 * (the [vdso] mapping, or the extent its headers give). Read-only memory of
 * our own: copy it before handing it to anything that writes. 0 or -ENOENT.
 */
PK_API int pk_vdso_self(const void **image, size_t *size);

/* ---- the terminal ---------------------------------------------------------- */

struct screen;   /* ncurses' SCREEN */

/*
 * Take over the terminal for a full-screen view: newterm() on stdin/stdout,
 * cbreak, noecho, no cursor, keypad; colour pair i + 1 is foreground @fg[i]
 * on the default background when the terminal has colours (*@color = 1).
 * -ENOTTY when stdin or stdout is not a terminal ncurses can drive.
 */
PK_API int pk_screen_open(struct screen **out, const short *fg, int n_pairs, int *color);
/* Give the terminal back (endwin) and free the screen; NULL-safe. */
PK_API void pk_screen_close(struct screen *scr);

/* ---- CPUs ---------------------------------------------------------------- */

/* CPUs this process may run on (its affinity mask; the online count if that cannot be read). */
PK_API int pk_cpus_usable(void);

/* The CPU's vendor from cpuid ("GenuineIntel", "AuthenticAMD"); "" off x86. */
PK_API void pk_cpu_vendor(char out[13]);

/* ---- time ---------------------------------------------------------------- */

/* CLOCK_MONOTONIC in nanoseconds. */
PK_API uint64_t pk_now_ns(void);

/* The clock @clock (a clockid_t: CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, ...) in nanoseconds. */
PK_API uint64_t pk_clock_ns(int clock);

#ifdef __cplusplus
}
#endif
#endif
