/*
 * invoker.c - see invoker.h.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "base/invoker.h"
#include "base/err.h"

/* The capability sets this process holds: permitted and effective, as /proc/self/status shows them. */
static void
own_capabilities(unsigned long long *permitted, unsigned long long *effective)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	*permitted = *effective = 0;
	if (syscall(SYS_capget, &hdr, data) != 0)
		return;
	*permitted = (unsigned long long)data[1].permitted << 32 | data[0].permitted;
	*effective = (unsigned long long)data[1].effective << 32 | data[0].effective;
}

int
invoker_refuse_elevated(const char *argv0, struct pmustat_error **err)
{
	const char *self = argv0 && argv0[0] ? argv0 : "pmustat";
	unsigned long long permitted, effective;

	if (getuid() != geteuid() || getgid() != getegid())
		return err_set(err, -EPERM, "refusing to run set-user-ID or set-group-ID (real uid %u, effective uid %u, real gid %u, effective gid %u): it would give whoever runs it root's rights over the command and the files it writes; remove the bit (chmod u-s,g-s %s) and run pmustat through sudo",
			       (unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid(), (unsigned)getegid(), self);
	/*
	 * Same ids, yet the kernel marked this exec as one that gained
	 * rights: file capabilities (setcap) beyond the caller's, or a
	 * security module's transition.
	 */
	if (getauxval(AT_SECURE) == 0)
		return 0;
	own_capabilities(&permitted, &effective);
	return err_set(err, -EPERM, "refusing to run with capabilities its caller does not have (uid %u; permitted 0x%llx, effective 0x%llx: file capabilities, or a security module's transition): they would give whoever runs it rights over the command and the files it writes; remove them (setcap -r %s) and run pmustat through sudo",
		       (unsigned)getuid(), permitted, effective, self);
}

int
invoker_parse_id(const char *s, unsigned *out)
{
	unsigned long long v = 0;
	size_t n = 0;

	if (!s || !s[0])
		return -EINVAL;
	/* The form sudo writes: digits only, no leading zero but for "0" itself. */
	if (s[0] == '0' && s[1])
		return -EINVAL;
	for (; s[n]; n++) {
		if (s[n] < '0' || s[n] > '9' || n >= 10)
			return -EINVAL;
		v = v * 10 + (unsigned)(s[n] - '0');
	}
	/* (uid_t)-1 means "no change" to setuid() and friends: never an id. */
	if (v >= 0xffffffffull)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static void
fill_passwd(struct invoker *inv, const struct passwd *pw)
{
	inv->have_passwd = true;
	snprintf(inv->name, sizeof(inv->name), "%s", pw->pw_name ? pw->pw_name : "");
	snprintf(inv->home, sizeof(inv->home), "%s", pw->pw_dir ? pw->pw_dir : "/");
	snprintf(inv->shell, sizeof(inv->shell), "%s", pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh");
}

int
invoker_get(struct invoker *inv, struct pmustat_error **err)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	struct passwd *pw;
	unsigned uid, gid;
	int n;

	memset(inv, 0, sizeof(*inv));
	if (getuid() != 0) {
		/* Not root: pmustat acts as its own user; SUDO_* cannot change that. */
		inv->uid = getuid();
		inv->gid = getgid();
		n = getgroups(INVOKER_MAX_GROUPS, inv->groups);
		inv->ngroups = n > 0 ? n : 0;
		pw = getpwuid(inv->uid);
		if (pw)
			fill_passwd(inv, pw);
		return 0;
	}
	if (!u && !g) {
		inv->uid = 0;
		inv->gid = getgid();
		n = getgroups(INVOKER_MAX_GROUPS, inv->groups);
		inv->ngroups = n > 0 ? n : 0;
		pw = getpwuid(0);
		if (pw)
			fill_passwd(inv, pw);
		return 0;
	}
	if (!u || invoker_parse_id(u, &uid)) {
		return err_set(err, -EINVAL, "SUDO_UID=%s%s%s: %s; pmustat runs the command as the user sudo names there and will not guess (unset SUDO_UID and SUDO_GID to run it as root)",
			 u ? "'" : "", u ? u : "(unset)", u ? "'" : "",
			 u ? "not a user id (want a decimal number below 4294967295)" : "SUDO_GID is set without it");
	}
	if (!g || invoker_parse_id(g, &gid)) {
		return err_set(err, -EINVAL, "SUDO_GID=%s%s%s: %s; pmustat runs the command with the group sudo names there and will not guess",
			 g ? "'" : "", g ? g : "(unset)", g ? "'" : "",
			 g ? "not a group id (want a decimal number below 4294967295)" : "SUDO_UID is set without it");
	}
	errno = 0;
	pw = getpwuid((uid_t)uid);
	if (!pw) {
		return err_set(err, -ENOENT, "SUDO_UID=%u: no such user%s%s; pmustat runs the command as that user and needs its passwd entry",
			 uid, errno ? ": " : "", errno ? strerror(errno) : "");
	}
	inv->sudo = true;
	inv->uid = (uid_t)uid;
	inv->gid = (gid_t)gid;
	fill_passwd(inv, pw);
	/* The user's supplementary groups, as sudo -u would give them. */
	inv->ngroups = INVOKER_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, pw->pw_gid, inv->groups, &inv->ngroups) < 0) {
		return err_set(err, -E2BIG, "user %s (SUDO_UID=%u) is in more than %d groups; pmustat cannot give the command all of them",
			 pw->pw_name, uid, INVOKER_MAX_GROUPS);
	}
	/* SUDO_GID is the user's group (sudo sets it so); any other would be a group the user has not got. */
	for (int i = 0; i < inv->ngroups; i++)
		if (inv->groups[i] == inv->gid)
			return 0;
	return err_set(err, -EINVAL, "SUDO_GID=%u: not a group of user %s (SUDO_UID=%u); pmustat runs the command with the user's own groups only",
		 gid, pw->pw_name, uid);
}

