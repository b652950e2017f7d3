/*
 * perfkit list: the events this machine offers, the way `perf list` prints
 * them ("  name OR alias    [Hardware event]"), by category: hw, sw, cache,
 * pmu, tracepoint (perf's words hardware, software, hwcache and
 * tracepoints work too). Events the kernel refuses here are kept in the
 * list and marked, instead of hidden as perf does. --json prints the same
 * entries as a JSON array.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/event.h>
#include "cli.h"

struct list_state {
	bool json;
	size_t count;
};

static const struct {
	const char *word;
	unsigned mask;
} categories[] = {
	{ "hw", PK_LIST_HW }, { "hardware", PK_LIST_HW },
	{ "sw", PK_LIST_SW }, { "software", PK_LIST_SW },
	{ "cache", PK_LIST_CACHE }, { "hwcache", PK_LIST_CACHE },
	{ "pmu", PK_LIST_PMU },
	{ "tracepoint", PK_LIST_TRACEPOINT }, { "tracepoints", PK_LIST_TRACEPOINT },
};

static void usage(FILE *f)
{
	fputs("usage: perfkit list [<options>] [hw|sw|cache|pmu|tracepoint ...]\n"
	      "\n"
	      "List the events perfkit stat -e accepts on this machine: hardware,\n"
	      "software and hardware cache events, sysfs PMU events and tracepoints\n"
	      "(all of them when no category is given). Events the kernel refuses\n"
	      "here are marked <not supported>.\n"
	      "\n"
	      "options:\n"
	      "  -j, --json    print a JSON array of {name, aliases, category, desc, supported}\n"
	      "  -h, --help    this help\n"
	      "\n"
	      "Event syntax (perfkit stat -e):\n"
	      "  name[:mods]            cycles, task-clock:u, L1-dcache-load-misses\n"
	      "  rNNN                   raw hardware event (hex config)\n"
	      "  pmu/term=val,.../mods  cpu/event=0x3c,umask=0x0/, msr/tsc/\n"
	      "  sys:name               tracepoint, globs allowed: sched:sched_switch, sched:*\n"
	      "  {a,b}:mods             a group, counted together\n"
	      "  mods: u user, k kernel, h hypervisor, G guest, H host, I no idle,\n"
	      "        p/pp/ppp precise, P max precise, S sample read, D pinned\n"
	      "\n"
	      "Exit status: 0, or 2 for usage errors.\n", f);
}

static const char *category_word(enum pk_event_category cat)
{
	switch (cat) {
	case PK_LIST_HW: return "hw";
	case PK_LIST_SW: return "sw";
	case PK_LIST_CACHE: return "cache";
	case PK_LIST_TRACEPOINT: return "tracepoint";
	case PK_LIST_PMU: return "pmu";
	default: return "other";
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static int print_info(const struct pk_event_info *info, void *ctx)
{
	struct list_state *st = ctx;
	char name[512];

	if (st->json) {
		fputs(st->count ? ",\n  {\"name\": " : "  {\"name\": ", stdout);
		json_str(info->name);
		fputs(", \"aliases\": ", stdout);
		if (info->aliases)
			json_str(info->aliases);
		else
			fputs("null", stdout);
		printf(", \"category\": \"%s\", \"desc\": ", category_word(info->category));
		json_str(info->desc);
		printf(", \"supported\": %s}", info->supported ? "true" : "false");
	} else {
		snprintf(name, sizeof(name), "%s%s%s", info->name, info->aliases ? " OR " : "",
			 info->aliases ? info->aliases : "");
		printf("  %-50s [%s]%s\n", name, info->desc,
		       info->supported ? "" : "  <not supported>");
	}
	st->count++;
	return 0;
}

static int walk(unsigned mask, struct list_state *st)
{
	struct pk_diag d;
	int err = pk_event_foreach(mask, NULL, print_info, st, &d);

	if (err < 0)
		cli_diag(&d, err);
	return err;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct list_state st = { 0 };
	unsigned mask = 0;
	int opt, err;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': st.json = true; break;
		case 'h': usage(stdout); return 0;
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			fputs("hint: perfkit list --help describes the options\n", stderr);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		unsigned m = 0;

		for (size_t k = 0; k < sizeof(categories) / sizeof(categories[0]); k++)
			if (!strcmp(argv[i], categories[k].word))
				m = categories[k].mask;
		if (!m) {
			cli_error("unknown event category '%s'", argv[i]);
			fprintf(stderr, "hint: use one of hw, sw, cache, pmu, tracepoint\n");
			return 2;
		}
		mask |= m;
	}
	if (st.json)
		fputs("[\n", stdout);
	if (mask) {
		err = walk(mask, &st);
	} else {
		/* perf's order: symbolic events, then the raw syntax, then tracepoints */
		err = walk(PK_LIST_ALL & ~PK_LIST_TRACEPOINT, &st);
		if (!err && !st.json) {
			printf("  %-50s [%s]\n", "rNNN", "Raw hardware event descriptor");
			printf("  %-50s [%s]\n", "cpu/t1=v1[,t2=v2,t3 ...]/modifier",
			       "Raw hardware event descriptor");
		}
		if (!err)
			err = walk(PK_LIST_TRACEPOINT, &st);
	}
	if (st.json)
		fputs(st.count ? "\n]\n" : "]\n", stdout);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return err < 0 ? 1 : 0;
}
