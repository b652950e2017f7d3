/*
 * Test helper: run `report --stdio ARGS -i FILE` with Linux perf and with
 * perfkit and check that both print the same rows (lines not starting with
 * '#', blank lines dropped), showing the first line that differs. Shared by
 * the tests whose oracle is perf report on a file they wrote (tap.h first).
 */
#ifndef PERFKIT_TESTS_REPORT_VS_PERF_H
#define PERFKIT_TESTS_REPORT_VS_PERF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fixture_files.h"

/*
 * The rows that @cmd prints; NULL if none. perf 6.1 may mark the "[...]"
 * of a fractal graph " (inlined)", from memory it never set: the mark is
 * dropped.
 */
static char *rows_of(const char *cmd)
{
	static const char rest_inlined[] = "[...] (inlined)\n";
	char line[4096], *out = NULL;
	size_t len = 0;
	FILE *fp = popen(cmd, "r");

	if (!fp)
		return NULL;
	while (fgets(line, sizeof(line), fp)) {
		size_t n = strlen(line), k = sizeof(rest_inlined) - 1;
		char *grown;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (n >= k && !strcmp(line + n - k, rest_inlined)) {
			n -= k - 6;
			strcpy(line + n - 6, "[...]\n");
		}
		grown = realloc(out, len + n + 1);
		if (!grown)
			break;
		out = grown;
		memcpy(out + len, line, n + 1);
		len += n;
	}
	pclose(fp);
	return out;
}

/*
 * perf report, stopped after 20 s: perf 6.1 loops for half an hour on a
 * group row whose member holds one key twice (tests/cli/tap-lib.bash)
 */
#define PERF_REPORT "timeout 20 perf report"

/* Both tools' rows for `report --stdio @args` on @file (named @label in the test): the same. */
static void same_rows(const char *perfkit, const char *file, const char *label, const char *args)
{
	char cmd[1024];
	char *perf_rows, *pk_rows;

	snprintf(cmd, sizeof(cmd), PERF_REPORT " --stdio %s -i '%s' 2>/dev/null", args, file);
	perf_rows = rows_of(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' report --stdio %s -i '%s' 2>/dev/null", perfkit, args, file);
	pk_rows = rows_of(cmd);
	if (!perf_rows || !pk_rows) {
		ok(0, "%s, report %s: both tools print rows (perf %s, perfkit %s)", label, args,
		   perf_rows ? "did" : "did not", pk_rows ? "did" : "did not");
	} else if (!ok(!strcmp(perf_rows, pk_rows), "%s, report %s: perfkit's rows are perf's, in its order",
		       label, args))
		diag_first_difference("perf   ", perf_rows, "perfkit", pk_rows);
	free(perf_rows);
	free(pk_rows);
}

/*
 * Skip the whole test without a usable perf or perfkit command; make @dir (a
 * mkdtemp template) for the files (rm_tree() removes it). The perfkit to run ($PERFKIT, else
 * build/perfkit), or NULL (a failed test said so) without the directory.
 */
static const char *vs_perf_start(char *dir)
{
	const char *perfkit = getenv("PERFKIT") ? getenv("PERFKIT") : "build/perfkit";

	if (system("perf version >/dev/null 2>&1") != 0)
		skip_all("Linux perf not usable here");
	if (access(perfkit, X_OK))
		skip_all("no perfkit command to run");
	if (!mkdtemp(dir)) {
		ok(0, "temporary directory");
		return NULL;
	}
	return perfkit;
}

#endif
