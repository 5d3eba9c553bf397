// SPDX-License-Identifier: Apache-2.0
// The 8250 consoles for printk (sw/serial/8250_console.*) against the UART models, access by access: a
// tap between the core and the bus logs every transaction, every poll a transaction (reference mode).
// The nbcon console of the reverted 8250 nbcon patches on the BCM2835 mini UART (UART_CAP_MINI): IER
// saved and cleared, a THRE wait before every byte (no FIFO path), THRE|TEMT, IER restored;
// write_thread the same accesses; the modem status deferred to an irq_work from write_atomic and read
// directly from write_thread; the legacy console's per-character path on the same port.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/router.h>
#include <uartvp/uart16550.h>

#include "kernel/printk/printk.h"
#include "drivers/tty/serial/8250/8250_nbcon.h"
#include <uartvp/sw/serial8250.h>
#include "sim_main.h"

using namespace uartvp;
using namespace sc_core;

namespace {

constexpr std::uint64_t uart_base = 0x3f215040;
constexpr unsigned aux_mu_baud = 270; // 250 MHz / (8 x 271) = 115,313 baud
constexpr double mini_baud = 250e6 / (8.0 * (aux_mu_baud + 1));

struct tap : sc_module {
    tlm_utils::multi_passthrough_target_socket<tap, 32> target{"target"}; // one binding per core
    tlm_utils::simple_initiator_socket<tap, 32> initiator{"initiator"};
    struct access {
        unsigned reg; // register index (offset >> regshift)
        bool write;
        std::uint32_t value;
    };
    std::vector<access> log;
    unsigned shift = 2;
    explicit tap(const sc_module_name& n)
        : sc_module(n) {
        target.register_b_transport(this, &tap::b_transport);
        target.register_transport_dbg(this, &tap::transport_dbg);
    }
    void b_transport(int, tlm::tlm_generic_payload& tx, sc_time& delay) {
        initiator->b_transport(tx, delay);
        std::uint32_t v = 0;
        std::memcpy(&v, tx.get_data_ptr(), std::min(4u, tx.get_data_length()));
        log.push_back({static_cast<unsigned>((tx.get_address() - uart_base) >> shift), tx.is_write(), v});
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload& tx) { return initiator->transport_dbg(tx); }
};

cpu::timing_profile timing() {
    cpu::timing_profile t;
    t.cpu_hz = 1'400'000'000;
    t.regions.push_back({"uart", uart_base, 0x100, sc_time(120, SC_NS), sc_time(60, SC_NS)});
    return t;
}

uart16550_config mini_config() {
    uart16550_config c;
    c.part = uart16550_part::bcm2835_mini;
    c.clock_hz = 250'000'000;
    c.reg_shift = 2;
    c.reg_io_width = 4;
    return c;
}

uart16550_config pc_mmio_config() {
    uart16550_config c;
    c.reg_shift = 2;
    c.reg_io_width = 4;
    return c;
}

// One core of the kernel model -> tap -> router -> the UART, its TXD decoded.
struct bench : sc_module {
    cpu::machine kernel;
    tap probe{"probe"};
    router bus{"bus"};
    uart16550 uart;
    sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true}, ncts{"ncts", true};
    line_monitor monitor;
    std::string text;
    bench(const uart16550_config& cfg, double baud, unsigned cores = 1)
        : sc_module("bench")
        , kernel("kernel", cores, timing())
        , uart("uart", cfg)
        , monitor("monitor", baud, serial_format{}) {
        for (auto& c : kernel.cores) {
            c->set_collapse_polls(false);
            c->bus.bind(probe.target);
        }
        probe.initiator.bind(bus.target);
        bus.map(uart.bus, uart_base, uart.map_size(), "uart");
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        uart.ncts(ncts);
        monitor.line(txd);
        monitor.on_char([this](const decoded_char& c) { text += static_cast<char>(c.data); });
    }
};

// The mini UART as 8250_bcm2835aux and set_termios leave it: MMIO32, reg-shift 2, 8-byte FIFOs,
// UART_CAP_FIFO | UART_CAP_MINI, IER RLSI | RDI.
sw::uart_8250_port mini_port() {
    sw::uart_8250_port up;
    up.iotype = sw::upio::mem32;
    up.membase = uart_base;
    up.regshift = 2;
    up.fifosize = up.tx_loadsz = 8;
    up.cap_mini = true;
    return up;
}

