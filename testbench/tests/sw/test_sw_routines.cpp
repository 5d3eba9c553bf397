// SPDX-License-Identifier: Apache-2.0
// The driver routines of sw/ against the UART models, access by access: a tap between the core and the
// bus logs every transaction (offset, width, direction, value), and every poll is a transaction
// (reference mode). What each test asserts is what tells a routine's variants apart in the kernel:
// which registers they touch, with which access width, and which FR or LSR value ends their waits.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <uartvp/cpu/core.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/uart16550.h>

#include <uartvp/sw/pl011.h>
#include "kernel/printk/printk.h"
#include "drivers/tty/serial/amba-pl011-nbcon.h"
#include <uartvp/sw/serial8250.h>
#include "sim_main.h"
#include "uart_tap.h"

using namespace uartvp;
using namespace sc_core;

namespace {

constexpr std::uint64_t uart_base = 0x10000000;

using tap = test::access_tap;

cpu::timing_profile timing() {
    return test::uart_timing(uart_base);
}

// core -> tap -> router -> UART, its TXD decoded at 115200 8N1.
template <class uart_t> struct machine : sc_module {
    cpu::core cpu0{"cpu0", 0, timing()};
    tap probe{"probe", uart_base};
    router bus{"bus"};
    uart_t uart;
    sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    line_monitor monitor;
    std::string text;
    template <class cfg_t>
    machine(const sc_module_name& n, const cfg_t& cfg, double baud)
        : sc_module(n)
        , uart("uart", cfg)
        , monitor("monitor", baud, serial_format{}) {
        cpu0.set_collapse_polls(false); // every poll a transaction, in the log
        cpu0.bus.bind(probe.target);
        probe.initiator.bind(bus.target);
        bus.map(uart.bus, uart_base, 0x1000, "uart");
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        monitor.line(txd);
        monitor.on_char([this](const decoded_char& c) { text += static_cast<char>(c.data); });
    }
};

using pl011_machine = machine<pl011>;
using m16550 = machine<uart16550>;

// ---- PL011: the legacy console write per vendor

constexpr std::uint32_t FR_BUSY = 1u << 3, FR_TXFE = 1u << 7;

// Runs pl011_console_write for one record after firmware set the UART up; returns the accesses of the
// console write alone.
std::vector<tap::access> pl011_console_record(const sw::vendor_data& vendor, std::string& line_text) {
    pl011_machine m("m", pl011_config{}, 115200);
    sw::uart_port port;
    port.membase = uart_base;
    port.vendor = &vendor;
    port.iotype32 = vendor.access_32b;
    std::size_t first = 0;
    m.cpu0.add_task("firmware", [&] { sw::pl011_firmware_setup(port, 13, 1, 0x60); });
    m.cpu0.add_task("boot", [&] {
        first = m.probe.log.size();
        sw::pl011_console_write(port, "sbsa\n");
    });
    sc_start(sc_time(5, SC_MS));
    line_text = m.text;
    return {m.probe.log.begin() + static_cast<std::ptrdiff_t>(first), m.probe.log.end()};
}

} // namespace

TEST(SwPl011, LegacyConsoleWriteOnArmsPl011SavesAndRestoresCrWith16BitAccesses) {
    UARTVP_SIM_TEST();
    std::string text;
    const auto log = pl011_console_record(sw::vendor_arm, text);
    ASSERT_GE(log.size(), 4u);
    EXPECT_EQ(log.front().offset, sw::UART011_CR);
    EXPECT_FALSE(log.front().write) << "CR read first";
    EXPECT_EQ(log[1].offset, sw::UART011_CR);
    EXPECT_TRUE(log[1].write);
    EXPECT_EQ(log.back().offset, sw::UART011_CR);
    EXPECT_TRUE(log.back().write) << "CR restored last";
    EXPECT_EQ(log.back().value, log.front().value) << "to the value read";
    for (const tap::access& a : log)
        EXPECT_EQ(a.size, 2u) << "readw/writew at offset " << a.offset;
    const tap::access& last_fr = log[log.size() - 2];
    EXPECT_EQ(last_fr.offset, sw::UART01x_FR);
    EXPECT_EQ(last_fr.value & FR_BUSY, 0u) << "the wait ends on BUSY clear";
    EXPECT_EQ(text, "sbsa\r\n");
}

