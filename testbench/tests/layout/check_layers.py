#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The tree's one-way rule: testbench -> sw -> cpu-stub -> tlm -> waves (rtl apart, examples on top).

Every #include of a project header, in every C++ source of the tree, must name a header of its own
folder or of a folder below it. Headers are found where the build finds them: the public ones under
each folder's include/ (and testbench/checkers/include, testbench/program/plugins/include), the
internal ones relative to the including file, its folder's src/ or the folder itself (sw/, tlm/src/,
testbench/program/). Prints each include that runs up and exits 1; else the number checked.

Usage: check_layers.py SOURCE_DIR [--self-test]
"""
import os
import re
import sys

LAYERS = ["waves", "tlm", "cpu-stub", "sw", "testbench", "examples"]
PUBLIC = {  # include roots a folder exports as <...>
    "waves": ["waves/include"],
    "tlm": ["tlm/include"],
    "cpu-stub": ["cpu-stub/include"],
    "sw": ["sw/include"],
    "testbench": ["testbench/checkers/include", "testbench/program/plugins/include"],
    "examples": [],
}
INTERNAL = {  # roots for quoted includes inside one folder
    "waves": ["waves/src"],
    "tlm": ["tlm/src"],
    "cpu-stub": ["cpu-stub/src"],
    "sw": ["sw"],
    "testbench": ["testbench/program", "testbench/tests/support", "testbench/tests/program"],
    "examples": [],
}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in LAYERS else None


def owner(top_dir, including, name, quoted):
    """The layer whose header `name` is, or None if it is not the project's (a system header)."""
    candidates = []
    if quoted:
        candidates.append(os.path.join(os.path.dirname(including), name))
        for roots in INTERNAL.values():
            candidates += [os.path.join(r, name) for r in roots]
    for roots in PUBLIC.values():
        candidates += [os.path.join(r, name) for r in roots]
    # The including file's own layer first: a name both a lower and its own layer hold is its own.
    own = layer_of(including)
    candidates.sort(key=lambda c: layer_of(c) != own)
    for c in candidates:
        if os.path.isfile(os.path.join(top_dir, c)):
            return layer_of(os.path.normpath(c))
    return None


def check(top_dir):
    problems, checked = [], 0
    for layer in LAYERS:
        for dirpath, _, files in os.walk(os.path.join(top_dir, layer)):
            for f in sorted(files):
                if not f.endswith((".h", ".cpp", ".hpp", ".in")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, top_dir)
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(text):
                    quoted, name = m.group(1) == '"', m.group(2)
                    to = owner(top_dir, rel, name, quoted)
                    if to is None:
                        continue
                    checked += 1
                    if LAYERS.index(to) > LAYERS.index(layer):
                        line = text.count("\n", 0, m.start()) + 1
                        problems.append(f"{rel}:{line}: includes {name} of {to}/, a folder above {layer}/")
    return problems, checked


def self_test(top_dir):
    """A header of sw/ included from tlm/ must be reported (the check can fail)."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        for d in ("tlm/src/bus", "sw/include/uartvp/sw"):
            os.makedirs(os.path.join(tmp, d))
        open(os.path.join(tmp, "sw/include/uartvp/sw/pl011.h"), "w").write("#pragma once\n")
        open(os.path.join(tmp, "tlm/src/bus/x.cpp"), "w").write("#include <uartvp/sw/pl011.h>\n")
        problems, _ = check(tmp)
        return problems == ["tlm/src/bus/x.cpp:1: includes uartvp/sw/pl011.h of sw/, a folder above tlm/"]
    finally:
        shutil.rmtree(tmp)


def main():
    top_dir = sys.argv[1]
    if not self_test(top_dir):
        print("check_layers.py: the self-test's upward include was not reported", file=sys.stderr)
        return 1
    problems, checked = check(top_dir)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} of {checked} includes run up the tree")
        return 1
    print(f"{checked} includes of the project's headers, none runs up the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