void program(sw::uart_8250_port& up, unsigned divisor, std::uint8_t ier) {
    sw::serial8250_port_startup(up, static_cast<std::uint16_t>(divisor), 0x03);
    sw::serial_out(up, sw::UART_IER, ier);
}

// Runs one record through the nbcon console's write_atomic, then the same record through write_thread,
// the console owned at NORMAL each time, IRQs off as the atomic flush and the printer kthread (device
// lock) have them; returns the accesses of each write alone.
struct nbcon_run {
    std::vector<tap::access> log;
    std::string text;
    bool still_owner = false;
};

std::vector<nbcon_run> nbcon_records(const std::string& record) {
    bench b(mini_config(), mini_baud);
    static sw::uart_8250_port up; // outlive the simulation's suspended threads
    static sw::serial8250_console_port cp;
    static sw::console co;
    up = mini_port();
    cp = sw::serial8250_console_port{};
    cp.up = &up;
    co = sw::console{};
    sw::printk_init(sw::printk_config{});
    sw::serial8250_console_init(co, cp, 0, true);
    std::vector<nbcon_run> runs(2);
    std::vector<std::size_t> bounds;
    b.kernel.cpu(0).create_task("boot", [&] {
        program(up, aux_mu_baud, 0x05);
        for (int thread = 0; thread < 2; ++thread) {
            sw::nbcon_write_context w;
            w.ctxt.con = &co;
            w.ctxt.prio = sw::nbcon_prio::normal;
            kapi::irqflags flags;
            if (thread)
                co.device_lock(co, flags);
            else
                kapi::local_irq_save(flags);
            ASSERT_TRUE(sw::nbcon_context_try_acquire(w.ctxt));
            w.outbuf = record;
            bounds.push_back(b.probe.log.size());
            if (thread)
                co.write_thread(co, w);
            else
                co.write_atomic(co, w);
            bounds.push_back(b.probe.log.size());
            runs[thread].still_owner = sw::nbcon_can_proceed(w);
            runs[thread].text = b.text;
            sw::nbcon_context_release(w.ctxt);
            if (thread)
                co.device_unlock(co, flags);
            else
                kapi::local_irq_restore(flags);
        }
    });
    sc_start(sc_time(40, SC_MS));
    for (std::size_t k = 0; k < 2 && bounds.size() >= 2 * k + 2; ++k)
        runs[k].log.assign(b.probe.log.begin() + static_cast<std::ptrdiff_t>(bounds[2 * k]),
                           b.probe.log.begin() + static_cast<std::ptrdiff_t>(bounds[2 * k + 1]));
    return runs;
}

unsigned count(const std::vector<tap::access>& log, unsigned reg, bool write) {
    return static_cast<unsigned>(std::count_if(
        log.begin(), log.end(), [&](const tap::access& a) { return a.reg == reg && a.write == write; }));
}

const std::string long_record = "[    0.301234] 3f215040.serial: ttyS0 at MMIO 0x3f215040 is a 16550\n";

} // namespace

// The reverted patches' write_atomic on the mini UART: IER read and cleared first, an LSR read before
// every THR write (never two THR writes in a row), waits that see the 8-byte FIFO full, THRE|TEMT at
// the end, IER restored to the value read. No interrupt while the record prints.
TEST(Sw8250Console, NbconWriteAtomicOnTheMiniUartWaitsForThreBeforeEveryByte) {
    UARTVP_SIM_TEST();
    const nbcon_run r = nbcon_records(long_record)[0];
    ASSERT_GE(r.log.size(), 4u);
    EXPECT_EQ(r.log[0].reg, sw::UART_IER);
    EXPECT_FALSE(r.log[0].write);
    EXPECT_EQ(r.log[0].value, 0x05u);
    EXPECT_EQ(r.log[1].reg, sw::UART_IER);
    EXPECT_TRUE(r.log[1].write);
    EXPECT_EQ(r.log[1].value, 0u) << "interrupts off for the record";
    EXPECT_EQ(r.log.back().reg, sw::UART_IER);
    EXPECT_TRUE(r.log.back().write);
    EXPECT_EQ(r.log.back().value, 0x05u) << "IER restored";
    const tap::access& last_lsr = r.log[r.log.size() - 2];
    EXPECT_EQ(last_lsr.reg, sw::UART_LSR);
    EXPECT_EQ(last_lsr.value & sw::UART_LSR_BOTH_EMPTY, sw::UART_LSR_BOTH_EMPTY);
    const unsigned wire = static_cast<unsigned>(long_record.size()) + 1; // '\r' before '\n'
    EXPECT_EQ(count(r.log, sw::UART_TX, true), wire);
    unsigned thr_after_thr = 0, full_seen = 0;
    for (std::size_t i = 1; i < r.log.size(); ++i) {
        thr_after_thr += r.log[i].write && r.log[i].reg == sw::UART_TX && r.log[i - 1].write &&
                         r.log[i - 1].reg == sw::UART_TX;
        full_seen += !r.log[i].write && r.log[i].reg == sw::UART_LSR && !(r.log[i].value & sw::UART_LSR_THRE);
    }
    EXPECT_EQ(thr_after_thr, 0u) << "no FIFO path on a UART_CAP_MINI port";
    EXPECT_GT(full_seen, 0u) << "THRE waits that found the 8-byte FIFO full";
    EXPECT_EQ(r.text, "[    0.301234] 3f215040.serial: ttyS0 at MMIO 0x3f215040 is a 16550\r\n");
    EXPECT_TRUE(r.still_owner);
}

