/*
 * The counters a report can print, as `i915-perf-reader -c list` lists them
 * (perfkit oa report -c list): "Available counters:", then one line per
 * counter available on the recording's device, by symbol name,
 * "Symbol:<pad> Name" with the names padded to the longest one; or, as
 * JSON, {metric_set, counters: [{symbol_name, name, description, units,
 * semantic_type, data_type}]} in the same order.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include <perfkit/oa.h>

static int print_text(const struct pk_oa_summary *s, FILE *f)
{
	const struct pk_oa_counter_info *c = s->set->counters;
	size_t width = 0;

	for (size_t i = 0; i < s->n_sel; i++) {
		size_t n = strlen(c[s->sel[i]].symbol_name);

		width = n > width ? n : width;
	}
	fputs("Available counters:\n", f);
	for (size_t i = 0; i < s->n_sel; i++) {
		const struct pk_oa_counter_info *k = &c[s->sel[i]];

		fprintf(f, "%s:%*s %s\n", k->symbol_name, (int)(width - strlen(k->symbol_name)), "",
			k->name ? k->name : "");
	}
	return 0;
}

/* @o[@key] = @value, or nothing when @value is NULL. 0 or -ENOMEM. */
static int add_str(json_object *o, const char *key, const char *value)
{
	json_object *v;

	if (!value)
		return 0;
	if (!(v = json_object_new_string(value)))
		return -ENOMEM;
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int print_json(const struct pk_oa_summary *s, FILE *f)
{
	json_object *root = json_object_new_object(), *list = NULL;
	int err = root ? add_str(root, "metric_set", s->set->symbol_name) : -ENOMEM;

	if (!err && (!(list = json_object_new_array()) || json_object_object_add(root, "counters", list))) {
		json_object_put(list);
		err = -ENOMEM;
	}
	for (size_t i = 0; !err && i < s->n_sel; i++) {
		const struct pk_oa_counter_info *k = &s->set->counters[s->sel[i]];
		json_object *o = json_object_new_object();

		if (!o || json_object_array_add(list, o)) {
			json_object_put(o);
			err = -ENOMEM;
			break;
		}
		err = add_str(o, "symbol_name", k->symbol_name);
		err = err ? err : add_str(o, "name", k->name);
		err = err ? err : add_str(o, "description", k->description);
		err = err ? err : add_str(o, "units", k->units);
		err = err ? err : add_str(o, "semantic_type", k->semantic_type);
		err = err ? err : add_str(o, "data_type", k->data_type == PK_OA_FLOAT ? "float" : "uint64");
	}
	if (!err) {
		fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
		      f);
		fputc('\n', f);
	}
	json_object_put(root);
	return err;
}

PK_API int pk_oa_summary_print_counters(const struct pk_oa_summary *s, FILE *f, bool json,
					struct pk_diag *diag)
{
	int err;

	if (!s->set)
		return pk_diag_fail(diag, -ENOENT, "no metric set: no counters to list");
	err = json ? print_json(s, f) : print_text(s, f);
	if (err)
		return pk_diag_fail(diag, err, "out of memory listing the counters");
	if (fflush(f) || ferror(f))
		return pk_diag_fail(diag, -EIO, "cannot write the counter list: %s", strerror(errno));
	return 0;
}
