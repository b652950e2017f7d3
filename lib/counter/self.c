/*
 * Self-monitoring: one event counting the calling thread, with its
 * perf_event_mmap_page mapped so that reads can skip the system call when
 * the page allows it (rdpmc on a hardware counter); otherwise, and for
 * software events, the value comes from read(2).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

int pk_self_counter_open(struct pk_self_counter *sc, const struct pk_event *ev,
			 struct pk_diag *diag)
{
	struct perf_event_attr attr = ev->attr;
	void *p;
	int fd;

	sc->fd = -1;
	sc->page = NULL;
	if (!attr.size || attr.size > sizeof(attr))
		attr.size = sizeof(attr);
	attr.read_format = PK_READ_TIMES;
	attr.disabled = 0;
	attr.inherit = 0;
	attr.enable_on_exec = 0;
	fd = pk_perf_open(&attr, 0, -1, -1, NULL);
	if (fd < 0) {
		if (fd == -EACCES || fd == -EPERM)
			return pk_perm_diag(diag, ev->name, fd);
		pk_diag_subject(diag, ev->name);
		return pk_diag_fail(diag, fd, "cannot open the event on this thread: %s",
				    strerror(-fd));
	}
	sc->fd = fd;
	/* Without the page every read goes through read(2); that is not an error. */
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED)
		sc->page = p;
	return 0;
}

int pk_self_counter_read(struct pk_self_counter *sc, struct pk_counts *out)
{
	uint64_t buf[3];
	ssize_t n;

	if (sc->fd < 0)
		return -EBADF;
	if (sc->page && pk_mmap_page_read(sc->page, out, NULL, NULL) == 0)
		return 0;
	do
		n = read(sc->fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (pk_read_format_decode(PK_READ_TIMES, buf, (size_t)n, out, NULL, 1) != 1)
		return -EBADMSG;
	return 0;
}

void pk_self_counter_close(struct pk_self_counter *sc)
{
	if (sc->page)
		munmap(sc->page, page_size());
	if (sc->fd >= 0)
		close(sc->fd);
	sc->page = NULL;
	sc->fd = -1;
}
