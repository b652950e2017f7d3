/*
 * The Prometheus endpoint of `perfkit gpu serve`: a deliberately small
 * HTTP/1.1 server on one listening socket that answers GET (and HEAD)
 * /metrics with a fresh scan in the text exposition format.
 *
 * One connection is handled at a time, which is all a scraper needs, and
 * every wait is a poll() of at most 200 ms so *stop is seen promptly:
 *
 *   accept -> read the request head (5 s, at most 8 KiB) -> answer
 *          -> shut down our side, drain what the client still sends (1 s)
 *          -> close
 *
 * Answers: 200 with the metrics (Content-Type "text/plain; version=0.0.4;
 * charset=utf-8"); 404 for another path; 405 with "Allow: GET, HEAD" for
 * another method on /metrics; 400 for a malformed request line; 431 when
 * the head exceeds 8 KiB; 500 with the scanner's message when the scan
 * fails. Every answer says "Connection: close": one request per
 * connection. The query string is ignored. Writes use MSG_NOSIGNAL, so a
 * scraper that hangs up never raises SIGPIPE.
 *
 * Draining before close matters: closing a socket with unread input makes
 * the kernel send RST, which can destroy the answer in the client's
 * receive queue (a POST body we never read, for instance).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <perfkit/gpu.h>

#define SERVE_TICK_MS 200
#define SERVE_HEAD_MAX 8192
#define SERVE_READ_NS (5ull * 1000000000ull)
#define SERVE_WRITE_NS (10ull * 1000000000ull)
#define SERVE_DRAIN_NS (1ull * 1000000000ull)

/* Parse "A.B.C.D:PORT", "[v6]:PORT" or ":PORT" (every IPv4 address). */
static int parse_listen(const char *listen_addr, struct sockaddr_storage *ss, socklen_t *len,
			struct pk_diag *diag)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port_s;
	unsigned long port;
	char *end;
	size_t hl;
	bool v6 = false;

	if (!listen_addr || !*listen_addr)
		return pk_diag_fail(diag, -EINVAL, "no listen address: give ADDR:PORT");
	if (listen_addr[0] == '[') {
		const char *close = strchr(listen_addr, ']');

		if (!close || close[1] != ':')
			goto bad;
		hl = (size_t)(close - listen_addr - 1);
		if (hl >= sizeof(host))
			goto bad;
		memcpy(host, listen_addr + 1, hl);
		host[hl] = '\0';
		port_s = close + 2;
		v6 = true;
	} else {
		colon = strrchr(listen_addr, ':');
		if (!colon)
			goto bad;
		hl = (size_t)(colon - listen_addr);
		if (hl >= sizeof(host))
			goto bad;
		memcpy(host, listen_addr, hl);
		host[hl] = '\0';
		port_s = colon + 1;
	}
	if (*port_s < '0' || *port_s > '9')
		goto bad;
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (errno || *end || port > 65535)
		goto bad;

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (!host[0])
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	}
	return 0;
bad:
	pk_diag_fail(diag, -EINVAL, "invalid listen address: give A.B.C.D:PORT or [IPV6]:PORT");
	pk_diag_subject(diag, listen_addr);
	return -EINVAL;
}

static int open_listener(const char *listen_addr, int *port, struct pk_diag *diag)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	err = parse_listen(listen_addr, &ss, &len, diag);
	if (err)
		return err;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		err = -errno;
		close(fd);
		goto fail;
	}
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		err = -errno;
		close(fd);
		goto fail;
	}
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					       : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
fail:
	pk_diag_fail(diag, err, "cannot listen: %s", strerror(-err));
	pk_diag_subject(diag, listen_addr);
	if (err == -EADDRINUSE)
		pk_diag_hint(diag, "another process listens on that port: pick another one");
	else if (err == -EACCES)
		pk_diag_hint(diag, "ports below 1024 need root or CAP_NET_BIND_SERVICE");
	else if (err == -EADDRNOTAVAIL)
		pk_diag_hint(diag, "the address is not one of this machine's");
	return err;
}

