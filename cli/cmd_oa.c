/*
 * perfkit oa: Intel i915 OA hardware counters. This file dispatches
 * `perfkit oa <verb>` and implements two verbs:
 *
 *   list    i915 cards (sysfs) with the metric sets their kernel offers,
 *           and the metric sets of the metric files (--metrics FILE, or
 *           every oa-*.xml of a directory)
 *   report  a recording read through its metric set, printed as IGT's
 *           i915-perf-reader -c prints it, or as JSON (pk_oa_summary_*);
 *           also a bare kernel stream, its device given by options
 *
 * `record` is cmd_oa_record() (cli/cmd_oa_record.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "cli.h"
#include "cmd_oa_record.h"

static const char usage_text[] =
	"usage: perfkit oa list [--metrics FILE|--metrics-dir DIR] [--sys-root DIR]\n"
	"       perfkit oa record [-m SET] [-p PERIOD] [-o FILE] [--duration S] [-- CMD ...]\n"
	"       perfkit oa report FILE [--metrics FILE|--metrics-dir DIR] [-m SET]\n"
	"                         [-c COUNTER,...|all|none] [-r|--per-report] [--json]\n"
	"                         [--pci-id ID --topology S,SS,EU [--timestamp-frequency HZ]\n"
	"                          [--oa-format FMT] [--revision N] [--gt-frequency MIN,MAX]]\n"
	"\n"
	"Intel i915 OA hardware counters: live capture into IGT's recording format,\n"
	"and reports like IGT's i915-perf-reader. report reads FILE from a pipe too,\n"
	"and standard input for -.\n"
	"\n"
	"  --metrics FILE        the metric file (Intel's oa-<platform>.xml)\n"
	"  --metrics-dir DIR     look for oa-<platform>.xml in DIR (default: $PERFKIT_OA_METRICS,\n"
	"                        else PREFIX/share/perfkit/oa for PREFIX/bin/perfkit, where\n"
	"                        make install puts them, else " PK_OA_METRICS_DIR ")\n"
	"      --sys-root DIR    (list) read the i915 cards from DIR instead of /sys\n"
	"  -m, --metric-set SET  the metric set by symbol name or GUID (default: the recording's)\n"
	"  -c, --counters LIST   counters to print, by symbol name; all (default: every available\n"
	"                        counter, sorted by name), none (segments only, no metric file),\n"
	"                        list (list the available counters, with --json their details)\n"
	"  -r, --per-report      also the values between each pair of consecutive reports\n"
	"      --json            {device, metric_set, reports, lost, segments: [...]}\n"
	"\n"
	"A bare kernel stream (the bytes read from an i915 perf fd, without IGT's device\n"
	"records) is read when its device is described:\n"
	"      --pci-id ID       the GPU's PCI device id, hex (0x9a49)\n"
	"      --topology S,SS,EU  slices, subslices per slice, EUs per subslice (needed\n"
	"                        for counters; tigerlake GT2: 1,6,16)\n"
	"      --timestamp-frequency HZ  OA timestamp frequency (default: the platform's)\n"
	"      --oa-format FMT   report format, by name or i915 number (default: the platform's)\n"
	"      --revision N      device revision ($SkuRevisionId, default 0)\n"
	"      --gt-frequency MIN,MAX  GT frequency range in MHz (default 0,0)\n"
	"A stream does not name its metric set: give -m SET (or -c none).\n";

/* The options describing a bare kernel stream's device, as given. */
struct oa_stream_opts {
	const char *pci_id, *topology, *ts_freq, *format, *revision, *gt_freq;
};

struct oa_cli {
	const char *metrics, *metrics_dir, *set, *counters, *sys_root;
	bool per_report, json;
	struct oa_stream_opts stream;
};

