// SPDX-License-Identifier: Apache-2.0
// my-putc: pl011_putc as a patch might have it, written as the kernel writes it: wait for room in the
// TX FIFO, store the character, and wait for the transmitter to go idle only at the end of a line (the
// earlycon's flush guarantee kept per line, not per character).
#include <uartvp/plugin.h>

using namespace uartvp::kapi;
using namespace uartvp::sw;

static void my_putc(uart_port& port, unsigned char c) {
    while (readl(port.membase + UART01x_FR) & UART01x_FR_TXFF)
        cpu_relax();
    writeb(c, port.membase + UART01x_DR);
    if (c == '\n')
        while (readl(port.membase + UART01x_FR) & UART01x_FR_BUSY)
            cpu_relax();
}

// The earlycon's write: one call per printk record; uart_console_write adds the '\r' before '\n'.
static void my_early_write(uart_port& port, std::string_view s) {
    uart_console_write(port, s, my_putc);
}

UARTVP_PLUGIN(registry) {
    registry.add("my-putc", "pl011_putc waiting for BUSY at the end of each line only",
                 uartvp::plugin::earlycon_pl011_hook{my_early_write});
}
