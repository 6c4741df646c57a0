/*
 * command_control.c - see command_control.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine/command_control.h"
#include "hw/proc.h"

/* SIGTERM to the command through its pidfd: never to another process that took its pid. */
static void
terminate(struct command_control *k)
{
#ifdef SYS_pidfd_send_signal
	if (k->pidfd >= 0 && syscall(SYS_pidfd_send_signal, k->pidfd, SIGTERM, NULL, 0) == 0)
		k->timed_out = true;
#else
	(void)k;
#endif
}

static void
ack(const struct command_control *k)
{
	if (k->ack_fd >= 0)
		(void)!write(k->ack_fd, "ack\n", 4);
}

int
command_control_byte(struct command_control *k, char c)
{
	if (c != '\n' && c != '\0') {
		if (k->len + 1 < sizeof(k->line))
			k->line[k->len++] = c;
		return 0;
	}
	k->line[k->len] = '\0';
	k->len = 0;
	if (strcmp(k->line, "enable") == 0 || strcmp(k->line, "disable") == 0) {
		if (k->set_enabled)
			k->set_enabled(k->arg, k->line[0] == 'e');
		ack(k);
		return 1;
	}
	if (strcmp(k->line, "ping") == 0) {
		ack(k);
		return 1;
	}
	return k->line[0] ? -1 : 0;
}

static void *
control(void *arg)
{
	struct command_control *k = arg;
	double start = clock_monotonic_seconds();
	bool delay_due = k->delay_ms > 0, timeout_due = k->timeout_ms > 0;
	struct pollfd fds[2];

	fds[0].fd = k->stop_fd;
	fds[0].events = POLLIN;
	fds[1].fd = k->ctl_fd;
	fds[1].events = POLLIN;
	for (;;) {
		double now = clock_monotonic_seconds() - start, next = -1;
		int timeout = -1, rc;

		if (delay_due && now * 1000 >= k->delay_ms) {
			k->set_enabled(k->arg, true);
			delay_due = false;
		}
		if (timeout_due && now * 1000 >= k->timeout_ms) {
			terminate(k);
			timeout_due = false;
		}
		if (delay_due)
			next = k->delay_ms / 1000.0;
		if (timeout_due && (next < 0 || k->timeout_ms / 1000.0 < next))
			next = k->timeout_ms / 1000.0;
		if (next >= 0)
			timeout = (int)((next - now) * 1000.0) + 1;
		rc = poll(fds, fds[1].fd >= 0 ? 2 : 1, timeout);
		if (rc < 0 && errno != EINTR)
			break;
		if (rc <= 0)
			continue;
		if (fds[0].revents)
			break;
		if (fds[1].revents) {
			char buf[256];
			ssize_t n = read(fds[1].fd, buf, sizeof(buf));

			/* The command closed it (or it failed): no more commands. */
			if (n <= 0 && !(n < 0 && (errno == EINTR || errno == EAGAIN))) {
				fds[1].fd = -1;
				continue;
			}
			for (ssize_t i = 0; i < n; i++)
				(void)command_control_byte(k, buf[i]);
		}
	}
	return NULL;
}

int
command_control_start(struct command_control *k, pid_t pid)
{
	int rc;

	k->started = false;
	k->timed_out = false;
	k->len = 0;
	k->pidfd = -1;
	k->stop_fd = -1;
	if (!k->timeout_ms && k->delay_ms <= 0 && k->ctl_fd < 0)
		return 0;
	if (k->timeout_ms) {
		k->pidfd = proc_pidfd(pid);
		if (k->pidfd < 0)
			return k->pidfd;
	}
	k->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (k->stop_fd < 0) {
		rc = -errno;
		goto fail;
	}
	rc = -pthread_create(&k->thread, NULL, control, k);
	if (rc)
		goto fail;
	k->started = true;
	return 0;
fail:
	if (k->pidfd >= 0)
		close(k->pidfd);
	if (k->stop_fd >= 0)
		close(k->stop_fd);
	k->pidfd = k->stop_fd = -1;
	return rc;
}

bool
command_control_stop(struct command_control *k)
{
	uint64_t one = 1;

	if (!k->started)
		return false;
	(void)!write(k->stop_fd, &one, sizeof(one));
	pthread_join(k->thread, NULL);
	k->started = false;
	close(k->stop_fd);
	if (k->pidfd >= 0)
		close(k->pidfd);
	k->pidfd = k->stop_fd = -1;
	return k->timed_out;
}
