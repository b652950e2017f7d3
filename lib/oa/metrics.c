/*
 * Loading Intel's OA metric-set descriptions (oa-<platform>.xml, as shipped
 * in IGT's lib/i915/perf-configs/ and in Mesa) with libxml2's streaming
 * reader (opened on first use, xml_lib.c), into read-only pk_oa_set_info /
 * pk_oa_counter_info tables whose strings live in one arena owned by the
 * pk_oa_metrics. Each <set> is expanded into a small tree, copied and
 * dropped: the whole document is never built (a 790 KB file took 8 MB as a
 * tree, and most of its load time).
 *
 * Structure read (../shared/reference/gpu.md 4.1):
 *
 *   <metrics version=... merge_md5=...>                 root, required
 *     <set name chipset symbol_name underscore_name     name and symbol_name required
 *          hw_config_guid [oa_format] mdapi_*>
 *       <counter name symbol_name underscore_name       symbol_name, equation and
 *                description data_type units            data_type (uint64|float) required
 *                semantic_type equation [max_equation]
 *                [availability] mdapi_* [*_watermark]/>
 *       <register_config type [availability] ...>       counted only
 *         <register type address value/>
 *     </set>
 *   </metrics>
 *
 * Parsing never touches the network (XML_PARSE_NONET), never expands
 * external entities, and keeps libxml2 from printing (XML_PARSE_NOERROR,
 * NOWARNING, and for its errors outside the parser, such as running out of
 * memory while building a node, its structured error handler, taken for
 * the load and given back): its first error is turned into a pk_diag with
 * file and line, running out of memory into -ENOMEM. A document libxml2
 * returns after running out of memory (without the attribute it could not
 * copy) is never used.
 * Whitespace-only text is dropped and short text kept in the nodes
 * (NOBLANKS, COMPACT): fewer allocations, about 10 % of the load time.
 * Equations are checked later, when a set is compiled (eval.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <perfkit/oa.h>
#include "core/suggest.h"
#include "metrics_int.h"
#include "xml_lib_int.h"

/* Largest metric file read (the biggest of IGT's is under 1 MiB). */
#define MAX_FILE_BYTES (64u << 20)
/* Arena block size; longer strings get a block of their own. */
#define ARENA_BLOCK 65536

struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
};

struct pk_oa_metrics {
	struct pk_oa_set_info *sets;
	size_t n_sets, cap_sets;
	struct arena_blk *arena;
	const char *file;
	unsigned line_base;      /* lines before the bytes being parsed (one set's) */
};

static char *arena_strdup(struct pk_oa_metrics *m, const char *s)
{
	size_t len = strlen(s) + 1;
	struct arena_blk *b = m->arena;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > ARENA_BLOCK / 4 ? len : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		if (cap == len && m->arena) {
			/* a big string: keep filling the current block afterwards */
			b->next = m->arena->next;
			m->arena->next = b;
		} else {
			b->next = m->arena;
			m->arena = b;
		}
	}
	memcpy(b->data + b->used, s, len);
	b->used += len;
	return b->data + b->used - len;
}

PK_API void pk_oa_metrics_free(struct pk_oa_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_sets; i++)
		free((void *)m->sets[i].counters);
	free(m->sets);
	while (m->arena) {
		struct arena_blk *next = m->arena->next;

		free(m->arena);
		m->arena = next;
	}
	free(m);
}

/*
 * Attribute @name of @node copied into the arena: *out NULL when absent.
 * 0 or -ENOMEM (xmlGetProp's NULL is also its copy failing: only an
 * attribute xmlHasProp does not find is absent).
 */
static int attr(struct pk_oa_metrics *m, xmlNode *node, const char *name, const char **out)
{
	xmlChar *v = oa_xml.xmlGetProp(node, (const xmlChar *)name);

	*out = NULL;
	if (!v)
		return oa_xml.xmlHasProp(node, (const xmlChar *)name) ? -ENOMEM : 0;
	*out = arena_strdup(m, (const char *)v);
	oa_xml.free(v);
	return *out ? 0 : -ENOMEM;
}

static bool is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static unsigned line_of(const xmlNode *n)
{
	long l = oa_xml.xmlGetLineNo(n);

	return l > 0 && l <= UINT_MAX ? (unsigned)l : 0;
}

