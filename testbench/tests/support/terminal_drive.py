# SPDX-License-Identifier: Apache-2.0
"""What terminal_demo_test.py and program_terminal_test.py share to drive a simulated serial terminal
from outside, as a user's terminal would: the start line naming the device, reading until an expected
answer has come through a pseudo-terminal, a TCP connection or a pipe, the paced-paste check, the end of
the run, and refused command lines. Only the standard library; imported from beside the two drivers
(CTest runs them by their path in the source tree, so their folder is on sys.path)."""
import os
import re
import select
import socket
import subprocess
import sys
import time

FRAME_S = 10 / 115200  # one 8N1 character at 115200 baud: 86.8 us
AHEAD_S = 0.010  # how far the simulation may run ahead of the wall clock
TIMEOUT_S = 30

# A paste: lower case, digits and punctuation, ending in a carriage return.
N = 2000
PASTE = bytes(b"abcdefghijklmnopqrstuvwxyz0123456789 ,.;-"[i % 41] for i in range(N - 1)) + b"\r"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(cmd, **kw):
    """Starts cmd; its first line on standard error must be 'terminal: DEVICE'.
    Returns the process, the device and the start time."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, **kw)
    line = p.stderr.readline().decode()
    m = re.fullmatch(r"terminal: (\S+)\n", line)
    if not m:
        p.kill()
        fail(f"expected 'terminal: DEVICE' on stderr first, got {line!r}")
    return p, m.group(1), t0


def wait_ok(p):
    """Waits for the run to end with exit code 0; returns what it wrote on standard error."""
    try:
        p.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("the program did not end")
    err = p.stderr.read().decode()
    if p.returncode != 0:
        fail(f"exit code {p.returncode}: {err!r}")
    return err


def read_until(recv, want, what):
    """Reads with recv() (None: nothing yet, b"": closed) until len(want) bytes have come or the time is
    up; they must be want. Returns the time the last one came."""
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


def open_pty(dev):
    if not dev.startswith("/dev/pts/"):
        fail(f"not a pseudo-terminal: {dev}")
    return os.open(dev, os.O_RDWR | os.O_NOCTTY)


def connect_tcp(dev):
    """Connects to the 127.0.0.1:PORT the program named; returns the socket and a reader of it."""
    m = re.fullmatch(r"127\.0\.0\.1:(\d+)", dev)
    if not m:
        fail(f"not a local TCP port: {dev}")
    s = socket.create_connection(("127.0.0.1", int(m.group(1))))

    def recv():
        r, _, _ = select.select([s], [], [], 0.05)
        return s.recv(65536) if r else None
    return s, recv


def check_paced(t0, t_last, what):
    """N characters at 115200 8N1 cannot come back sooner than N character times from the start, less
    what the simulation may run ahead."""
    took = t_last - t0
    least = N * FRAME_S - AHEAD_S
    print(f"{what}: {N} characters echoed {took * 1e3:.1f} ms after the start "
          f"({N * FRAME_S * 1e3:.1f} ms of line time)")
    if took < least:
        fail(f"{what}: the echo came back after {took * 1e3:.1f} ms, faster than the line allows "
             f"({least * 1e3:.1f} ms)")


def check_wall_clock(took, simulated_s):
    """simulated_s of simulated time cannot take less wall-clock time (took), less the run-ahead."""
    if took < simulated_s - AHEAD_S:
        fail(f"{simulated_s} s simulated in {took:.3f} s of wall-clock time")


def busy_port():
    """A listening socket on 127.0.0.1 (close it when done) and its port."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    return busy, busy.getsockname()[1]


def check_refused(cmd, args, text, prefix):
    """cmd + args must exit 2 with one line on standard error starting with prefix and saying text;
    returns that line."""
    r = subprocess.run([*cmd, *args], capture_output=True, timeout=TIMEOUT_S)
    err = r.stderr.decode()
    if r.returncode != 2 or err.count("\n") != 1 or text not in err or not err.startswith(prefix):
        fail(f"{args}: exit {r.returncode}, stderr {err!r} (expected exit 2 and one line with {text!r})")
    return err
