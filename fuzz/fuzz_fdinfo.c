/*
 * libFuzzer target for the DRM fdinfo parser (pk_fdinfo_parse). Each input
 * is parsed whole and then its second half, both into one pk_fdinfo that
 * lives across runs (so values left by an earlier parse would show) and into
 * a fresh one; the two results must be identical, and every result must
 * keep the invariants of the API: at most as many malformed lines as lines,
 * names NUL-terminated and shorter than PK_GPU_NAME_MAX, capacity >= 1,
 * fields only of known bits and values 0 where a field is absent, names
 * and keys unique, extras pointing inside the pk_fdinfo's own store, and
 * the lookups finding what the arrays hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/gpu.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* NUL-terminated within @max bytes; its length. */
static size_t bounded_len(const char *s, size_t max)
{
	const char *z = memchr(s, '\0', max);

	CHECK(z != NULL);
	return (size_t)(z - s);
}

/* @p and its string lie inside the store. */
static void in_store(const struct pk_fdinfo *fi, const char *p)
{
	CHECK(fi->store != NULL);
	CHECK(p >= fi->store && p < fi->store + fi->store_len);
	CHECK(memchr(p, '\0', (size_t)(fi->store + fi->store_len - p)) != NULL);
}

static void check_invariants(const struct pk_fdinfo *fi, int ret, const char *text, size_t len)
{
	const unsigned all_engine = PK_ENGINE_NS | PK_ENGINE_CAPACITY | PK_ENGINE_CYCLES |
				    PK_ENGINE_TOTAL_CYCLES | PK_ENGINE_MAXFREQ;
	const unsigned all_mem = (1u << PK_MEM_KINDS) - 1;
	size_t newlines = 0, i;
	uint32_t a, b;

	CHECK(ret == 0 || ret == -ENOENT || ret == -ENOMEM);
	if (ret == -ENOMEM)
		return;
	CHECK((ret == 0) == !!(fi->has & PK_FDINFO_DRIVER));
	CHECK((fi->has & ~(unsigned)(PK_FDINFO_DRIVER | PK_FDINFO_PDEV | PK_FDINFO_CLIENT_ID |
				     PK_FDINFO_CLIENT_NAME)) == 0);

	for (i = 0; i < len; i++)
		newlines += text[i] == '\n';
	CHECK(fi->n_lines <= newlines + 1);
	CHECK(fi->n_malformed <= fi->n_lines);
	CHECK((fi->n_malformed == 0) == (fi->first_malformed == PK_NO_OFFSET));
	CHECK(fi->n_malformed == 0 || fi->first_malformed < len);
	CHECK((uint64_t)fi->n_engines + fi->n_regions + fi->n_extras <= fi->n_lines);

	CHECK(bounded_len(fi->driver, sizeof(fi->driver)) < PK_GPU_NAME_MAX);
	CHECK(bounded_len(fi->pdev, sizeof(fi->pdev)) < PK_GPU_NAME_MAX);
	CHECK(bounded_len(fi->client_name, sizeof(fi->client_name)) < PK_GPU_CLIENT_NAME_MAX);
	if (!(fi->has & PK_FDINFO_DRIVER))
		CHECK(fi->driver[0] == '\0');
	if (!(fi->has & PK_FDINFO_PDEV))
		CHECK(fi->pdev[0] == '\0');
	if (!(fi->has & PK_FDINFO_CLIENT_NAME))
		CHECK(fi->client_name[0] == '\0');
	if (!(fi->has & PK_FDINFO_CLIENT_ID))
		CHECK(fi->client_id == 0);

	CHECK(fi->n_engines == 0 || fi->engines != NULL);
	for (a = 0; a < fi->n_engines; a++) {
		const struct pk_fdinfo_engine *e = &fi->engines[a];
		size_t n = bounded_len(e->name, sizeof(e->name));

		CHECK(n > 0 && n < PK_GPU_NAME_MAX);
		CHECK(e->fields != 0 && (e->fields & ~all_engine) == 0);
		CHECK(e->capacity >= 1);
		if (!(e->fields & PK_ENGINE_CAPACITY))
			CHECK(e->capacity == 1);
		if (!(e->fields & PK_ENGINE_NS))
			CHECK(e->ns == 0);
		if (!(e->fields & PK_ENGINE_CYCLES))
			CHECK(e->cycles == 0);
		if (!(e->fields & PK_ENGINE_TOTAL_CYCLES))
			CHECK(e->total_cycles == 0);
		if (!(e->fields & PK_ENGINE_MAXFREQ))
			CHECK(e->maxfreq_hz == 0);
		for (b = 0; b < a; b++)
			CHECK(strcmp(fi->engines[b].name, e->name) != 0);
		CHECK(pk_fdinfo_engine(fi, e->name) == e);
	}

	CHECK(fi->n_regions == 0 || fi->regions != NULL);
	for (a = 0; a < fi->n_regions; a++) {
		const struct pk_fdinfo_region *r = &fi->regions[a];
		size_t n = bounded_len(r->name, sizeof(r->name));
		int k;

		CHECK(n > 0 && n < PK_GPU_NAME_MAX);
		CHECK(r->fields != 0 && (r->fields & ~all_mem) == 0);
		for (k = 0; k < PK_MEM_KINDS; k++)
			if (!(r->fields & (1u << k)))
				CHECK(r->bytes[k] == 0);
		for (b = 0; b < a; b++)
			CHECK(strcmp(fi->regions[b].name, r->name) != 0);
		CHECK(pk_fdinfo_region(fi, r->name) == r);
	}

	CHECK(fi->n_extras == 0 || fi->extras != NULL);
	CHECK(fi->store_len <= fi->store_cap);
	for (a = 0; a < fi->n_extras; a++) {
		const struct pk_fdinfo_pair *x = &fi->extras[a];
		size_t kn, vn;

		in_store(fi, x->key);
		in_store(fi, x->value);
		kn = strlen(x->key);
		vn = strlen(x->value);
		CHECK(kn > 0);
		for (i = 0; i < kn; i++)
			CHECK(!is_blank(x->key[i]) && x->key[i] != ':' && x->key[i] != '\n');
		CHECK(vn == 0 || (!is_blank(x->value[0]) && !is_blank(x->value[vn - 1])));
		CHECK(memchr(x->value, '\n', vn) == NULL);
		CHECK(strcmp(x->key, "pos") && strcmp(x->key, "flags") && strcmp(x->key, "mnt_id") &&
		      strcmp(x->key, "ino"));
		for (b = 0; b < a; b++)
			CHECK(strcmp(fi->extras[b].key, x->key) != 0);
		CHECK(pk_fdinfo_extra(fi, x->key) == x->value);
	}
}