/* Line of @n in the file, where only one set of it may have been parsed. */
static unsigned file_line(const struct pk_oa_metrics *m, const xmlNode *n)
{
	unsigned l = line_of(n);

	return l && l <= UINT_MAX - m->line_base ? l + m->line_base : 0;
}

static int missing(const struct pk_oa_metrics *m, struct pk_diag *d, const xmlNode *n,
		   const char *what, const char *attr_name)
{
	return pk_diag_fail(d, -EBADMSG, "line %u: <%s> without %s", file_line(m, n), what, attr_name);
}

static int load_counter(struct pk_oa_metrics *m, xmlNode *node, struct pk_oa_counter_info *c,
			struct pk_diag *diag)
{
	const char *dt;
	int err;

	memset(c, 0, sizeof(*c));
	c->line = file_line(m, node);
	if ((err = attr(m, node, "name", &c->name)) ||
	    (err = attr(m, node, "symbol_name", &c->symbol_name)) ||
	    (err = attr(m, node, "underscore_name", &c->underscore_name)) ||
	    (err = attr(m, node, "description", &c->description)) ||
	    (err = attr(m, node, "units", &c->units)) ||
	    (err = attr(m, node, "semantic_type", &c->semantic_type)) ||
	    (err = attr(m, node, "equation", &c->equation)) ||
	    (err = attr(m, node, "max_equation", &c->max_equation)) ||
	    (err = attr(m, node, "availability", &c->availability)) ||
	    (err = attr(m, node, "data_type", &dt)))
		return err;
	if (!c->symbol_name || !c->symbol_name[0])
		return missing(m, diag, node, "counter", "symbol_name");
	if (!c->equation)
		return missing(m, diag, node, "counter", "equation");
	if (!dt)
		return missing(m, diag, node, "counter", "data_type");
	if (strcmp(dt, "uint64") == 0)
		c->data_type = PK_OA_UINT64;
	else if (strcmp(dt, "float") == 0)
		c->data_type = PK_OA_FLOAT;
	else
		return pk_diag_fail(diag, -EBADMSG, "line %u: counter '%s' has data_type '%s', not uint64 or float",
				    c->line, c->symbol_name, dt);
	if (!c->name)
		c->name = c->symbol_name;
	return 0;
}

static int load_set(struct pk_oa_metrics *m, xmlNode *node, struct pk_diag *diag)
{
	struct pk_oa_set_info *s;
	struct pk_oa_counter_info *ctrs = NULL;
	size_t cap = 0;
	int err;

	if (m->n_sets == m->cap_sets &&
	    pk_array_grow((void **)&m->sets, &m->cap_sets, m->n_sets + 1, sizeof(*m->sets), 16))
		return -ENOMEM;
	s = &m->sets[m->n_sets];
	memset(s, 0, sizeof(*s));
	s->line = file_line(m, node);
	s->file = m->file;
	if ((err = attr(m, node, "name", &s->name)) ||
	    (err = attr(m, node, "chipset", &s->chipset)) ||
	    (err = attr(m, node, "symbol_name", &s->symbol_name)) ||
	    (err = attr(m, node, "underscore_name", &s->underscore_name)) ||
	    (err = attr(m, node, "hw_config_guid", &s->hw_config_guid)) ||
	    (err = attr(m, node, "oa_format", &s->oa_format)))
		return err;
	if (!s->symbol_name || !s->symbol_name[0])
		return missing(m, diag, node, "set", "symbol_name");
	if (!s->name)
		return missing(m, diag, node, "set", "name");
	for (xmlNode *c = node->children; c; c = c->next) {
		if (is_elem(c, "register_config")) {
			s->n_register_configs++;
			continue;
		}
		if (!is_elem(c, "counter"))
			continue;
		if (s->n_counters == cap &&
		    pk_array_grow((void **)&ctrs, &cap, s->n_counters + 1, sizeof(*ctrs), 32)) {
			free(ctrs);
			return -ENOMEM;
		}
		if ((err = load_counter(m, c, &ctrs[s->n_counters], diag))) {
			free(ctrs);
			return err;
		}
		s->n_counters++;
	}
	s->counters = ctrs;
	m->n_sets++;
	return 0;
}

#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | \
		     XML_PARSE_BIG_LINES | XML_PARSE_NOBLANKS | XML_PARSE_COMPACT)

/* The metric file being read, and the first error libxml2 reported on it. */
struct xml_source {
	const void *buf;
	size_t len;
	const char *name;
	bool seen;
	bool no_memory;                 /* libxml2 ran out of memory, at any time */
	int line;
	char msg[300];
	xmlStructuredErrorFunc saved_handler;   /* the thread's, given back after the load */
	void *saved_context;
};

