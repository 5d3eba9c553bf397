#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""uartvp-plot from real runs: a sweep, a comparison and one run's cores, each as PNG and SVG.

Checks each image file (a PNG's signature and size, an SVG's XML with the title and axis labels in
it), that the same input gives the same SVG byte for byte, and that bad input gets exit 2 with one line
(the fields that exist, for a bad field) and leaves no file.

Usage: plot_test.py UARTVP UARTVP_PLOT
Exit status: 0 pass, 1 fail, 77 skipped (matplotlib missing).
"""
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, expect=0):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != expect:
        fail(f"{' '.join(cmd)}: exit {r.returncode}, expected {expect}: {r.stderr.strip()}")
    return r


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        fail(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def svg_text(path):
    root = ET.parse(path).getroot()
    if not root.tag.endswith("svg"):
        fail(f"{path}: not an SVG")
    # Matplotlib writes text as paths with the string in a comment or as <text>; keep both.
    with open(path, encoding="utf-8") as f:
        return f.read()


def main():
    uartvp, plot = sys.argv[1], sys.argv[2]
    if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode:
        print("skipped: python3-matplotlib is not installed (scripts/deps.sh test installs it)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as d:
        sweep, compare, one = (os.path.join(d, n) for n in ("s.jsonl", "c.json", "r.json"))
        run([uartvp, "sweep", "tty-paste", "--variants", "read,echo", "--payload-bytes", "1000", "--set",
             "hog_us=0,1000,2500", "--expect-loss", "--json", sweep, "--quiet"])
        run([uartvp, "compare", "earlycon-pl011", "--variants", "v0,v1,v2", "--payload-bytes", "500", "--json",
             compare, "--quiet"])
        run([uartvp, "run", "tty-paste", "--variant", "read", "--payload-bytes", "1000", "--set", "hog_us=1000",
             "--json", one, "--quiet"])
        kinds = {
            "sweep": ([sweep, "--x", "hog_us", "--y", "rx_lost_bytes"],
                      ["rx_lost_bytes against hog_us", "tty-paste on profile hw, payload 1000 B", "hog_us (ms)",
                       "rx_lost_bytes (bytes)"]),
            "compare": ([compare, "--y", "sim_time_ns"],
                        ["sim_time_ns by variant", "earlycon-pl011 on profile hw, payload 500 B", "sim_time_ns (ms)",
                         "baseline: v0"]),
            "cores": ([one], ["time per core, variant read", "tty-paste on profile hw", "CPU0", "hard IRQ",
                              "IRQs off"]),
        }
        for kind, (args, words) in kinds.items():
            png, svg = os.path.join(d, kind + ".png"), os.path.join(d, kind + ".svg")
            run([plot, kind] + args + ["-o", png])
            w, h = png_size(png)
            if w < 400 or h < 300:
                fail(f"{kind}: a {w}x{h} PNG is too small to read")
            run([plot, kind] + args + ["-o", svg])
            text = svg_text(svg)
            for word in words:
                if word not in text:
                    fail(f"{kind}: the SVG does not say {word!r}")
            again = os.path.join(d, kind + "2.svg")
            run([plot, kind] + args + ["-o", again])
            if open(svg, "rb").read() != open(again, "rb").read():
                fail(f"{kind}: the same input gave two different SVGs")
        # Bad input: exit 2, one line, no file.
        bad = os.path.join(d, "bad.png")
        r = run([plot, "compare", compare, "--y", "nosuch", "-o", bad], expect=2)
        if "nosuch" not in r.stderr or "sim_time_ns" not in r.stderr or r.stderr.count("\n") != 1:
            fail(f"a bad field names itself and the fields that exist, on one line: {r.stderr!r}")
        r = run([plot, "sweep", sweep, "--x", "baud", "--y", "lost_bytes", "-o", bad], expect=2)
        if "hog_us" not in r.stderr:
            fail(f"an unswept --x names the swept keys: {r.stderr!r}")
        run([plot, "cores", compare, "-o", bad], expect=2)
        run([plot, "compare", sweep, "--y", "lost_bytes", "-o", bad], expect=2)
        run([plot, "compare", compare, "--y", "lost_bytes", "-o", os.path.join(d, "x.pdf")], expect=2)
        run([plot, "compare", os.path.join(d, "missing.json"), "--y", "lost_bytes", "-o", bad], expect=2)
        import json
        stripped = os.path.join(d, "no-cores.json")
        with open(one) as f:
            j = json.load(f)
        del j["per_core"]
        with open(stripped, "w") as f:
            json.dump(j, f)
        r = run([plot, "cores", stripped, "-o", bad], expect=2)
        if "per-core" not in r.stderr:
            fail(f"cores of a run without per-core figures says why: {r.stderr!r}")
        if os.path.exists(bad) or [n for n in os.listdir(d) if n.startswith(".uartvp-plot-")]:
            fail("a refused plot left a file behind")
    print("uartvp-plot: 3 kinds of picture from real runs, PNG and SVG; bad input refused")


if __name__ == "__main__":
    main()
