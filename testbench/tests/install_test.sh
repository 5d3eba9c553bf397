#!/usr/bin/env bash
# Installs uartvp from the build tree into a temporary prefix, then builds and runs an outside project
# (install_consumer/) against it with find_package(uartvp CONFIG REQUIRED).
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")" && pwd)/install_consumer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/uartvp/pl011.h"
if grep -rlE "Vpl011|include.*verilated" "$work/prefix/include" >/dev/null; then
    echo "installed headers expose Verilator internals" >&2
    exit 1
fi
cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j2 >/dev/null
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer"
