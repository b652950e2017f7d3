/*
 * libFuzzer target for the metric file loader (pk_oa_metrics_load_buf:
 * libxml2's streaming reader, a <set> at a time). The input is the file.
 * Loading must either succeed, with every set and counter carrying the
 * attributes the loader promises (names, equation, a known data type), or
 * fail with -EBADMSG or -EFBIG and a message; then each loaded set is looked
 * up by its symbol name and compiled (which may refuse its equations, with
 * a message), never crashing or leaking. Loading only the set a key selects
 * (pk_oa_metrics_load_buf_for) must give, for each set's symbol name and
 * GUID, the set the whole load gives, field by field; on a file the whole
 * load refuses it may succeed (errors outside the set go unseen) or fail
 * with a message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "../tests/oa_set_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void check_set(const struct pk_oa_metrics *m, const struct pk_oa_set_info *s)
{
	const struct pk_oa_devvars vars = { .eu_cores_total = 24, .eu_slices_total = 1,
					    .eu_subslices_total = 3, .eu_threads_count = 7,
					    .slice_mask = 1, .subslice_mask = 7,
					    .timestamp_frequency = 12500000 };
	struct pk_oa_eval *ev = NULL;
	struct pk_diag d;
	int err;

	CHECK(s->name && s->symbol_name && s->symbol_name[0] && s->file);
	CHECK(pk_oa_metrics_find_set(m, s->symbol_name) != NULL);
	for (size_t k = 0; k < s->n_counters; k++) {
		const struct pk_oa_counter_info *c = &s->counters[k];

		CHECK(c->name && c->symbol_name && c->symbol_name[0] && c->equation);
		CHECK(c->data_type == PK_OA_UINT64 || c->data_type == PK_OA_FLOAT);
	}
	pk_diag_init(&d);
	err = pk_oa_eval_new(s, &vars, NULL, &ev, &d);
	CHECK(err == 0 || d.msg[0] != '\0');
	pk_oa_eval_free(ev);
}

/* Loading for @key gives what @all (the whole load, NULL if it failed) finds. */
static void check_pick(const uint8_t *data, size_t size, const char *key,
		       const struct pk_oa_metrics *all)
{
	struct pk_oa_metrics *pick = NULL;
	struct pk_diag d;
	int err;

	if (!key)
		return;
	pk_diag_init(&d);
	err = pk_oa_metrics_load_buf_for(data, size, "fuzz.xml", key, &pick, &d);
	if (all)
		CHECK(err == 0 && !oa_set_diff(pk_oa_metrics_find_set(all, key),
					       pk_oa_metrics_find_set(pick, key)));
	else
		CHECK(err ? pick == NULL && (d.msg[0] || err == -ENOMEM) : pick != NULL);
	pk_oa_metrics_free(pick);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_oa_metrics *m = NULL;
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_oa_metrics_load_buf(data, size, "fuzz.xml", &m, &d);
	if (err) {
		CHECK(m == NULL && (err == -EBADMSG || err == -EFBIG || err == -ENOMEM));
		CHECK(d.msg[0] != '\0' || err == -ENOMEM);
		check_pick(data, size, "RenderBasic", NULL);
		return 0;
	}
	for (size_t i = 0; i < pk_oa_metrics_n_sets(m); i++) {
		const struct pk_oa_set_info *s = pk_oa_metrics_set(m, i);

		check_set(m, s);
		check_pick(data, size, s->symbol_name, m);
		check_pick(data, size, s->hw_config_guid, m);
		check_pick(data, size, s->name, m);
	}
	pk_oa_metrics_free(m);
	return 0;
}
