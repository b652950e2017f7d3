/*
 * perfdata writer tests: synthetic recordings (a cpu-clock attr with
 * IP|TID|TIME|PERIOD|IDENTIFIER and sample_id_all, a COMM, an MMAP2 of
 * /bin/true, SAMPLEs inside that mapping, FINISHED_ROUND) written in file
 * mode, pipe mode, and both with zstd compression, then read back.
 *
 * Oracles:
 *  - the bytes we wrote: perfkit's reader must deliver exactly these kernel
 *    records (byte-equal, in order) and one FINISHED_ROUND per round;
 *  - Linux perf 6.1 (when /usr/bin/perf exists): `perf script` must print
 *    one line per sample with the comm, tid, time and ip we wrote, and
 *    `perf report --header-only -I` must show our host lines exactly as it
 *    shows them for a file perf records on this machine, with no warning;
 *  - pk_features_parse(): every feature pk_features_encode() writes must
 *    parse back to the same values and re-encode to the same bytes;
 *  - a full tmpfs (root only): the write fails with ENOSPC naming the file
 *    and offset, and both perfkit and perf then read exactly the samples of
 *    the complete rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include "../tap.h"

#define SAMPLE_ID 4242
#define PID 31337
#define MAP_ADDR 0x400000ull
#define MAP_LEN 0x20000ull
#define T0 1000000000ull

static char tmpdir[256];

static int have_perf(void)
{
	return access("/usr/bin/perf", X_OK) == 0;
}

/* ---- the synthetic recording ------------------------------------------------ */

static struct perf_event_attr test_attr(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_freq = 999;
	a.freq = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.mmap = a.comm = a.mmap2 = a.task = 1;
	a.disabled = 1;
	return a;
}

static void put(struct pk_buf *b, const void *p, size_t n)
{
	pk_buf_append(b, p, n);
}

static void put64(struct pk_buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32x2(struct pk_buf *b, uint32_t x, uint32_t y)
{
	uint32_t v[2] = { x, y };

	put(b, v, 8);
}

static void put_hdr(struct pk_buf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	put(b, &h, 8);
}

static void put_str8(struct pk_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 7) & ~7ul;
	char z[8] = { 0 };

	put(b, s, n);
	put(b, z, padded - n);
}

/* sample_id trailer: TID, TIME, IDENTIFIER. */
static void put_trailer(struct pk_buf *b, uint64_t t)
{
	put32x2(b, PID, PID);
	put64(b, t);
	put64(b, SAMPLE_ID);
}

static void gen_comm(struct pk_buf *b, uint64_t t)
{
	put_hdr(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 8 + 24);
	put32x2(b, PID, PID);
	put_str8(b, "true");
	put_trailer(b, t);
}

static void gen_mmap2(struct pk_buf *b, uint64_t t)
{
	const char *file = "/bin/true";
	size_t flen = (strlen(file) + 1 + 7) & ~7ul;

	put_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 8 + 24 + 8 + 16 + 8 + flen + 24);
	put32x2(b, PID, PID);
	put64(b, MAP_ADDR);
	put64(b, MAP_LEN);
	put64(b, 0);
	put32x2(b, 8, 1);              /* maj, min */
	put64(b, 1234);                /* ino */
	put64(b, 0);                   /* ino_generation */
	put32x2(b, 5, 2);              /* PROT_READ|PROT_EXEC, MAP_PRIVATE */
	put_str8(b, file);
	put_trailer(b, t);
}

static uint64_t sample_ip(uint64_t i)
{
	return MAP_ADDR + 0x1000 + (i * 0x37) % (MAP_LEN - 0x2000);
}

static uint64_t sample_time(uint64_t i)
{
	return T0 + 1000 + i * 1001001;
}

/* SAMPLE: IDENTIFIER, IP, TID, TIME, PERIOD (48 bytes). */
static void gen_sample(struct pk_buf *b, uint64_t i)
{
	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48);
	put64(b, SAMPLE_ID);
	put64(b, sample_ip(i));
	put32x2(b, PID, PID);
	put64(b, sample_time(i));
	put64(b, 1001001);
}

/* ---- writing ---------------------------------------------------------------- */

struct rec {
	struct pk_buf kernel;           /* every kernel record written, in order */
	uint64_t samples, rounds;
	uint64_t samples_done;          /* samples in complete rounds */
	int err;                        /* first error of a write or round */
	struct pk_diag d;
};

/*
 * Write @rounds rounds of @per_round samples (COMM and MMAP2 first), with a
 * FINISHED_ROUND after each; stops at the first error.
 */
