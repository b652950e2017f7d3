/*
 * libxml2 opened when the first metric file is read (xml_lib_int.h says
 * why): dlopen() of the soname the headers were built against, then each
 * function metrics.c calls looked up by name. It is opened once and never
 * closed: its parsers' state lives as long as the process. RTLD_LAZY binds
 * its own calls as they are first made, as when it was linked (RTLD_NOW
 * added 0.2 ms to `perfkit oa report`). pk_oa_metrics_prepare() opens it
 * on a thread of its own, while the caller reads its recording: loading
 * libxml2 with ICU and libstdc++ takes 3.5 ms of a fresh process.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <perfkit/oa.h>
#include "xml_lib_int.h"

struct oa_xml oa_xml;

int oa_xml_open_soname(const char *soname, struct oa_xml *x, struct pk_diag *diag)
{
	void *lib = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	xmlMallocFunc alloc_fn;
	xmlReallocFunc realloc_fn;
	xmlStrdupFunc strdup_fn;

	if (!lib)
		return pk_diag_fail(diag, -ELIBACC, "cannot load %s, needed to read metric files: %s",
				    soname, dlerror());
#define OA_XML_LOOK_UP(fn)                                                                  \
	if (!(*(void **)&x->fn = dlsym(lib, #fn))) {                                        \
		dlclose(lib);                                                               \
		return pk_diag_fail(diag, -ELIBBAD, "%s, needed to read metric files, has no %s()", \
				    soname, #fn);                                           \
	}
	OA_XML_FUNCTIONS(OA_XML_LOOK_UP)
#undef OA_XML_LOOK_UP
	if (x->xmlMemGet(&x->free, &alloc_fn, &realloc_fn, &strdup_fn) != 0 || !x->free) {
		dlclose(lib);
		return pk_diag_fail(diag, -ELIBBAD, "%s: xmlMemGet() gives no free function", soname);
	}
	return 0;
}

static struct pk_diag open_failure;
static pthread_once_t open_once = PTHREAD_ONCE_INIT;

static void open_library(void)
{
	pk_diag_init(&open_failure);
	oa_xml_open_soname(PK_LIBXML2_SONAME, &oa_xml, &open_failure);
}

static void *open_in_background(void *unused)
{
	(void)unused;
	pthread_once(&open_once, open_library);
	return NULL;
}

PK_API void pk_oa_metrics_prepare(void)
{
	static atomic_flag started = ATOMIC_FLAG_INIT;
	pthread_attr_t attr;
	pthread_t thread;

	if (atomic_flag_test_and_set(&started) || pthread_attr_init(&attr))
		return;
	/* detached: nobody waits for it but the first oa_xml_open(), through the once */
	if (!pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED))
		pthread_create(&thread, &attr, open_in_background, NULL);
	pthread_attr_destroy(&attr);
}

int oa_xml_open(struct pk_diag *diag)
{
	pthread_once(&open_once, open_library);
	if (open_failure.err)
		return pk_diag_fail(diag, open_failure.err, "%s", open_failure.msg);
	return 0;
}