static void note_xml_error(struct xml_source *x, const xmlError *e)
{
	size_t n;

	if (e && e->code == XML_ERR_NO_MEMORY)
		x->no_memory = true;
	if (x->seen || !e || e->level < XML_ERR_ERROR)
		return;
	x->seen = true;
	x->line = e->line;
	snprintf(x->msg, sizeof(x->msg), "%s", e->message ? e->message : "not well-formed XML");
	n = strlen(x->msg);
	while (n && (x->msg[n - 1] == '\n' || x->msg[n - 1] == ' '))
		x->msg[--n] = '\0';
}

static void on_xml_error(void *arg, xmlErrorPtr e)
{
	note_xml_error(arg, e);
}

/*
 * libxml2's errors outside a parser context (tree.c's "building
 * attribute") go to the thread's structured handler: @x's for the load,
 * then the one there was (xml_quiet_end).
 */
static void xml_quiet_begin(struct xml_source *x)
{
	x->saved_handler = *oa_xml.__xmlStructuredError();
	x->saved_context = *oa_xml.__xmlStructuredErrorContext();
	oa_xml.xmlSetStructuredErrorFunc(x, on_xml_error);
}

static void xml_quiet_end(struct xml_source *x)
{
	oa_xml.xmlSetStructuredErrorFunc(x->saved_context, x->saved_handler);
}

/*
 * The file is not well formed. The streaming reader's message is vaguer
 * than the whole-document parser's at the end of a truncated or empty file
 * ("Extra content at the end of the document" rather than "Premature end of
 * data in tag set" or "Document is empty"): the document parser, run only
 * now, names the fault; the reader's first error stands if it finds none.
 */
static int xml_failed(struct pk_diag *diag, struct xml_source *x, xmlTextReaderPtr r)
{
	xmlParserCtxtPtr ctxt;

	if (x->no_memory)
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	ctxt = oa_xml.xmlNewParserCtxt();
	if (ctxt) {
		xmlDocPtr doc = oa_xml.xmlCtxtReadMemory(ctxt, x->buf, (int)x->len, x->name, NULL, XML_OPTIONS);

		if (!doc) {
			x->seen = false;
			note_xml_error(x, oa_xml.xmlCtxtGetLastError(ctxt));
		}
		oa_xml.xmlFreeDoc(doc);
		oa_xml.xmlFreeParserCtxt(ctxt);
	}
	if (x->no_memory)
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	if (x->seen)
		return pk_diag_fail(diag, -EBADMSG, "line %d: %s", x->line, x->msg);
	return pk_diag_fail(diag, -EBADMSG, "line %d: not well-formed XML",
			    oa_xml.xmlTextReaderGetParserLineNumber(r));
}

static bool reader_at(xmlTextReaderPtr r, int type, const char *name)
{
	return oa_xml.xmlTextReaderNodeType(r) == type &&
	       strcmp((const char *)oa_xml.xmlTextReaderConstName(r), name) == 0;
}

/*
 * The sets under the root, one at a time: each <set> is expanded into a
 * small tree, copied (load_set) and dropped as the reader moves on, so the
 * whole document is never held (a few hundred KiB instead of megabytes).
 */
static int read_sets(struct pk_oa_metrics *m, xmlTextReaderPtr r, struct xml_source *x,
		     struct pk_diag *diag)
{
	int ret;

	while ((ret = oa_xml.xmlTextReaderRead(r)) == 1 && oa_xml.xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
		;
	if (ret != 1)
		return xml_failed(diag, x, r);
	if (!reader_at(r, XML_READER_TYPE_ELEMENT, "metrics"))
		return pk_diag_fail(diag, -EBADMSG, "line %u: root element is <%s>, not <metrics>",
				    line_of(oa_xml.xmlTextReaderCurrentNode(r)),
				    (const char *)oa_xml.xmlTextReaderConstName(r));
	ret = oa_xml.xmlTextReaderIsEmptyElement(r) ? oa_xml.xmlTextReaderNext(r) : oa_xml.xmlTextReaderRead(r);
	while (ret == 1 && oa_xml.xmlTextReaderDepth(r) > 0) {
		if (reader_at(r, XML_READER_TYPE_ELEMENT, "set")) {
			xmlNode *set = oa_xml.xmlTextReaderExpand(r);
			int err;

			if (!set)
				return xml_failed(diag, x, r);
			if ((err = load_set(m, set, diag)))
				return x->no_memory ? xml_failed(diag, x, r) : err;
			ret = oa_xml.xmlTextReaderNext(r);
		} else if (oa_xml.xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT) {
			ret = oa_xml.xmlTextReaderNext(r);
		} else {
			ret = oa_xml.xmlTextReaderRead(r);
		}
	}
	/* the rest of the document must be well formed too */
	while (ret == 1)
		ret = oa_xml.xmlTextReaderRead(r);
	return ret == 0 && !x->seen && !x->no_memory ? 0 : xml_failed(diag, x, r);
}

static struct pk_oa_metrics *metrics_new(const char *name)
{
	struct pk_oa_metrics *m = calloc(1, sizeof(*m));

