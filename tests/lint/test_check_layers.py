#!/usr/bin/env python3
"""scripts/check-layers on small trees: it passes a clean one and fails each kind of violation."""

import os
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]


def run(files, debt=""):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(root, "scripts"), exist_ok=True)
        with open(os.path.join(root, "scripts", "check-layers.debt"), "w") as f:
            f.write(debt)
        p = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
        return p.returncode, p.stderr


def expect(name, got, rc, needle=""):
    code, err = got
    if code != rc or needle not in err:
        print("FAIL %s: exit %d (wanted %d), stderr:\n%s" % (name, code, rc, err))
        sys.exit(1)
    print("ok %s" % name)


clean = {
    "src/base/err.h": "int x;\n",
    "src/pmu/pmu.c": '#include "base/err.h"\n',
    "src/pmus/netburst/nb.c": '#include "pmu/pmu.h"\n/* ESCRs and CCCRs */\n',
    "src/engine/run.c": '#include "pmus/families.h"\n#include "pmu/pmu.h"\n',
}
expect("clean tree", run(clean), 0)
expect("family word outside its folder",
       run(dict(clean, **{"src/engine/plan.c": "/* the NetBurst PMU */\n"})), 1, "src/engine/plan.c:1 names a PMU family")
expect("register name outside its folder",
       run(dict(clean, **{"src/report/x.c": "int escr_of(int);\n"})), 1, "names a PMU family")
expect("a flag that only looks like an identifier",
       run(dict(clean, **{"src/hw/lock.c": "int f(int fd) { return flock(fd, LOCK_EX | LOCK_NB); }\n"})), 0)
expect("a family's constant outside its folder",
       run(dict(clean, **{"src/engine/x.c": "int n = NB_COUNTERS;\n"})), 1, "names a PMU family ('NB_COUNTERS')")
expect("include of a layer above",
       run(dict(clean, **{"src/pmu/x.c": '#include "engine/run.h"\n'})), 1, "includes engine/run.h of layer engine")
expect("include of a peer layer",
       run(dict(clean, **{"src/report/x.c": '#include "metrics/m.h"\n'})), 1, "not below it")
expect("include of another family",
       run(dict(clean, **{"src/pmus/zen/z.c": '#include "pmus/netburst/nb.h"\n'})), 1, "of another family")
expect("listed debt lets it through",
       run(dict(clean, **{"src/pmu/x.c": '#include "engine/run.h"\n'}), "includes src/pmu/x.c -> engine/run.h\n"), 0)
expect("debt no longer true fails",
       run(clean, "families src/engine/gone.c\n"), 1, "no longer true")