static int parse_args(struct oa_cli *o, int argc, char **argv, bool report)
{
	enum { OPT_METRICS = 256, OPT_METRICS_DIR, OPT_SYS_ROOT, OPT_JSON, OPT_PCI_ID, OPT_TOPOLOGY, OPT_TS_FREQ,
	       OPT_FORMAT, OPT_REVISION, OPT_GT_FREQ };
	static const struct option longopts[] = {
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "pci-id", required_argument, NULL, OPT_PCI_ID },
		{ "topology", required_argument, NULL, OPT_TOPOLOGY },
		{ "timestamp-frequency", required_argument, NULL, OPT_TS_FREQ },
		{ "oa-format", required_argument, NULL, OPT_FORMAT },
		{ "revision", required_argument, NULL, OPT_REVISION },
		{ "gt-frequency", required_argument, NULL, OPT_GT_FREQ },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "metrics-dir", required_argument, NULL, OPT_METRICS_DIR },
		{ "metric-set", required_argument, NULL, 'm' },
		{ "counters", required_argument, NULL, 'c' },
		{ "per-report", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *other = NULL;   /* the verbs a misplaced option is for */
	char said[32];
	int opt, li;

	optind = 1;
	opterr = 0;
	/* no '+': FILE may come before the options */
	while ((li = -1, opt = getopt_long(argc, argv, "m:c:rh", longopts, &li)) != -1) {
		switch (opt) {
		case OPT_METRICS: o->metrics = optarg; break;
		case OPT_METRICS_DIR: o->metrics_dir = optarg; break;
		case 'm': o->set = optarg; break;
		case 'c': o->counters = optarg; break;
		case 'r': o->per_report = true; break;
		case OPT_JSON: o->json = true; break;
		case OPT_SYS_ROOT: o->sys_root = optarg; break;
		case OPT_PCI_ID: o->stream.pci_id = optarg; break;
		case OPT_TOPOLOGY: o->stream.topology = optarg; break;
		case OPT_TS_FREQ: o->stream.ts_freq = optarg; break;
		case OPT_FORMAT: o->stream.format = optarg; break;
		case OPT_REVISION: o->stream.revision = optarg; break;
		case OPT_GT_FREQ: o->stream.gt_freq = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case '?':
			cli_bad_option(argv, "mc");
			return -EINVAL;
		}
		if (report && opt == OPT_SYS_ROOT)
			other = "'perfkit oa list' and 'perfkit oa record'";
		else if (!report && (opt == 'm' || opt == 'c' || opt == 'r' || opt >= OPT_JSON))
			other = "'perfkit oa report'";
		if (other) {
			/* as named, not argv[optind - 1]: that is the value of '--pci-id 9a49' */
			if (li >= 0)
				snprintf(said, sizeof(said), "--%s", longopts[li].name);
			else
				snprintf(said, sizeof(said), "-%c", opt);
			cli_error("option '%s' is for %s", said, other);
			return -EINVAL;
		}
	}
	if (o->metrics && o->metrics_dir) {
		cli_error("--metrics and --metrics-dir cannot be given together");
		return -EINVAL;
	}
	return 0;
}

/* ---- a bare kernel stream's device ------------------------------------------------ */

/* "A,B" (or "A,B,C") of whole numbers into @v; false when malformed. */
static bool parse_list(const char *arg, unsigned long *v, int n)
{
	const char *p = arg;
	char *end;

	for (int i = 0; i < n; i++) {
		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || end == p || *end != (i + 1 < n ? ',' : '\0'))
			return false;
		p = end + 1;
	}
	return true;
}

static int parse_format(const char *arg, uint32_t *out)
{
	uint64_t n;

	for (int f = 1; f < 64; f++) {
		const struct pk_oa_format_info *fi = pk_oa_format_info(f);

		if (fi && !strcasecmp(fi->name, arg)) {
			*out = (uint32_t)f;
			return 0;
		}
	}
	if (arg[0] >= '0' && arg[0] <= '9' && !cli_parse_u64("--oa-format", arg, 1, 63, &n) &&
	    pk_oa_format_info((int)n)) {
		*out = (uint32_t)n;
		return 0;
	}
	cli_error("unknown OA format '%s' (known: A45_B8_C8, A32u40_A4u32_B8_C8, "
		  "OAR_A32u40_A4u32_B8_C8, A24u40_A14u32_B8_C8, or their i915 numbers)", arg);
	return -EINVAL;
}

/*
 * The device of a bare kernel stream from the options; 0 without --pci-id
 * (*@is_stream false), -EINVAL after a message.
 */
