/*
 * emu_preload_cpu.c - libpmuemu.so's CPUID (libcpuid's entry points, and
 * the instruction itself where the host can make it fault), rdtsc, and the
 * SIGSEGV handler that answers rdpmc and faulting CPUID and passes every
 * other fault to the program's own handler.
 */
#include <asm/prctl.h>
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "emu_pmu.h"
#include "emu_preload_internal.h"

/* ---- CPUID ---- */

static void
host_cpuid(uint32_t regs[4])
{
	uint32_t a, b, c, d;

	/* With faulting on, the instruction would trap into our own handler. */
	if (cpuid_faulting)
		syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
	__cpuid_count(regs[0], regs[2], a, b, c, d);
	if (cpuid_faulting)
		syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
	regs[0] = a;
	regs[1] = b;
	regs[2] = c;
	regs[3] = d;
}

/* The model's answer for the CPU we run on, or the host's for other leaves. */
static void
answer_cpuid(uint32_t regs[4])
{
	int cpu = sched_getcpu();

	if (emu && cpu >= 0 && emu_cpuid(emu, (unsigned)cpu, regs[0], regs[2], regs) == 0)
		return;
	host_cpuid(regs);
}

EXPORT void
cpu_exec_cpuid(uint32_t eax, uint32_t *regs)
{
	regs[0] = eax;
	regs[1] = regs[2] = regs[3] = 0;
	answer_cpuid(regs);
}

EXPORT void
cpu_exec_cpuid_ext(uint32_t *regs)
{
	answer_cpuid(regs);
}

/*
 * rdtsc: libcpuid's cpu_rdtsc(), which pmustat calls for it (hw_linux.c),
 * reads the machine's emulated TSC (moved only by the action tsc:N), so
 * that tests know what each read gives. Without a state: the host's.
 */
EXPORT void
cpu_rdtsc(uint64_t *result)
{
	uint32_t lo, hi;

	if (emu) {
		*result = __atomic_load_n(&emu->tsc, __ATOMIC_RELAXED);
		return;
	}
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	*result = ((uint64_t)hi << 32) | lo;
}

/* ---- SIGSEGV: rdpmc, CPUID faulting, and the program's own handler ---- */

static void
pass_to_program(int sig, siginfo_t *si, void *uc)
{
	struct sigaction act = app_segv;
	struct sigaction dfl;

	if (act.sa_flags & SA_RESETHAND) {
		app_segv.sa_handler = SIG_DFL;
		app_segv.sa_flags &= ~SA_SIGINFO;
	}
	if ((act.sa_flags & SA_SIGINFO) && act.sa_sigaction) {
		act.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(act.sa_flags & SA_SIGINFO) && act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN) {
		act.sa_handler(sig);
		return;
	}
	/*
	 * Default action: die of SIGSEGV like the program would. A fault
	 * happens again on return; a sent signal is sent again (it stays
	 * pending until the handler returns).
	 */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(SIGSEGV, &dfl, NULL);
	segv_installed = false;
	if (si->si_code != SI_KERNEL)
		raise(sig);
}

static void
segv_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *gregs = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)gregs[REG_RIP];
	int saved_errno = errno;

	/* #GP reports SI_KERNEL; page faults (SEGV_MAPERR...) never are ours. */
	if (emu && si->si_code == SI_KERNEL && ip && ip[0] == 0x0f) {
		if (ip[1] == 0x33) {
			int cpu = sched_getcpu();
			uint64_t val;

			if (cpu >= 0 && emu_rdpmc(emu, (unsigned)cpu, (uint32_t)gregs[REG_RCX], &val) == 0) {
				gregs[REG_RAX] = (greg_t)(val & 0xffffffffu);
				gregs[REG_RDX] = (greg_t)(val >> 32);
				gregs[REG_RIP] += 2;
				errno = saved_errno;
				return;
			}
		} else if (ip[1] == 0xa2 && cpuid_faulting) {
			uint32_t regs[4] = {
				(uint32_t)gregs[REG_RAX], 0, (uint32_t)gregs[REG_RCX], 0,
			};

			answer_cpuid(regs);
			gregs[REG_RAX] = regs[0];
			gregs[REG_RBX] = regs[1];
			gregs[REG_RCX] = regs[2];
			gregs[REG_RDX] = regs[3];
			gregs[REG_RIP] += 2;
			errno = saved_errno;
			return;
		}
	}
	errno = saved_errno;
	pass_to_program(sig, si, ucv);
}

int
install_segv(int extra_flags)
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = segv_handler;
	act.sa_flags = SA_SIGINFO | extra_flags;
	sigemptyset(&act.sa_mask);
	if (real_sigaction(SIGSEGV, &act, NULL) < 0)
		return -1;
	segv_installed = true;
	return 0;
}

EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	resolve();
	if (sig != SIGSEGV || !segv_installed)
		return real_sigaction(sig, act, old);
	if (old)
		*old = app_segv;
	if (act) {
		app_segv = *act;
		/* Run where the program wants its handler to run (sigaltstack). */
		install_segv(act->sa_flags & SA_ONSTACK);
	}
	return 0;
}

EXPORT sighandler_t
signal(int sig, sighandler_t handler)
{
	static sighandler_t (*real_signal)(int, sighandler_t);
	struct sigaction act, old;

	resolve();
	if (sig != SIGSEGV || !segv_installed) {
		if (!real_signal)
			real_signal = next_symbol("signal");
		return real_signal(sig, handler);
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction :
		old.sa_handler;
}

