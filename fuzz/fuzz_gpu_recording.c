/*
 * libFuzzer target for the gpu recording reader (lib/gpu/recording.c): the
 * bytes are replayed as a JSON Lines recording, through fdinfo parsing and
 * the tracker, and every snapshot goes through the JSON printer and the
 * summary. Nothing may crash, leak, loop or allocate without bound; a
 * failure must be -EBADMSG (or -ENOMEM) with a message and an offset that
 * lies within the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/gpu.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	struct pk_gpu_summary *sm;
	struct pk_buf out;
	unsigned scans;
};

static int on_scan(void *arg, const struct pk_gpu_snapshot *s)
{
	struct ctx *c = arg;

	c->out.len = 0;
	if (pk_gpu_snapshot_json(s, &c->out) == 0 && (c->out.len == 0 || c->out.data[c->out.len - 1] != '\n'))
		abort();
	if (s->seq != ++c->scans)
		abort();
	return pk_gpu_summary_add(c->sm, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { .sm = pk_gpu_summary_new() };
	struct pk_diag d;
	int err;

	if (!c.sm)
		return 0;
	pk_buf_init(&c.out);
	pk_diag_init(&d);
	err = pk_gpu_replay_mem((const char *)data, size, "fuzz", on_scan, &c, &d);
	if (err == -EBADMSG && (d.offset >= size || !d.msg[0]))
		abort();
	if (err && err != -EBADMSG && err != -ENOMEM)
		abort();
	c.out.len = 0;
	pk_gpu_summary_json(c.sm, &c.out);
	c.out.len = 0;
	pk_gpu_summary_text(c.sm, &c.out);
	pk_buf_release(&c.out);
	pk_gpu_summary_free(c.sm);
	return 0;
}
