#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drives uartvp-terminal-demo from outside, as a user's terminal would: through the pseudo-terminal it
creates, a TCP connection, or pipes on standard input and output. Checks what arrives both ways (the PL011
echoes in upper case, CR as CR LF), that the run ends as it should, and that a paste is paced: N characters
at 115200 8N1 cannot come back in less than N character times of wall-clock time from the program's start,
less the 10 ms the simulation may run ahead.

usage: terminal_demo_test.py DEMO pty|tcp|stdio|duration|errors
"""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from terminal_drive import (N, PASTE, busy_port, check_paced, check_refused, check_wall_clock, connect_tcp,
                            fail, fd_reader, open_pty, read_until, start, wait_ok)

ECHO = PASTE[:-1].upper() + b"\r\n"


def finish(p, reason):
    err = wait_ok(p)
    if f": {reason} at " not in err:
        fail(f"expected the run to end by {reason}: {err!r}")
    return err


def test_pty(demo):
    p, dev, t0 = start([demo, "pty"])
    fd = open_pty(dev)
    os.write(fd, PASTE)
    t_last = read_until(fd_reader(fd), ECHO, "pty")
    check_paced(t0, t_last, "pty")
    os.close(fd)  # the client hangs up: the run ends
    err = finish(p, "hang-up")
    if f"{N} characters typed, {N + 1} shown" not in err:
        fail(f"counts: {err!r}")


def test_tcp(demo):
    p, dev, t0 = start([demo, "tcp:0"])
    s, recv = connect_tcp(dev)
    s.sendall(PASTE)
    t_last = read_until(recv, ECHO, "tcp")
    check_paced(t0, t_last, "tcp")
    s.close()
    finish(p, "hang-up")


def test_stdio(demo):
    p, dev, t0 = start([demo, "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    if dev != "stdio":
        fail(f"device {dev}")
    p.stdin.write(PASTE + b"last line\n")
    p.stdin.close()  # end of input: the run ends once everything has been echoed
    t_last = read_until(fd_reader(p.stdout.fileno()), ECHO + b"LAST LINE\n", "stdio")
    check_paced(t0, t_last, "stdio")
    if p.stdout.read() != b"":
        fail("more output than echoed")
    finish(p, "end of input")


def test_duration(demo):
    # Nobody connects: the run ends after 0.2 s of simulated time, which takes as long on the wall clock.
    p, dev, t0 = start([demo, "pty", "--duration", "0.2"])
    err = finish(p, "duration")
    took = time.monotonic() - t0
    if "duration at 0.200000 s simulated" not in err:
        fail(f"end time: {err!r}")
    check_wall_clock(took, 0.2)


def test_errors(demo):
    busy, port = busy_port()
    cases = [
        (["tcp:70000"], "0 to 65535"),
        (["tcp:"], "0 to 65535"),
        (["serial"], "unknown terminal 'serial'"),
        ([f"tcp:{port}"], f"port {port} on 127.0.0.1 is in use"),
        ([], "which terminal"),
        (["pty", "--duration", "-1"], "--duration '-1'"),
        (["pty", "--duration", "x"], "--duration 'x'"),
        (["pty", "--duration"], "--duration needs"),
        (["pty", "stdio"], "one terminal only"),
        (["pty", "--baud", "9600"], "unknown option '--baud'"),
    ]
    for args, text in cases:
        err = check_refused([demo], args, text, "uartvp-terminal-demo: ")
        if "SystemC" in err:
            fail(f"{args}: SystemC banner: {err!r}")
    busy.close()


if __name__ == "__main__":
    demo, which = sys.argv[1], sys.argv[2]
    {"pty": test_pty, "tcp": test_tcp, "stdio": test_stdio, "duration": test_duration,
     "errors": test_errors}[which](demo)
    print("ok")