// write_thread (the printer kthread, device lock held) makes the same accesses with the same values.
TEST(Sw8250Console, NbconWriteThreadMakesTheSameAccessesAsWriteAtomic) {
    UARTVP_SIM_TEST();
    const std::vector<nbcon_run> runs = nbcon_records(long_record);
    const nbcon_run &a = runs[0], &r = runs[1];
    ASSERT_EQ(r.log.size(), a.log.size());
    for (std::size_t i = 0; i < r.log.size(); ++i) {
        EXPECT_EQ(r.log[i].reg, a.log[i].reg) << i;
        EXPECT_EQ(r.log[i].write, a.log[i].write) << i;
        EXPECT_EQ(r.log[i].value, a.log[i].value) << i;
    }
    EXPECT_EQ(r.text, a.text + a.text);
    EXPECT_TRUE(r.still_owner);
}

namespace {

// A 16550 with console flow control (the mini UART's MSR has no deltas), CTS inactive at first: it
// comes 200 us into the first write (write_atomic, IRQs off), goes away between the writes and comes
// back 200 us into the second (write_thread, device lock held), so the CTS waits of each read DCTS
// and keep it for serial8250_modem_status().
struct modem_run {
    std::vector<tap::access> log;
    std::uint64_t deferred = 0, from_irq_work = 0;
    std::uint8_t saved_after = 0xFF;
};

std::vector<modem_run> modem_records() {
    bench b(pc_mmio_config(), 115200);
    static sw::uart_8250_port up;
    static sw::serial8250_console_port cp;
    static sw::console co;
    up = sw::uart_8250_port{};
    up.iotype = sw::upio::mem32;
    up.membase = uart_base;
    up.regshift = 2;
    up.cons_flow = true;
    cp = sw::serial8250_console_port{};
    cp.up = &up;
    co = sw::console{};
    sw::printk_init(sw::printk_config{});
    sw::serial8250_console_init(co, cp, 0, true);
    std::vector<modem_run> runs(2);
    std::vector<std::size_t> bounds;
    b.kernel.cpu(0).create_task("boot", [&] {
        program(up, 1, 0x05);
        for (int thread = 0; thread < 2; ++thread) {
            if (thread) kapi::udelay(3000 - 1000); // the second write starts at about 3 ms
            sw::nbcon_write_context w;
            w.ctxt.con = &co;
            kapi::irqflags flags;
            if (thread)
                co.device_lock(co, flags);
            else
                kapi::local_irq_save(flags);
            ASSERT_TRUE(sw::nbcon_context_try_acquire(w.ctxt));
            w.outbuf = "cts\n";
            bounds.push_back(b.probe.log.size());
            if (thread)
                co.write_thread(co, w);
            else
                co.write_atomic(co, w);
            bounds.push_back(b.probe.log.size());
            runs[thread].saved_after = up.msr_saved_flags;
            runs[thread].deferred = cp.modem_status_deferred;
            sw::nbcon_context_release(w.ctxt);
            if (thread)
                co.device_unlock(co, flags);
            else
                kapi::local_irq_restore(flags); // the irq_work runs here
            kapi::udelay(100);
        }
    });
    sc_spawn([&] {
        wait(sc_time(200, SC_US));
        b.ncts.write(false);
        wait(sc_time(1800, SC_US));
        b.ncts.write(true);
        wait(sc_time(1200, SC_US));
        b.ncts.write(false);
    });
    sc_start(sc_time(10, SC_MS));
    for (std::size_t k = 0; k < 2 && bounds.size() >= 2 * k + 2; ++k)
        runs[k].log.assign(b.probe.log.begin() + static_cast<std::ptrdiff_t>(bounds[2 * k]),
                           b.probe.log.begin() + static_cast<std::ptrdiff_t>(bounds[2 * k + 1]));
    runs[0].from_irq_work = runs[1].from_irq_work = cp.modem_status_from_irq_work; // both writes' total
    return runs;
}

} // namespace

