/*
 * perfkit: the command's entry point. It only dispatches to the subcommand
 * named by the first argument (unique prefixes accepted, like bpftool);
 * each cmd_<verb>.c owns its options and help text.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"


struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "list", cmd_list, "list the events this machine offers" },
	{ "stat", cmd_stat, "run a command and count events" },
	{ "report", cmd_report, "summarize a perf.data file" },
	{ "script", cmd_script, "print the samples of a perf.data file" },
	{ "record", cmd_record, "sample a command, processes or CPUs into perf.data" },
	{ "top", cmd_top, "live profile: the hottest symbols, refreshed" },
	{ "gpu", cmd_gpu, "GPU usage per client from DRM fdinfo: top, record, report, serve" },
	{ "oa", cmd_oa, "Intel i915 OA hardware counters: list, record, report" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: perfkit <command> [<options>]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'perfkit <command> --help' describes a command's options\n");
}

int main(int argc, char **argv)
{
	const struct command *match = NULL;
	size_t len;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("perfkit %s\n", PK_VERSION);
		return 0;
	}
	len = strlen(argv[1]);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(commands[i].name, argv[1])) {
			match = &commands[i];
			break;
		}
		if (!strncmp(commands[i].name, argv[1], len)) {
			if (match) {
				cli_error("ambiguous command '%s'", argv[1]);
				return 2;
			}
			match = &commands[i];
		}
	}
	if (!match) {
		cli_error("unknown command '%s'", argv[1]);
		usage(stderr);
		return 2;
	}
	return match->run(argc - 1, argv + 1);
}