TEST(SwPl011, LegacyConsoleWriteOnSbsaLeavesCrAloneWith32BitAccesses) {
    UARTVP_SIM_TEST();
    std::string text;
    const auto log = pl011_console_record(sw::vendor_sbsa, text);
    ASSERT_FALSE(log.empty());
    unsigned dr_writes = 0;
    for (const tap::access& a : log) {
        EXPECT_NE(a.offset, sw::UART011_CR) << "always_enabled: no CR save and restore";
        EXPECT_EQ(a.size, 4u) << "readl/writel at offset " << a.offset;
        dr_writes += a.offset == sw::UART01x_DR && a.write;
    }
    EXPECT_EQ(dr_writes, 6u);
    EXPECT_EQ(log.back().offset, sw::UART01x_FR);
    EXPECT_EQ(log.back().value & FR_BUSY, 0u) << "the last read: BUSY clear, the line idle";
    EXPECT_EQ(text, "sbsa\r\n");
}

TEST(SwPl011, LegacyConsoleWriteOnQdf2400EndsOnTxfeWhileTheLastCharacterIsStillShifting) {
    UARTVP_SIM_TEST();
    std::string text;
    const auto log = pl011_console_record(sw::vendor_qdt_qdf2400_e44, text);
    ASSERT_FALSE(log.empty());
    for (const tap::access& a : log) {
        EXPECT_NE(a.offset, sw::UART011_CR);
        EXPECT_EQ(a.size, 4u) << "offset " << a.offset;
    }
    const tap::access& last = log.back();
    EXPECT_EQ(last.offset, sw::UART01x_FR);
    EXPECT_EQ(last.value & FR_TXFE, FR_TXFE) << "TXFE: the vendor's inverted busy";
    EXPECT_EQ(last.value & FR_BUSY, FR_BUSY) << "BUSY still set: the '\\n' is on the wire";
    // The FR reads before it saw TXFE clear (they are the ones that waited).
    const tap::access& before = log[log.size() - 2];
    EXPECT_EQ(before.offset, sw::UART01x_FR);
    EXPECT_EQ(before.value & FR_TXFE, 0u);
}

// ---- PL011: the nbcon console (v6.15 and later) per vendor

namespace {

// Runs the nbcon console's write_atomic (or write_thread) for one record, the console owned at NORMAL
// as the atomic flush and the printer kthread own it; returns the console write's accesses.
std::vector<tap::access> pl011_nbcon_record(const sw::vendor_data& vendor, bool thread,
                                            std::string& line_text, bool& still_owner) {
    pl011_machine m("m", pl011_config{}, 115200);
    sw::uart_port port;
    port.membase = uart_base;
    port.vendor = &vendor;
    port.iotype32 = vendor.access_32b;
    sw::printk_init(sw::printk_config{});
    static sw::console co; // lives past the simulation's suspended threads
    sw::pl011_console_init(co, port, 0, true);
    std::size_t first = 0;
    m.cpu0.add_task("firmware", [&] { sw::pl011_firmware_setup(port, 13, 1, 0x60); });
    m.cpu0.add_task("boot", [&] {
        sw::nbcon_write_context w;
        w.ctxt.con = &co;
        w.ctxt.prio = sw::nbcon_prio::normal;
        ASSERT_TRUE(sw::nbcon_context_try_acquire(w.ctxt));
        w.outbuf = "sbsa\n";
        first = m.probe.log.size();
        if (thread)
            sw::pl011_console_write_thread(co, w);
        else
            sw::pl011_console_write_atomic(co, w);
        still_owner = sw::nbcon_can_proceed(w);
        sw::nbcon_context_release(w.ctxt);
    });
    sc_start(sc_time(5, SC_MS));
    line_text = m.text;
    return {m.probe.log.begin() + static_cast<std::ptrdiff_t>(first), m.probe.log.end()};
}

} // namespace

TEST(SwPl011, NbconWriteAtomicOnArmsPl011SavesAndRestoresCrAroundTheRecord) {
    UARTVP_SIM_TEST();
    std::string text;
    bool owner = false;
    const auto log = pl011_nbcon_record(sw::vendor_arm, false, text, owner);
    ASSERT_GE(log.size(), 4u);
    EXPECT_EQ(log.front().offset, sw::UART011_CR);
    EXPECT_FALSE(log.front().write);
    EXPECT_EQ(log[1].offset, sw::UART011_CR);
    EXPECT_TRUE(log[1].write);
    EXPECT_EQ(log[1].value & sw::UART011_CR_CTSEN, 0u) << "CTS flow control off while printing";
    EXPECT_EQ(log.back().offset, sw::UART011_CR);
    EXPECT_EQ(log.back().value, log.front().value) << "CR restored to the value read";
    EXPECT_EQ(log[log.size() - 2].offset, sw::UART01x_FR);
    EXPECT_EQ(log[log.size() - 2].value & FR_BUSY, 0u);
    EXPECT_EQ(text, "sbsa\r\n");
    EXPECT_TRUE(owner) << "the console is still owned after the write";
}

