/*
 * Error diagnostics: struct pk_diag records what failed (errno, message),
 * where (subject and byte offset) and how to get past it (hint). Every
 * library error flows through here so the command can print one consistent
 * line: "perfkit: 'subject': message at offset N".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/core.h>

void pk_diag_init(struct pk_diag *d)
{
	if (!d)
		return;
	memset(d, 0, sizeof(*d));
	d->offset = PK_NO_OFFSET;
}

static void diag_vset(struct pk_diag *d, int err, uint64_t off, const char *fmt, va_list ap)
{
	d->err = err;
	d->offset = off;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
}

int pk_diag_fail(struct pk_diag *d, int err, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	va_start(ap, fmt);
	diag_vset(d, err, PK_NO_OFFSET, fmt, ap);
	va_end(ap);
	return err;
}

int pk_diag_fail_at(struct pk_diag *d, int err, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	va_start(ap, fmt);
	diag_vset(d, err, offset, fmt, ap);
	va_end(ap);
	return err;
}

void pk_diag_subject(struct pk_diag *d, const char *subject)
{
	if (d)
		snprintf(d->subject, sizeof(d->subject), "%s", subject ? subject : "");
}

void pk_diag_hint(struct pk_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	va_start(ap, fmt);
	vsnprintf(d->hint, sizeof(d->hint), fmt, ap);
	va_end(ap);
}

const char *pk_diag_str(const struct pk_diag *d, char *buf, size_t sz)
{
	size_t n = 0;

	if (!sz)
		return buf;
	buf[0] = '\0';
	if (d->subject[0])
		n += snprintf(buf + n, sz - n, "'%s': ", d->subject);
	if (n < sz)
		n += snprintf(buf + n, sz - n, "%s", d->msg[0] ? d->msg : strerror(-d->err));
	if (n < sz && d->offset != PK_NO_OFFSET)
		snprintf(buf + n, sz - n, " at offset %llu", (unsigned long long)d->offset);
	return buf;
}
