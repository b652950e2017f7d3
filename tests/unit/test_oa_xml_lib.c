/*
 * Tests of libxml2's loading on demand (lib/oa/xml_lib.c):
 *
 *  1. the process has no libxml2 mapped until a metric file is read, and
 *     has it after (perfkit's other commands never load it);
 *  2. the library the headers were built for opens, with every function;
 *  3. pk_oa_metrics_prepare() maps it on a thread of its own, before any
 *     metric file is read;
 *  4. a library that cannot be found, and one that lacks libxml2's
 *     functions, are errors that name the library (and the function).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "oa/xml_lib_int.h"
#include "../tap.h"

/* Whether a file whose name starts with "libxml2.so" is mapped into this process. */
static bool libxml2_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libxml2.so") != NULL;
	fclose(f);
	return found;
}

/*
 * pk_oa_metrics_prepare() (in a child, whose libxml2 mapping is its own):
 * libxml2 is mapped without any metric file read, within 5 s; a second call
 * does nothing; a load then succeeds.
 */
static void test_prepare(void)
{
	static const char xml[] = "<metrics><set name=\"A\" symbol_name=\"A\"/></metrics>";
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		struct pk_oa_metrics *m = NULL;
		struct pk_diag d = { 0 };
		int waited = 0;

		if (libxml2_mapped())
			_exit(2);
		pk_oa_metrics_prepare();
		pk_oa_metrics_prepare();
		while (!libxml2_mapped() && waited++ < 500)
			usleep(10000);
		if (!libxml2_mapped())
			_exit(3);
		if (pk_oa_metrics_load_buf(xml, sizeof(xml) - 1, "tiny.xml", &m, &d) || !m)
			_exit(4);
		pk_oa_metrics_free(m);
		_exit(0);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid, "child ran");
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "prepare maps libxml2 on its own thread (2: mapped before; 3: never mapped; 4: the load then failed)");
}

static void test_loaded_on_demand(void)
{
	static const char xml[] =
		"<metrics version=\"1\"><set name=\"A\" symbol_name=\"A\" chipset=\"BDW\">"
		"<counter name=\"c\" symbol_name=\"C\" data_type=\"uint64\" equation=\"1\"/>"
		"</set></metrics>";
	struct pk_oa_metrics *m = NULL;
	struct pk_diag d = { 0 };

	ok(!libxml2_mapped(), "libxml2 is not mapped before a metric file is read");
	is_int(pk_oa_metrics_load_buf(xml, sizeof(xml) - 1, "tiny.xml", &m, &d), 0,
	       "a metric file loads: %s", d.msg);
	ok(m && pk_oa_metrics_n_sets(m) == 1, "its one set is read");
	ok(libxml2_mapped(), "libxml2 is mapped once a metric file was read");
	pk_oa_metrics_free(m);
}

static void test_open(void)
{
	struct oa_xml x;
	struct pk_diag d = { 0 };

	memset(&x, 0, sizeof(x));
	is_int(oa_xml_open_soname(PK_LIBXML2_SONAME, &x, &d), 0, "%s opens: %s", PK_LIBXML2_SONAME,
	       d.msg);
	ok(x.xmlReaderForMemory && x.xmlMemGet && x.free, "its functions are found");
	is_int(oa_xml_open(&d), 0, "oa_xml_open() succeeds");
	ok(oa_xml.xmlGetProp == x.xmlGetProp, "and fills oa_xml with the same library's functions");
}

static void test_errors(void)
{
	struct oa_xml x;
	struct pk_diag d = { 0 };

	is_int(oa_xml_open_soname("libperfkit-no-such-library.so.9", &x, &d), -ELIBACC,
	       "a missing library is -ELIBACC");
	ok(strstr(d.msg, "cannot load libperfkit-no-such-library.so.9, needed to read metric files"),
	   "the message names the library: %s", d.msg);
	pk_diag_init(&d);
	is_int(oa_xml_open_soname("libz.so.1", &x, &d), -ELIBBAD,
	       "a library without libxml2's functions is -ELIBBAD");
	is_str(d.msg, "libz.so.1, needed to read metric files, has no xmlReaderForMemory()",
	       "the message names the library and the function");
}

int main(void)
{
	test_prepare();
	test_loaded_on_demand();
	test_open();
	test_errors();
	return done_testing();
}
