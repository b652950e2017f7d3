/*
 * libFuzzer target for the metric file loader (pk_oa_metrics_load_buf:
 * libxml2's streaming reader, a <set> at a time). The input is the file.
 * Loading must either succeed, with every set and counter carrying the
 * attributes the loader promises (names, equation, a known data type), or
 * fail with -EBADMSG or -EFBIG and a message; then each loaded set is looked
 * up by its symbol name and compiled (which may refuse its equations, with
 * a message), never crashing or leaking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>

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
		return 0;
	}
	for (size_t i = 0; i < pk_oa_metrics_n_sets(m); i++)
		check_set(m, pk_oa_metrics_set(m, i));
	pk_oa_metrics_free(m);
	return 0;
}