/*
 * Wait until @fd is ready for @events, in ticks of 200 ms, until @deadline.
 * 1 ready, 0 deadline passed or *stop set, -errno on error.
 */
static int wait_fd(int fd, short events, uint64_t deadline, volatile sig_atomic_t *stop)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		uint64_t now = pk_now_ns();
		int ms, r;

		if ((stop && *stop) || now >= deadline)
			return 0;
		ms = (int)((deadline - now) / 1000000u) + 1;
		if (ms > SERVE_TICK_MS)
			ms = SERVE_TICK_MS;
		r = poll(&p, 1, ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 1;
	}
}

/* Send all of @p; 0, or -errno / -ETIMEDOUT (the caller just closes). */
static int send_all(int fd, const char *p, size_t n, volatile sig_atomic_t *stop)
{
	uint64_t deadline = pk_now_ns() + SERVE_WRITE_NS;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		w = wait_fd(fd, POLLOUT, deadline, stop);
		if (w <= 0)
			return w ? (int)w : -ETIMEDOUT;
	}
	return 0;
}

static int respond(int fd, int code, const char *reason, const char *extra_headers,
		   const char *content_type, const char *body, size_t body_len, bool head_only,
		   volatile sig_atomic_t *stop)
{
	char head[512];
	int n, err;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "%s"
		     "Server: perfkit/" PK_VERSION "\r\n"
		     "Connection: close\r\n"
		     "\r\n",
		     code, reason, content_type, body_len, extra_headers ? extra_headers : "");
	if (n < 0 || (size_t)n >= sizeof(head))
		return -EOVERFLOW;
	err = send_all(fd, head, (size_t)n, stop);
	if (!err && !head_only && body_len)
		err = send_all(fd, body, body_len, stop);
	return err;
}

static int respond_text(int fd, int code, const char *reason, const char *extra_headers,
			const char *text, bool head_only, volatile sig_atomic_t *stop)
{
	return respond(fd, code, reason, extra_headers, "text/plain; charset=utf-8", text,
		       strlen(text), head_only, stop);
}

/* The end of the request head in @buf: offset past "\r\n\r\n" (or "\n\n"), 0 if none yet. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static int serve_metrics(int fd, struct pk_gpu_scanner *sc, bool head_only,
			 volatile sig_atomic_t *stop)
{
	const struct pk_gpu_snapshot *snap;
	struct pk_diag d;
	struct pk_buf body;
	char msg[1024];
	int err;

	pk_diag_init(&d);
	err = pk_gpu_scanner_refresh(sc, &d);
	snap = err ? NULL : pk_gpu_scanner_snapshot(sc);
	if (!snap) {
		if (!err)
			pk_diag_fail(&d, -EINVAL, "no snapshot after the scan");
		pk_diag_str(&d, msg, sizeof(msg) - 16);
		strcat(msg, "\n");
		return respond_text(fd, 500, "Internal Server Error", NULL, msg, head_only, stop);
	}
	pk_buf_init(&body);
	err = pk_gpu_prom_write(snap, &body);
	if (err) {
		pk_buf_release(&body);
		snprintf(msg, sizeof(msg), "cannot format the metrics: %s\n", strerror(-err));
		return respond_text(fd, 500, "Internal Server Error", NULL, msg, head_only, stop);
	}
	err = respond(fd, 200, "OK", NULL, "text/plain; version=0.0.4; charset=utf-8",
		      body.data ? body.data : "", body.len, head_only, stop);
	pk_buf_release(&body);
	return err;
}

/*
 * Read one request from @fd and answer it. Errors only end this connection.
 * False when nothing was answered (the client hung up or stayed silent).
 */