TEST(SwPl011, NbconWriteAtomicOnSbsaLeavesCrAloneAndWaitsOnceForBusy) {
    UARTVP_SIM_TEST();
    std::string text;
    bool owner = false;
    const auto log = pl011_nbcon_record(sw::vendor_sbsa, false, text, owner);
    unsigned dr_writes = 0;
    for (const tap::access& a : log) {
        EXPECT_NE(a.offset, sw::UART011_CR) << "always_enabled: CR untouched";
        EXPECT_EQ(a.size, 4u);
        dr_writes += a.offset == sw::UART01x_DR && a.write;
    }
    EXPECT_EQ(dr_writes, 6u);
    EXPECT_EQ(log.back().offset, sw::UART01x_FR);
    EXPECT_EQ(log.back().value & FR_BUSY, 0u);
    EXPECT_EQ(text, "sbsa\r\n");
    EXPECT_TRUE(owner);
}

TEST(SwPl011, NbconWriteThreadOnSbsaWritesTheSameCharactersOneUnsafeSectionEach) {
    UARTVP_SIM_TEST();
    std::string text;
    bool owner = false;
    const auto log = pl011_nbcon_record(sw::vendor_sbsa, true, text, owner);
    unsigned dr_writes = 0;
    for (const tap::access& a : log) {
        EXPECT_NE(a.offset, sw::UART011_CR);
        dr_writes += a.offset == sw::UART01x_DR && a.write;
    }
    EXPECT_EQ(dr_writes, 6u);
    EXPECT_EQ(log.back().offset, sw::UART01x_FR);
    EXPECT_EQ(log.back().value & FR_BUSY, 0u);
    EXPECT_EQ(text, "sbsa\r\n");
    EXPECT_TRUE(owner);
}

// ---- 8250

namespace {

// The 16550 on MMIO with stride 1 and byte accesses.
sw::uart_8250_port mmio_port() {
    sw::uart_8250_port up;
    up.iotype = sw::upio::mem;
    up.membase = uart_base;
    return up;
}

unsigned count_if(const std::vector<tap::access>& log, std::uint64_t off, bool write) {
    unsigned n = 0;
    for (const tap::access& a : log)
        n += a.offset == off && a.write == write;
    return n;
}

} // namespace

// Console flow control: the CTS waits read MSR and so clear its deltas in the chip; the console write
// keeps them and calls serial8250_modem_status() (one more MSR read) once IER is restored.
TEST(Sw8250, ConsoleWriteReadsModemStatusAfterRestoringIerWhenCtsWaitsSawADelta) {
    UARTVP_SIM_TEST();
    m16550 m("m", uart16550_config{}, 115200);
    sc_signal<bool> ncts{"ncts", true}; // CTS inactive at first
    m.uart.ncts(ncts);
    sw::uart_8250_port up = mmio_port();
    up.cons_flow = true;
    std::size_t first = 0, second = 0;
    std::uint8_t saved_after = 0xFF;
    m.cpu0.add_task("startup", [&] { sw::serial8250_port_startup(up, 1, 0x03); });
    m.cpu0.add_task("boot", [&] {
        first = m.probe.log.size();
        sw::serial8250_console_write(up, "cts"); // waits for CTS after the first THRE
        saved_after = up.msr_saved_flags;
        second = m.probe.log.size();
        sw::serial8250_console_write(up, "ok"); // CTS steady now: no delta
    });
    sc_spawn([&] {
        wait(sc_time(200, SC_US));
        ncts.write(false);
    });
    sc_start(sc_time(10, SC_MS));
    const std::vector<tap::access> a(m.probe.log.begin() + first, m.probe.log.begin() + second);
    const std::vector<tap::access> b(m.probe.log.begin() + second, m.probe.log.end());
    ASSERT_GE(a.size(), 3u);
    // The MSR reads of the CTS waits saw DCTS once (the read clears it).
    unsigned dcts = 0;
    for (const tap::access& x : a)
        dcts += x.offset == sw::UART_MSR && !x.write && (x.value & 0x01);
    EXPECT_EQ(dcts, 1u);
    const tap::access& ier_restore = a[a.size() - 2];
    EXPECT_EQ(ier_restore.offset, sw::UART_IER);
    EXPECT_TRUE(ier_restore.write);
    EXPECT_EQ(a.back().offset, sw::UART_MSR) << "serial8250_modem_status() after IER is restored";
    EXPECT_FALSE(a.back().write);
    EXPECT_EQ(saved_after, 0) << "the saved deltas were handed over";
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(b.back().offset, sw::UART_IER) << "no delta saved: IER restored last";
    EXPECT_TRUE(b.back().write);
    EXPECT_EQ(m.text, "ctsok");
}

