/*
 * emu_hw.c - struct hw over an emu_pmu, in process (see emu_hw.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_files.h"
#include "emu_hw.h"

/* One block: hw_free() only calls ops->close(ctx), which frees it all. */
struct emu_hw_ctx {
	struct hw hw;
	struct emu_pmu *pmu;
	int current_cpu;
	/* Per CPU: 0 closed, 1 open for reading, 2 open for writing. */
	unsigned char open_mode[EMU_MAX_CPUS];
	unsigned calls[EMU_HW_OP_COUNT];
	/* Injection: fire when calls[op] reaches inject_at[op] (1-based). */
	unsigned inject_at[EMU_HW_OP_COUNT];
	int inject_err[EMU_HW_OP_COUNT];
};

static const struct hw_ops emu_hw_ops;

/* Count the call; a pending injected error for it, or 0. */
static int
enter(struct emu_hw_ctx *ctx, enum emu_hw_op op)
{
	ctx->calls[op]++;
	if (ctx->inject_err[op] && ctx->calls[op] == ctx->inject_at[op]) {
		int err = ctx->inject_err[op];

		ctx->inject_err[op] = 0;
		return err;
	}
	return 0;
}

static int
emu_hw_cpuid(void *opaque, int cpu, struct cpu_raw_data_t *raw)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_CPUID);

	if (err)
		return err;
	if (cpu < 0)
		return -ENXIO;
	return emu_cpuid_raw(ctx->pmu, (unsigned)cpu, raw);
}

static int
emu_hw_cpuid_leaf(void *opaque, int cpu, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_CPUID);

	if (err)
		return err;
	if (cpu < 0)
		return -ENXIO;
	return emu_cpuid(ctx->pmu, (unsigned)cpu, leaf, subleaf, regs);
}

static int
open_cpu(struct emu_hw_ctx *ctx, int cpu, bool write)
{
	switch (ctx->pmu->config.msr) {
	case EMU_MSR_ABSENT:
		return -ENOENT;
	case EMU_MSR_EACCES:
		return -EACCES;
	case EMU_MSR_OK:
	case EMU_MSR_READONLY:
		break;
	}
	if (cpu < 0 || (unsigned)cpu >= ctx->pmu->ncpus)
		return -ENXIO;
	if (ctx->open_mode[cpu] < (write ? 2 : 1))
		ctx->open_mode[cpu] = write ? 2 : 1;
	return 0;
}

static int
emu_hw_msr_open(void *opaque, int cpu, bool write)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_MSR_OPEN);

	if (err)
		return err;
	return open_cpu(ctx, cpu, write);
}

static int
emu_hw_rdmsr(void *opaque, int cpu, uint32_t msr, uint64_t *val)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_RDMSR);

	if (err)
		return err;
	/* As hw_linux: a CPU the machine lacks has no /dev/cpu/N at all. */
	if (cpu < 0 || (unsigned)cpu >= EMU_MAX_CPUS)
		return -ENXIO;
	if (!ctx->open_mode[cpu]) {
		err = open_cpu(ctx, cpu, false);
		if (err)
			return err;
	}
	return emu_rdmsr(ctx->pmu, (unsigned)cpu, msr, val);
}

static int
emu_hw_wrmsr(void *opaque, int cpu, uint32_t msr, uint64_t val)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_WRMSR);

	if (err)
		return err;
	if (cpu < 0 || (unsigned)cpu >= EMU_MAX_CPUS)
		return -ENXIO;
	if (!ctx->open_mode[cpu]) {
		err = open_cpu(ctx, cpu, true);
		if (err)
			return err;
	}
	/* The msr driver: a read-only fd gives EBADF, lockdown or allow_writes=off EPERM. */
	if (ctx->open_mode[cpu] == 1)
		return -EBADF;
	if (emu_msr_writes_blocked(ctx->pmu))
		return -EPERM;
	return emu_wrmsr(ctx->pmu, (unsigned)cpu, msr, val);
}