bool
invoker_is_other(const struct invoker *inv)
{
	return geteuid() == 0 && inv->uid != 0;
}

static bool
is_var(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

char **
invoker_environ(const struct invoker *inv, char *const env[])
{
	static const char *const replaced[] = { "HOME", "USER", "LOGNAME", "SHELL" };
	const char *values[4];
	size_t n = 0, bytes = 0, k = 0;
	char **out, *p;

	values[0] = inv->home;
	values[1] = inv->name;
	values[2] = inv->name;
	values[3] = inv->shell;
	for (size_t i = 0; env && env[i]; i++)
		n++;
	for (size_t v = 0; v < 4; v++)
		bytes += strlen(replaced[v]) + 1 + strlen(values[v]) + 1;
	out = malloc((n + 5) * sizeof(*out) + bytes);
	if (!out)
		return NULL;
	p = (char *)(out + n + 5);
	for (size_t i = 0; env && env[i]; i++) {
		bool drop = false;

		for (size_t v = 0; v < 4 && !drop; v++)
			drop = is_var(env[i], replaced[v]);
		if (!drop)
			out[k++] = env[i];
	}
	for (size_t v = 0; v < 4; v++) {
		int len = sprintf(p, "%s=%s", replaced[v], values[v]);

		out[k++] = p;
		p += len + 1;
	}
	out[k] = NULL;
	return out;
}

int
invoker_fs_enter(const struct invoker *inv, struct invoker_fs *saved, struct pmustat_error **err)
{
	const gid_t *groups = inv->ngroups > 0 ? inv->groups : &inv->gid;
	size_t ngroups = inv->ngroups > 0 ? (size_t)inv->ngroups : 1;
	int n;

	memset(saved, 0, sizeof(*saved));
	if (!invoker_is_other(inv))
		return 0;
	n = getgroups(INVOKER_MAX_GROUPS, saved->groups);
	if (n < 0)
		goto fail;
	saved->ngroups = n;
	saved->fsgid = getegid();
	if (setgroups(ngroups, groups) != 0)
		goto fail;
	saved->switched = true;
	/* setfs[ug]id() return the old id whatever happens: read back to check. */
	(void)setfsgid(inv->gid);
	(void)setfsuid(inv->uid);
	if ((gid_t)setfsgid((gid_t)-1) != inv->gid || (uid_t)setfsuid((uid_t)-1) != inv->uid) {
		errno = EPERM;
		invoker_fs_leave(saved);
		goto fail;
	}
	return 0;
fail:
	n = errno;
	return err_set(err, -n, "cannot take the rights of uid %u to open files: %s", (unsigned)inv->uid,
		 strerror(n));
}

void
invoker_fs_leave(struct invoker_fs *saved)
{
	if (!saved->switched)
		return;
	(void)setfsuid(geteuid());
	(void)setfsgid(saved->fsgid);
	if (setgroups((size_t)saved->ngroups, saved->groups) != 0) {
		/* Root setting its own groups back does not fail; nothing else to do if it did. */
	}
	saved->switched = false;
}
