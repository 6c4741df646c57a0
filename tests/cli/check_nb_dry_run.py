#!/usr/bin/env python3
"""check_nb_dry_run.py PMUSTAT CPUID_DUMP_DIR: `pmustat --dry-run --cpu-dump`
on the Northwood and Prescott dumps prints the NetBurst plan: which counter
and ESCR count each event, and the ESCR and CCCR writes in the SDM's
encodings (ESCR: event select 30:25, mask 24:9, T0_USR 2 / T0_OS 3; CCCR:
enable 12, ESCR select 15:13, 17:16 = 11b, compare 18, complement 19,
threshold 23:20, edge 24)."""

import os
import subprocess
import sys

pmustat, dumps = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


for dump, model, escrs in (("intel-netburst-northwood-pentium4-2.66ghz.txt", 2, 45),
                           ("intel-netburst-prescott-pentium4-640.txt", 4, 43)):
    path = os.path.join(dumps, dump)
    p = subprocess.run([pmustat, "--dry-run", "--cpu-dump", path, "-e",
                        "instr_retired:NBOGUSNTAG:threshold=3,cycles,branch-misses:k,"
                        "instr_retired:NBOGUSTAG:threshold=0:complement:edge", "--", "true"],
                       capture_output=True, text=True)
    out = p.stderr
    check(p.returncode == 0, "%s: exit %d: %s" % (dump, p.returncode, out))
    check("PMU: NetBurst, 18 counters x 40 bits, %d ESCRs (model %d)" % (escrs, model) in out,
          "%s: PMU line: %s" % (dump, out[:400]))
    # Three events for CRU_ESCR0/1 (instr_retired twice, mispred_branch_retired): two runs.
    check("4 events, 2 runs of the command" in out, "%s: two runs: %s" % (dump, out[:300]))
    # instr_retired NBOGUSNTAG, T0_USR; compare, threshold 3, ESCR select 4.
    check("0x4000204\t# MSR_CRU_ESCR" in out, "%s: instr_retired ESCR: %s" % (dump, out))
    check(" 0x378000\t# MSR_IQ_CCCR" in out and " 0x379000\t# MSR_IQ_CCCR" in out,
          "%s: threshold CCCR off and on: %s" % (dump, out))
    # global_power_events RUNNING on FSB_ESCR0 (select 6), no compare.
    check("wrmsr -p 0 0x3a2 0x26000204\t# MSR_FSB_ESCR0" in out, "%s: cycles ESCR: %s" % (dump, out))
    check(" 0x3d000\t# MSR_BPU_CCCR0: enable" in out, "%s: cycles CCCR: %s" % (dump, out))
    # mispred_branch_retired NBOGUS, kernel only: T0_OS.
    check("0x6000208\t# MSR_CRU_ESCR" in out, "%s: branch-misses:k ESCR: %s" % (dump, out))
    # NBOGUSTAG (bit 1), complement + edge, threshold 0: 0x8000 | 0x30000 | 0x40000 | 0x80000 | 0x1000000.
    check("0x4000404\t# MSR_CRU_ESCR" in out and " 0x10f9000\t# MSR_IQ_CCCR" in out,
          "%s: complement+edge: %s" % (dump, out))
    # Prescott has Hyper-Threading: logical processor 0 of the dump counts with the T0 bits.
    check(("T0 user" in out) == (model == 4), "%s: T0 bits named only with HT" % dump)
    check("restore: every register written back to the value found, the CCCRs first" in out,
          "%s: restore line" % dump)

if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print("ok")