static int stream_device(const struct oa_stream_opts *o, bool need_topology,
			 struct pk_oa_stream_device *sd, bool *is_stream)
{
	unsigned long v[3];
	uint64_t n;
	char *end;

	*is_stream = o->pci_id != NULL;
	if (!o->pci_id) {
		if (o->topology || o->ts_freq || o->format || o->revision || o->gt_freq) {
			cli_error("--topology, --timestamp-frequency, --oa-format, --revision and --gt-frequency describe a bare kernel stream's device: give --pci-id too");
			return -EINVAL;
		}
		return 0;
	}
	memset(sd, 0, sizeof(*sd));
	errno = 0;
	n = strtoull(o->pci_id, &end, 16);
	if (errno || end == o->pci_id || *end || o->pci_id[0] == '-' || !n || n > 0xffff) {
		cli_error("invalid value '%s' for --pci-id: give the PCI device id in hex (0x9a49)",
			  o->pci_id);
		return -EINVAL;
	}
	sd->info.device_id = (uint32_t)n;
	if (!pk_oa_platform_by_pci_id(sd->info.device_id)) {
		cli_error("PCI id 0x%04x is not an i915 device perfkit knows", sd->info.device_id);
		return -EINVAL;
	}
	if (o->topology) {
		/* counts above 64 are refused before the cast could wrap them */
		if (!parse_list(o->topology, v, 3) || v[0] > 64 || v[1] > 64 || v[2] > 64 ||
		    pk_oa_topology_uniform(&sd->topo, (unsigned)v[0], (unsigned)v[1], (unsigned)v[2])) {
			cli_error("invalid value '%s' for --topology: give SLICES,SUBSLICES,EUS (each 1 to 64: subslices per slice, EUs per subslice)",
				  o->topology);
			return -EINVAL;
		}
	} else if (need_topology) {
		cli_error("a bare kernel stream needs --topology SLICES,SUBSLICES,EUS for its counters (or -c none)");
		return -EINVAL;
	}
	if (o->ts_freq && cli_parse_u64("--timestamp-frequency", o->ts_freq, 1, UINT64_MAX / 2,
					&sd->info.timestamp_frequency))
		return -EINVAL;
	if (o->format && parse_format(o->format, &sd->info.oa_format))
		return -EINVAL;
	if (o->revision) {
		if (cli_parse_u64("--revision", o->revision, 0, UINT32_MAX, &n))
			return -EINVAL;
		sd->info.revision = (uint32_t)n;
	}
	if (o->gt_freq) {
		if (!parse_list(o->gt_freq, v, 2) || v[0] > v[1] || v[1] > 4294) {
			cli_error("invalid value '%s' for --gt-frequency: give MIN,MAX in MHz", o->gt_freq);
			return -EINVAL;
		}
		sd->info.gt_min_frequency = (uint32_t)v[0] * 1000000u;
		sd->info.gt_max_frequency = (uint32_t)v[1] * 1000000u;
	}
	return 0;
}

/* ---- report --------------------------------------------------------------------- */

/* Records the recording's readers skip (i915-perf-reader in silence) are named. */
static void warn_unknown_records(const char *path, const struct pk_oa_recording *rec)
{
	uint32_t type;
	uint64_t off, n = pk_oa_recording_unknown_records(rec, &type, &off);

	if (n)
		cli_error("warning: '%s': %" PRIu64 " record%s of a type perfkit does not know skipped "
			  "(the first: type %" PRIu32 " at byte %" PRIu64 ")",
			  path, n, n == 1 ? "" : "s", type, off);
}

