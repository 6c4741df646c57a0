/*
 * invoker.h - the user pmustat works for, and acting with that user's rights.
 *
 * pmustat runs as root. The user who ran it is, under sudo, the one that
 * SUDO_UID and SUDO_GID name (root itself when they are absent); without
 * root, the real user. The command runs as that user (unless --as-root),
 * with that user's supplementary groups and HOME, USER, LOGNAME and SHELL,
 * as `sudo -u USER` would give them; the files pmustat writes for the user
 * (-o, --save-baseline, info --save-cpu-dump) are opened with that user's
 * rights (outfile.h).
 *
 * Nothing here fails open: a SUDO_UID or SUDO_GID that is not a plain
 * decimal id in range, a SUDO_UID of no user, or one of the two without
 * the other is an error naming the variable. pmustat never runs setuid,
 * setgid or with file capabilities: invoker_refuse_elevated() is the
 * first thing main() does.
 */
#ifndef PMUSTAT_INVOKER_H
#define PMUSTAT_INVOKER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pmustat_error;

#define INVOKER_MAX_GROUPS 256

struct invoker {
	uid_t uid;
	gid_t gid;
	gid_t groups[INVOKER_MAX_GROUPS];	/* supplementary, as sudo -u gives them */
	int ngroups;
	bool sudo;		/* root acting for SUDO_UID (which may be 0) */
	bool have_passwd;	/* name, home, shell below are the passwd entry's */
	char name[256];
	char home[PATH_MAX];
	char shell[PATH_MAX];
};

/*
 * 0 when this exec gave pmustat no rights its caller lacks; otherwise
 * -EPERM with the message. Installed setuid or setgid (the real and
 * effective ids differ), or with file capabilities (the kernel's secure
 * exec, AT_SECURE: capabilities permitted or effective beyond what the
 * caller had), pmustat would give whoever runs it rights over the command
 * and the files it writes; it is meant to run through sudo.
 */
int
invoker_refuse_elevated(const char *argv0, struct pmustat_error **err);

/* Parse a SUDO_UID/SUDO_GID value strictly: decimal, no sign, in range. 0 or -EINVAL. */
int
invoker_parse_id(const char *s, unsigned *out);

/* Who pmustat works for (see the top). 0, or -EINVAL / -ENOENT with a message naming the variable. */
int
invoker_get(struct invoker *inv, struct pmustat_error **err);

/*
 * Whether pmustat's process differs from @inv (root acting for another
 * user): then the command drops to @inv and files are opened as @inv.
 */
bool
invoker_is_other(const struct invoker *inv);

/*
 * The environment for the command run as @inv: @env with HOME, USER,
 * LOGNAME and SHELL from @inv's passwd entry. One malloc'd block (free()
 * it); NULL when out of memory.
 */
char **
invoker_environ(const struct invoker *inv, char *const env[]);

/*
 * pmustat's file-system identity while acting as the invoker: for the
 * files it writes for the user (outfile.h) and those it reads because the
 * user named them (--baseline, --cpu-dump).
 */
struct invoker_fs {
	bool switched;
	gid_t groups[INVOKER_MAX_GROUPS];
	int ngroups;
	gid_t fsgid;
};

/*
 * Act on files with @inv's rights (fsuid, fsgid, supplementary groups)
 * until invoker_fs_leave(). A no-op when pmustat already is @inv. Only
 * while no other thread runs. 0, or -errno with a message.
 */
int
invoker_fs_enter(const struct invoker *inv, struct invoker_fs *saved, struct pmustat_error **err);
void
invoker_fs_leave(struct invoker_fs *saved);

#endif
