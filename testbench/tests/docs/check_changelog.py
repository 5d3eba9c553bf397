#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CHANGELOG.md names the version the program reports.

Usage: check_changelog.py PROGRAM SOURCE_DIR [PACKAGE_FILE...]

Runs PROGRAM --version (it prints "uartvp X.Y.Z"), takes the version number from it, and checks that
the first released heading of SOURCE_DIR/CHANGELOG.md, "## [X.Y.Z] - YYYY-MM-DD" (the first
"## [...]" heading other than "## [Unreleased]", outside code blocks), names the same version. Each PACKAGE_FILE (the build's uartvp.pc, "Version: X.Y.Z", and
uartvpConfigVersion.cmake, 'set(PACKAGE_VERSION "X.Y.Z")') must name it too.
Exit 0: they match; 1: they differ, or a version is missing from either; 2: bad usage.
"""

import os
import re
import subprocess
import sys

VERSION = re.compile(r"\b(\d+\.\d+\.\d+)\b")
RELEASE = re.compile(r"^##[ \t]+\[([^\]]+)\](.*)$")
DATE = re.compile(r"^[ \t]+-[ \t]+\d{4}-\d{2}-\d{2}[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def program_version(program):
    try:
        run = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"cannot run {program} --version: {e}"
    if run.returncode != 0:
        return None, f"{program} --version exited {run.returncode}: {run.stderr.strip()[:200]}"
    out = run.stdout.strip()
    m = VERSION.search(out)
    if not m:
        return None, f"{program} --version printed no version X.Y.Z: {out[:200]!r}"
    return m.group(1), None


def changelog_version(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        return None, f"cannot read {path}: {e}"
    fence = None
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        h = RELEASE.match(line)
        if not h or h.group(1).strip().lower() == "unreleased":
            continue
        name, rest = h.group(1).strip(), h.group(2)
        if not re.fullmatch(r"\d+\.\d+\.\d+", name):
            return None, f"{path}:{number}: the first released heading names no version X.Y.Z: {line}"
        if not DATE.match(rest):
            return None, f"{path}:{number}: the first released heading has no date (## [X.Y.Z] - YYYY-MM-DD): {line}"
        return (name, number), None
    return None, f"{path}: no released version heading (## [X.Y.Z] - YYYY-MM-DD)"


PACKAGE = re.compile(r'^(?:Version:\s*|set\(PACKAGE_VERSION\s+")(\d+\.\d+\.\d+)', re.M)


def package_version(path):
    try:
        with open(path, encoding="utf-8") as f:
            m = PACKAGE.search(f.read())
    except OSError as e:
        return None, f"cannot read {path}: {e}"
    if not m:
        return None, f"{path} names no version"
    return m.group(1), None


def main(argv):
    if len(argv) < 3 or not os.path.isdir(argv[2]):
        print("usage: check_changelog.py PROGRAM SOURCE_DIR [PACKAGE_FILE...]", file=sys.stderr)
        return 2
    program, root = argv[1], argv[2]
    reported, error = program_version(program)
    if error:
        print(error)
        return 1
    path = os.path.join(root, "CHANGELOG.md")
    released, error = changelog_version(path)
    if error:
        print(error)
        return 1
    version, number = released
    if version != reported:
        print(f"CHANGELOG.md:{number}: the first released version is {version}, "
              f"but {os.path.basename(program)} --version reports {reported}")
        return 1
    for package in argv[3:]:
        named, error = package_version(package)
        if error:
            print(error)
            return 1
        if named != version:
            print(f"{package} names version {named}, CHANGELOG.md and the program {version}")
            return 1
    print(f"CHANGELOG.md's first released version, {version}, is the one the program and "
          f"{len(argv) - 3} package files report")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
