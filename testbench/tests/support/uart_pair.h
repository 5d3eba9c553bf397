// SPDX-License-Identifier: Apache-2.0
#pragma once
// A PL011 and a 16550 of a test rig on lines of their own: TXD and RXD (idle high) and IRQ each, and,
// for rigs that read the line back, a line monitor keeping the text on each TXD.
#include <systemc>

#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/serial_format.h>
#include <uartvp/uart16550.h>

namespace uartvp::test {

struct uart_pair_pins {
    sc_core::sc_signal<bool> txd0{"txd0", true}, rxd0{"rxd0", true}, irq0{"irq0"};
    sc_core::sc_signal<bool> txd1{"txd1", true}, rxd1{"rxd1", true}, irq1{"irq1"};
    uart_pair_pins(pl011& pl, uart16550& com) {
        pl.txd(txd0);
        pl.rxd(rxd0);
        pl.irq(irq0);
        com.txd(txd1);
        com.rxd(rxd1);
        com.irq(irq1);
    }
};

// The PL011 at 24 MHz with IBRD 13, FBRD 1 (115246 baud); the 16550 at 115200; both 8N1.
struct uart_pair_lines : uart_pair_pins {
    line_monitor mon0{"mon0", 24e6 / (16 * (13 + 1.0 / 64)), serial_format{}};
    line_monitor mon1{"mon1", 115200, serial_format{}};
    uart_pair_lines(pl011& pl, uart16550& com)
        : uart_pair_pins(pl, com) {
        mon0.line(txd0);
        mon1.line(txd1);
        mon0.keep_text(true);
        mon1.keep_text(true);
    }
};

} // namespace uartvp::test