static void write_rounds(struct pk_perfdata_writer *w, struct rec *r, uint64_t rounds,
			 uint64_t per_round)
{
	struct pk_buf b;

	pk_buf_init(&b);
	gen_comm(&b, T0);
	gen_mmap2(&b, T0 + 1);
	r->err = pk_writer_write(w, b.data, b.len, &r->d);
	if (!r->err)
		put(&r->kernel, b.data, b.len);
	for (uint64_t k = 0; !r->err && k < rounds; k++) {
		b.len = 0;
		for (uint64_t j = 0; j < per_round; j++)
			gen_sample(&b, r->samples + j);
		/* half the round one record per call, the rest in one writev */
		for (uint64_t j = 0; !r->err && j < per_round / 2; j++)
			r->err = pk_writer_write(w, b.data + j * 48, 48, &r->d);
		if (!r->err) {
			struct iovec v[2] = {
				{ b.data + per_round / 2 * 48, (per_round - per_round / 2) * 24 },
				{ b.data + per_round / 2 * 48 + (per_round - per_round / 2) * 24,
				  (per_round - per_round / 2) * 24 },
			};

			r->err = pk_writer_writev(w, v, 2, &r->d);
		}
		if (!r->err)
			r->err = pk_writer_round(w, &r->d);
		if (r->err)
			break;
		put(&r->kernel, b.data, b.len);
		r->samples += per_round;
		r->samples_done = r->samples;
		r->rounds++;
	}
	pk_buf_release(&b);
}

static struct pk_features host;
static char *host_argv[] = { "perfkit", "record", "-e", "cpu-clock", "--", "true" };

/* Write a whole file; 0 on success. */
static int write_file(const char *path, int pipe, int level, uint64_t rounds, uint64_t per_round,
		      struct rec *r)
{
	struct perf_event_attr a = test_attr();
	uint64_t id = SAMPLE_ID;
	struct pk_writer_evsel ev = { .attr = &a, .name = "cpu-clock", .ids = &id, .nr_ids = 1 };
	struct pk_writer_opts o = { .sz = sizeof(o), .pipe = pipe, .compress_level = level,
				    .pipe_features = pipe ? &host : NULL };
	struct pk_perfdata_writer *w;
	struct pk_diag d;
	int fd, err;

	memset(r, 0, sizeof(*r));
	pk_buf_init(&r->kernel);
	pk_diag_init(&r->d);
	pk_diag_init(&d);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	err = pk_writer_open(&w, fd, path, &ev, 1, &o, &d);
	if (err) {
		char msg[1024];

		diag("open: %s", pk_diag_str(&d, msg, sizeof(msg)));
		close(fd);
		return err;
	}
	write_rounds(w, r, rounds, per_round);
	if (!r->err && level)
		ok(pk_writer_raw_bytes(w) > pk_writer_data_bytes(w),
		   "%s: compressed data (%llu bytes) is smaller than the raw records (%llu)",
		   path, (unsigned long long)pk_writer_data_bytes(w),
		   (unsigned long long)pk_writer_raw_bytes(w));
	if (!r->err && !level)
		is_int(pk_writer_raw_bytes(w), r->kernel.len + 8 * r->rounds,
		       "%s: raw bytes = records + FINISHED_ROUNDs", path);
	err = pk_writer_close(w, pipe ? NULL : &host, r->err ? &r->d : &d);
	if (err && !r->err) {
		char msg[1024];

		diag("close: %s", pk_diag_str(&d, msg, sizeof(msg)));
	}
	close(fd);
	return r->err ? r->err : err;
}

/* ---- reading back with perfkit -------------------------------------------------- */

struct back {
	struct pk_buf kernel;
	uint64_t samples, rounds, compressed;
	int rc;
	struct pk_diag d;
	struct pk_features feat;        /* copies of a few fields */
	char hostname[256], osrelease[256], arch[256], cmdline[512], evname[128];
	uint32_t nr_cpus_avail, nr_cpus_online, comp_type, comp_level, comp_mmap_len;
	int has_comp;
	uint64_t nr_ids, id0;
	uint64_t nr_compressed;         /* COMPRESSED records in the file */
};

static int back_cb(void *ctx, const struct pk_record *r)
{
	struct back *b = ctx;

	if (r->hdr->type == PK_RECORD_FINISHED_ROUND)
		b->rounds++;
	if (r->hdr->type >= PK_RECORD_HEADER_ATTR)
		return 0;
	if (r->hdr->type == PERF_RECORD_SAMPLE)
		b->samples++;
	b->compressed += r->compressed;
	pk_buf_append(&b->kernel, r->hdr, r->hdr->size);
	return 0;
}

