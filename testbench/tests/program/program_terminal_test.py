#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drives `uartvp run tty-paste --terminal ...` from outside, as a user's terminal would: through the
pseudo-terminal the program creates, a TCP connection, or pipes on standard input and output. Checks what
arrives both ways (the echo variant's tty writes back what its reader got; the read variant's reader
counts it), that the run ends as it should (hang-up, end of input, --duration) with exit code 0, outcome
`interactive` and the terminal's figures in the JSON, that a paste is paced (N characters at 115200 8N1
cannot come back sooner than N character times from the start, less the 10 ms the simulation may run
ahead), and that the scenarios and variants that take no input, and bad terminals, are refused (exit 2).

usage: program_terminal_test.py UARTVP pty|tcp|stdio|read|duration|errors
"""
import atexit
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from terminal_drive import (FRAME_S, N, PASTE, busy_port, check_paced, check_refused, check_wall_clock,
                            connect_tcp, fail, fd_reader, open_pty, read_until, wait_ok)
from terminal_drive import start as start_cmd

TMP = tempfile.mkdtemp(prefix="uartvp-terminal-test-")
JSON = os.path.join(TMP, "run.json")
atexit.register(lambda: (os.path.exists(JSON) and os.unlink(JSON), os.rmdir(TMP)))


def start(uartvp, variant, term, *args, **kw):
    return start_cmd([uartvp, "run", "tty-paste", "--variant", variant, "--terminal", term, "--json", JSON,
                      *args], **kw)


def finish(p, end, summary_on_stderr=False):
    err = wait_ok(p)
    if summary_on_stderr and not re.search(r"\n  outcome +interactive\n", err):
        fail(f"no 'outcome interactive' in the summary on standard error: {err!r}")
    with open(JSON) as f:
        j = json.load(f)
    if j["outcome"] != "interactive":
        fail(f"outcome {j['outcome']!r}, expected 'interactive'")
    if j["terminal"]["end"] != end:
        fail(f"ended by {j['terminal']['end']!r}, expected {end!r}")
    return j


# The paste (terminal_drive.PASTE) ends in a carriage return; the tty is raw: it comes back as it went.


def check_counts(j, typed, shown):
    t = j["terminal"]
    if (t["bytes_typed"], t["bytes_shown"], j["rx_bytes_received"]) != (typed, shown, typed):
        fail(f"typed {t['bytes_typed']}, shown {t['bytes_shown']}, received {j['rx_bytes_received']}: "
             f"expected {typed}, {shown}, {typed}")


def test_pty(uartvp):
    p, dev, t0 = start(uartvp, "echo", "pty", stdout=subprocess.DEVNULL)
    fd = open_pty(dev)
    os.write(fd, PASTE)
    t_last = read_until(fd_reader(fd), PASTE, "pty")
    check_paced(t0, t_last, "pty")
    os.close(fd)  # the client hangs up: the run ends
    check_counts(finish(p, "hang-up"), N, N)


def test_tcp(uartvp):
    p, dev, t0 = start(uartvp, "echo", "tcp:0", stdout=subprocess.DEVNULL)
    s, recv = connect_tcp(dev)
    s.sendall(PASTE)
    t_last = read_until(recv, PASTE, "tcp")
    check_paced(t0, t_last, "tcp")
    s.close()
    check_counts(finish(p, "hang-up"), N, N)


def test_stdio(uartvp):
    p, dev, t0 = start(uartvp, "echo", "stdio", stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    if dev != "stdio":
        fail(f"device {dev}")
    p.stdin.write(PASTE + b"last line\n")
    p.stdin.close()  # end of input: the run ends once everything has been echoed
    want = PASTE + b"last line\n"
    t_last = read_until(fd_reader(p.stdout.fileno()), want, "stdio")
    check_paced(t0, t_last, "stdio")
    if p.stdout.read() != b"":
        fail("more on standard output than the echo: the summary belongs on standard error")
    check_counts(finish(p, "end of input", summary_on_stderr=True), len(want), len(want))


def test_read(uartvp):
    # The read variant: a reader takes what is typed, nothing goes back.
    p, dev, t0 = start(uartvp, "read", "pty", stdout=subprocess.DEVNULL)
    fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    os.write(fd, PASTE)
    time.sleep(N * FRAME_S + 0.3)
    r, _, _ = select.select([fd], [], [], 0.1)
    if r and os.read(fd, 65536):
        fail("the read variant sent something back")
    os.close(fd)
    check_counts(finish(p, "hang-up"), N, 0)


def test_duration(uartvp):
    # Nobody connects: the run ends after 0.2 s of simulated time, which takes as long on the wall clock.
    p, dev, t0 = start(uartvp, "echo", "pty", "--duration", "0.2", stdout=subprocess.DEVNULL)
    j = finish(p, "duration")
    took = time.monotonic() - t0
    if j["terminal"]["end_time_ns"] != 0.2e9:
        fail(f"end time {j['terminal']['end_time_ns']} ns")
    check_wall_clock(took, 0.2)


def test_errors(uartvp):
    busy, port = busy_port()
    echo = ["run", "tty-paste", "--variant", "echo"]
    cases = [
        (["run", "earlycon-pl011", "--terminal", "pty"], "earlycon-pl011 takes no terminal input"),
        (["run", "console-8250", "--terminal", "pty"], "console-8250 takes no terminal input"),
        (["run", "tty-paste", "--variant", "write", "--terminal", "pty"], "--variant write reads nothing"),
        (echo + ["--terminal", "tcp:70000"], "tcp:PORT (0 to 65535)"),
        (echo + ["--terminal", "serial"], "expected stdio, pty or tcp:PORT"),
        (echo + ["--terminal", f"tcp:{port}"], f"port {port} on 127.0.0.1 is in use"),
        (echo + ["--terminal", "pty", "--payload-bytes", "10"], "replaces the RX payload"),
        (echo + ["--terminal", "pty", "--duration", "-1"], "--duration -1"),
        (echo + ["--terminal", "pty", "--duration", "x"], "--duration x"),
        (echo + ["--duration", "1"], "--duration goes with --terminal"),
        (echo + ["--terminal", "stdio", "--json", "-"], "both want standard output"),
    ]
    for args, text in cases:
        check_refused([uartvp], args, text, "uartvp: ")
    busy.close()


if __name__ == "__main__":
    uartvp, which = sys.argv[1], sys.argv[2]
    {"pty": test_pty, "tcp": test_tcp, "stdio": test_stdio, "read": test_read, "duration": test_duration,
     "errors": test_errors}[which](uartvp)
    print("ok")
