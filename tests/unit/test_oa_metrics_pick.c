/*
 * Tests of pk_oa_metrics_load_for(): loading only the set a key selects
 * must give exactly what the whole-file load gives. The oracle is
 * pk_oa_metrics_load() (libxml2 over the whole document):
 *
 *  1. every set of the metric files of $PK_SHARED/data/intel-oa, looked up
 *     by symbol name, GUID (as written and upper-cased) and name: the set
 *     found is the same in every field and line, and fewer sets were parsed;
 *  2. markup that could mislead a scan of the file: decoy sets in comments,
 *     CDATA and processing instructions, a set nested below another
 *     element, '>' and "/>" inside attribute values, the lookup order
 *     (symbol name, then GUID, then name) across sets, CRLF and CR line
 *     ends, self-closing sets;
 *  3. files the scan must leave to the whole-file load (a DOCTYPE, another
 *     encoding, a reference in a set's start tag, a second root, an
 *     unknown key), and a broken selected set: the same result or the same
 *     error, word for word;
 *  4. what the documentation promises and the whole-file load does not: an
 *     error outside the selected set is not seen.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "../shared_data.h"
#include "../tap.h"
#include "../oa_set_diff.h"

enum path { FAST, WHOLE };

struct loaded {
	int err;
	struct pk_oa_metrics *m;
	struct pk_diag d;
};

static void load_both(const char *xml, const char *key, struct loaded *all, struct loaded *pick)
{
	size_t len = strlen(xml);

	pk_diag_init(&all->d);
	pk_diag_init(&pick->d);
	all->err = pk_oa_metrics_load_buf(xml, len, "t.xml", &all->m, &all->d);
	pick->err = pk_oa_metrics_load_buf_for(xml, len, "t.xml", key, &pick->m, &pick->d);
}

static void release(struct loaded *l)
{
	pk_oa_metrics_free(l->m);
}

/*
 * @xml loads both ways; @key finds the same set, whose name is @want_name
 * (NULL: no set); the picking load parsed @want_sets sets, or as many as
 * the whole file when @path is WHOLE.
 */
static void same_set(const char *what, const char *xml, const char *key, const char *want_name,
		     enum path path, size_t want_sets)
{
	struct loaded all, pick;
	const struct pk_oa_set_info *a, *p;
	const char *diff;

	load_both(xml, key, &all, &pick);
	if (!ok(all.err == 0 && pick.err == 0, "%s: both loads succeed", what)) {
		diag("whole: %d %s; picked: %d %s", all.err, all.d.msg, pick.err, pick.d.msg);
		release(&all);
		release(&pick);
		return;
	}
	a = pk_oa_metrics_find_set(all.m, key);
	p = pk_oa_metrics_find_set(pick.m, key);
	diff = oa_set_diff(a, p);
	ok(diff == NULL, "%s: the same set, field by field", what);
	if (diff)
		diag("first difference: %s", diff);
	if (want_name)
		is_str(p ? p->name : "(none)", want_name, "%s: the set is '%s'", what, want_name);
	else
		ok(p == NULL, "%s: no set found", what);
	if (path == WHOLE)
		want_sets = pk_oa_metrics_n_sets(all.m);
	is_int(pk_oa_metrics_n_sets(pick.m), want_sets, "%s: %zu sets parsed", what, want_sets);
	release(&all);
	release(&pick);
}

/* Both loads fail with the same errno and message. */
static void same_error(const char *what, const char *xml, const char *key, const char *want_in_msg)
{
	struct loaded all, pick;

	load_both(xml, key, &all, &pick);
	ok(all.err == -EBADMSG && pick.err == all.err, "%s: both fail with -EBADMSG (%d, %d)", what,
	   all.err, pick.err);
	is_str(pick.d.msg, all.d.msg, "%s: the same message", what);
	ok(strstr(pick.d.msg, want_in_msg) != NULL, "%s: message says '%s'", what, want_in_msg);
	ok(pick.m == NULL, "%s: nothing returned", what);
	release(&all);
	release(&pick);
}