	if (m && !(m->file = arena_strdup(m, name))) {
		free(m);
		return NULL;
	}
	return m;
}

/* The whole file, a set at a time through the streaming reader. */
static int load_all(struct xml_source *x, struct pk_oa_metrics **out, struct pk_diag *diag)
{
	struct pk_oa_metrics *m = metrics_new(x->name);
	xmlTextReaderPtr r;
	int err;

	if (!m)
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	x->seen = x->no_memory = false;
	r = oa_xml.xmlReaderForMemory(x->buf, (int)x->len, x->name, NULL, XML_OPTIONS);
	if (!r) {
		pk_oa_metrics_free(m);
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}
	oa_xml.xmlTextReaderSetStructuredErrorHandler(r, on_xml_error, x);
	err = read_sets(m, r, x, diag);
	oa_xml.xmlFreeTextReader(r);
	if (err) {
		pk_oa_metrics_free(m);
		return err;
	}
	*out = m;
	return 0;
}

/*
 * One set parsed from its bytes, @sp of @buf, and added to @m. A document
 * libxml2 returns after an error (it goes on without the attribute it had
 * no memory for) is refused.
 */
static int load_span(struct pk_oa_metrics *m, struct xml_source *x, const struct oa_set_span *sp)
{
	xmlParserCtxtPtr ctxt = oa_xml.xmlNewParserCtxt();
	const xmlError *e;
	xmlDocPtr doc;
	int err;

	if (!ctxt)
		return -ENOMEM;
	doc = oa_xml.xmlCtxtReadMemory(ctxt, (const char *)x->buf + sp->start, (int)(sp->end - sp->start),
				       x->name, NULL, XML_OPTIONS);
	e = oa_xml.xmlCtxtGetLastError(ctxt);
	m->line_base = sp->line - 1;
	if (!doc || (e && e->level >= XML_ERR_ERROR))
		err = -EBADMSG;
	else
		err = load_set(m, oa_xml.xmlDocGetRootElement(doc), NULL);
	if (x->no_memory || (e && e->code == XML_ERR_NO_MEMORY))
		err = -ENOMEM;
	oa_xml.xmlFreeDoc(doc);
	oa_xml.xmlFreeParserCtxt(ctxt);
	return err;
}

/*
 * Only the sets that may be @key's, @spans (metrics_scan.c), each parsed from
 * its own bytes. Any failure sends the caller to load_all(), which words the
 * errors with the whole file in view.
 */
static int load_picked(struct xml_source *x, const char *key, const struct oa_set_span *spans,
		       size_t n, struct pk_oa_metrics **out)
{
	struct pk_oa_metrics *m = metrics_new(x->name);
	int err = 0;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++)
		err = load_span(m, x, &spans[i]);
	if (!err && !pk_oa_metrics_find_set(m, key))
		err = -ENOENT;         /* only mentioned: the whole load says if the file is sound */
	if (err) {
		pk_oa_metrics_free(m);
		return err;
	}
	*out = m;
	return 0;
}

PK_API int pk_oa_metrics_load_buf_for(const void *buf, size_t len, const char *name,
				      const char *key, struct pk_oa_metrics **out,
				      struct pk_diag *diag)
{
	struct xml_source x = { .buf = buf, .len = len, .name = name ? name : "(memory)" };
	struct oa_set_span *spans = NULL;
	size_t n = 0;
	bool picked;
	int err;

