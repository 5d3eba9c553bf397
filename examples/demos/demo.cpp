// SPDX-License-Identifier: Apache-2.0
// The demo: a core programs a PL011 (115200 8N1 from a 24 MHz UARTCLK) as firmware would, prints one
// line through the Linux console routine, and a line monitor reports what the TXD line carried.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <uartvp/cpu/core.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>

#include <uartvp/sw/pl011.h>

using namespace sc_core;

int main() {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
    constexpr std::uint64_t base = 0x09000000, baud = 115200;
    const std::string line = "Hello from uartvp: this line went through a verilated PL011.\n";

    uartvp::cpu::timing_profile timing;
    timing.regions.push_back(
        {"uart0", base, uartvp::pl011::map_size(), sc_time(120, SC_NS), sc_time(60, SC_NS)});
    uartvp::cpu::core cpu("cpu0", 0, timing);
    uartvp::router bus("bus");
    uartvp::pl011 uart("uart0"); // 24 MHz UARTCLK, 32-entry FIFOs
    uartvp::line_monitor monitor("console", baud, *uartvp::serial_format::parse("8N1"));
    sc_signal<bool> txd("txd", true), irq("irq"), rxd("rxd", true);
    cpu.bus.bind(bus.target);
    bus.map(uart.bus, base, uartvp::pl011::map_size(), "uart0");
    uart.txd(txd);
    uart.irq(irq);
    uart.rxd(rxd);
    monitor.line(txd);
    monitor.keep_text(true);
    sc_time first, last;
    bool seen = false;
    monitor.on_char([&](const uartvp::decoded_char& c) {
        if (!seen) first = c.start;
        seen = true;
        last = c.end;
    });

    uartvp::sw::uart_port port;
    port.membase = base;
    cpu.add_task("boot", [&] {
        uartvp::sw::pl011_firmware_setup(port, 13, 1, 0x60); // 24 MHz / (16 * 115200) = 13 + 1/64; 8N1
        uartvp::sw::pl011_console_write(port, line);
    });
    sc_start(sc_time(20, SC_MS));

    std::string shown;
    for (char c : monitor.text())
        shown += c == '\r' ? std::string("\\r") : c == '\n' ? std::string("\\n") : std::string(1, c);
    std::printf("PL011 at 0x%llx, 115200 8N1 (IBRD 13, FBRD 1), UARTCLK 24 MHz\n",
                static_cast<unsigned long long>(base));
    std::printf("TXD carried %llu characters, %.1f us to %.1f us:\n  \"%s\"\n",
                static_cast<unsigned long long>(monitor.chars()), first.to_seconds() * 1e6,
                last.to_seconds() * 1e6, shown.c_str());
    std::printf("pl011_console_write returned at %.1f us, with IRQs off for %.1f us; %llu FR reads.\n",
                cpu.tasks()[0].end.to_seconds() * 1e6, cpu.stats().irq_off_max.to_seconds() * 1e6,
                static_cast<unsigned long long>(cpu.tasks()[0].mmio_reads));
    std::string want;
    for (char c : line)
        want += c == '\n' ? std::string("\r\n") : std::string(1, c);
    if (monitor.text() != want) {
        std::printf("MISMATCH: the line monitor did not see what was written\n");
        return 1;
    }
    return 0;
}

extern "C" int sc_main(int, char**) {
    return 3;
}
