#!/usr/bin/env bash
# Installs uartvp from the build tree into a temporary prefix, then builds and runs an outside project
# (install_consumer/) against it with find_package(uartvp CONFIG REQUIRED).
# Usage: install_test.sh BUILD_DIR [CXX_FLAGS [LINKER_FLAGS]]: the consumer is compiled and linked with
# the flags the library was (a sanitizer build's library needs its runtime in the program that loads it).
set -euo pipefail
build=$1
cxx_flags=${2:-}
ld_flags=${3:-}
src=$(cd "$(dirname "$0")" && pwd)/install_consumer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/uartvp/pl011.h"
if grep -rlE "Vpl011|include.*verilated" "$work/prefix/include" >/dev/null; then
    echo "installed headers expose Verilator internals" >&2
    exit 1
fi
cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$ld_flags" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer"
