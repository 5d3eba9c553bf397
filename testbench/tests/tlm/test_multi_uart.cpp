// SPDX-License-Identifier: Apache-2.0
// Two PL011s and a 16550 side by side in one simulation: one core, one router, each UART with its own
// console text, checked by its own line monitor and scoreboard.
#include <gtest/gtest.h>

#include <uartvp/cpu/core.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/scoreboard.h>
#include <uartvp/uart16550.h>

#include <uartvp/sw/pl011.h>
#include <uartvp/sw/serial8250.h>
#include "sim_main.h"

using namespace uartvp;
using namespace sc_core;

namespace {

constexpr std::uint64_t pl011_base[2] = {0x09000000, 0x09010000};
constexpr std::uint16_t com1 = 0x3F8;

struct console {
    sc_signal<bool> txd, irq, rxd;
    line_monitor monitor;
    scoreboard sb;
    std::string text;
    explicit console(const std::string& name)
        : txd((name + "_txd").c_str(), true)
        , irq((name + "_irq").c_str(), false)
        , rxd((name + "_rxd").c_str(), true)
        , monitor((name + "_monitor").c_str(), 115200, serial_format{}) {
        monitor.line(txd);
        monitor.on_char([this](const decoded_char& c) {
            sb.observe(c.data, c.start);
            text += static_cast<char>(c.data);
        });
    }
};

struct machine : sc_module {
    cpu::core cpu0;
    router bus{"bus"};
    pl011 uart0{"uart0"}, uart1{"uart1", pl011_config{24'000'000, 16}};
    uart16550 com{"com1"};
    console c0{"uart0"}, c1{"uart1"}, c2{"com1"};

    static cpu::timing_profile timing() {
        cpu::timing_profile t;
        for (unsigned i = 0; i < 2; ++i)
            t.regions.push_back(
                {"pl011", pl011_base[i], pl011::map_size(), sc_time(120, SC_NS), sc_time(60, SC_NS)});
        t.regions.push_back({"com1", t.io_base + com1, 8, sc_time(1700, SC_NS), sc_time(1700, SC_NS)});
        return t;
    }
    explicit machine(const sc_module_name& n)
        : sc_module(n)
        , cpu0("cpu0", 0, timing()) {
        cpu0.bus.bind(bus.target);
        bus.map(uart0.bus, pl011_base[0], pl011::map_size(), "uart0");
        bus.map(uart1.bus, pl011_base[1], pl011::map_size(), "uart1");
        bus.map(com.bus, cpu0.timing().io_base + com1, com.map_size(), "com1");
        uart0.txd(c0.txd), uart0.irq(c0.irq), uart0.rxd(c0.rxd);
        uart1.txd(c1.txd), uart1.irq(c1.irq), uart1.rxd(c1.rxd);
        com.txd(c2.txd), com.irq(c2.irq), com.rxd(c2.rxd);
    }
};

} // namespace

TEST(MultiUart, TwoPl011sAndA16550EachCarryTheirOwnConsole) {
    UARTVP_SIM_TEST();
    machine m("machine");
    sw::uart_port p0, p1;
    p0.membase = pl011_base[0];
    p1.membase = pl011_base[1];
    sw::uart_8250_port s;
    s.iotype = sw::upio::port;
    s.iobase = com1;
    m.cpu0.add_task("firmware", [&] {
        sw::pl011_firmware_setup(p0, 13, 1, 0x60); // 115200 8N1 at 24 MHz
        sw::pl011_firmware_setup(p1, 13, 1, 0x60);
        sw::serial8250_port_startup(s, 1, 0x03);
    });
    const std::vector<std::string> lines[3] = {
        {"uart0: first console\n", "uart0: the PL011 with 32 entries\n"},
        {"uart1: second console\n", "uart1: a 16-entry PL011\n", "uart1: three lines\n"},
        {"ttyS0: the 16550 on COM1\n", "ttyS0: FIFO path\n"},
    };
    std::string expected[3];
    for (unsigned u = 0; u < 3; ++u)
        for (const std::string& l : lines[u])
            for (char c : l) {
                if (c == '\n') expected[u] += '\r';
                expected[u] += c;
            }
    m.c0.sb.expect(expected[0]);
    m.c1.sb.expect(expected[1]);
    m.c2.sb.expect(expected[2]);
    m.cpu0.add_task("boot", [&] {
        // Interleaved: a line to each UART in turn, so their lines are busy at the same time.
        for (std::size_t i = 0; i < 3; ++i) {
            if (i < lines[0].size()) sw::pl011_early_write_v1(p0, lines[0][i]);
            if (i < lines[1].size()) sw::pl011_early_write_v1(p1, lines[1][i]);
            if (i < lines[2].size()) sw::serial8250_console_write(s, lines[2][i]);
        }
        sw::pl011_early_write_v2(p0, "");
        sw::pl011_early_write_v2(p1, "");
    });
    sc_start(sc_time(50, SC_MS));
    for (console* c : {&m.c0, &m.c1, &m.c2})
        c->sb.finish(sc_time_stamp());
    EXPECT_EQ(m.c0.text, expected[0]);
    EXPECT_EQ(m.c1.text, expected[1]);
    EXPECT_EQ(m.c2.text, expected[2]);
    for (console* c : {&m.c0, &m.c1, &m.c2}) {
        EXPECT_TRUE(c->sb.clean()) << c->sb.summary();
        EXPECT_EQ(c->monitor.framing_errors(), 0u);
    }
    EXPECT_EQ(m.c0.sb.matched(), expected[0].size());
    EXPECT_EQ(m.c2.sb.matched(), expected[2].size());
}