static void read_back(const char *path, struct back *b)
{
	struct pk_perfdata_opts o = { .sz = sizeof(o) };
	const struct pk_features *f;
	struct pk_perfdata *p;

	memset(b, 0, sizeof(*b));
	pk_buf_init(&b->kernel);
	pk_diag_init(&b->d);
	b->rc = pk_perfdata_open(path, &o, &p, &b->d);
	if (b->rc)
		return;
	b->rc = pk_perfdata_foreach(p, back_cb, b, &b->d);
	b->nr_compressed = pk_perfdata_stats(p)->nr_records[PK_RECORD_COMPRESSED];
	f = pk_perfdata_features(p);
	if (f->hostname)
		snprintf(b->hostname, sizeof(b->hostname), "%s", f->hostname);
	if (f->osrelease)
		snprintf(b->osrelease, sizeof(b->osrelease), "%s", f->osrelease);
	if (f->arch)
		snprintf(b->arch, sizeof(b->arch), "%s", f->arch);
	for (uint32_t i = 0; i < f->cmdline.nr; i++) {
		size_t n = strlen(b->cmdline);

		snprintf(b->cmdline + n, sizeof(b->cmdline) - n, "%s%s", i ? " " : "",
			 f->cmdline.s[i]);
	}
	b->nr_cpus_avail = f->nr_cpus_avail;
	b->nr_cpus_online = f->nr_cpus_online;
	b->has_comp = pk_features_has(f, PK_FEAT_COMPRESSED);
	b->comp_type = f->comp_type;
	b->comp_level = f->comp_level;
	b->comp_mmap_len = f->comp_mmap_len;
	if (pk_perfdata_nr_evsels(p) == 1) {
		const struct pk_evsel *ev = pk_perfdata_evsel(p, 0);

		snprintf(b->evname, sizeof(b->evname), "%s", ev->name ? ev->name : "");
		b->nr_ids = ev->nr_ids;
		b->id0 = ev->nr_ids ? ev->ids[0] : 0;
	}
	pk_perfdata_close(p);
}

/* ---- perf as the oracle ------------------------------------------------------------ */

/* Run @cmd; stdout lines into @out (NUL-separated count in *n), stderr into @err. */
static int run_cmd(const char *cmd, struct pk_buf *out, struct pk_buf *err)
{
	char full[2400], errpath[512], line[4096];
	FILE *fp;
	int st;

	snprintf(errpath, sizeof(errpath), "%s/stderr.txt", tmpdir);
	snprintf(full, sizeof(full), "%s 2>'%s'", cmd, errpath);
	fp = popen(full, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		pk_buf_append(out, line, strlen(line));
	st = pclose(fp);
	pk_file_read_all(errpath, err, 1 << 20);
	return st;
}

static int count_lines(const struct pk_buf *b)
{
	int n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n;
}

/* The first line of @b that starts with @prefix, copied without its newline. */
static int find_line(const struct pk_buf *b, const char *prefix, char *out, size_t sz)
{
	const char *p = b->data;
	size_t plen = strlen(prefix);

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n >= plen && !strncmp(p, prefix, plen)) {
			if (n >= sz)
				n = sz - 1;
			memcpy(out, p, n);
			out[n] = '\0';
			return 1;
		}
		p = e ? e + 1 : NULL;
	}
	out[0] = '\0';
	return 0;
}

/* perf script: one line per sample with our comm, tid, time and ip; nothing on stderr. */
static void perf_script_check(const char *path, int pipe, uint64_t want)
{
	struct pk_buf out, err;
	char cmd[1400], want_first[256], want_last[256], got[256];
	uint64_t t0 = sample_time(0), tl = sample_time(want - 1);
	int st;

	pk_buf_init(&out);
	pk_buf_init(&err);
	if (pipe)
		snprintf(cmd, sizeof(cmd), "perf script -i - -F comm,tid,time,ip < '%s'", path);
	else
		snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F comm,tid,time,ip", path);
	st = run_cmd(cmd, &out, &err);
	is_int(st, 0, "%s: perf script exits 0", path);
	is_int(count_lines(&out), want, "%s: perf script prints %llu samples", path,
	       (unsigned long long)want);
	is_int(err.len, 0, "%s: perf script says nothing on stderr", path);
	if (err.len)
		diag("perf stderr: %.400s", err.data);
	/* "            true 31337     1.000001:            401000" */
	snprintf(want_first, sizeof(want_first), "true %d %llu.%06llu: %llx", PID,
		 (unsigned long long)(t0 / 1000000000), (unsigned long long)(t0 % 1000000000 / 1000),
		 (unsigned long long)sample_ip(0));
	snprintf(want_last, sizeof(want_last), "true %d %llu.%06llu: %llx", PID,
		 (unsigned long long)(tl / 1000000000), (unsigned long long)(tl % 1000000000 / 1000),
		 (unsigned long long)sample_ip(want - 1));
	/* squeeze the columns of perf's first and last lines */
	for (int which = 0; which < 2 && out.len; which++) {
		const char *s = out.data;
		size_t n = 0;
		int sp = 1;

		if (which) {
			const char *e = out.data + out.len - 1;

			while (e > out.data && e[-1] != '\n')
				e--;
			s = e;
		}
		for (; *s && *s != '\n' && n + 1 < sizeof(got); s++) {
			if (*s == ' ') {
				if (!sp)
					got[n++] = ' ';
				sp = 1;
			} else {
				got[n++] = *s;
				sp = 0;
			}
		}
		while (n && got[n - 1] == ' ')
			n--;
		got[n] = '\0';
		is_str(got, which ? want_last : want_first, "%s: perf script %s sample", path,
		       which ? "last" : "first");
	}
	pk_buf_release(&out);
	pk_buf_release(&err);
}

