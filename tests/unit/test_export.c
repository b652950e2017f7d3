/*
 * Tests of the export module on hand-built resolved samples: frame naming
 * by stackcollapse-perf.pl's rules, folded lines and counts, the pprof
 * protobuf (gunzipped and decoded here field by field), the JSON schema
 * (parsed with json-c), the SVG frame widths, and interning speed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <json-c/json.h>
#include <perfkit/export.h>
#include "export/internal.h"
#include "../tap.h"

/* ---- a small synthetic machine ---------------------------------------------- */

static struct pk_dso dso_prog = { .name = "/usr/bin/prog", .short_name = "prog",
				  .build_id = { 0xde, 0xad, 0xbe, 0xef }, .build_id_size = 4 };
static struct pk_dso dso_libc = { .name = "/usr/lib/x86_64-linux-gnu/libc.so.6", .short_name = "libc.so.6" };
static struct pk_dso dso_kernel = { .name = "[kernel.kallsyms]", .short_name = "[kernel.kallsyms]", .kernel = 1 };
static struct pk_sym sym_main = { 0x1100, 0x1200, "main" };
static struct pk_sym sym_work = { 0x1200, 0x1300, "work(int, char const*)" };
static struct pk_sym sym_anon = { 0x1300, 0x1400, "ns::(anonymous namespace)::helper()" };
static struct pk_sym sym_paren = { 0x1400, 0x1500, "(skipped)" };
static struct pk_sym sym_inline = { 0x1500, 0x1600, "outer->inner" };
static struct pk_sym sym_semi = { 0x1600, 0x1700, "a;b\"c'" };
static struct pk_sym sym_kfn = { 0xffffffff81000000ull, 0xffffffff81000100ull, "do_syscall_64" };
static struct pk_map map_prog = { 0x400000, 0x402000, 0, &dso_prog, 5, 0, 0 };
static struct pk_map map_libc = { 0x7f0000000000ull, 0x7f0000200000ull, 0x28000, &dso_libc, 5, 0, 0 };
static struct pk_map map_kernel = { 0xffffffff81000000ull, 0xffffffff82000000ull, 0, &dso_kernel, 5, 0, 0 };
static struct pk_evsel ev_clock, ev_faults;

static struct pk_location loc_sym(const struct pk_map *m, const struct pk_sym *s, uint64_t ip)
{
	struct pk_location l = { .ip = ip, .map = m, .dso = m ? m->dso : NULL, .sym = s };

	l.addr = m ? ip - m->start + m->pgoff : ip;
	l.symoff = s ? l.addr - s->start : 0;
	return l;
}

static int add(struct pk_export *e, struct pk_thread *t, const struct pk_evsel *ev, uint64_t period,
	       const struct pk_location *frames, uint32_t nr)
{
	struct pk_sample s = { .present = PERF_SAMPLE_TIME, .pid = (uint32_t)t->pid, .tid = (uint32_t)t->tid,
			       .time = 1000 + period };
	struct pk_rsample rs = { .evsel = ev, .s = &s, .thread = t, .period = period,
				 .nr_frames = nr, .frames = frames };

	if (nr)
		rs.self = frames[0];
	return pk_export_add(e, &rs);
}