static int
emu_hw_rdpmc_probe(void *opaque, int cpu)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_RDPMC_PROBE);

	if (err)
		return err;
	if (cpu < 0 || (unsigned)cpu >= ctx->pmu->ncpus)
		return -ENXIO;
	if (ctx->pmu->config.rdpmc_off || emu_cpu_type(ctx->pmu, (unsigned)cpu)->version == 0)
		return -EPERM;
	return 0;
}

static int
emu_hw_rdpmc(void *opaque, int cpu, uint32_t ecx, uint64_t *val)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_RDPMC);

	if (err)
		return err;
	if (cpu < 0 || (ctx->current_cpu >= 0 && cpu != ctx->current_cpu))
		return -EINVAL;
	return emu_rdpmc(ctx->pmu, (unsigned)cpu, ecx, val);
}

static int
emu_hw_read_file(void *opaque, enum hw_file file, char *buf, size_t size)
{
	struct emu_hw_ctx *ctx = opaque;
	const char *text;
	int err = enter(ctx, EMU_HW_OP_READ_FILE);

	if (err)
		return err;
	text = emu_file(ctx->pmu, file);
	if (!text)
		return -ENOENT;
	if (size == 0)
		return -EINVAL;
	snprintf(buf, size, "%s", text);
	return 0;
}

static int
emu_hw_write_file(void *opaque, enum hw_file file, const char *text)
{
	struct emu_hw_ctx *ctx = opaque;
	int err = enter(ctx, EMU_HW_OP_WRITE_FILE);

	if (err)
		return err;
	return emu_write_file(ctx->pmu, file, text);
}

static int
emu_hw_rdtsc(void *opaque, uint64_t *val)
{
	struct emu_hw_ctx *ctx = opaque;

	*val = ctx->pmu->tsc;
	return 0;
}

static void
emu_hw_close(void *opaque)
{
	free(opaque);
}

static const struct hw_ops emu_hw_ops = {
	.cpuid = emu_hw_cpuid,
	.cpuid_leaf = emu_hw_cpuid_leaf,
	.msr_open = emu_hw_msr_open,
	.rdmsr = emu_hw_rdmsr,
	.wrmsr = emu_hw_wrmsr,
	.rdpmc_probe = emu_hw_rdpmc_probe,
	.rdpmc = emu_hw_rdpmc,
	.read_file = emu_hw_read_file,
	.write_file = emu_hw_write_file,
	.rdtsc = emu_hw_rdtsc,
	.close = emu_hw_close,
};

struct hw *
emu_hw_new(struct emu_pmu *pmu)
{
	struct emu_hw_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->pmu = pmu;
	ctx->current_cpu = -1;
	ctx->hw.ops = &emu_hw_ops;
	ctx->hw.ctx = ctx;
	return &ctx->hw;
}

void
emu_hw_free(struct hw *hw)
{
	if (hw)
		hw->ops->close(hw->ctx);
}

static struct emu_hw_ctx *
ctx_of(struct hw *hw)
{
	return hw && hw->ops == &emu_hw_ops ? hw->ctx : NULL;
}

struct emu_pmu *
emu_hw_pmu(struct hw *hw)
{
	struct emu_hw_ctx *ctx = ctx_of(hw);

	return ctx ? ctx->pmu : NULL;
}

void
emu_hw_set_current_cpu(struct hw *hw, int cpu)
{
	struct emu_hw_ctx *ctx = ctx_of(hw);

	if (ctx)
		ctx->current_cpu = cpu;
}

void
emu_hw_inject(struct hw *hw, enum emu_hw_op op, unsigned after, int err)
{
	struct emu_hw_ctx *ctx = ctx_of(hw);

	if (!ctx || (unsigned)op >= EMU_HW_OP_COUNT)
		return;
	ctx->inject_err[op] = err;
	ctx->inject_at[op] = ctx->calls[op] + after + 1;
}

unsigned
emu_hw_calls(struct hw *hw, enum emu_hw_op op)
{
	struct emu_hw_ctx *ctx = ctx_of(hw);

	if (!ctx || (unsigned)op >= EMU_HW_OP_COUNT)
		return 0;
	return ctx->calls[op];
}
