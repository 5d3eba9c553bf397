#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The firmware of sw/firmware on QEMU's virt machine, through scripts/run-firmware-qemu: each program's
exact PL011 bytes and a clean power-off (exit status 0).

hello; earlycon-v0/v1/v2 with a ~2 KB boot-log payload in the mailbox and without one (the built-in boot
log); echo with ~2 KB of mixed bytes (0x00 and 0xff among them) then 0x04 and bytes after it that must
not come back; timer. earlycon-8250 and earlycon-8250-fifo (the 16550 is uartvp's only) are checked to be
aarch64 ELF executables entered at 0x40080000. Exits 77 (skipped) when QEMU or the firmware is missing.

Usage: firmware_qemu_test.py FIRMWARE_DIR RUN_FIRMWARE_QEMU
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

BUILTIN_BOOT_LOG = (
    b"[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]\n"
    b"[    0.000000] Linux version 6.1.0-uartvp (uartvp@virt) #1 SMP PREEMPT\n"
    b"[    0.000000] Machine model: linux,dummy-virt\n"
    b"[    0.000000] earlycon: pl11 at MMIO 0x0000000009000000 (options '')\n"
    b"[    0.000000] printk: bootconsole [pl11] enabled\n")
PROGRAMS = ["hello", "earlycon-v0", "earlycon-v1", "earlycon-v2", "echo", "timer"]
BUILT_ONLY = ["earlycon-8250", "earlycon-8250-fifo"]
IMAGE_BASE = 0x40080000
EM_AARCH64 = 183
EOT = 0x04


def crlf(data):
    return data.replace(b"\n", b"\r\n")


def boot_log_payload(size=2048):
    """Boot-log-like lines, '\n'-terminated, about `size` bytes."""
    rng = random.Random(2026)
    words = ["pci", "virtio", "clocksource", "arch_timer", "Serial:", "AMBA", "pl011", "ttyAMA0", "NET:",
             "Registered", "protocol", "family", "EXT4-fs", "mounted", "filesystem", "Freeing", "memory"]
    lines, total, t = [], 0, 0.0
    while total < size:
        t += rng.random() / 50
        line = "[%12.6f] %s\n" % (t, " ".join(rng.choice(words) for _ in range(rng.randint(2, 9))))
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def echo_input(size=2048):
    """Mixed bytes without 0x04, 0x00 and 0xff among them, then 0x04 and a tail that must be ignored."""
    rng = random.Random(4)
    data = bytearray(b"\x00\xff\r\n\x03\x1a\x1b[A\x7f")
    while len(data) < size:
        b = rng.randrange(256)
        if b != EOT:
            data.append(b)
    data += b"\x00\xff"
    return bytes(data) + bytes([EOT]) + b"after EOT\n"


def run(script, elf, tmp, payload=None, input_bytes=None):
    out = os.path.join(tmp, "out.bin")
    cmd = [script, "--output", out, "--timeout", "30"]
    if payload is not None:
        path = os.path.join(tmp, "payload.txt")
        with open(path, "wb") as f:
            f.write(payload)
        cmd += ["--payload", path]
    if input_bytes is not None:
        path = os.path.join(tmp, "input.bin")
        with open(path, "wb") as f:
            f.write(input_bytes)
        cmd += ["--input", path]
    proc = subprocess.run(cmd + [elf], stderr=subprocess.PIPE, timeout=120)
    with open(out, "rb") as f:
        return proc.returncode, f.read(), proc.stderr.decode(errors="replace")


def elf_problem(path):
    """None if `path` is a little-endian ELF64 aarch64 executable entered at IMAGE_BASE, else what is wrong."""
    with open(path, "rb") as f:
        head = f.read(64)
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        return "not a little-endian ELF64 file"
    e_type, e_machine, _, e_entry = struct.unpack_from("<HHIQ", head, 16)
    if e_type != 2 or e_machine != EM_AARCH64:
        return "not an aarch64 executable (e_type %d, e_machine %d)" % (e_type, e_machine)
    if e_entry != IMAGE_BASE:
        return "entry 0x%x, not 0x%x" % (e_entry, IMAGE_BASE)
    return None


def first_difference(a, b):
    n = min(len(a), len(b))
    i = next((i for i in range(n) if a[i] != b[i]), n)
    return f"lengths {len(a)} and {len(b)}, first difference at byte {i}: {a[i:i + 16]!r} against {b[i:i + 16]!r}"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    fw_dir, script = sys.argv[1], sys.argv[2]
    if not shutil.which(os.environ.get("QEMU_SYSTEM_AARCH64", "qemu-system-aarch64")):
        print("skipped: no qemu-system-aarch64")
        return 77
    missing = [p for p in PROGRAMS + BUILT_ONLY if not os.path.isfile(os.path.join(fw_dir, p + ".elf"))]
    if missing:
        print("skipped: firmware not built in %s (%s)" % (fw_dir, ", ".join(missing)))
        return 77

    payload = boot_log_payload()
    echo_in = echo_input()
    cases = [("hello", None, None, b"Hello from uartvp firmware\r\n")]
    for v in ("earlycon-v0", "earlycon-v1", "earlycon-v2"):
        cases.append((v, payload, None, crlf(payload)))
        cases.append((v, None, None, crlf(BUILTIN_BOOT_LOG)))
    cases.append(("echo", None, echo_in, echo_in[:echo_in.index(EOT)]))
    cases.append(("timer", None, None, b"cntfrq=62500000\r\ntick 1\r\ntick 2\r\ntick 3\r\n"))

    failed = 0
    for name in BUILT_ONLY:
        problem = elf_problem(os.path.join(fw_dir, name + ".elf"))
        if problem:
            failed += 1
            print("FAIL  %s.elf: %s" % (name, problem))
        else:
            print("ok    %s.elf: built (runs on uartvp only)" % name)
    with tempfile.TemporaryDirectory() as tmp:
        for name, pay, inp, expected in cases:
            what = name + (" with a %d-byte payload" % len(pay) if pay is not None else "") + \
                (" with %d input bytes" % len(inp) if inp is not None else "")
            status, got, err = run(script, os.path.join(fw_dir, name + ".elf"), tmp, pay, inp)
            if status == 0 and got == expected:
                print("ok    %s: %d bytes" % (what, len(got)))
                continue
            failed += 1
            print("FAIL  %s: exit status %d, %s" % (what, status, first_difference(got, expected)))
            if err.strip():
                print("      stderr: " + err.strip().replace("\n", "\n      "))
    checks = len(cases) + len(BUILT_ONLY)
    print("%d of %d checks failed" % (failed, checks) if failed else "all %d checks as expected" % checks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