	*out = NULL;
	pk_diag_subject(diag, x.name);
	if (len > INT_MAX || len > MAX_FILE_BYTES)
		return pk_diag_fail(diag, -EFBIG, "metric file of %zu bytes is too large", len);
	/*
	 * The sets that may be @key's are found without libxml2, while
	 * pk_oa_metrics_prepare()'s thread may still be loading it. No spans
	 * (-ENOTSUP: the file does not split safely) load the whole file.
	 */
	picked = key && key[0] && oa_metrics_scan_sets(buf, len, key, &spans, &n) == 0 && n;
	if ((err = oa_xml_open(diag))) {
		free(spans);
		return err;
	}
	xml_quiet_begin(&x);
	if (!picked || load_picked(&x, key, spans, n, out) != 0)
		err = load_all(&x, out, diag);
	xml_quiet_end(&x);
	free(spans);
	return err;
}

PK_API int pk_oa_metrics_load_buf(const void *buf, size_t len, const char *name,
				  struct pk_oa_metrics **out, struct pk_diag *diag)
{
	return pk_oa_metrics_load_buf_for(buf, len, name, NULL, out, diag);
}

PK_API int pk_oa_metrics_load_for(const char *path, const char *key, struct pk_oa_metrics **out,
				  struct pk_diag *diag)
{
	struct pk_file_data f;
	int err;

	*out = NULL;
	err = pk_file_data_load(path, MAX_FILE_BYTES, &f);
	if (err) {
		pk_file_data_release(&f);
		pk_diag_subject(diag, path);
		if (err == -EFBIG)
			return pk_diag_fail(diag, err, "metric file larger than %u bytes", MAX_FILE_BYTES);
		return pk_diag_fail(diag, err, "cannot read metric file: %s", strerror(-err));
	}
	err = pk_oa_metrics_load_buf_for(f.data ? f.data : "", f.len, path, key, out, diag);
	pk_file_data_release(&f);
	return err;
}

PK_API int pk_oa_metrics_load(const char *path, struct pk_oa_metrics **out, struct pk_diag *diag)
{
	return pk_oa_metrics_load_for(path, NULL, out, diag);
}

PK_API size_t pk_oa_metrics_n_sets(const struct pk_oa_metrics *m)
{
	return m->n_sets;
}

PK_API const struct pk_oa_set_info *pk_oa_metrics_set(const struct pk_oa_metrics *m, size_t i)
{
	return i < m->n_sets ? &m->sets[i] : NULL;
}

PK_API const struct pk_oa_set_info *pk_oa_metrics_find_set(const struct pk_oa_metrics *m,
							   const char *key)
{
	if (!key)
		return NULL;
	for (size_t i = 0; i < m->n_sets; i++)
		if (strcmp(m->sets[i].symbol_name, key) == 0)
			return &m->sets[i];
	for (size_t i = 0; i < m->n_sets; i++)
		if (m->sets[i].hw_config_guid && strcasecmp(m->sets[i].hw_config_guid, key) == 0)
			return &m->sets[i];
	for (size_t i = 0; i < m->n_sets; i++)
		if (strcmp(m->sets[i].name, key) == 0)
			return &m->sets[i];
	for (size_t i = 0; i < m->n_sets; i++)     /* as i915-perf-recorder -m */
		if (strcasecmp(m->sets[i].symbol_name, key) == 0)
			return &m->sets[i];
	return NULL;
}

PK_API int pk_oa_set_counter_index(const struct pk_oa_set_info *set, const char *sym)
{
	for (size_t i = 0; sym && i < set->n_counters && i < INT_MAX; i++)
		if (strcmp(set->counters[i].symbol_name, sym) == 0)
			return (int)i;
	return -1;
}

PK_API void pk_oa_metrics_suggest_set(const struct pk_oa_metrics *m, const char *key,
				      struct pk_diag *diag)
{
	struct pk_suggest sg;

	pk_suggest_init(&sg, key, strlen(key));
	for (size_t i = 0; i < m->n_sets; i++)
		pk_suggest_add(&sg, m->sets[i].symbol_name);
	pk_suggest_hint(&sg, diag);
}

PK_API void pk_oa_set_suggest_counter(const struct pk_oa_set_info *set, const char *name,
				      size_t len, struct pk_diag *diag)
{
	struct pk_suggest sg;

	pk_suggest_init(&sg, name, len);
	for (size_t i = 0; i < set->n_counters; i++)
		pk_suggest_add(&sg, set->counters[i].symbol_name);
	pk_suggest_hint(&sg, diag);
}