static char *run_export(struct pk_export *e, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_export_write(e, NULL, f, &d);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static struct pk_export *new_export(enum pk_export_format fmt, int by_period)
{
	struct pk_export_opts o = { .sz = sizeof(o), .format = fmt, .weight_by_period = by_period };
	struct pk_export *e = NULL;
	struct pk_diag d;

	pk_diag_init(&d);
	return pk_export_new(&o, &e, &d) ? NULL : e;
}

static struct pk_thread th_prog = { 100, 100, "my prog", -1, 0, 0, NULL };
static struct pk_thread th_java = { 200, 201, "java", -1, 0, 0, NULL };
static struct pk_thread th_nocomm = { 300, 301, "", -1, 0, 0, NULL };

/* The same samples for every format: returns the number added. */
static int add_all(struct pk_export *e)
{
	struct pk_location s1[4], s2[3], s3[2], s4[2], s5[1];
	int n = 0;

	/* leaf first: work <- main <- libc (unresolved) <- nowhere */
	s1[0] = loc_sym(&map_prog, &sym_work, 0x401210);
	s1[1] = loc_sym(&map_prog, &sym_main, 0x401150);
	s1[2] = loc_sym(&map_libc, NULL, 0x7f0000001234ull);
	s1[3] = loc_sym(NULL, NULL, 0x5634e38ea2b0ull);
	n += !add(e, &th_prog, &ev_clock, 200, s1, 4);
	n += !add(e, &th_prog, &ev_clock, 300, s1, 4);
	/* kernel unresolved over main; a skipped "(..." frame in between */
	s2[0] = loc_sym(&map_kernel, NULL, 0xffffffff81000500ull);
	s2[1] = loc_sym(&map_prog, &sym_paren, 0x401410);
	s2[2] = loc_sym(&map_prog, &sym_main, 0x401160);
	n += !add(e, &th_prog, &ev_clock, 100, s2, 3);
	/* java: leading L goes only in java processes, inline split, tidy */
	s3[0] = loc_sym(&map_prog, &sym_inline, 0x401510);
	s3[1] = loc_sym(&map_prog, &sym_anon, 0x401310);
	n += !add(e, &th_java, &ev_clock, 100, s3, 2);
	s4[0] = loc_sym(&map_prog, &sym_semi, 0x401610);
	s4[1] = loc_sym(&map_kernel, &sym_kfn, 0xffffffff81000010ull);
	n += !add(e, &th_nocomm, &ev_clock, 100, s4, 2);
	/* no call chain: the sampled ip alone */
	{
		struct pk_sample s = { .pid = 300, .tid = 301 };
		struct pk_rsample rs = { .evsel = &ev_clock, .s = &s, .thread = &th_nocomm, .period = 100 };

		rs.self = s4[0];
		n += !pk_export_add(e, &rs);
	}
	/* another event: folded keeps only the first event */
	s5[0] = loc_sym(&map_prog, &sym_main, 0x401150);
	n += !add(e, &th_prog, &ev_faults, 1, s5, 1);
	return n;
}

/* ---- tidy --------------------------------------------------------------------- */

static void test_tidy(void)
{
	static const struct { const char *in; int java; const char *want; } tab[] = {
		{ "foo(int)", 0, "foo" },
		{ "ns::(anonymous namespace)::f(int)", 0, "ns::(anonymous namespace)::f" },
		{ "net/http.(*Client).Do", 0, "net/http.(*Client).Do" },
		{ "a;b", 0, "a:b" },
		{ "RegExp:[&<>\"']", 0, "RegExp:[&<>]" },
		{ "Lorg/mozilla/X;.call(Lorg/Y;)V", 1, "org/mozilla/X:.call" },
		{ "Lorg/mozilla/X;.call(Lorg/Y;)V", 0, "Lorg/mozilla/X:.call" },
		{ "LazyCompile:~main /x.js:1", 1, "azyCompile:~main /x.js:1" },   /* has a '/' */
		{ "[libc.so.6]", 0, "[libc.so.6]" },
	};
	struct pk_buf b;

	pk_buf_init(&b);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		b.len = 0;
		ok(pk_exp_tidy(tab[i].in, strlen(tab[i].in), tab[i].java, &b) == 0, "tidy '%s' runs", tab[i].in);
		is_str(b.data ? b.data : "", tab[i].want, "tidy '%s'%s", tab[i].in, tab[i].java ? " (java)" : "");
	}
	pk_buf_release(&b);
}

/* ---- folded ------------------------------------------------------------------- */