static int cmd_oa_report(int argc, char **argv)
{
	struct oa_cli o = { 0 };
	struct pk_oa_recording *rec = NULL;
	static struct pk_oa_stream_device sd;
	bool is_stream, wants_counters, listing;
	struct pk_oa_summary s;
	struct pk_oa_timeline tl;
	struct pk_diag d;
	const char *path;
	int err;

	if ((err = parse_args(&o, argc, argv, true)))
		return err > 0 ? 0 : 2;
	if (optind >= argc) {
		cli_error("no recording given");
		fputs(usage_text, stderr);
		return 2;
	}
	if (optind + 1 < argc) {
		cli_error("unexpected argument '%s'", argv[optind + 1]);
		return 2;
	}
	path = strcmp(argv[optind], "-") ? argv[optind] : "/dev/stdin";
	wants_counters = !o.counters || strcmp(o.counters, "none");
	if (stream_device(&o.stream, wants_counters, &sd, &is_stream))
		return 2;
	if (wants_counters)
		pk_oa_metrics_prepare();     /* libxml2 loads while the recording is read */
	pk_diag_init(&d);
	pk_diag_subject(&d, path);
	/* the timeline is built while the file is read (one pass over memory) */
	err = pk_oa_timeline_read_file(path, is_stream ? &sd : NULL, &rec, &tl, &d);
	if (err) {
		if (err == -ENODATA && !d.hint[0])
			pk_diag_hint(&d, "a bare kernel stream is read when its device is given (--pci-id ID --topology S,SS,EU)");
		cli_diag(&d, err);
		return cli_status_of(err);
	}
	warn_unknown_records(path, rec);
	listing = o.counters && !strcmp(o.counters, "list");
	{
		PK_OA_SUMMARY_OPTS(so, .metrics_file = o.metrics, .metrics_dir = o.metrics_dir,
				   .counters = listing ? "all" : o.counters, .set = o.set, .timeline = &tl);

		pk_diag_init(&d);
		pk_diag_subject(&d, path);
		err = pk_oa_summary_init(&s, rec, &so, &d);
	}
	if (err) {
		cli_diag(&d, err);
		pk_oa_recording_free(rec);
		return cli_status_of(err);
	}
	if (s.uuid_mismatch && o.json)
		cli_error("warning: '%s': recorded with metric set uuid '%s', the metric file's is '%s'",
			  path, pk_oa_recording_device(rec)->metric_set_uuid,
			  s.set->hw_config_guid ? s.set->hw_config_guid : "");
	/* the printers buffer their lines themselves and write them in large pieces */
	pk_diag_init(&d);
	if (listing)
		err = pk_oa_summary_print_counters(&s, stdout, o.json, &d);
	else
		err = o.json ? pk_oa_summary_print_json(&s, stdout, o.per_report, &d)
			     : pk_oa_summary_print(&s, stdout, o.per_report, &d);
	if (err)
		cli_diag(&d, err);
	pk_oa_summary_release(&s);
	pk_oa_recording_free(rec);
	return err ? 1 : 0;
}

/* ---- list ----------------------------------------------------------------------- */

/* The metric file for @p as report would choose it, loaded; NULL when there is none. */
static struct pk_oa_metrics *platform_metrics(const struct oa_cli *o, const struct pk_oa_platform *p)
{
	struct pk_oa_metrics *m = NULL;
	char path[4096];
	struct pk_diag d;

	pk_diag_init(&d);
	if (!p || pk_oa_metrics_path(o->metrics, o->metrics_dir, p->metrics, path, sizeof(path), &d) ||
	    pk_oa_metrics_load(path, &m, &d))
		return NULL;
	return m;
}

/*
 * The i915 cards (sysfs) and the metric sets each one's kernel offers, named
 * from the platform's metric file when there is one. 0, or the exit status.
 */