// UART_CAP_MINI (the BCM283x mini UART's THRE means "not full"): never the FIFO path, a THRE wait
// before every byte. The same port without it bursts.
TEST(Sw8250, MiniUartIsKeptOffTheFifoPath) {
    UARTVP_SIM_TEST();
    m16550 m("m", uart16550_config{}, 115200);
    sw::uart_8250_port mini = mmio_port(), full = mmio_port();
    mini.cap_mini = true;
    std::size_t first = 0, second = 0;
    m.cpu0.add_task("startup", [&] {
        sw::serial8250_port_startup(mini, 1, 0x03);
        full.fcr = mini.fcr;
        full.initialized = true;
    });
    m.cpu0.add_task("boot", [&] {
        first = m.probe.log.size();
        sw::serial8250_console_write(mini, "mini uart");
        second = m.probe.log.size();
        sw::serial8250_console_write(full, "16550A");
    });
    sc_start(sc_time(10, SC_MS));
    auto thr_after_thr = [&](std::size_t from, std::size_t to) {
        unsigned n = 0;
        for (std::size_t i = from + 1; i < to; ++i) {
            const tap::access &p = m.probe.log[i - 1], &c = m.probe.log[i];
            n += p.write && p.offset == sw::UART_TX && c.write && c.offset == sw::UART_TX;
        }
        return n;
    };
    EXPECT_EQ(thr_after_thr(first, second), 0u) << "an LSR read before every THR write";
    EXPECT_EQ(thr_after_thr(second, m.probe.log.size()), 5u) << "the FIFO path: six bytes back to back";
    EXPECT_EQ(m.text, "mini uart16550A");
}

// 8250_early's init_port as the kernel writes it: LCR 8N1 first, IER read and cleared but for UUE, FCR
// 0, DTR|RTS, then the divisor with LCR read back, DLAB set and cleared.
TEST(Sw8250, EarlyInitPortProgramsEightN1AndReadsIerAndLcr) {
    UARTVP_SIM_TEST();
    m16550 m("m", uart16550_config{}, 115200);
    sw::uart_8250_port up = mmio_port();
    m.cpu0.add_task("early", [&] {
        sw::early_serial8250_init_port(up, 1);
        sw::early_serial8250_write(up, "8N1");
    });
    sc_start(sc_time(5, SC_MS));
    struct step {
        unsigned offset;
        bool write;
        int value; // -1: any
    };
    const step expect[] = {
        {sw::UART_LCR, true, 0x03}, {sw::UART_IER, false, 0x00}, {sw::UART_IER, true, 0x00},
        {sw::UART_FCR, true, 0x00}, {sw::UART_MCR, true, 0x03},  {sw::UART_LCR, false, 0x03},
        {sw::UART_LCR, true, 0x83}, {sw::UART_DLL, true, 0x01},  {sw::UART_DLM, true, 0x00},
        {sw::UART_LCR, true, 0x03},
    };
    ASSERT_GE(m.probe.log.size(), std::size(expect));
    for (std::size_t i = 0; i < std::size(expect); ++i) {
        const tap::access& a = m.probe.log[i];
        EXPECT_EQ(a.offset, expect[i].offset) << "access " << i;
        EXPECT_EQ(a.write, expect[i].write) << "access " << i;
        EXPECT_EQ(a.size, 1u) << "access " << i;
        if (expect[i].value >= 0) EXPECT_EQ(a.value & 0xFF, static_cast<unsigned>(expect[i].value)) << i;
    }
    EXPECT_EQ(count_if(m.probe.log, sw::UART_FCR, true), 1u) << "the FIFO stays off";
    EXPECT_EQ(m.text, "8N1");
}