static void test_folded(void)
{
	struct pk_export *e = new_export(PK_EXPORT_FOLDED, 0);
	enum pk_export_format f;
	size_t len;
	char *out;

	is_int(pk_export_format_parse("folded", &f), 0, "format 'folded' parses");
	is_int(f, PK_EXPORT_FOLDED, "to PK_EXPORT_FOLDED");
	is_int(pk_export_format_parse("svg", &f), 0, "format 'svg' parses");
	is_int(pk_export_format_parse("chrome", &f), -EINVAL, "unknown format is -EINVAL");
	ok(e != NULL, "folded export created");
	is_int(add_all(e), 7, "7 samples added");
	out = run_export(e, &len);
	ok(out != NULL, "folded written");
	/* expected by stackcollapse-perf.pl's rules, sorted bytewise */
	is_str(out,
	       ":301;a:bc 1\n"
	       ":301;do_syscall_64;a:bc 1\n"
	       "java;ns::(anonymous namespace)::helper;outer;inner_[i] 1\n"
	       "my_prog;[unknown];[libc.so.6];main;work 2\n"
	       "my_prog;main;[[kernel.kallsyms]] 1\n",
	       "folded lines: comm root, frames root first, counts");
	is_int(e->nr_dropped, 1, "the second event's sample is left out");
	free(out);
	pk_export_free(e);

	e = new_export(PK_EXPORT_FOLDED, 1);
	add_all(e);
	out = run_export(e, &len);
	ok(out && strstr(out, "my_prog;[unknown];[libc.so.6];main;work 500\n"), "weight_by_period sums periods");
	free(out);
	pk_export_free(e);
}

/*
 * A call chain perf discards (an invalid context marker) leaves the sample
 * with no frames: it folds to its comm alone, as perf script | stackcollapse
 * gives it; a sample without a call chain folds to its ip.
 */
static void test_folded_discarded_chain(void)
{
	struct pk_export *e = new_export(PK_EXPORT_FOLDED, 0);
	uint64_t chain[2] = { 0xffffffffffffff80ull, 0xffffffffffffffffull };
	struct pk_sample with = { .present = PERF_SAMPLE_CALLCHAIN, .callchain_nr = 2, .callchain = chain,
				  .pid = 100, .tid = 100 };
	struct pk_sample without = { .pid = 100, .tid = 100 };
	struct pk_rsample rs = { .evsel = &ev_clock, .s = &with, .thread = &th_prog, .period = 1 };
	char *out;
	size_t len;

	if (!ok(e != NULL, "discarded chain: export"))
		return;
	rs.self = loc_sym(&map_kernel, &sym_kfn, 0xffffffff81000010ull);
	ok(pk_export_add(e, &rs) == 0, "discarded chain: added");
	rs.s = &without;
	ok(pk_export_add(e, &rs) == 0, "no chain: added");
	out = run_export(e, &len);
	ok(out && strstr(out, "my_prog 1\n") != NULL, "discarded chain folds to the comm alone");
	ok(out && strstr(out, "my_prog;do_syscall_64 1\n") != NULL, "no chain folds to the sampled ip");
	free(out);
	pk_export_free(e);
}

/* ---- pprof -------------------------------------------------------------------- */