// write_atomic may run where waking tasks is not allowed: the MSR deltas its CTS waits saw go to the
// irq_work, which reads MSR once IRQs are on; write_thread reads MSR itself after restoring IER.
TEST(Sw8250Console, ModemStatusDeferredToIrqWorkFromWriteAtomicOnly) {
    UARTVP_SIM_TEST();
    const std::vector<modem_run> runs = modem_records();
    const modem_run &a = runs[0], &t = runs[1];
    ASSERT_GE(a.log.size(), 3u);
    EXPECT_EQ(a.log.back().reg, sw::UART_IER) << "write_atomic ends with the IER restore";
    EXPECT_TRUE(a.log.back().write);
    EXPECT_EQ(a.deferred, 1u);
    EXPECT_EQ(a.from_irq_work, 1u) << "the irq_work ran serial8250_modem_status once, after IRQs came on";
    EXPECT_EQ(a.saved_after, 0x01) << "DCTS still saved when write_atomic returned";
    ASSERT_GE(t.log.size(), 3u);
    EXPECT_EQ(t.log.back().reg, sw::UART_MSR) << "write_thread reads the modem status itself";
    EXPECT_FALSE(t.log.back().write);
    EXPECT_EQ(t.log[t.log.size() - 2].reg, sw::UART_IER);
    EXPECT_EQ(t.deferred, 1u) << "nothing more deferred";
    EXPECT_EQ(t.saved_after, 0);
    unsigned dcts = 0;
    for (const tap::access& x : t.log)
        dcts += x.reg == sw::UART_MSR && !x.write && (x.value & 0x01);
    EXPECT_GE(dcts, 1u) << "write_thread's CTS waits saw a delta too";
}

// The legacy console (mainline) on the mini UART: the same frame under the port lock with IRQs saved,
// a THRE wait before every byte; the console is "ttyS0", CON_PRINTBUFFER, not nbcon.
TEST(Sw8250Console, LegacyConsoleOnTheMiniUartKeepsThePerCharacterPath) {
    UARTVP_SIM_TEST();
    bench b(mini_config(), mini_baud);
    static sw::uart_8250_port up;
    static sw::serial8250_console_port cp;
    static sw::console co;
    up = mini_port();
    cp = sw::serial8250_console_port{};
    cp.up = &up;
    co = sw::console{};
    sw::serial8250_console_init(co, cp, 0, false);
    EXPECT_EQ(co.full_name(), "ttyS0");
    EXPECT_EQ(co.flags, sw::CON_PRINTBUFFER);
    ASSERT_TRUE(co.write);
    EXPECT_FALSE(co.write_atomic);
    std::size_t first = 0;
    bool irqs_off_inside = false;
    b.kernel.cpu(0).create_task("boot", [&] {
        program(up, aux_mu_baud, 0x05);
        first = b.probe.log.size();
        co.write(co, long_record);
        irqs_off_inside = b.kernel.cpu(0).stats().irq_off_max > sc_time(5, SC_MS);
    });
    sc_start(sc_time(20, SC_MS));
    const std::vector<tap::access> log(b.probe.log.begin() + static_cast<std::ptrdiff_t>(first),
                                       b.probe.log.end());
    ASSERT_GE(log.size(), 4u);
    EXPECT_EQ(log[1].reg, sw::UART_IER);
    EXPECT_EQ(log[1].value, 0u);
    EXPECT_EQ(log.back().reg, sw::UART_IER);
    EXPECT_EQ(log.back().value, 0x05u);
    unsigned thr_after_thr = 0;
    for (std::size_t i = 1; i < log.size(); ++i)
        thr_after_thr +=
            log[i].write && log[i].reg == sw::UART_TX && log[i - 1].write && log[i - 1].reg == sw::UART_TX;
    EXPECT_EQ(thr_after_thr, 0u);
    EXPECT_EQ(count(log, sw::UART_TX, true), long_record.size() + 1);
    EXPECT_TRUE(irqs_off_inside) << "the port lock is taken with IRQs saved for the record (~6 ms)";
    EXPECT_EQ(b.text.size(), long_record.size() + 1);
}

