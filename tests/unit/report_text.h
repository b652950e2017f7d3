/*
 * What pk_report_print() writes for a report without a session, as a
 * malloc'ed string (NULL when no memory stream could be made): shared by
 * the report tests.
 */
#ifndef PERFKIT_TESTS_REPORT_TEXT_H
#define PERFKIT_TESTS_REPORT_TEXT_H

#include <stdio.h>
#include <perfkit/report.h>

static inline char *report_text(struct pk_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	pk_report_print(r, NULL, f);
	fclose(f);
	return buf;
}

#endif