static int gunzip(const char *in, size_t len, unsigned char **out, size_t *olen)
{
	z_stream z;
	size_t cap = 1 << 16;
	unsigned char *buf = malloc(cap);
	int zr;

	memset(&z, 0, sizeof(z));
	if (!buf || inflateInit2(&z, 31) != Z_OK)
		return -1;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	do {
		if (z.total_out == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		z.next_out = buf + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
	} while (zr == Z_OK);
	inflateEnd(&z);
	*out = buf;
	*olen = z.total_out;
	return zr == Z_STREAM_END ? 0 : -1;
}

struct pbf { uint32_t field, wt; uint64_t v; const unsigned char *p; size_t n; };

static int pb_next(const unsigned char **p, const unsigned char *end, struct pbf *f)
{
	uint64_t key = 0, v = 0;
	int shift = 0;

	if (*p >= end)
		return 0;
	while (*p < end) {
		unsigned char c = *(*p)++;

		key |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	f->field = (uint32_t)(key >> 3);
	f->wt = key & 7;
	shift = 0;
	while (*p < end) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	f->v = v;
	if (f->wt == 2) {
		if (v > (uint64_t)(end - *p))
			return -1;
		f->p = *p;
		f->n = v;
		*p += v;
	}
	return 1;
}

/* Sum the values in a packed field. */
static uint64_t packed_at(const unsigned char *p, size_t n, int idx)
{
	const unsigned char *end = p + n;
	int i = 0;

	while (p < end) {
		uint64_t v = 0;
		int shift = 0;

		while (p < end) {
			unsigned char c = *p++;

			v |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
			if (!(c & 0x80))
				break;
		}
		if (i++ == idx)
			return v;
	}
	return UINT64_MAX;
}

static void test_pprof(void)
{
	struct pk_export *e = new_export(PK_EXPORT_PPROF, 0);
	unsigned char *raw = NULL;
	const unsigned char *p, *end;
	char *out, *strs[64];
	size_t len = 0, rlen = 0;
	int nstr = 0, nsamples = 0, nloc = 0, nfunc = 0, nmap = 0, ntypes = 0;
	uint64_t sum_count = 0, sum_period = 0, type_str[8] = { 0 }, map_file = 0, map_bid = 0;
	uint64_t func_name[16] = { 0 }, map_lo[8] = { 0 }, map_hi[8] = { 0 };
	int loc_outside = 0;
	struct pbf f;

	add_all(e);
	out = run_export(e, &len);
	ok(out && len > 18 && (unsigned char)out[0] == 0x1f && (unsigned char)out[1] == 0x8b, "pprof output is gzip");
	ok(out && gunzip(out, len, &raw, &rlen) == 0, "and it inflates (%zu bytes)", rlen);
	p = raw;
	end = raw + rlen;
	while (pb_next(&p, end, &f) > 0) {
		switch (f.field) {
		case 1: {   /* sample_type */
			const unsigned char *q = f.p;
			struct pbf g;

			while (pb_next(&q, f.p + f.n, &g) > 0)
				if (ntypes < 4)
					type_str[ntypes * 2 + g.field - 1] = g.v;
			ntypes++;
			break;
		}
		case 2: {   /* sample */
			const unsigned char *q = f.p;
			struct pbf g;

			nsamples++;
			while (pb_next(&q, f.p + f.n, &g) > 0) {
				if (g.field == 2) {
					sum_count += packed_at(g.p, g.n, 0) + packed_at(g.p, g.n, 2);
					sum_period += packed_at(g.p, g.n, 1);
				}
			}
			break;
		}
		case 3: {
			const unsigned char *q = f.p;
			struct pbf g;

			nmap++;
			while (pb_next(&q, f.p + f.n, &g) > 0) {
				if (nmap < 8 && g.field == 2)
					map_lo[nmap] = g.v;
				if (nmap < 8 && g.field == 3)
					map_hi[nmap] = g.v;
				if (nmap == 2 && g.field == 5)
					map_file = g.v;
				if (nmap == 2 && g.field == 6)
					map_bid = g.v;
			}
			break;
		}
		case 4: {   /* location: its address must lie in its mapping */
			const unsigned char *q = f.p;
			struct pbf g;
			uint64_t mid = 0, addr = 0;

			nloc++;
			while (pb_next(&q, f.p + f.n, &g) > 0) {
				if (g.field == 2)
					mid = g.v;
				if (g.field == 3)
					addr = g.v;
			}
			if (mid && (mid > 8 || addr < map_lo[mid] || addr >= map_hi[mid]))
				loc_outside++;
			break;
		}
		case 5: {
			const unsigned char *q = f.p;
			struct pbf g;

			while (pb_next(&q, f.p + f.n, &g) > 0)
				if (g.field == 2 && nfunc < 16)
					func_name[nfunc] = g.v;
			nfunc++;
			break;
		}
		case 6:
			if (nstr < 64) {
				strs[nstr] = strndup((const char *)f.p, f.n);
				nstr++;
			}
			break;
		}
	}
	ok(p == end, "protobuf decodes to the end");
	ok(nstr > 5 && strs[0][0] == '\0', "string_table[0] is empty");
	is_int(ntypes, 4, "two events: four sample types");
	if (nstr > 5 && ntypes >= 2) {
		is_str(strs[type_str[0]], "samples", "sample_type[0].type");
		is_str(strs[type_str[1]], "count", "sample_type[0].unit");
		is_str(strs[type_str[2]], "cpu-clock", "sample_type[1].type is the event");
		is_str(strs[type_str[3]], "nanoseconds", "cpu-clock's unit is nanoseconds");
		is_str(strs[map_file], "/usr/bin/prog", "mapping 2 filename");
		is_str(strs[map_bid], "deadbeef", "mapping 2 build_id as hex");
		is_str(strs[func_name[0]], "main", "function 1 is the first resolved frame, root first");
	}
	is_int(sum_count, 7, "sample counts add up to 7");
	is_int(sum_period, 200 + 300 + 100 * 4, "cpu-clock periods add up to 900");
	is_int(nsamples, 6, "6 distinct stacks (same ips merge)");
	is_int(nmap, 3, "3 mappings");
	is_int(nloc, 11, "11 locations, one per (mapping, address)");
	is_int(nfunc, 7, "7 functions, one per symbol");
	is_int(loc_outside, 0, "every location's address lies in its mapping (ids after reordering)");
	for (int i = 0; i < nstr; i++)
		free(strs[i]);
	free(raw);
	free(out);
	pk_export_free(e);
}

/* ---- json ---------------------------------------------------------------------- */

static void test_json(void)
{
	struct pk_export *e = new_export(PK_EXPORT_JSON, 0);
	struct json_object *root, *events, *stacks, *o, *st = NULL, *frames;
	size_t len;
	char *out;
	int found = 0;

	add_all(e);
	out = run_export(e, &len);
	root = out ? json_tokener_parse(out) : NULL;
	ok(root != NULL, "json output parses");
	if (!root) {
		free(out);
		pk_export_free(e);
		return;
	}
	ok(json_object_object_get_ex(root, "events", &events) && json_object_array_length(events) == 2,
	   "two events");
	o = json_object_array_get_idx(events, 0);
	is_str(json_object_get_string(json_object_object_get(o, "name")), "cpu-clock", "events[0].name");
	is_int(json_object_get_int64(json_object_object_get(o, "samples")), 6, "events[0].samples");
	is_int(json_object_get_int64(json_object_object_get(o, "period")), 900, "events[0].period");
	ok(json_object_object_get_ex(root, "stacks", &stacks), "stacks present");
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		o = json_object_array_get_idx(stacks, i);
		if (json_object_get_int64(json_object_object_get(o, "count")) == 2) {
			st = o;
			found++;
		}
	}
	is_int(found, 1, "one stack with two samples");
	if (st) {
		is_str(json_object_get_string(json_object_object_get(st, "comm")), "my prog", "its comm (unaltered)");
		frames = json_object_object_get(st, "frames");
		is_int(json_object_array_length(frames), 4, "four frames");
		o = json_object_array_get_idx(frames, 0);
		ok(json_object_get_type(json_object_object_get(o, "sym")) == json_type_null, "root frame: sym null");
		ok(json_object_get_type(json_object_object_get(o, "dso")) == json_type_null, "root frame: dso null");
		o = json_object_array_get_idx(frames, 3);
		is_str(json_object_get_string(json_object_object_get(o, "sym")), "work(int, char const*)", "leaf sym");
		is_str(json_object_get_string(json_object_object_get(o, "dso")), "/usr/bin/prog", "leaf dso");
		is_str(json_object_get_string(json_object_object_get(o, "addr")), "0x1210", "leaf addr DSO-relative");
	}
	ok(strstr(out, "\"a;b\\\"c'\"") != NULL, "quotes escaped in JSON strings");
	json_object_put(root);
	free(out);
	pk_export_free(e);
}

/* ---- svg ---------------------------------------------------------------------- */

static void test_svg(void)
{
	struct pk_export *e = new_export(PK_EXPORT_SVG, 0);
	size_t len;
	char *out;
	int frames = 0;

	add_all(e);
	out = run_export(e, &len);
	ok(out != NULL, "svg written");
	if (!out) {
		pk_export_free(e);
		return;
	}
	for (const char *p = out; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	if (getenv("PK_TEST_SVG")) {
		FILE *f = fopen(getenv("PK_TEST_SVG"), "w");

		if (f) {
			fwrite(out, 1, len, f);
			fclose(f);
		}
	}
	/* all + comms (3) + distinct frames: my_prog: [unknown] [libc.so.6] main work, main [[kernel]];
	   java: helper, outer;inner_[i] (one name); :301: a:bc, do_syscall_64 a:bc */
	is_int(frames, 1 + 3 + 6 + 2 + 3, "one frame per trie node plus 'all'");
	ok(strstr(out, "data-s=\"0\" data-c=\"6\" data-d=\"0\"><title>all (6 samples, 100.00%)</title>") != NULL,
	   "root frame 'all' holds the 6 samples of the first event");
	ok(strstr(out, "<title>my_prog (3 samples, 50.00%)</title>") != NULL, "my_prog frame has 3 samples");
	ok(strstr(out, "<title>[unknown] (2 samples, 33.33%)</title>") != NULL, "[unknown] under my_prog has 2");
	/* width: 3 of 6 samples over 1180 px */
	ok(strstr(out, "width=\"590.00\"") != NULL, "width proportional to samples (3/6 of 1180)");
	ok(strstr(out, "<script") && !strstr(out, "xlink:href=\"http") && !strstr(out, "src="),
	   "script embedded, no external resources");
	free(out);
	pk_export_free(e);
}

/* ---- speed ---------------------------------------------------------------------- */

static void test_speed(void)
{
	struct pk_export *e = new_export(PK_EXPORT_FOLDED, 0);
	static struct pk_sym syms[64];
	static char names[64][16];
	struct pk_location fr[6];
	struct timespec a, b;
	double secs;
	int err = 0;

	for (int i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "fn_%d", i);
		syms[i] = (struct pk_sym){ 0x1000 + 0x100 * (uint64_t)i, 0x1100 + 0x100 * (uint64_t)i, names[i] };
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (uint32_t n = 0; n < 1170000 && !err; n++) {
		uint32_t x = (n % 20000) * 2654435761u;   /* 20000 distinct stacks */

		for (int k = 0; k < 6; k++)
			fr[k] = loc_sym(&map_prog, &syms[(x >> (k * 5)) % 64 / (k + 1)], 0x401000 + k);
		err = add(e, &th_prog, &ev_clock, 1, fr, 6);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	is_int(err, 0, "1.17M samples of 6 frames interned");
	diag("interning 1.17M samples x 6 frames took %.3f s (%u trie nodes)", secs, e->trie.n);
#ifdef __SANITIZE_ADDRESS__
	ok(secs < 20.0, "in under 20 s under the sanitizers");
#else
	ok(secs < 3.0, "in under 3 s (perf script | stackcollapse-perf.pl needs ~12 s for as many)");
#endif
	pk_export_free(e);
}

int main(void)
{
	ev_clock.name = "cpu-clock";
	ev_clock.attr.attr.type = PERF_TYPE_SOFTWARE;
	ev_clock.attr.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev_clock.attr.attr.freq = 1;
	ev_clock.attr.attr.sample_freq = 4999;
	ev_faults.idx = 1;
	ev_faults.name = "page-faults";
	ev_faults.attr.attr.type = PERF_TYPE_SOFTWARE;
	ev_faults.attr.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	test_tidy();
	test_folded();
	test_folded_discarded_chain();
	test_pprof();
	test_json();
	test_svg();
	test_speed();
	return done_testing();
}
