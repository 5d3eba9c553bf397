#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A sweep run both ways gives the same JSON Lines: directly (`uartvp sweep ... -j 2 --json`), and as
emitted jobs (`--emit-jobs`) run by GNU parallel from another directory, then `sweep --collect`. Every
field is compared but the host's wall-clock figures (wall_s, rtl_eval_s); the exit codes too (a run that
loses bytes makes both 1).

usage: sweep_parallel_test.py UARTVP
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SWEEP = ["earlycon-pl011", "--variants", "v1,v2", "--profile", "hw,vm", "--payload-bytes", "300,700",
         "--set", "reset_after_write=0,1", "--set", "frame=8N1,7E1"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def lines(path):
    out = []
    with open(path) as f:
        for line in f:
            j = json.loads(line)
            for k in ("wall_s", "rtl_eval_s"):
                j.pop(k, None)
            out.append(j)
    return out


def main(uartvp):
    if not shutil.which("parallel"):
        fail("GNU parallel is not installed (apt-get install parallel)")
    tmp = tempfile.mkdtemp(prefix="uartvp-sweep-test-")
    try:
        direct = os.path.join(tmp, "direct.jsonl")
        d = subprocess.run([uartvp, "sweep", *SWEEP, "-j", "2", "--json", direct], capture_output=True,
                           timeout=600)
        if d.returncode != 1:
            fail(f"direct sweep: exit {d.returncode} (expected 1: v1 loses its tail at a reset): {d.stderr!r}")
        jobs_dir = os.path.join(tmp, "jobs")
        os.mkdir(jobs_dir)
        e = subprocess.run([uartvp, "sweep", *SWEEP, "--emit-jobs", "jobs/list.txt"], cwd=tmp,
                           capture_output=True, timeout=60)
        if e.returncode != 0:
            fail(f"--emit-jobs: exit {e.returncode}: {e.stderr!r}")
        with open(os.path.join(jobs_dir, "list.txt")) as f:
            jobs = f.read().splitlines()
        if len(jobs) != 32:
            fail(f"{len(jobs)} jobs, expected 2 variants x 2 profiles x 2 sizes x 2 x 2 = 32")
        # GNU parallel runs them from elsewhere (the commands hold absolute paths); a job that loses
        # bytes exits 1, which parallel counts as failed: its exit code is the number of those.
        p = subprocess.run(["parallel", "--will-cite", "-j", "2"], stdin=open(os.path.join(jobs_dir, "list.txt")),
                           cwd="/", capture_output=True, timeout=600)
        if p.returncode != 4:
            fail(f"parallel: exit {p.returncode} (expected 4: v1 with reset_after_write=1 on hw, per size and frame): "
                 f"{p.stderr[-500:]!r}")
        collected = os.path.join(tmp, "collected.jsonl")
        c = subprocess.run([uartvp, "sweep", "--collect", jobs_dir, "--json", collected], capture_output=True,
                           timeout=60)
        if c.returncode != 1:
            fail(f"--collect: exit {c.returncode} (expected 1, as the direct sweep): {c.stderr!r}")
        a, b = lines(direct), lines(collected)
        if len(a) != 32 or len(b) != 32:
            fail(f"{len(a)} direct and {len(b)} collected runs, expected 32 each")
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                diff = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
                fail(f"run {i} differs in {diff}")
            if x["sweep"]["index"] != i:
                fail(f"run {i} has index {x['sweep']['index']}")
        print(f"{len(a)} runs, direct and under GNU parallel alike")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main(sys.argv[1])
    print("ok")
