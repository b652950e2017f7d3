/*
 * The library's logging callback. The library never writes to stdout or
 * stderr itself: warnings are handed to the function the program installs
 * (the command prints them as "perfkit: warning: ..."), or dropped.
 */
#include <perfkit/core.h>

static pk_log_fn log_callback;

void pk_log_set_callback(pk_log_fn fn)
{
	log_callback = fn;
}

void pk_log(enum pk_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (!log_callback)
		return;
	va_start(ap, fmt);
	log_callback(level, fmt, ap);
	va_end(ap);
}