/* The host lines perf prints for a file: hostname through pmu mappings. */
static const char *const host_keys[] = {
	"# hostname :", "# os release :", "# arch :", "# nrcpus online :", "# nrcpus avail :",
	"# cpudesc :", "# cpuid :", "# total memory :", "# sibling sockets :",
	"# sibling dies", "# sibling threads :", "# CPU 0:", "# CPU 1:", "# node0 cpu list :",
	"# pmu mappings:",
};

static void header_lines(const char *path, int pipe, struct pk_buf *out, struct pk_buf *err)
{
	char cmd[1400];

	if (pipe)
		snprintf(cmd, sizeof(cmd), "perf report --header-only -I -i - < '%s'", path);
	else
		snprintf(cmd, sizeof(cmd), "perf report --header-only -I -i '%s'", path);
	run_cmd(cmd, out, err);
}

static struct pk_buf perf_ref;   /* header of a file perf recorded here */

static void perf_header_check(const char *path, int pipe, int level)
{
	struct pk_buf out, err;
	char got[1024], want[1024];

	pk_buf_init(&out);
	pk_buf_init(&err);
	header_lines(path, pipe, &out, &err);
	is_int(err.len, 0, "%s: perf report --header-only says nothing on stderr", path);
	if (err.len)
		diag("perf stderr: %.400s", err.data);
	for (size_t i = 0; i < sizeof(host_keys) / sizeof(host_keys[0]); i++) {
		int have_ref = perf_ref.len && find_line(&perf_ref, host_keys[i], want, sizeof(want));

		if (!have_ref)
			continue;
		find_line(&out, host_keys[i], got, sizeof(got));
		is_str(got, want, "%s: perf prints '%s' as for its own file", path, host_keys[i]);
	}
	find_line(&out, "# cmdline :", got, sizeof(got));
	is_str(got, "# cmdline : perfkit record -e cpu-clock -- true ", "%s: perf's cmdline line",
	       path);
	find_line(&out, "# perf version :", got, sizeof(got));
	is_str(got, "# perf version : 0.1-test", "%s: perf's version line", path);
	find_line(&out, "# event : name = ", got, sizeof(got));
	ok(!strcmp(got, "# event : name = cpu-clock, , id = { 4242 }, type = 1, size = 128, "
		   "{ sample_period, sample_freq } = 999, sample_type = IP|TID|TIME|PERIOD|IDENTIFIER, "
		   "disabled = 1, mmap = 1, comm = 1, freq = 1, task = 1, sample_id_all = 1, mmap2 = 1"),
	   "%s: perf's event line: %s", path, got);
	if (level) {
		find_line(&out, "# compressed :", got, sizeof(got));
		ok(!strncmp(got, "# compressed : Zstd, level = 3, ratio = ", 40),
		   "%s: perf's compressed line: %s", path, got);
	}
	pk_buf_release(&out);
	pk_buf_release(&err);
}

/* ---- one mode end to end -------------------------------------------------------------- */

