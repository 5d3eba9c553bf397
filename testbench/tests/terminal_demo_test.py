#!/usr/bin/env python3
"""Drives uartvp-terminal-demo from outside, as a user's terminal would: through the pseudo-terminal it
creates, a TCP connection, or pipes on standard input and output. Checks what arrives both ways (the PL011
echoes in upper case, CR as CR LF), that the run ends as it should, and that a paste is paced: N characters
at 115200 8N1 cannot come back in less than N character times of wall-clock time from the program's start,
less the 10 ms the simulation may run ahead.

usage: terminal_demo_test.py DEMO pty|tcp|stdio|duration|errors
"""
import os
import re
import select
import socket
import subprocess
import sys
import time

FRAME_S = 10 / 115200  # one 8N1 character at 115200 baud: 86.8 us
AHEAD_S = 0.010
TIMEOUT_S = 30


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(demo, *args, **kw):
    t0 = time.monotonic()
    p = subprocess.Popen([demo, *args], stderr=subprocess.PIPE, **kw)
    line = p.stderr.readline().decode()
    m = re.fullmatch(r"terminal: (\S+)\n", line)
    if not m:
        p.kill()
        fail(f"expected 'terminal: DEVICE' on stderr, got {line!r}")
    return p, m.group(1), t0


def finish(p, reason):
    try:
        p.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("the program did not end")
    err = p.stderr.read().decode()
    if p.returncode != 0:
        fail(f"exit code {p.returncode}: {err!r}")
    if f": {reason} at " not in err:
        fail(f"expected the run to end by {reason}: {err!r}")
    return err


def read_until(recv, want, what):
    got = b""
    deadline = time.monotonic() + TIMEOUT_S
    while len(got) < len(want) and time.monotonic() < deadline:
        chunk = recv()
        if chunk is None:
            continue
        if chunk == b"":
            break
        got += chunk
    if got != want:
        fail(f"{what}: expected {len(want)} bytes, got {len(got)}: {got[:60]!r}...")
    return time.monotonic()


def fd_reader(fd):
    def recv():
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            return None
        try:
            return os.read(fd, 65536)
        except OSError:
            return b""
    return recv


# A paste: lower case, digits and punctuation, ending in a carriage return.
N = 2000
PASTE = bytes(b"abcdefghijklmnopqrstuvwxyz0123456789 ,.;-"[i % 41] for i in range(N - 1)) + b"\r"
ECHO = PASTE[:-1].upper() + b"\r\n"


def check_paced(t0, t_last, what):
    took = t_last - t0
    least = N * FRAME_S - AHEAD_S
    print(f"{what}: {N} characters echoed {took * 1e3:.1f} ms after the start "
          f"({N * FRAME_S * 1e3:.1f} ms of line time)")
    if took < least:
        fail(f"{what}: the echo came back after {took * 1e3:.1f} ms, faster than the line allows "
             f"({least * 1e3:.1f} ms)")


def test_pty(demo):
    p, dev, t0 = start(demo, "pty")
    if not dev.startswith("/dev/pts/"):
        fail(f"not a pseudo-terminal: {dev}")
    fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    os.write(fd, PASTE)
    t_last = read_until(fd_reader(fd), ECHO, "pty")
    check_paced(t0, t_last, "pty")
    os.close(fd)  # the client hangs up: the run ends
    err = finish(p, "hang-up")
    if f"{N} characters typed, {N + 1} shown" not in err:
        fail(f"counts: {err!r}")


def test_tcp(demo):
    p, dev, t0 = start(demo, "tcp:0")
    m = re.fullmatch(r"127\.0\.0\.1:(\d+)", dev)
    if not m:
        fail(f"not a local TCP port: {dev}")
    s = socket.create_connection(("127.0.0.1", int(m.group(1))))
    s.sendall(PASTE)

    def recv():
        r, _, _ = select.select([s], [], [], 0.05)
        return s.recv(65536) if r else None
    t_last = read_until(recv, ECHO, "tcp")
    check_paced(t0, t_last, "tcp")
    s.close()
    finish(p, "hang-up")


def test_stdio(demo):
    p, dev, t0 = start(demo, "stdio", stdin=subprocess.PIPE, stdout=subprocess.PIPE)
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
    p, dev, t0 = start(demo, "pty", "--duration", "0.2")
    err = finish(p, "duration")
    took = time.monotonic() - t0
    if "duration at 0.200000 s simulated" not in err:
        fail(f"end time: {err!r}")
    if took < 0.2 - AHEAD_S:
        fail(f"0.2 s simulated in {took:.3f} s of wall-clock time")


def test_errors(demo):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
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
        r = subprocess.run([demo, *args], capture_output=True, timeout=TIMEOUT_S)
        err = r.stderr.decode()
        if r.returncode != 2 or err.count("\n") != 1 or text not in err or \
                not err.startswith("uartvp-terminal-demo: "):
            fail(f"{args}: exit {r.returncode}, stderr {err!r} (expected exit 2 and one line with {text!r})")
        if "SystemC" in err:
            fail(f"{args}: SystemC banner: {err!r}")
    busy.close()


if __name__ == "__main__":
    demo, which = sys.argv[1], sys.argv[2]
    {"pty": test_pty, "tcp": test_tcp, "stdio": test_stdio, "duration": test_duration,
     "errors": test_errors}[which](demo)
    print("ok")
