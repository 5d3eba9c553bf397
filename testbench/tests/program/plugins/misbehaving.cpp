// SPDX-License-Identifier: Apache-2.0
// A plugin for the tests: routines that misbehave while they run (the program exits 3).
#include <stdexcept>

#include <uartvp/plugin.h>

using namespace uartvp::kapi;
using namespace uartvp::sw;
using uartvp::plugin::console_8250_hook;
using uartvp::plugin::earlycon_pl011_hook;

namespace {

void throws(uart_port&, std::string_view) {
    throw std::runtime_error("my routine gave up");
}

// A read where nothing is mapped: the bus answers with an address error.
void bus_error(uart_port& port, std::string_view) {
    readl(port.membase + 0x100000);
}

// Waits for a receive FIFO that nothing fills: polls forever, time passing.
void never_returns(uart_port& port, std::string_view) {
    for (;;) {
        if (readl(port.membase + UART01x_FR) & (1u << 6)) break; // RXFF
        udelay(100);
    }
}

// Spins on a flag that cannot change: the simulation runs out of events.
void stuck(uart_port& port, std::string_view) {
    spin_while(readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return !(fr & (1u << 6)); });
}

void setup_never_returns(uart_port& port) {
    never_returns(port, {});
}
void nothing(uart_port&, std::string_view) {}

// Waits for data ready, which nothing brings, udelay(1) between reads.
void never_returns_8250(uart_8250_port& up, std::string_view) {
    while (!(serial_in(up, UART_LSR) & UART_LSR_DR))
        udelay(1);
}

// Loops that never read: the core's time still reaches the bound (it synchronises when far ahead).
void relaxes_forever(uart_port&, std::string_view) {
    for (;;)
        cpu_relax();
}
void delays_forever(uart_port&, std::string_view) {
    for (;;)
        udelay(1);
}

} // namespace

UARTVP_PLUGIN(r) {
    r.add("throws", "throws from the write", earlycon_pl011_hook{throws});
    r.add("bus-error", "reads an unmapped address", earlycon_pl011_hook{bus_error});
    r.add("never-returns", "polls RXFF forever, udelay(100) between reads",
          earlycon_pl011_hook{never_returns});
    r.add("stuck", "spins on RXFF, which nothing sets", earlycon_pl011_hook{stuck});
    r.add("relaxes-forever", "calls cpu_relax() forever, never reading",
          earlycon_pl011_hook{relaxes_forever});
    r.add("delays-forever", "calls udelay(1) forever, never reading", earlycon_pl011_hook{delays_forever});
    r.add("setup-never-returns", "a setup that polls forever",
          earlycon_pl011_hook{nothing, setup_never_returns});
    r.add("8250-never-returns", "polls LSR.DR forever", console_8250_hook{never_returns_8250});
}