/* Two results of the same text are the same. */
static void check_same(const struct pk_fdinfo *x, const struct pk_fdinfo *y)
{
	uint32_t i;
	int k;

	CHECK(x->has == y->has);
	CHECK(strcmp(x->driver, y->driver) == 0);
	CHECK(strcmp(x->pdev, y->pdev) == 0);
	CHECK(strcmp(x->client_name, y->client_name) == 0);
	CHECK(x->client_id == y->client_id);
	CHECK(x->n_engines == y->n_engines && x->n_regions == y->n_regions &&
	      x->n_extras == y->n_extras);
	CHECK(x->n_lines == y->n_lines && x->n_malformed == y->n_malformed &&
	      x->first_malformed == y->first_malformed);
	for (i = 0; i < x->n_engines; i++) {
		const struct pk_fdinfo_engine *a = &x->engines[i], *b = &y->engines[i];

		CHECK(strcmp(a->name, b->name) == 0 && a->fields == b->fields && a->ns == b->ns &&
		      a->cycles == b->cycles && a->total_cycles == b->total_cycles &&
		      a->maxfreq_hz == b->maxfreq_hz && a->capacity == b->capacity);
	}
	for (i = 0; i < x->n_regions; i++) {
		const struct pk_fdinfo_region *a = &x->regions[i], *b = &y->regions[i];

		CHECK(strcmp(a->name, b->name) == 0 && a->fields == b->fields);
		for (k = 0; k < PK_MEM_KINDS; k++)
			CHECK(a->bytes[k] == b->bytes[k]);
	}
	for (i = 0; i < x->n_extras; i++) {
		CHECK(strcmp(x->extras[i].key, y->extras[i].key) == 0);
		CHECK(strcmp(x->extras[i].value, y->extras[i].value) == 0);
	}
}

/* Kept across runs: each parse must replace everything the previous one left. */
static struct pk_fdinfo reused;
static int reused_ready;

static void one(const char *text, size_t len)
{
	struct pk_fdinfo fresh;
	int r1, r2;

	pk_fdinfo_init(&fresh);
	r1 = pk_fdinfo_parse(&reused, text, len);
	check_invariants(&reused, r1, text, len);
	r2 = pk_fdinfo_parse(&fresh, text, len);
	check_invariants(&fresh, r2, text, len);
	if (r1 != -ENOMEM && r2 != -ENOMEM) {
		CHECK(r1 == r2);
		check_same(&reused, &fresh);
	}
	pk_fdinfo_release(&fresh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!reused_ready) {
		pk_fdinfo_init(&reused);
		reused_ready = 1;
	}
	one((const char *)data, size);
	one((const char *)data + size / 2, size - size / 2);
	return 0;
}
