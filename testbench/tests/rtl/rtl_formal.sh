#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs scripts/rtl-formal; exits 77 (CTest's skip) when Yosys or its ABC is missing, saying why.
set -euo pipefail
root=$1
for t in yosys:yosys yosys-abc:yosys python3:python3; do
    command -v "${t%%:*}" >/dev/null ||
        { echo "skipped: ${t%%:*} not found (Debian package ${t#*:}; scripts/deps.sh test)"; exit 77; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/scripts/rtl-formal" --out "$out"
