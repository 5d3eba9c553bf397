#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The program's long-run output as a user sees it. `tty`: with standard error on a terminal (a
pseudo-terminal here), `run` shows its progress by default as one status line rewritten in place
("\\r\\033[K" before each update, no newline) and clears it at the end; --quiet shows nothing. `stream`:
`compare -j 1` prints the first variant's row while the second still runs (rows as soon as they are done).

usage: program_progress_test.py UARTVP tty|stream
"""
import os
import pty
import select
import subprocess
import sys
import time

CLEAR = b"\r\x1b[K"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run_on_tty(uartvp, *args):
    master, slave = pty.openpty()
    p = subprocess.Popen([uartvp, *args], stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    got = b""
    while True:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the last writer closed the terminal
                break
            if not chunk:
                break
            got += chunk
        elif p.poll() is not None:
            break
    p.wait(120)
    os.close(master)
    return p.returncode, got


def test_tty(uartvp):
    args = ["run", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "200000"]
    code, err = run_on_tty(uartvp, *args)
    if code != 0:
        fail(f"exit {code}: {err[-300:]!r}")
    updates = err.count(CLEAR + b"run: ")
    if updates < 1:
        fail(f"no status line on the terminal: {err[:300]!r}")
    if not err.endswith(CLEAR):
        fail(f"the status line is not cleared at the end: {err[-120:]!r}")
    if b"\n" in err:
        fail(f"a status line ends in a newline on a terminal: {err[:300]!r}")
    print(f"{updates} updates in place, cleared at the end")
    code, err = run_on_tty(uartvp, *args, "--quiet")
    if code != 0 or err != b"":
        fail(f"--quiet: exit {code}, standard error {err[:200]!r}")


def test_stream(uartvp):
    p = subprocess.Popen([uartvp, "compare", "earlycon-pl011", "--profile", "vm", "--payload-bytes", "300000",
                          "--variants", "v1,v0", "-j", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    row = b""
    while not row.startswith(b"v1 "):
        row = p.stdout.readline()
        if not row:
            fail("no v1 row")
    at = time.monotonic() - t0
    still_running = p.poll() is None
    rest = p.stdout.read()
    p.wait(300)
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {p.stderr.read()!r}")
    if not still_running:
        fail("the first row came only once the whole compare had ended")
    if not rest.startswith(b"v0 "):
        fail(f"then the second row: {rest!r}")
    print(f"the v1 row after {at:.2f} s, while v0 was running")


if __name__ == "__main__":
    uartvp, which = sys.argv[1], sys.argv[2]
    {"tty": test_tty, "stream": test_stream}[which](uartvp)
    print("ok")
