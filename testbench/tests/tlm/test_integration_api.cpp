// SPDX-License-Identifier: Apache-2.0
// The names an SoC integrator uses: clock_hz in both configs (uartclk_hz a deprecated alias of the
// PL011's), map_size() on both models, sc_trace(tf, uart, name) and trace(vcd_writer&) on both.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/uart16550.h>
#include <uartvp/vcd_writer.h>

#include "sim_main.h"

using namespace uartvp;
using namespace sc_core;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // the alias is what this test checks
TEST(IntegrationApi, UartclkHzIsAnAssignableAliasOfClockHz) {
    pl011_config c;
    EXPECT_EQ(c.clock_hz, 24'000'000u);
    EXPECT_EQ(static_cast<std::uint64_t>(c.uartclk_hz), 24'000'000u);
    c.uartclk_hz = 48'000'000;
    EXPECT_EQ(c.clock_hz, 48'000'000u);
    c.clock_hz = 12'000'000;
    EXPECT_EQ(static_cast<std::uint64_t>(c.uartclk_hz), 12'000'000u);
    // A copy's alias is its own clock's, not the original's.
    pl011_config d = c;
    d.uartclk_hz = 3'686'400;
    EXPECT_EQ(d.clock_hz, 3'686'400u);
    EXPECT_EQ(c.clock_hz, 12'000'000u);
    c = d;
    EXPECT_EQ(static_cast<std::uint64_t>(c.uartclk_hz), 3'686'400u);
    uart16550_config u;
    EXPECT_EQ(u.clock_hz, 1'843'200u);
}
#pragma GCC diagnostic pop

TEST(IntegrationApi, MapSizeIsAMethodOnBothModels) {
    static_assert(pl011::map_size() == 0x1000, "usable in constant expressions");
    UARTVP_SIM_TEST();
    pl011 a("a");
    uart16550_config c;
    c.reg_shift = 2;
    uart16550 b("b", c), d("d");
    EXPECT_EQ(a.map_size(), 0x1000u);
    EXPECT_EQ(b.map_size(), 32u);
    EXPECT_EQ(d.map_size(), 8u);
}

namespace {

// Programs both UARTs for 115200 8N1 and sends one character through each.
struct cpu_side : sc_module {
    tlm_utils::simple_initiator_socket<cpu_side> socket{"socket"};
    SC_HAS_PROCESS(cpu_side);
    explicit cpu_side(const sc_module_name& n)
        : sc_module(n) {
        SC_THREAD(main);
    }
    void write(std::uint64_t addr, std::uint32_t v, unsigned len) {
        tlm::tlm_generic_payload tx;
        sc_time delay = SC_ZERO_TIME;
        tx.set_command(tlm::TLM_WRITE_COMMAND);
        tx.set_address(addr);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, delay);
        ASSERT_TRUE(tx.is_response_ok()) << std::hex << addr;
        wait(delay + sc_time(100, SC_NS));
    }
    void main() {
        write(0x24, 13, 4);         // IBRD: 24 MHz / (16 x 115200) = 13.02
        write(0x28, 1, 4);          // FBRD
        write(0x2C, 0x70, 4);       // LCRH: 8 bits, FIFO
        write(0x30, 0x301, 4);      // CR: UARTEN, TXE, RXE
        write(0x00, 'U', 4);        // DR
        write(0x1000 + 3, 0x83, 1); // 16550 LCR: DLAB, 8N1
        write(0x1000 + 0, 1, 1);    // DLL: 1.8432 MHz / 16 = 115200
        write(0x1000 + 3, 0x03, 1);
        write(0x1000 + 0, 'U', 1); // THR
    }
};

struct soc : sc_module {
    cpu_side cpu{"cpu"};
    router bus{"bus"};
    pl011 uart0{"uart0"};
    uart16550 com1{"com1"};
    sc_signal<bool> txd0{"txd0", true}, rxd0{"rxd0", true}, irq0{"irq0"};
    sc_signal<bool> txd1{"txd1", true}, rxd1{"rxd1", true}, irq1{"irq1"};
    explicit soc(const sc_module_name& n)
        : sc_module(n) {
        cpu.socket.bind(bus.target);
        bus.map(uart0.bus, 0, uart0.map_size(), "uart0");
        bus.map(com1.bus, 0x1000, com1.map_size(), "com1");
        uart0.txd(txd0);
        uart0.rxd(rxd0);
        uart0.irq(irq0);
        com1.txd(txd1);
        com1.rxd(rxd1);
        com1.irq(irq1);
    }
};

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Value changes of the VCD variable named `leaf` (its identifier from its $var line).
int changes(const std::string& vcd, const std::string& leaf) {
    std::istringstream in(vcd);
    std::string line, id;
    int n = 0;
    bool defs = true;
    while (std::getline(in, line)) {
        if (defs) {
            std::istringstream w(line);
            std::string var, type, width, ident, name;
            if (w >> var >> type >> width >> ident >> name && var == "$var" && name == leaf) id = ident;
            if (line.find("$enddefinitions") != std::string::npos) defs = false;
            continue;
        }
        if (!id.empty() && line.size() == id.size() + 1 && line.substr(1) == id) ++n;
    }
    return n;
}

} // namespace

TEST(IntegrationApi, BothModelsTraceToAnScTraceFileUnderAGivenNameAndToAVcdWriter) {
    UARTVP_SIM_TEST();
    char dir[] = "/tmp/uartvp-trace-XXXXXX";
    const std::string d = mkdtemp(dir);
    soc s("soc");
    sc_trace_file* tf = sc_create_vcd_trace_file((d + "/sc").c_str());
    sc_trace(tf, s.uart0, "console");
    sc_trace(tf, s.com1, "com");
    vcd_writer w("w", d + "/w.vcd");
    s.uart0.trace(w);
    s.com1.trace(w);
    sc_start(sc_time(300, SC_US)); // a frame at 115200 is 86.8 us
    sc_close_vcd_trace_file(tf);
    ASSERT_TRUE(w.close());
    const std::string sc = slurp(d + "/sc.vcd"), mine = slurp(d + "/w.vcd");
    for (const char* leaf : {"txd", "rxd", "irq", "tx_fifo_level", "rx_fifo_level", "busy", "txff", "txfe",
                             "rxff", "rxfe", "thre", "temt", "dr", "fifo_enabled"}) {
        EXPECT_NE(sc.find(std::string(" ") + leaf + " "), std::string::npos) << leaf;
        EXPECT_NE(mine.find(std::string(" ") + leaf + " "), std::string::npos) << leaf;
    }
    EXPECT_NE(sc.find("console"), std::string::npos);
    EXPECT_NE(sc.find("com"), std::string::npos);
    EXPECT_EQ(sc.find("soc.uart0"), std::string::npos) << "the name given, not the module's";
    EXPECT_NE(mine.find("$scope module soc $end"), std::string::npos);
    EXPECT_NE(mine.find("$scope module uart0 $end"), std::string::npos);
    EXPECT_NE(mine.find("$scope module com1 $end"), std::string::npos);
    // 'U' (0x55) toggles TXD at every bit: start, 8 data bits alternating, stop: 10 changes of the
    // 16550's TXD (the last "txd" declared), through a port the writer found at elaboration's end.
    EXPECT_EQ(changes(mine, "txd"), 1 + 10); // its initial value, then the frame
    EXPECT_GE(changes(mine, "busy"), 2);     // the PL011's BUSY rose and fell
    std::remove((d + "/sc.vcd").c_str());
    std::remove((d + "/w.vcd").c_str());
    rmdir(d.c_str());
}
