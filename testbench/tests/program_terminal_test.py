#!/usr/bin/env python3
"""Drives `uartvp run tty-paste --terminal ...` from outside, as a user's terminal would: through the
pseudo-terminal the program creates, a TCP connection, or pipes on standard input and output. Checks what
arrives both ways (the echo variant's tty writes back what its reader got; the read variant's reader
counts it), that the run ends as it should (hang-up, end of input, --duration) with exit code 0, outcome
`interactive` and the terminal's figures in the JSON, that a paste is paced (N characters at 115200 8N1
cannot come back sooner than N character times from the start, less the 10 ms the simulation may run
ahead), and that the scenarios and variants that take no input, and bad terminals, are refused (exit 2).

usage: program_terminal_test.py UARTVP pty|tcp|stdio|read|duration|errors
"""
import json
import atexit
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import time

FRAME_S = 10 / 115200  # one 8N1 character at 115200 baud: 86.8 us
AHEAD_S = 0.010
TIMEOUT_S = 30
TMP = tempfile.mkdtemp(prefix="uartvp-terminal-test-")
JSON = os.path.join(TMP, "run.json")
atexit.register(lambda: (os.path.exists(JSON) and os.unlink(JSON), os.rmdir(TMP)))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(uartvp, variant, term, *args, **kw):
    t0 = time.monotonic()
    p = subprocess.Popen([uartvp, "run", "tty-paste", "--variant", variant, "--terminal", term,
                          "--json", JSON, *args], stderr=subprocess.PIPE, **kw)
    line = p.stderr.readline().decode()
    m = re.fullmatch(r"terminal: (\S+)\n", line)
    if not m:
        p.kill()
        fail(f"expected 'terminal: DEVICE' on stderr first, got {line!r}")
    return p, m.group(1), t0


def finish(p, end, summary_on_stderr=False):
    try:
        p.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("the program did not end")
    err = p.stderr.read().decode()
    if p.returncode != 0:
        fail(f"exit code {p.returncode}: {err!r}")
    if summary_on_stderr and not re.search(r"\n  outcome +interactive\n", err):
        fail(f"no 'outcome interactive' in the summary on standard error: {err!r}")
    with open(JSON) as f:
        j = json.load(f)
    if j["outcome"] != "interactive":
        fail(f"outcome {j['outcome']!r}, expected 'interactive'")
    if j["terminal"]["end"] != end:
        fail(f"ended by {j['terminal']['end']!r}, expected {end!r}")
    return j


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


# A paste: lower case, digits and punctuation, ending in a carriage return (the tty is raw: it comes
# back as it went).
N = 2000
PASTE = bytes(b"abcdefghijklmnopqrstuvwxyz0123456789 ,.;-"[i % 41] for i in range(N - 1)) + b"\r"


def check_paced(t0, t_last, what):
    took = t_last - t0
    least = N * FRAME_S - AHEAD_S
    print(f"{what}: {N} characters echoed {took * 1e3:.1f} ms after the start "
          f"({N * FRAME_S * 1e3:.1f} ms of line time)")
    if took < least:
        fail(f"{what}: the echo came back after {took * 1e3:.1f} ms, faster than the line allows "
             f"({least * 1e3:.1f} ms)")


def check_counts(j, typed, shown):
    t = j["terminal"]
    if (t["bytes_typed"], t["bytes_shown"], j["rx_bytes_received"]) != (typed, shown, typed):
        fail(f"typed {t['bytes_typed']}, shown {t['bytes_shown']}, received {j['rx_bytes_received']}: "
             f"expected {typed}, {shown}, {typed}")


def test_pty(uartvp):
    p, dev, t0 = start(uartvp, "echo", "pty", stdout=subprocess.DEVNULL)
    if not dev.startswith("/dev/pts/"):
        fail(f"not a pseudo-terminal: {dev}")
    fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    os.write(fd, PASTE)
    t_last = read_until(fd_reader(fd), PASTE, "pty")
    check_paced(t0, t_last, "pty")
    os.close(fd)  # the client hangs up: the run ends
    check_counts(finish(p, "hang-up"), N, N)


def test_tcp(uartvp):
    p, dev, t0 = start(uartvp, "echo", "tcp:0", stdout=subprocess.DEVNULL)
    m = re.fullmatch(r"127\.0\.0\.1:(\d+)", dev)
    if not m:
        fail(f"not a local TCP port: {dev}")
    s = socket.create_connection(("127.0.0.1", int(m.group(1))))
    s.sendall(PASTE)

    def recv():
        r, _, _ = select.select([s], [], [], 0.05)
        return s.recv(65536) if r else None
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
    if took < 0.2 - AHEAD_S:
        fail(f"0.2 s simulated in {took:.3f} s of wall-clock time")


def test_errors(uartvp):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
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
        r = subprocess.run([uartvp, *args], capture_output=True, timeout=TIMEOUT_S)
        err = r.stderr.decode()
        if r.returncode != 2 or err.count("\n") != 1 or text not in err or not err.startswith("uartvp: "):
            fail(f"{args}: exit {r.returncode}, stderr {err!r} (expected exit 2 and one line with {text!r})")
    busy.close()


if __name__ == "__main__":
    uartvp, which = sys.argv[1], sys.argv[2]
    {"pty": test_pty, "tcp": test_tcp, "stdio": test_stdio, "read": test_read, "duration": test_duration,
     "errors": test_errors}[which](uartvp)
    print("ok")