// A friendly takeover between two bytes: an EMERGENCY context on CPU1 asks for the console while the
// printer kthread's write_thread on CPU0 prints a record; the writer hands over at its next takeover
// point, the other prints its record (saving and restoring the IER it finds: 0), and the writer
// reacquires the console, without its record, only to restore the IER it saved.
TEST(Sw8250Console, FriendlyTakeoverBetweenBytesThenTheWriterReacquiresToRestoreIer) {
    UARTVP_SIM_TEST();
    bench b(mini_config(), mini_baud, 2);
    static sw::uart_8250_port up;
    static sw::serial8250_console_port cp;
    static sw::console co;
    up = mini_port();
    cp = sw::serial8250_console_port{};
    cp.up = &up;
    co = sw::console{};
    sw::printk_init(sw::printk_config{});
    sw::serial8250_console_init(co, cp, 0, true);
    bool writer_owner_after = false, emergency_acquired = false;
    b.kernel.cpu(0).create_task("pr/ttyS0", [&] {
        program(up, aux_mu_baud, 0x05);
        kapi::irqflags flags;
        co.device_lock(co, flags);
        sw::nbcon_write_context w;
        w.ctxt.con = &co;
        w.ctxt.prio = sw::nbcon_prio::normal;
        ASSERT_TRUE(sw::nbcon_context_try_acquire(w.ctxt));
        w.outbuf = long_record;
        co.write_thread(co, w);
        writer_owner_after = sw::nbcon_can_proceed(w);
        sw::nbcon_context_release(w.ctxt);
        co.device_unlock(co, flags);
    });
    b.kernel.cpu(1).create_task("emergency", [&] {
        kapi::udelay(2000); // a third into the record
        kapi::irqflags flags;
        kapi::local_irq_save(flags);
        sw::nbcon_write_context w;
        w.ctxt.con = &co;
        w.ctxt.prio = sw::nbcon_prio::emergency;
        w.ctxt.spinwait_max_us = 10000;
        emergency_acquired = sw::nbcon_context_try_acquire(w.ctxt);
        if (emergency_acquired) {
            w.outbuf = "EMERG\n";
            co.write_atomic(co, w);
            sw::nbcon_context_release(w.ctxt);
        }
        kapi::local_irq_restore(flags);
    });
    sc_start(sc_time(20, SC_MS));
    ASSERT_TRUE(emergency_acquired) << "handed over at a takeover point";
    EXPECT_EQ(co.ownership_lost, 1u);
    EXPECT_TRUE(writer_owner_after) << "the writer owns the console again";
    const std::string tail = "EMERG\r\n";
    ASSERT_GT(b.text.size(), tail.size());
    EXPECT_EQ(b.text.substr(b.text.size() - tail.size()), tail) << b.text;
    const std::string head = b.text.substr(0, b.text.size() - tail.size());
    EXPECT_GT(head.size(), 10u);
    EXPECT_LT(head.size(), long_record.size()) << "the writer's record was cut, not resumed";
    EXPECT_EQ(long_record.compare(0, head.size(), head), 0) << head;
    // IER writes in order: the writer's clear, the emergency's clear and its restore of the 0 it found,
    // the writer's restore of 0x05 last.
    std::vector<std::uint32_t> ier_writes;
    for (const tap::access& a : b.probe.log)
        if (a.reg == sw::UART_IER && a.write) ier_writes.push_back(a.value);
    ASSERT_GE(ier_writes.size(), 4u);
    EXPECT_EQ(ier_writes.back(), 0x05u);
    EXPECT_EQ(std::vector<std::uint32_t>(ier_writes.end() - 4, ier_writes.end()),
              (std::vector<std::uint32_t>{0, 0, 0, 0x05}));
}
