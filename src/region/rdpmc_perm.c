/*
 * rdpmc_perm.c - set the rdpmc file to 2 for a run and put it back (see
 * rdpmc_perm.h).
 */
#include "region/rdpmc_perm.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int
rdpmc_perm_read(struct hw *hw, enum hw_file file)
{
	char buf[32];
	const char *p = buf;
	int ret;

	if (!hw_file_is_rdpmc(file))
		return -EINVAL;
	ret = hw_read_file(hw, file, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	/* The kernel prints "%d\n". */
	if (*p < '0' || *p > '2')
		return -EPROTO;
	ret = *p++ - '0';
	while (*p == '\n' || *p == ' ')
		p++;
	return *p ? -EPROTO : ret;
}

int
rdpmc_perm_allow(struct hw *hw, enum hw_file file, struct rdpmc_perm *p)
{
	char text[4];
	int ret;

	p->file = file;
	p->found = -1;
	p->changed = false;
	ret = rdpmc_perm_read(hw, file);
	if (ret < 0)
		return ret;
	p->found = ret;
	if (ret == RDPMC_ALLOW_ANY)
		return 0;
	snprintf(text, sizeof(text), "%d\n", RDPMC_ALLOW_ANY);
	ret = hw_write_file(hw, file, text);
	if (ret < 0)
		return ret;
	p->changed = true;
	ret = rdpmc_perm_read(hw, file);
	if (ret < 0)
		return ret;
	return ret == RDPMC_ALLOW_ANY ? 0 : -EIO;
}

int
rdpmc_perm_restore(struct hw *hw, struct rdpmc_perm *p)
{
	char text[4];
	int ret;

	if (!p->changed)
		return 0;
	snprintf(text, sizeof(text), "%d\n", p->found);
	ret = hw_write_file(hw, p->file, text);
	if (ret == 0)
		p->changed = false;
	return ret;
}

static struct hw *signal_hw;
static enum hw_file signal_file;
static char signal_text[4];
static volatile sig_atomic_t signal_armed;

void
rdpmc_perm_arm_signal_restore(struct hw *hw, const struct rdpmc_perm *p)
{
	signal_armed = 0;
	if (!p || !p->changed)
		return;
	signal_hw = hw;
	signal_file = p->file;
	snprintf(signal_text, sizeof(signal_text), "%d\n", p->found);
	signal_armed = 1;
}

int
rdpmc_perm_restore_from_signal(void)
{
	if (!signal_armed)
		return 0;
	signal_armed = 0;
	return hw_write_file(signal_hw, signal_file, signal_text);
}

void
rdpmc_perm_explain(enum hw_file file, int err, char *buf, size_t size)
{
	const char *path = hw_file_path(file);
	const char *what;

	switch (-err) {
	case ENOENT:
		what = "does not exist: the kernel has no perf driver for this PMU (a VM without vPMU?), so user-mode rdpmc cannot be allowed";
		break;
	case EACCES:
	case EPERM:
		what = "is not writable: run pmustat as root (sudo) to let the program read the counters with rdpmc";
		break;
	case EPROTO:
		what = "holds a value other than 0, 1 or 2";
		break;
	case EIO:
		what = "did not take the value 2 (the kernel keeps rdpmc restricted)";
		break;
	case EOPNOTSUPP:
		what = "cannot be written here";
		break;
	default:
		what = strerror(-err);
		break;
	}
	snprintf(buf, size, "%s %s", path, what);
}