static int list_devices(const struct oa_cli *o)
{
	struct pk_oa_metrics *m = NULL;
	struct pk_oa_card *cards;
	struct pk_diag d;
	size_t n;
	int err;

	pk_diag_init(&d);
	if ((err = pk_oa_cards_list(o->sys_root, &cards, &n, &d))) {
		cli_diag(&d, err);
		return cli_status_of(err);
	}
	if (!n)
		printf("no i915 device on this machine (OA capture needs one; reports work anywhere)\n");
	for (size_t i = 0; i < n; i++) {
		const struct pk_oa_card *c = &cards[i];

		/* consecutive cards of one platform share its metric file: loaded once */
		if (!i || c->platform != cards[i - 1].platform) {
			pk_oa_metrics_free(m);
			m = platform_metrics(o, c->platform);
		}

		printf("card%d: i915 device 0x%04x (%s, metric file oa-%s.xml), %zu metric set%s in the kernel\n",
		       c->card, c->pci_id, c->platform ? c->platform->name : "unknown platform",
		       c->platform ? c->platform->metrics : "?", c->n_sets, c->n_sets == 1 ? "" : "s");
		for (size_t k = 0; k < c->n_sets; k++) {
			const struct pk_oa_set_info *s = m ? pk_oa_metrics_find_set(m, c->sets[k].guid) : NULL;

			printf("  id %-4" PRIu64 " %-36s %s%s%s%s\n", c->sets[k].id, c->sets[k].guid,
			       s ? s->symbol_name : "-", s ? " (" : "", s ? s->name : "", s ? ")" : "");
		}
	}
	pk_oa_metrics_free(m);
	pk_oa_cards_free(cards, n);
	return 0;
}

/* The sets of one metric file. The exit status: 0, 1 out of memory, 2 a file that cannot be read. */
static int list_file(const char *path)
{
	struct pk_oa_metrics *m;
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	if ((err = pk_oa_metrics_load(path, &m, &d))) {
		cli_diag(&d, err);
		return cli_status_of(err);
	}
	printf("%s: %zu metric sets\n", path, pk_oa_metrics_n_sets(m));
	for (size_t i = 0; i < pk_oa_metrics_n_sets(m); i++) {
		const struct pk_oa_set_info *s = pk_oa_metrics_set(m, i);

		printf("  %-32s %-36s %4zu counters  %s\n", s->symbol_name,
		       s->hw_config_guid ? s->hw_config_guid : "-", s->n_counters, s->name);
	}
	pk_oa_metrics_free(m);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(const char *dirpath, bool given)
{
	DIR *dir = opendir(dirpath);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int status = 0;

	if (!dir) {
		if (given) {
			int err = -errno;

			cli_error("'%s': %s", dirpath, strerror(-err));
			return cli_status_of(err);
		}
		printf("no metric files: %s: %s (give --metrics FILE or --metrics-dir DIR)\n", dirpath,
		       strerror(errno));
		return 0;
	}
	while ((e = readdir(dir))) {
		if (fnmatch("oa-*.xml", e->d_name, 0))
			continue;
		if (pk_array_grow((void **)&names, &cap, n + 1, sizeof(*names), 16) ||
		    !(names[n] = malloc(strlen(dirpath) + strlen(e->d_name) + 2))) {
			cli_error("out of memory");
			closedir(dir);
			return 1;
		}
		sprintf(names[n++], "%s/%s", dirpath, e->d_name);
	}
	closedir(dir);
	if (!n)
		printf("no metric files (oa-*.xml) in %s\n", dirpath);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		int st = list_file(names[i]);

		status = st > status ? st : status;
		free(names[i]);
	}
	free(names);
	return status;
}

static int cmd_oa_list(int argc, char **argv)
{
	struct oa_cli o = { 0 };
	char where[PATH_MAX];
	int err;

	if ((err = parse_args(&o, argc, argv, false)))
		return err > 0 ? 0 : 2;
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if ((err = list_devices(&o)))
		return err;
	if (o.metrics)
		return list_file(o.metrics);
	if (o.metrics_dir)
		return list_dir(o.metrics_dir, true);
	switch (pk_oa_metrics_default(where, sizeof(where))) {
	case PK_OA_METRICS_ENV_FILE: return list_file(where);
	case PK_OA_METRICS_ENV_DIR: return list_dir(where, true);
	default: return list_dir(where, false);
	}
}

/* ---- dispatch ------------------------------------------------------------------- */

static const struct cli_verb verbs[] = {
	{ "list", cmd_oa_list },
	{ "record", cmd_oa_record },
	{ "report", cmd_oa_report },
};

int cmd_oa(int argc, char **argv)
{
	const struct cli_verb *match;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	match = cli_find_verb(verbs, sizeof(verbs) / sizeof(verbs[0]), "oa", argv[1]);
	if (!match) {
		fputs(usage_text, stderr);
		return 2;
	}
	return match->run(argc - 1, argv + 1);
}