/* ---- 1. the shared metric files ---------------------------------------------- */

static void test_file(const char *file, size_t n_sets)
{
	char path[1024], upper[64];
	struct pk_oa_metrics *all = NULL;
	struct pk_diag d;
	size_t bad = 0, checked = 0, most = 0;

	snprintf(path, sizeof(path), "data/intel-oa/%s", file);
	if (!shared_has(path)) {
		ok(1, "# SKIP %s: not under %s/data/intel-oa", file, shared_dir());
		return;
	}
	snprintf(path, sizeof(path), "%s/data/intel-oa/%s", shared_dir(), file);
	pk_diag_init(&d);
	if (!ok(pk_oa_metrics_load(path, &all, &d) == 0, "%s loads whole", file)) {
		diag("%s", d.msg);
		return;
	}
	is_int(pk_oa_metrics_n_sets(all), n_sets, "%s: %zu sets", file, n_sets);
	for (size_t i = 0; i < pk_oa_metrics_n_sets(all); i++) {
		const struct pk_oa_set_info *s = pk_oa_metrics_set(all, i);
		const char *keys[4] = { s->symbol_name, s->hw_config_guid, upper, s->name };

		snprintf(upper, sizeof(upper), "%s", s->hw_config_guid ? s->hw_config_guid : "");
		for (char *c = upper; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		for (size_t k = 0; k < 4; k++) {
			struct pk_oa_metrics *pick = NULL;
			const char *diff;

			if (!keys[k] || !keys[k][0])
				continue;
			pk_diag_init(&d);
			checked++;
			if (pk_oa_metrics_load_for(path, keys[k], &pick, &d)) {
				diag("%s: key '%s': %s", file, keys[k], d.msg);
				bad++;
				continue;
			}
			diff = oa_set_diff(pk_oa_metrics_find_set(all, keys[k]),
					   pk_oa_metrics_find_set(pick, keys[k]));
			if (diff) {
				diag("%s: key '%s': %s differs", file, keys[k], diff);
				bad++;
			}
			if (pk_oa_metrics_n_sets(pick) > most)
				most = pk_oa_metrics_n_sets(pick);
			pk_oa_metrics_free(pick);
		}
	}
	ok(checked >= 3 * n_sets && bad == 0,
	   "%s: every set by symbol name, GUID and name is the whole load's (%zu keys, %zu differ)",
	   file, checked, bad);
	ok(most >= 1 && most < n_sets / 2 + 1, "%s: at most %zu of %zu sets parsed for one key", file,
	   most, n_sets);
	pk_oa_metrics_free(all);
}

/* ---- 2. markup that could mislead a scan ----------------------------------- */

#define C(sym) "<counter name=\"" sym "\" symbol_name=\"" sym "\" data_type=\"uint64\" equation=\"1\"/>"

static void test_markup(void)
{
	same_set("a set in a comment before the real one",
		 "<?xml version=\"1.0\"?>\n<metrics>\n"
		 "  <!-- <set name=\"decoy\" symbol_name=\"K\"> -->\n"
		 "  <set name=\"other\" symbol_name=\"O\">" C("A") "</set>\n"
		 "  <set name=\"real\" symbol_name=\"K\">\n    " C("B") "\n  </set>\n</metrics>\n",
		 "K", "real", FAST, 1);
	/* "-->" overlapping the opener: the comment goes on to the next "-->" (found by fuzzing) */
	same_set("a comment opened by '<!-->' hides the set after it",
		 "<metrics>\n  <!--><set name=\"decoy\" symbol_name=\"K\">" C("A") "</set> -->\n"
		 "  <set name=\"real\" symbol_name=\"K\">" C("B") "</set>\n</metrics>\n",
		 "K", "real", FAST, 1);
	same_set("a set nested below another element is not one of the file's",
		 "<metrics><group><set name=\"nested\" symbol_name=\"K\"/></group>"
		 "<set name=\"top\" symbol_name=\"K\">" C("A") "</set>"
		 "<set name=\"o\" symbol_name=\"O\"/></metrics>",
		 "K", "top", FAST, 1);
	same_set("set markup inside CDATA and a processing instruction",
		 "<metrics><set name=\"real\" symbol_name=\"K\"><![CDATA[</set><set symbol_name=\"K\">]]>"
		 "<?pi </set> <set name=\"pi\" symbol_name=\"K\"> ?>" C("A") "</set>"
		 "<set name=\"after\" symbol_name=\"Z\">" C("B") "</set></metrics>",
		 "K", "real", FAST, 1);
	same_set("'>' and '/>' inside attribute values",
		 "<metrics><set name=\"a/>b\" chipset='x>y' symbol_name=\"K\">" C("A") C("B") "</set>"
		 "<set name=\"later\" symbol_name=\"L\">" C("C") "</set></metrics>",
		 "K", "a/>b", FAST, 1);
	same_set("symbol name before GUID before name, whatever the order in the file",
		 "<metrics>\n<set name=\"K\" symbol_name=\"S1\">" C("A") "</set>\n"
		 "<set name=\"n2\" symbol_name=\"S2\" hw_config_guid=\"k\">" C("A") "</set>\n"
		 "<set name=\"n3\" symbol_name=\"K\">" C("A") "</set>\n"
		 "<set name=\"n4\" symbol_name=\"S4\">" C("A") "</set>\n</metrics>",
		 "K", "n3", FAST, 3);
	same_set("a GUID in another case",
		 "<metrics><set name=\"n1\" symbol_name=\"S1\" hw_config_guid=\"ab-CD\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"S2\">" C("A") "</set></metrics>",
		 "AB-cd", "n1", FAST, 1);
	same_set("CRLF line ends: the same lines",
		 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<metrics>\r\n"
		 "<set name=\"o\" symbol_name=\"O\">\r\n" C("A") "\r\n</set>\r\n"
		 "<set\r\n name=\"real\"\r\n symbol_name=\"K\">\r\n" C("A") "\r\n" C("B") "\r\n</set>\r\n</metrics>\r\n",
		 "K", "real", FAST, 1);
	same_set("CR line ends: the same lines",
		 "<metrics>\r<set name=\"o\" symbol_name=\"O\">\r" C("A") "\r</set>\r"
		 "<set name=\"real\" symbol_name=\"K\">\r" C("B") "\r</set>\r</metrics>",
		 "K", "real", FAST, 1);
	same_set("a self-closing set",
		 "<metrics><set name=\"o\" symbol_name=\"O\">" C("A") "</set>"
		 "<set name=\"empty\" symbol_name=\"K\"/><set name=\"p\" symbol_name=\"P\"/></metrics>",
		 "K", "empty", FAST, 1);
	same_set("a UTF-8 byte order mark",
		 "\xEF\xBB\xBF<metrics><set name=\"r\xC3\xA9\" symbol_name=\"K\">" C("A") "</set>"
		 "<set name=\"o\" symbol_name=\"O\"/></metrics>",
		 "K", "r\xC3\xA9", FAST, 1);
}

/* ---- 3. left to the whole-file load ------------------------------------------ */

static void test_whole(void)
{
	same_set("a DOCTYPE with an entity",
		 "<!DOCTYPE metrics [<!ENTITY e \"K\">]><metrics>"
		 "<set name=\"n1\" symbol_name=\"K\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"O\">" C("A") "</set></metrics>",
		 "K", "n1", WHOLE, 0);
	same_set("another encoding",
		 "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><metrics>"
		 "<set name=\"r\xE9\" symbol_name=\"K\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"O\">" C("A") "</set></metrics>",
		 "K", "r\xC3\xA9", WHOLE, 0);
	same_set("a reference in a set's start tag",
		 "<metrics><set name=\"A &amp; B\" symbol_name=\"K\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"O\">" C("A") "</set></metrics>",
		 "K", "A & B", WHOLE, 0);
	same_set("a key with markup characters",
		 "<metrics><set name=\"A &amp; B\" symbol_name=\"S\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"O\">" C("A") "</set></metrics>",
		 "A & B", "A & B", WHOLE, 0);
	same_set("a key no set has",
		 "<metrics><set name=\"n1\" symbol_name=\"S\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"O\">" C("A") "</set></metrics>",
		 "nothing", NULL, WHOLE, 0);
	same_set("a namespace on the root",
		 "<metrics xmlns:x=\"urn:x\"><set name=\"n1\" symbol_name=\"K\">" C("A") "</set>"
		 "<set name=\"n2\" symbol_name=\"O\">" C("A") "</set></metrics>",
		 "K", "n1", WHOLE, 0);
	same_error("a second root", "<metrics><set name=\"n\" symbol_name=\"K\"/></metrics><metrics/>",
		   "K", "Extra content");
	same_error("text after the root", "<metrics><set name=\"n\" symbol_name=\"K\"/></metrics>x",
		   "K", "Extra content");
	same_error("another root element", "<sets><set name=\"n\" symbol_name=\"K\"/></sets>",
		   "K", "root element is <sets>");
	same_error("the selected set lacks an equation: the same line",
		   "<metrics>\n<set name=\"o\" symbol_name=\"O\"/>\n<set name=\"n\" symbol_name=\"K\">\n"
		   "<counter symbol_name=\"A\" data_type=\"uint64\"/>\n</set>\n</metrics>",
		   "K", "line 4: <counter> without equation");
	same_error("the selected set is not well formed",
		   "<metrics><set name=\"n\" symbol_name=\"K\"><counter></set></metrics>",
		   "K", "line 1");
	same_error("a file only mentioning the key, broken after it",
		   "<metrics><set name=\"KX\" symbol_name=\"S\"/><set name=\"o\" symbol_name=\"O\"><x></set></metrics>",
		   "K", "line 1");
	same_error("a '<' as the last byte",
		   "<metrics><set name=\"n\" symbol_name=\"K\"/></metrics>\n<", "K", "line 2");
	same_error("a truncated file", "<metrics><set name=\"n\" symbol_name=\"K\">" C("A"),
		   "K", "line 1");
}

/* ---- 4. errors outside the selected set ------------------------------------- */

static void test_elsewhere(void)
{
	static const char xml[] =
		"<metrics>\n<set name=\"n\" symbol_name=\"K\">" C("A") "</set>\n"
		"<set name=\"bad\" symbol_name=\"B\"><counter symbol_name=\"X\"/></set>\n</metrics>\n";
	struct loaded all, pick;

	load_both(xml, "K", &all, &pick);
	ok(all.err == -EBADMSG && strstr(all.d.msg, "line 3: <counter> without equation"),
	   "another set's missing equation fails the whole load: %s", all.d.msg);
	ok(pick.err == 0 && pk_oa_metrics_find_set(pick.m, "K") &&
	   pk_oa_metrics_find_set(pick.m, "K")->n_counters == 1,
	   "but not the load of set K (documented)");
	release(&all);
	release(&pick);
	load_both(xml, "B", &all, &pick);
	is_str(pick.d.msg, all.d.msg, "the load of the broken set fails as the whole load does");
	release(&all);
	release(&pick);
}

int main(void)
{
	test_file("oa-hsw.xml", 6);
	test_file("oa-bdw.xml", 24);
	test_file("oa-sklgt2.xml", 22);
	test_file("oa-tglgt2.xml", 26);
	test_markup();
	test_whole();
	test_elsewhere();
	return done_testing();
}
