#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages uartvp needs when they are missing.
# Usage: scripts/deps.sh [build|test]   (test adds the tools the test suite calls and the sanitizer
# runtimes of scripts/test's second build)
set -euo pipefail
want=(cmake g++ make pkg-config libsystemc-dev verilator libgtest-dev libgmock-dev
      nlohmann-json3-dev libcli11-dev libfmt-dev
      libunicorn-dev gcc-aarch64-linux-gnu) # the aarch64 core's add-on and its firmware

if [ "${1:-build}" = test ]; then
  want+=(sigrok-cli gtkwave yosys iverilog python3 parallel libasan8 libubsan1)
  want+=(qemu-system-arm) # the firmware on QEMU's virt machine, to compare with
  want+=(python3-matplotlib) # uartvp-plot
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "uartvp needs these Debian packages; run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 2
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