static bool handle_conn(int fd, struct pk_gpu_scanner *sc, volatile sig_atomic_t *stop)
{
	char buf[SERVE_HEAD_MAX + 1];
	uint64_t deadline = pk_now_ns() + SERVE_READ_NS;
	size_t len = 0, end = 0;
	char *method, *target, *version, *sp, *q;
	bool head_only;

	while (!end) {
		ssize_t r;
		int w;

		if (len == SERVE_HEAD_MAX) {
			respond_text(fd, 431, "Request Header Fields Too Large", NULL,
				     "request head larger than 8 KiB\n", false, stop);
			return true;
		}
		r = recv(fd, buf + len, SERVE_HEAD_MAX - len, 0);
		if (r > 0) {
			size_t from = len > 3 ? len - 3 : 0;

			len += (size_t)r;
			end = head_end(buf + from, len - from);
			if (end)
				end += from;
			continue;
		}
		if (r == 0)
			return false; /* closed before a whole request */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return false;
		w = wait_fd(fd, POLLIN, deadline, stop);
		if (w <= 0)
			return false; /* silent for 5 s, an error, or stopping */
	}
	buf[len] = '\0';

	/* request line: METHOD SP TARGET SP HTTP/1.x CRLF */
	method = buf;
	sp = strpbrk(method, " \r\n");
	if (!sp || *sp != ' ')
		goto bad;
	*sp = '\0';
	target = sp + 1;
	sp = strpbrk(target, " \r\n");
	if (!sp || *sp != ' ')
		goto bad;
	*sp = '\0';
	version = sp + 1;
	sp = strpbrk(version, "\r\n");
	if (!sp)
		goto bad;
	*sp = '\0';
	if (!*method || !*target || strncmp(version, "HTTP/1.", 7) || !version[7] || version[8])
		goto bad;
	q = strchr(target, '?');
	if (q)
		*q = '\0';
	head_only = !strcmp(method, "HEAD");
	if (strcmp(target, "/metrics")) {
		respond_text(fd, 404, "Not Found", NULL, "not found: metrics are at /metrics\n",
			     head_only, stop);
		return true;
	}
	if (strcmp(method, "GET") && !head_only) {
		respond_text(fd, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n",
			     "method not allowed: use GET\n", false, stop);
		return true;
	}
	serve_metrics(fd, sc, head_only, stop);
	return true;
bad:
	respond_text(fd, 400, "Bad Request", NULL, "bad request\n", false, stop);
	return true;
}

/* After answering: no more output, take what the client still sends, then close. */
static void finish_conn(int fd, volatile sig_atomic_t *stop)
{
	uint64_t deadline = pk_now_ns() + SERVE_DRAIN_NS;
	char sink[4096];

	shutdown(fd, SHUT_WR);
	for (;;) {
		ssize_t r = recv(fd, sink, sizeof(sink), 0);

		if (r > 0)
			continue;
		if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			break;
		if (errno != EINTR && wait_fd(fd, POLLIN, deadline, stop) <= 0)
			break;
	}
	close(fd);
}

int pk_gpu_serve(struct pk_gpu_scanner *sc, const char *listen_addr, volatile sig_atomic_t *stop,
		 void (*ready)(void *ctx, int port), void *ready_ctx, struct pk_diag *diag)
{
	int lfd, port = 0;

	if (!sc)
		return pk_diag_fail(diag, -EINVAL, "no scanner to serve");
	lfd = open_listener(listen_addr, &port, diag);
	if (lfd < 0)
		return lfd;
	if (ready)
		ready(ready_ctx, port);
	while (!(stop && *stop)) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int r = poll(&p, 1, SERVE_TICK_MS), cfd;

		if (r <= 0)
			continue; /* timeout, or EINTR from a signal: look at *stop */
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (cfd < 0) {
			/* out of fds or memory: back off instead of spinning */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				poll(NULL, 0, SERVE_TICK_MS);
			continue;
		}
		if (handle_conn(cfd, sc, stop))
			finish_conn(cfd, stop);
		else
			close(cfd);
	}
	close(lfd);
	return 0;
}