static void check_mode(const char *label, int pipe, int level, uint64_t rounds, uint64_t per)
{
	char path[512];
	struct rec r;
	struct back b;
	int err;

	snprintf(path, sizeof(path), "%s/%s.data", tmpdir, label);
	err = write_file(path, pipe, level, rounds, per, &r);
	is_int(err, 0, "%s: written", label);
	read_back(path, &b);
	if (b.rc) {
		char msg[1024];

		diag("read: %s", pk_diag_str(&b.d, msg, sizeof(msg)));
	}
	is_int(b.rc, 0, "%s: perfkit reads it", label);
	is_int(b.samples, rounds * per, "%s: perfkit sees every sample", label);
	is_int(b.rounds, rounds, "%s: one FINISHED_ROUND per round", label);
	is_int(b.kernel.len, r.kernel.len, "%s: kernel records have the bytes we wrote", label);
	ok(b.kernel.len == r.kernel.len && !memcmp(b.kernel.data, r.kernel.data, r.kernel.len),
	   "%s: kernel records are byte-equal", label);
	if (level) {
		uint64_t raw = rounds * per * 48;

		is_int(b.compressed, rounds * per + 2, "%s: every record came out of a "
		       "COMPRESSED record", label);
		/* a flush per round and per 60 KiB fed: more records than rounds */
		ok(b.nr_compressed >= raw / (60 * 1024) && b.nr_compressed > rounds,
		   "%s: %llu COMPRESSED records for %llu raw bytes in %llu rounds", label,
		   (unsigned long long)b.nr_compressed, (unsigned long long)raw,
		   (unsigned long long)rounds);
	} else {
		is_int(b.nr_compressed, 0, "%s: no COMPRESSED records", label);
	}
	is_str(b.hostname, host.hostname, "%s: hostname", label);
	is_str(b.osrelease, host.osrelease, "%s: os release", label);
	is_str(b.arch, host.arch, "%s: arch", label);
	is_int(b.nr_cpus_avail, host.nr_cpus_avail, "%s: nrcpus avail", label);
	is_int(b.nr_cpus_online, host.nr_cpus_online, "%s: nrcpus online", label);
	is_str(b.cmdline, "perfkit record -e cpu-clock -- true", "%s: cmdline", label);
	is_str(b.evname, "cpu-clock", "%s: event name", label);
	is_int(b.nr_ids, 1, "%s: one id", label);
	is_int(b.id0, SAMPLE_ID, "%s: the id", label);
	is_int(b.has_comp, level != 0, "%s: COMPRESSED feature %s", label, level ? "set" : "absent");
	if (level) {
		is_int(b.comp_type, 1, "%s: zstd", label);
		is_int(b.comp_level, level, "%s: level", label);
		is_int(b.comp_mmap_len, 528384, "%s: mmap_len", label);
	}
	if (have_perf()) {
		perf_script_check(path, pipe, rounds * per);
		perf_header_check(path, pipe, level);
	}
	pk_buf_release(&b.kernel);
	pk_buf_release(&r.kernel);
}

/* Pipe mode into a real pipe read by `perf script -i -` as we write. */
static void check_real_pipe(int level)
{
	char cmd[1400], outpath[600];
	struct perf_event_attr a = test_attr();
	uint64_t id = SAMPLE_ID;
	struct pk_writer_evsel ev = { .attr = &a, .name = "cpu-clock", .ids = &id, .nr_ids = 1 };
	struct pk_writer_opts o = { .sz = sizeof(o), .pipe = 1, .compress_level = level,
				    .pipe_features = &host };
	struct pk_perfdata_writer *w;
	struct pk_buf out;
	struct rec r;
	FILE *fp;
	int err;

	snprintf(outpath, sizeof(outpath), "%s/real-pipe.txt", tmpdir);
	snprintf(cmd, sizeof(cmd), "perf script -i - -F comm,tid,time,ip > '%s' 2>&1", outpath);
	fp = popen(cmd, "w");
	if (!fp) {
		ok(0, "popen perf script");
		return;
	}
	memset(&r, 0, sizeof(r));
	pk_buf_init(&r.kernel);
	pk_diag_init(&r.d);
	err = pk_writer_open(&w, fileno(fp), "perf script pipe", &ev, 1, &o, &r.d);
	is_int(err, 0, "real pipe%s: open", level ? " (zstd)" : "");
	if (!err) {
		write_rounds(w, &r, 8, 500);
		is_int(r.err, 0, "real pipe: records written");
		is_int(pk_writer_close(w, NULL, &r.d), 0, "real pipe: close");
	}
	is_int(pclose(fp), 0, "real pipe: perf script exits 0");
	pk_buf_init(&out);
	pk_file_read_all(outpath, &out, 64 << 20);
	is_int(count_lines(&out), 8 * 500, "real pipe%s: perf script prints every sample",
	       level ? " (zstd)" : "");
	pk_buf_release(&out);
	pk_buf_release(&r.kernel);
}

/* ---- (e) a full disk ------------------------------------------------------------------- */

