// SPDX-License-Identifier: Apache-2.0
// Both UARTs on a 32-bit bus (`bus`) and on a 64-bit one (`bus64`): a 64-bit initiator socket binds
// straight to bus64 or through uartvp::router64, a 32-bit one to bus or through uartvp::router, both at
// once on the same registers; a UART with neither bound is refused at the start of the simulation.
#include <string>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/uart16550.h>

#include "sim_main.h"
#include "tlm_payload.h"
#include "uart_pair.h"

using namespace uartvp;
using namespace sc_core;

namespace {

using uartvp::test::set_access;

constexpr std::uint64_t DR = 0x00, IBRD = 0x24, FBRD = 0x28, LCRH = 0x2C, CR = 0x30;
constexpr std::uint64_t THR = 0, LCR = 3, SCR = 7;

template <unsigned W> struct cpu : sc_module {
    tlm_utils::simple_initiator_socket<cpu, W> socket{"socket"};
    explicit cpu(const sc_module_name& n)
        : sc_module(n) {}
    tlm::tlm_response_status access(bool write, std::uint64_t addr, std::uint64_t& v, unsigned len) {
        tlm::tlm_generic_payload tx;
        sc_time d = SC_ZERO_TIME;
        set_access(tx, write, addr, v, len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, d);
        wait(d + sc_time(100, SC_NS));
        return tx.get_response_status();
    }
    void wr(std::uint64_t addr, std::uint64_t v, unsigned len = 4) {
        EXPECT_EQ(access(true, addr, v, len), tlm::TLM_OK_RESPONSE) << name() << " " << std::hex << addr;
    }
    std::uint64_t rd(std::uint64_t addr, unsigned len = 4) {
        std::uint64_t v = 0;
        EXPECT_EQ(access(false, addr, v, len), tlm::TLM_OK_RESPONSE) << name() << " " << std::hex << addr;
        return v;
    }
};

// Lines, interrupt and monitors for one PL011 and one 16550.
struct uarts {
    pl011 pl{"pl"};
    uart16550 com{"com"};
    test::uart_pair_lines lines{pl, com};
};

template <unsigned W> void program(cpu<W>& c, std::uint64_t pl_base, std::uint64_t com_base) {
    c.wr(pl_base + IBRD, 13);
    c.wr(pl_base + FBRD, 1);
    c.wr(pl_base + LCRH, 0x70);
    c.wr(pl_base + CR, 0x301);
    c.wr(com_base + LCR, 0x83, 1);
    c.wr(com_base + THR, 1, 1);
    c.wr(com_base + LCR, 0x03, 1);
}

} // namespace

TEST(BusWidth, SocketsAre32And64BitsWide) {
    UARTVP_SIM_TEST();
    uarts u;
    EXPECT_EQ(u.pl.bus.get_bus_width(), 32u);
    EXPECT_EQ(u.pl.bus64.get_bus_width(), 64u);
    EXPECT_EQ(u.com.bus.get_bus_width(), 32u);
    EXPECT_EQ(u.com.bus64.get_bus_width(), 64u);
    router r32("r32");
    router64 r64("r64");
    EXPECT_EQ(r32.target.get_bus_width(), 32u);
    EXPECT_EQ(r64.initiator.get_bus_width(), 64u);
    EXPECT_STREQ(r64.kind(), "uartvp::router64");
}

TEST(BusWidth, A64BitInitiatorBindsStraightToBus64) {
    UARTVP_SIM_TEST();
    struct top : sc_module {
        cpu<64> c0{"c0"}, c1{"c1"};
        uarts u;
        std::uint64_t ibrd = 0, scr = 0;
        tlm::tlm_response_status wide = tlm::TLM_INCOMPLETE_RESPONSE;
        SC_HAS_PROCESS(top);
        explicit top(const sc_module_name& n)
            : sc_module(n) {
            c0.socket.bind(u.pl.bus64);
            c1.socket.bind(u.com.bus64);
            SC_THREAD(main);
        }
        void main() {
            c0.wr(IBRD, 13);
            c0.wr(FBRD, 1);
            c0.wr(LCRH, 0x70);
            c0.wr(CR, 0x301);
            c1.wr(LCR, 0x83, 1);
            c1.wr(THR, 1, 1);
            c1.wr(LCR, 0x03, 1);
            ibrd = c0.rd(IBRD);
            c1.wr(SCR, 0xA5, 1);
            scr = c1.rd(SCR, 1);
            c0.wr(DR, 'w', 1);
            c1.wr(THR, 'W', 1);
            std::uint64_t v = 0;
            wide = c0.access(false, IBRD, v, 8); // a 64-bit access to a 32-bit register
        }
    } t("t");
    sc_start(sc_time(1, SC_MS));
    EXPECT_EQ(t.ibrd, 13u);
    EXPECT_EQ(t.scr, 0xA5u);
    EXPECT_EQ(t.u.lines.mon0.text(), "w");
    EXPECT_EQ(t.u.lines.mon1.text(), "W");
    EXPECT_EQ(t.wide, tlm::TLM_BURST_ERROR_RESPONSE);
}

TEST(BusWidth, A32BitAndA64BitBusOnTheSameUartsThroughBothRouters) {
    UARTVP_SIM_TEST();
    struct top : sc_module {
        cpu<32> narrow{"narrow"};
        cpu<64> wide{"wide"};
        router r32{"r32"};
        router64 r64{"r64"};
        uarts u;
        std::uint64_t ibrd_seen_wide = 0, scr_seen_narrow = 0;
        SC_HAS_PROCESS(top);
        explicit top(const sc_module_name& n)
            : sc_module(n) {
            narrow.socket.bind(r32.target);
            wide.socket.bind(r64.target);
            r32.map(u.pl.bus, 0x9000000, u.pl.map_size(), "pl");
            r32.map(u.com.bus, 0x9001000, u.com.map_size(), "com");
            r64.map(u.pl.bus64, 0x80009000000, u.pl.map_size(), "pl");
            r64.map(u.com.bus64, 0x80009001000, u.com.map_size(), "com");
            SC_THREAD(main);
        }
        void main() {
            program(narrow, 0x9000000, 0x9001000);
            ibrd_seen_wide = wide.rd(0x80009000000 + IBRD);
            wide.wr(0x80009001000 + SCR, 0x3C, 1);
            scr_seen_narrow = narrow.rd(0x9001000 + SCR, 1);
            narrow.wr(0x9000000 + DR, 'n', 1);
            wide.wr(0x80009000000 + DR, 'w', 4);
            narrow.wr(0x9001000 + THR, 'N', 1);
            wait(sc_time(200, SC_US));
            wide.wr(0x80009001000 + THR, 'W', 1);
        }
    } t("t");
    sc_start(sc_time(1, SC_MS));
    EXPECT_EQ(t.ibrd_seen_wide, 13u);
    EXPECT_EQ(t.scr_seen_narrow, 0x3Cu);
    EXPECT_EQ(t.u.lines.mon0.text(), "nw");
    EXPECT_EQ(t.u.lines.mon1.text(), "NW");
}

TEST(BusWidth, AUartWithNeitherSocketBoundIsRefused) {
    UARTVP_SIM_TEST();
    uarts u;
    std::string what;
    try {
        sc_start(sc_time(1, SC_US));
    } catch (const sc_report& r) {
        what = r.what();
    }
    EXPECT_NE(what.find("neither bus nor bus64 is bound"), std::string::npos) << what;
}
