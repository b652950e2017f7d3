/*
 * Field-by-field comparison of two loaded metric sets, shared by the unit
 * test and the fuzz target of pk_oa_metrics_load_for() (which must give the
 * set a whole-file load gives): the name of the first field that differs,
 * NULL when the sets are the same.
 */
#ifndef PERFKIT_TESTS_OA_SET_DIFF_H
#define PERFKIT_TESTS_OA_SET_DIFF_H

#include <string.h>
#include <perfkit/oa.h>

static int oa_str_differs(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);
}

static const char *oa_counter_diff(const struct pk_oa_counter_info *a,
				   const struct pk_oa_counter_info *b)
{
	if (oa_str_differs(a->name, b->name)) return "counter name";
	if (oa_str_differs(a->symbol_name, b->symbol_name)) return "counter symbol_name";
	if (oa_str_differs(a->underscore_name, b->underscore_name)) return "counter underscore_name";
	if (oa_str_differs(a->description, b->description)) return "counter description";
	if (oa_str_differs(a->units, b->units)) return "counter units";
	if (oa_str_differs(a->semantic_type, b->semantic_type)) return "counter semantic_type";
	if (oa_str_differs(a->equation, b->equation)) return "counter equation";
	if (oa_str_differs(a->max_equation, b->max_equation)) return "counter max_equation";
	if (oa_str_differs(a->availability, b->availability)) return "counter availability";
	if (a->data_type != b->data_type) return "counter data_type";
	if (a->line != b->line) return "counter line";
	return NULL;
}

static const char *oa_set_diff(const struct pk_oa_set_info *a, const struct pk_oa_set_info *b)
{
	if (!a || !b) return a == b ? NULL : "presence";
	if (oa_str_differs(a->name, b->name)) return "name";
	if (oa_str_differs(a->chipset, b->chipset)) return "chipset";
	if (oa_str_differs(a->symbol_name, b->symbol_name)) return "symbol_name";
	if (oa_str_differs(a->underscore_name, b->underscore_name)) return "underscore_name";
	if (oa_str_differs(a->hw_config_guid, b->hw_config_guid)) return "hw_config_guid";
	if (oa_str_differs(a->oa_format, b->oa_format)) return "oa_format";
	if (oa_str_differs(a->file, b->file)) return "file";
	if (a->line != b->line) return "line";
	if (a->n_register_configs != b->n_register_configs) return "n_register_configs";
	if (a->n_counters != b->n_counters) return "n_counters";
	for (size_t i = 0; i < a->n_counters; i++) {
		const char *d = oa_counter_diff(&a->counters[i], &b->counters[i]);

		if (d)
			return d;
	}
	return NULL;
}

#endif