static void check_enospc(int level)
{
	char dir[512], path[600];
	struct rec r;
	struct back b;
	int err;

	snprintf(dir, sizeof(dir), "%s/tiny%d", tmpdir, level);
	mkdir(dir, 0755);
	if (mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0) {
		ok(1, "# SKIP cannot mount a tmpfs: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/full.data", dir);
	err = write_file(path, 0, level, 1000000, 37, &r);
	is_int(err, -ENOSPC, "enospc%s: the write fails with ENOSPC", level ? " (zstd)" : "");
	is_str(r.d.subject, path, "enospc: the diag names the file");
	ok(strstr(r.d.msg, "write failed at offset ") && strstr(r.d.msg, "No space left on device"),
	   "enospc: the diag says where: %s", r.d.msg);
	ok(r.rounds > 3, "enospc: %llu complete rounds before the disk filled",
	   (unsigned long long)r.rounds);
	read_back(path, &b);
	is_int(b.rc, 0, "enospc: perfkit reads the cut file");
	is_int(b.samples, r.samples_done, "enospc: perfkit sees the samples of the complete rounds");
	ok(b.kernel.len == r.kernel.len && !memcmp(b.kernel.data, r.kernel.data, r.kernel.len),
	   "enospc: the records of the complete rounds are byte-equal");
	is_int(b.rounds, r.rounds, "enospc: every complete round is there");
	if (have_perf() && r.samples_done)
		perf_script_check(path, 0, r.samples_done);
	pk_buf_release(&b.kernel);
	pk_buf_release(&r.kernel);
	umount(dir);
	rmdir(dir);
}

/* ---- (f) encode -> parse for every feature ------------------------------------------ */

static const unsigned enc_feats[] = {
	PK_FEAT_TRACING_DATA, PK_FEAT_BUILD_ID, PK_FEAT_HOSTNAME, PK_FEAT_OSRELEASE,
	PK_FEAT_VERSION, PK_FEAT_ARCH, PK_FEAT_NRCPUS, PK_FEAT_CPUDESC, PK_FEAT_CPUID,
	PK_FEAT_TOTAL_MEM, PK_FEAT_CMDLINE, PK_FEAT_EVENT_DESC, PK_FEAT_CPU_TOPOLOGY,
	PK_FEAT_NUMA_TOPOLOGY, PK_FEAT_PMU_MAPPINGS, PK_FEAT_GROUP_DESC, PK_FEAT_SAMPLE_TIME,
	PK_FEAT_CLOCKID, PK_FEAT_CLOCK_DATA, PK_FEAT_COMPRESSED,
};

static void check_encode(void)
{
	static const char blob[] = "\x17\x08\x44tracing0.6 test blob";
	struct pk_features f, g;
	struct pk_feat_build_id bid[2];
	struct pk_feat_event_desc ed[2];
	struct pk_feat_group_desc grp;
	uint64_t ids[3] = { 7, 8, 9 };
	struct pk_buf bufs[sizeof(enc_feats) / sizeof(enc_feats[0])];
	struct perf_event_attr a = test_attr();
	struct pk_diag d;
	int err;

	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	err = pk_features_collect_host(&f, "0.1-test", 6, host_argv, CLOCK_MONOTONIC);
	is_int(err, 0, "collect_host");
	for (unsigned feat = PK_FEAT_HOSTNAME; feat <= PK_FEAT_CMDLINE; feat++)
		ok(pk_features_has(&f, feat), "collect_host gives %s", pk_feature_name(feat));
	ok(pk_features_has(&f, PK_FEAT_CPU_TOPOLOGY), "collect_host gives cpu_topology");
	ok(pk_features_has(&f, PK_FEAT_PMU_MAPPINGS), "collect_host gives pmu_mappings");
	ok(pk_features_has(&f, PK_FEAT_CLOCKID) && f.clockid_res_ns == 1,
	   "CLOCK_MONOTONIC resolution 1 ns (got %llu)", (unsigned long long)f.clockid_res_ns);
	ok(pk_features_has(&f, PK_FEAT_CLOCK_DATA) && f.clock_data_version == 1 &&
	   f.clock_data_clockid == CLOCK_MONOTONIC && f.clock_wall_ns > f.clock_clockid_ns,
	   "clock_data: version 1, clockid, a wall time after the monotonic one");
	is_int(f.cpu_topo.nr_cpus, f.nr_cpus_avail, "per-cpu topology for every available cpu");

	/* the features collect_host does not give, made up */
	f.tracing_data = blob;
	f.tracing_data_size = sizeof(blob);
	pk_features_set(&f, PK_FEAT_TRACING_DATA);
	memset(bid, 0, sizeof(bid));
	bid[0].pid = -1;
	bid[0].misc = 0x8001;
	bid[0].size = 20;
	for (int i = 0; i < 20; i++)
		bid[0].build_id[i] = (uint8_t)(i * 11);
	bid[0].filename = "[kernel.kallsyms]";
	bid[1].pid = 1234;
	bid[1].misc = 0x8002;
	bid[1].size = 16;
	memset(bid[1].build_id, 0xab, 16);
	bid[1].filename = "/usr/lib/x86_64-linux-gnu/libc.so.6-with-a-long-name-to-pass-64-bytes";
	f.build_ids = bid;
	f.nr_build_ids = 2;
	pk_features_set(&f, PK_FEAT_BUILD_ID);
	memset(ed, 0, sizeof(ed));
	ed[0].attr.attr = a;
	ed[0].name = "cpu-clock";
	ed[0].ids = ids;
	ed[0].nr_ids = 3;
	ed[1].attr.attr = a;
	ed[1].attr.attr.config = PERF_COUNT_SW_TASK_CLOCK;
	ed[1].name = "task-clock:u";
	f.event_desc = ed;
	f.nr_event_desc = 2;
	pk_features_set(&f, PK_FEAT_EVENT_DESC);
	grp.name = "{cpu-clock,task-clock}";
	grp.leader_idx = 0;
	grp.nr_members = 2;
	f.groups = &grp;
	f.nr_groups = 1;
	pk_features_set(&f, PK_FEAT_GROUP_DESC);
	f.first_sample_time = 123456789;
	f.last_sample_time = 987654321;
	pk_features_set(&f, PK_FEAT_SAMPLE_TIME);
	f.comp_type = 1;
	f.comp_level = 3;
	f.comp_ratio = 7;
	f.comp_mmap_len = 528384;
	pk_features_set(&f, PK_FEAT_COMPRESSED);

	for (size_t i = 0; i < sizeof(enc_feats) / sizeof(enc_feats[0]); i++) {
		unsigned feat = enc_feats[i];
		struct pk_buf again;

		pk_buf_init(&bufs[i]);
		pk_diag_init(&d);
		err = pk_features_encode(&f, feat, &bufs[i]);
		is_int(err, 0, "encode %s", pk_feature_name(feat));
		err = pk_features_parse(&g, feat, bufs[i].data, bufs[i].len, 0, 0, &d);
		is_int(err, 0, "parse %s back (%zu bytes)", pk_feature_name(feat), bufs[i].len);
		if (err) {
			char msg[1024];

			diag("%s", pk_diag_str(&d, msg, sizeof(msg)));
		}
		pk_buf_init(&again);
		pk_features_encode(&g, feat, &again);
		ok(again.len == bufs[i].len && !memcmp(again.data, bufs[i].data, again.len),
		   "%s re-encodes to the same bytes", pk_feature_name(feat));
		pk_buf_release(&again);
	}
	is_int(pk_features_encode(&f, PK_FEAT_CACHE, &bufs[0]), -ENOENT, "CACHE is not encoded");
	/* values, field by field, for what the re-encoding would not catch */
	is_str(g.hostname, f.hostname, "hostname round trip");
	is_str(g.cpudesc, f.cpudesc, "cpudesc round trip");
	is_str(g.cpuid, f.cpuid, "cpuid round trip");
	is_int(g.total_mem, f.total_mem, "total_mem round trip");
	is_int(g.cmdline.nr, 6, "cmdline has 6 words");
	is_str(g.cmdline.nr == 6 ? g.cmdline.s[5] : NULL, "true", "cmdline word 5");
	is_int(g.cpu_topo.core_siblings.nr, f.cpu_topo.core_siblings.nr, "core siblings");
	is_int(g.cpu_topo.nr_cpus, f.cpu_topo.nr_cpus, "per-cpu ids");
	ok(g.cpu_topo.nr_cpus && !memcmp(g.cpu_topo.core_id, f.cpu_topo.core_id,
					  4 * g.cpu_topo.nr_cpus), "core ids");
	ok(!f.cpu_topo.die_id == !g.cpu_topo.die_id, "die ids present in both or neither");
	is_int(g.nr_numa_nodes, f.nr_numa_nodes, "numa nodes");
	if (g.nr_numa_nodes) {
		is_int(g.numa_nodes[0].mem_total, f.numa_nodes[0].mem_total, "node 0 mem_total");
		is_str(g.numa_nodes[0].cpus, f.numa_nodes[0].cpus, "node 0 cpus");
	}
	is_int(g.nr_pmu_mappings, f.nr_pmu_mappings, "pmu mappings");
	is_int(g.nr_build_ids, 2, "two build ids");
	if (g.nr_build_ids == 2) {
		is_int(g.build_ids[0].pid, -1, "kernel build id pid");
		is_int(g.build_ids[1].size, 16, "build id size 16");
		is_str(g.build_ids[1].filename, bid[1].filename, "build id file name");
		ok(!memcmp(g.build_ids[0].build_id, bid[0].build_id, 20), "build id bytes");
	}
	is_int(g.nr_event_desc, 2, "two event descs");
	if (g.nr_event_desc == 2) {
		is_str(g.event_desc[1].name, "task-clock:u", "event desc name");
		is_int(g.event_desc[0].nr_ids, 3, "event desc ids");
		is_int(g.event_desc[0].ids[2], 9, "event desc id 2");
		is_int(g.event_desc[1].attr.attr.config, PERF_COUNT_SW_TASK_CLOCK, "event desc attr");
		is_int(g.event_desc[0].attr.attr.sample_type, a.sample_type, "event desc sample_type");
	}
	is_str(g.nr_groups ? g.groups[0].name : NULL, grp.name, "group name");
	is_int(g.last_sample_time, 987654321, "last sample time");
	is_int(g.tracing_data_size, sizeof(blob), "tracing data size");
	is_int(g.clock_wall_ns, f.clock_wall_ns, "clock data wall time");
	is_int(g.comp_mmap_len, 528384, "compressed mmap_len");
	/* the hand-computed bytes of one string feature */
	{
		struct pk_buf s;
		struct pk_features h;

		memset(&h, 0, sizeof(h));
		h.hostname = "vm";
		pk_buf_init(&s);
		pk_features_encode(&h, PK_FEAT_HOSTNAME, &s);
		is_int(s.len, 68, "a 2-byte hostname is u32 64 + 64 bytes");
		ok(s.len == 68 && s.data[0] == 64 && s.data[1] == 0 && !memcmp(s.data + 4, "vm", 3) &&
		   s.data[67] == 0, "string bytes: len 64, 'vm', NUL padding");
		pk_buf_release(&s);
	}

	for (size_t i = 0; i < sizeof(enc_feats) / sizeof(enc_feats[0]); i++)
		pk_buf_release(&bufs[i]);
	pk_features_release(&g);
	/* drop what is not ours before releasing the host copy */
	f.tracing_data = NULL;
	f.build_ids = NULL;
	f.nr_build_ids = 0;
	f.event_desc = NULL;
	f.nr_event_desc = 0;
	f.groups = NULL;
	f.nr_groups = 0;
	pk_features_release(&f);
}

int main(void)
{
	int err;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk_writer_XXXXXX");
	if (!mkdtemp(tmpdir)) {
		skip_all("cannot create a temporary directory");
		return 0;
	}
	err = pk_features_collect_host(&host, "0.1-test", 6, host_argv, -1);
	is_int(err, 0, "collect host features");
	pk_buf_init(&perf_ref);
	if (have_perf()) {
		char cmd[1024];
		struct pk_buf o, e;

		pk_buf_init(&o);
		pk_buf_init(&e);
		snprintf(cmd, sizeof(cmd), "perf record --no-bpf-event -e cpu-clock -F 999 -o "
			 "'%s/perf.data' -- true >/dev/null", tmpdir);
		if (run_cmd(cmd, &o, &e) == 0) {
			snprintf(cmd, sizeof(cmd), "%s/perf.data", tmpdir);
			header_lines(cmd, 0, &perf_ref, &e);
		}
		ok(perf_ref.len > 0, "perf recorded a reference file here");
		pk_buf_release(&o);
		pk_buf_release(&e);
	}

	check_encode();
	check_mode("file", 0, 0, 5, 20);
	check_mode("pipe", 1, 0, 5, 20);
	check_mode("file-zstd", 0, 3, 6, 3000);
	check_mode("pipe-zstd", 1, 3, 6, 3000);
	if (have_perf()) {
		check_real_pipe(0);
		check_real_pipe(3);
	}
	if (geteuid() == 0) {
		check_enospc(0);
		check_enospc(3);
	} else {
		ok(1, "# SKIP the full-disk test needs root (mount -t tmpfs)");
	}
	pk_features_release(&host);
	pk_buf_release(&perf_ref);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (getenv("PK_KEEP_TMP"))
			diag("files kept in %s", tmpdir);
		else if (system(cmd) != 0)
			diag("cannot remove %s", tmpdir);
	}
	return done_testing();
}
