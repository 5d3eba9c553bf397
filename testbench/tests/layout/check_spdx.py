#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every source file of the tree names its license: an SPDX-License-Identifier line among its first
three lines (after a #! line), Apache-2.0 as LICENSE says; in cpu-stub/a64/, the aarch64 core's add-on
that links Unicorn, GPL-2.0-only (LICENSE's notes and cpu-stub/a64/LICENSE).

Source files: C++ (.cpp, .h, .h.in), SystemVerilog (.sv), CMake (CMakeLists.txt, .cmake, .cmake.in),
pkg-config templates (.pc.in), Python, shell scripts (.sh, scripts/*, .ci/run), the linker's dynamic
list (.list) and the sanitizer suppressions (.supp). Prints each file without the line and exits 1;
else the number checked. Usage: check_spdx.py SOURCE_DIR
"""
import os
import subprocess
import sys

TAG = "SPDX-License-Identifier: Apache-2.0"
GPL_TAG = "SPDX-License-Identifier: GPL-2.0-only"
GPL_DIR = "cpu-stub/a64/"
SUFFIXES = (".cpp", ".h", ".h.in", ".sv", ".cmake", ".cmake.in", ".pc.in", ".py", ".sh", ".list", ".supp")


def is_source(path):
    name = os.path.basename(path)
    return (path.endswith(SUFFIXES) or name == "CMakeLists.txt" or path == ".ci/run"
            or (path.startswith("scripts/") and "." not in name))


def main():
    root = sys.argv[1]
    listed = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if listed.returncode != 0:
        print("check_spdx.py: not a git checkout: " + root, file=sys.stderr)
        return 2
    missing, checked = [], 0
    for path in listed.stdout.split():
        if not is_source(path) or not os.path.isfile(os.path.join(root, path)):
            continue
        checked += 1
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            head = [f.readline() for _ in range(3)]
        tag = GPL_TAG if path.startswith(GPL_DIR) else TAG
        if not any(tag in line for line in head):
            missing.append(path)
    for path in missing:
        print(f"{path}: no '{GPL_TAG if path.startswith(GPL_DIR) else TAG}' line at its top")
    if missing or checked == 0:
        print(f"{len(missing)} of {checked} source files name no license")
        return 1
    print(f"{checked} source files, each with its SPDX-License-Identifier line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
