/*
 * libxml2 for the metric file loader (metrics.c), opened with dlopen() the
 * first time a metric file is read instead of linked into perfkit: libxml2
 * brings ICU and libstdc++, whose loading took about 1 ms of every perfkit
 * command's start (a quarter of `perfkit stat -- true`), while only the oa
 * commands read metric files. The headers are still libxml2's: each function
 * pointer has the type of the function it stands for, and the library opened
 * is the one the headers were built against (its soname, from the Makefile).
 */
#ifndef PERFKIT_OA_XML_LIB_INT_H
#define PERFKIT_OA_XML_LIB_INT_H

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <perfkit/core.h>

/* The library's soname: the Makefile gives the one of the headers' library. */
#ifndef PK_LIBXML2_SONAME
#define PK_LIBXML2_SONAME "libxml2.so.2"
#endif

/* The libxml2 functions metrics.c calls; a pointer of the same name for each. */
#define OA_XML_FUNCTIONS(F)                                                     \
	F(xmlReaderForMemory) F(xmlFreeTextReader) F(xmlTextReaderRead)         \
	F(xmlTextReaderNext) F(xmlTextReaderNodeType) F(xmlTextReaderConstName) \
	F(xmlTextReaderIsEmptyElement) F(xmlTextReaderDepth)                    \
	F(xmlTextReaderExpand) F(xmlTextReaderCurrentNode)                      \
	F(xmlTextReaderGetParserLineNumber)                                     \
	F(xmlTextReaderSetStructuredErrorHandler)                               \
	F(xmlNewParserCtxt) F(xmlFreeParserCtxt) F(xmlCtxtReadMemory)           \
	F(xmlCtxtGetLastError) F(xmlFreeDoc) F(xmlHasProp)                      \
	F(xmlSetStructuredErrorFunc) F(__xmlStructuredError)                    \
	F(__xmlStructuredErrorContext)                                          \
	F(xmlDocGetRootElement) F(xmlGetProp) F(xmlGetLineNo) F(xmlMemGet)

#define OA_XML_POINTER(fn) __typeof__(fn) *fn;

struct oa_xml {
	OA_XML_FUNCTIONS(OA_XML_POINTER)
	xmlFreeFunc free;       /* what xmlFree() is: frees xmlGetProp()'s strings */
};

/* libxml2's functions: filled by the first oa_xml_open(), valid once it returned 0. */
extern struct oa_xml oa_xml;

/*
 * Open libxml2 into oa_xml on the first call (thread-safe); later calls give
 * the first one's result. 0; -ELIBACC when the library cannot be loaded,
 * -ELIBBAD when it lacks a function, with @diag saying which.
 */
int oa_xml_open(struct pk_diag *diag);

/* The same from the library named @soname into *@x, on every call (tests). */
int oa_xml_open_soname(const char *soname, struct oa_xml *x, struct pk_diag *diag);

#endif
