#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs uartvp from the build tree into a temporary prefix, then builds and runs an outside project
# against it with find_package(uartvp CONFIG REQUIRED), from a copy of its folder alone:
#   consumer  consumer/: the models beside a verilated module of its own (its own Verilator runtime)
#   my-putc   examples/my-putc/: a plugin, run by the installed program as an earlycon-pl011 variant
#   soc       examples/soc/: two PL011s and a 16550 on the router; built with CMake and again with
#             pkg-config (uartvp.pc), run with no arguments from another directory
#   a64       examples/a64/: the aarch64 core (the add-on the package installs beside the library) running
#             the installed hello.elf; 77 (skipped) where the package has no add-on or no firmware
#   headers   every installed header compiled alone without a warning under -Wall -Wextra
#             -Wsuggest-override -Wmissing-field-initializers, and named in README.md or docs/*.md
# Usage: install_test.sh BUILD_DIR [consumer|my-putc] [CXX_FLAGS [LINKER_FLAGS]]: the project is compiled
# and linked with the flags the library was (a sanitizer build's library needs its runtime in the
# program that loads it).
set -euo pipefail
build=$1
what=${2:-consumer}
cxx_flags=${3:-}
ld_flags=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
case $what in
    consumer) src=$here/consumer ;;
    my-putc) src=$top/examples/my-putc ;;
    soc) src=$top/examples/soc ;;
    a64) src=$top/examples/a64 ;;
    headers) src= ;;
    *) echo "install_test.sh: unknown project '$what'" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/uartvp/pl011.h"
if grep -rlE "Vpl011|include.*verilated" "$work/prefix/include" >/dev/null; then
    echo "installed headers expose Verilator internals" >&2
    exit 1
fi
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
if [ "$what" = headers ]; then
    cd "$work/prefix/include"
    n=0
    for h in $(find uartvp -name '*.h' | sort); do
        # -Werror: any warning from the header fails; SystemC's own headers are system headers.
        if ! echo "#include <$h>" | g++ -std=c++17 -fsyntax-only -Wall -Wextra -Wsuggest-override \
            -Wmissing-field-initializers -Werror $cxx_flags -I. $(pkg-config --cflags systemc tlm) \
            -x c++ - 2>"$work/err"; then
            echo "<$h> alone:" >&2
            cat "$work/err" >&2
            exit 1
        fi
        # One grep over the files, not cat | grep -q: under pipefail, cat's SIGPIPE when grep stops at
        # the first match would fail the check.
        if ! grep -qF "<$h>" "$top/README.md" "$top"/docs/*.md; then
            echo "neither README.md nor docs/*.md lists the installed header <$h>" >&2
            exit 1
        fi
        n=$((n + 1))
    done
    echo "$n installed headers compile alone without a warning, each listed in README.md or docs/*.md"
    exit 0
fi
# The project's folder alone, somewhere else: it must not reach back into the source tree.
cp -r "$src" "$work/src"
cmake -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$ld_flags" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
case $what in
    consumer)
        LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer"
        ;;
    my-putc)
        # The installed program finds its library by itself; the variant appears beside the built-in
        # ones and runs clean, from another directory, by a relative path to the plugin.
        uartvp=$work/prefix/bin/uartvp
        cd "$work/build"
        "$uartvp" list --plugin ./libmy-putc.so | grep -E "^    my-putc .*\[plugin \./libmy-putc\.so\]"
        "$uartvp" run earlycon-pl011 --plugin ./libmy-putc.so --variant my-putc --payload-bytes 2000 \
            --json "$work/my-putc.json"
        grep -q '"outcome": "clean"' "$work/my-putc.json"
        grep -q '"variant": "my-putc"' "$work/my-putc.json"
        "$uartvp" compare earlycon-pl011 --profile vm --payload-bytes 2000 --plugin ./libmy-putc.so |
            tee "$work/compare.txt"
        grep -qE "^my-putc " "$work/compare.txt"
        # The same plugin through pkg-config alone: compiled against the headers, linked with the
        # program's symbols left undefined (they resolve when the program loads it).
        g++ -std=c++17 -shared -fPIC -fvisibility=hidden $cxx_flags "$work/src/my_putc.cpp" \
            -o "$work/libmy-putc-pc.so" \
            $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:${PKG_CONFIG_PATH:-}" pkg-config --cflags uartvp)
        "$uartvp" run earlycon-pl011 --plugin "$work/libmy-putc-pc.so" --variant my-putc --payload-bytes 2000 \
            --json "$work/my-putc-pc.json"
        grep -q '"outcome": "clean"' "$work/my-putc-pc.json"
        ;;
    soc)
        # Run with no arguments from a directory of no importance; it writes its waves to the temporary
        # directory (TMPDIR: ours).
        mkdir "$work/elsewhere"
        cd "$work/elsewhere"
        TMPDIR=$work LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/soc"
        for scope in uart0 uart1 com1 intc; do grep -q "\$scope module $scope \$end" "$work/soc.vcd"; done
        grep -q ' cpu_irq ' "$work/soc.vcd"
        # The same source through pkg-config alone.
        PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:${PKG_CONFIG_PATH:-}" pkg-config --exists uartvp
        g++ -std=c++17 $cxx_flags "$work/src/soc.cpp" -o "$work/soc-pc" \
            $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:${PKG_CONFIG_PATH:-}" pkg-config --cflags --libs uartvp) $ld_flags
        TMPDIR=$work LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/soc-pc" "$work/soc-pc.vcd" >/dev/null
        test -s "$work/soc-pc.vcd"
        ;;
    a64)
        # The installed library looks for the add-on beside itself (lib/uartvp/) before the build tree.
        image=$work/prefix/share/uartvp/firmware/hello.elf
        if [ ! -f "$work/prefix/lib/uartvp/libuartvp-a64.so" ] || [ ! -f "$image" ]; then
            echo "skipped: the package has no aarch64 core add-on or no firmware (libunicorn-dev, aarch64-linux-gnu-gcc)"
            exit 77
        fi
        LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/a64_soc" "$image" >"$work/a64.out"
        grep -q "Hello from uartvp firmware" "$work/a64.out"
        ;;
esac
