// SPDX-License-Identifier: Apache-2.0
// A plugin for the tests: routines written as the kernel writes them, a setup, an 8250 console write,
// boot-console's console writes.
#include <uartvp/plugin.h>

using namespace uartvp::kapi;
using namespace uartvp::sw;
using uartvp::plugin::boot_console_hook;
using uartvp::plugin::console_8250_hook;
using uartvp::plugin::earlycon_pl011_hook;

namespace {

// pl011_putc before the seed-000 patch, pasted as the kernel has it (literal loops, no spin_while).
void literal_putc_v0(uart_port& port, unsigned char c) {
    while (readl(port.membase + UART01x_FR) & UART01x_FR_TXFF)
        cpu_relax();
    writeb(c, port.membase + UART01x_DR);
    while (readl(port.membase + UART01x_FR) & UART01x_FR_BUSY)
        cpu_relax();
}
void literal_write_v0(uart_port& port, std::string_view s) {
    uart_console_write(port, s, literal_putc_v0);
}

// The setup makes the port an SBSA generic UART; the program's own console write then runs as its
// console-sbsa variant does.
void sbsa_setup(uart_port& port) {
    port.vendor = &vendor_sbsa;
    port.iotype32 = true;
}

// The 8250 console before the FIFO patch, called through the program's own routine.
void putchar_8250(uart_8250_port& up, std::string_view s) {
    serial8250_console_write_v0(up, s);
}

} // namespace

UARTVP_PLUGIN(r) {
    r.add("literal-v0", "pl011_putc v0 with the kernel's literal loops",
          earlycon_pl011_hook{literal_write_v0});
    r.add("sbsa-by-setup", "the console write on a port the setup made SBSA",
          earlycon_pl011_hook{pl011_console_write, sbsa_setup});
    r.add("my-putchar", "serial8250_console_write before the FIFO patch", console_8250_hook{putchar_8250});
    r.add("my-legacy", "the legacy consoles' writes, called through the program's own routines",
          boot_console_hook{pl011_console_write, serial8250_console_write_v6_14});
    r.add("pl011-only", "a PL011 console write and none for the 8250",
          boot_console_hook{pl011_console_write});
    r.add("busy-per-char", "pl011_putc v0's BUSY wait after each character as the console write",
          boot_console_hook{literal_write_v0});
}
