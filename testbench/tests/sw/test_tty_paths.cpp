// SPDX-License-Identifier: Apache-2.0
// The interrupt-driven tty paths of sw/ (the tty layer, the serial core, the PL011's and the 8250's
// interrupt handlers) on the kernel model against the UART models, access by access: a tap between the
// cores and the bus logs every transaction. Each test names what the kernel's routine does to the
// registers (startup, one RX interrupt, one TX interrupt) and what reaches the reader or the line.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/rx_injector.h>
#include <uartvp/uart16550.h>

#include "drivers/tty/serial/8250/8250_port.h"
#include "drivers/tty/serial/amba-pl011.h"
#include "sim_main.h"
#include "uart_tap.h"

using namespace uartvp;
using namespace sc_core;

namespace {

constexpr std::uint64_t uart_base = 0x10000000;
constexpr double baud = 115200;

using tap = test::access_tap;

cpu::timing_profile timing() {
    return test::uart_timing(uart_base);
}

// N cores -> tap -> router -> UART; the UART's IRQ line to CPU0; an RX injector on RXD and a line
// monitor on TXD at 115200 8N1.
template <class uart_t> struct bench : sc_module {
    cpu::machine m;
    tap probe{"probe", uart_base};
    router bus{"bus"};
    uart_t uart;
    sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    rx_injector inj{"inj", baud, serial_format{}};
    line_monitor monitor{"monitor", baud, serial_format{}};
    std::vector<decoded_char> sent;
    int line = -1;
    template <class cfg_t>
    bench(const cfg_t& cfg, unsigned cores = 1)
        : sc_module("bench")
        , m("machine", cores, timing(),
            [] {
                cpu::kernel_params p;
                p.irq_entry = sc_time(500, SC_NS);
                return p;
            }())
        , uart("uart", cfg) {
        for (auto& c : m.cores) {
            c->set_collapse_polls(false);
            c->bus.bind(probe.target);
        }
        probe.initiator.bind(bus.target);
        bus.map(uart.bus, uart_base, 0x1000, "uart");
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        inj.line(rxd);
        monitor.line(txd);
        monitor.on_char([this](const decoded_char& c) { sent.push_back(c); });
        line = m.add_irq_line(irq, "uart", 0);
    }
    std::string text_sent() const {
        std::string s;
        for (const decoded_char& c : sent)
            s += static_cast<char>(c.data);
        return s;
    }
    // The accesses from `from` on, as "R3c/2" or "W44/2=0" (offset hex, width, written value).
    std::vector<std::string> trace(std::size_t from, std::size_t n) const {
        std::vector<std::string> r;
        for (std::size_t i = from; i < std::min(log().size(), from + n); ++i) {
            const tap::access& a = log()[i];
            char buf[40];
            if (a.write)
                std::snprintf(buf, sizeof buf, "W%llx/%u=%x", (unsigned long long)a.offset, a.size, a.value);
            else
                std::snprintf(buf, sizeof buf, "R%llx/%u", (unsigned long long)a.offset, a.size);
            r.push_back(buf);
        }
        return r;
    }
    const std::vector<tap::access>& log() const { return probe.log; }
};

std::string paste_text(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
        s += static_cast<char>('!' + (i * 7 + i / 13) % 90);
    return s;
}

// Reads until `want` bytes came or nothing more comes; the time of each read's return.
struct reader {
    std::string got;
    sc_time last_at;
    void run(sw::tty_struct& tty, std::size_t want) {
        unsigned char buf[64];
        while (got.size() < want) {
            const std::size_t n = sw::n_tty_read(tty, buf, sizeof buf);
            got.append(reinterpret_cast<const char*>(buf), n);
            cpu::core::current().sync();
            last_at = cpu::core::current().local_time();
        }
    }
};

// ---- PL011

struct pl011_port {
    sw::uart_amba_port uap;
    sw::uart_state state;
    sw::tty_struct tty;
};

void open_pl011(pl011_port& p, int line) {
    p.uap.port.membase = uart_base;
    p.uap.port.irq = line;
    p.uap.port.ops = &sw::amba_pl011_pops;
    sw::uart_port_attach(p.uap.port, p.state, p.tty);
    ASSERT_EQ(sw::pl011_startup(p.uap), 0);
    sw::pl011_set_termios(p.uap, 13, 1, sw::UART01x_LCRH_WLEN_8); // 24 MHz / (16 x 13.016) = 115200
    sw::pl011_set_mctrl_dtr_rts(p.uap);
}

std::size_t first_index(const std::vector<tap::access>& log, std::uint64_t offset, const sc_time& after) {
    for (std::size_t i = 0; i < log.size(); ++i)
        if (log[i].offset == offset && log[i].at >= after) return i;
    return log.size();
}

TEST(TtyPl011, StartupClearsMasksRequestsSetsLevelsEnablesAndDrainsAsTheDriverDoes) {
    UARTVP_SIM_TEST();
    bench<pl011> b(pl011_config{});
    pl011_port p;
    b.m.cpu(0).create_task("open", [&] { open_pl011(p, b.line); });
    sc_start(sc_time(1, SC_MS));
    const std::vector<std::string> want{
        "W44/2=7d0",                          // pl011_hwinit: ICR <- OE|BE|PE|FE|RT|RX
        "R38/2",                              // the mask saved
        "W38/2=50",                           // RTIM|RXIM, for NMI entry
        "W38/2=0",                            // pl011_allocate_irq: the saved mask back
        "W34/2=12",                           // IFLS: RX4_8 | TX4_8
        "R30/2",     "W30/2=301",             // CR: UARTEN|RXE|TXE (RTS, DTR kept: none)
        "R18/2",                              // the modem status
        "W44/2=50",                           // pl011_enable_interrupts: ICR <- RT|RX
        "R18/2",                              // FR: RXFE, nothing to drain
        "W38/2=50",                           // IMSC <- RTIM|RXIM
        "R30/2",                              // set_termios: CR, to drop flow control
        "W28/2=1",   "W24/2=d",   "W2c/2=70", // FBRD, IBRD, then LCR_H (8 bits, FIFO) latching them
        "W30/2=301",                          // CR without CTSEN/RTSEN
        "R30/2",     "W30/2=f01",             // DTR and RTS (TXE and RXE were set from reset)
    };
    EXPECT_EQ(b.trace(0, 100), want);
    ASSERT_EQ(b.m.irq_lines().size(), 1u);
}

TEST(TtyPl011, PasteReachesTheReaderInOrderOneRxInterruptPer16AndRtForTheTail) {
    UARTVP_SIM_TEST();
    bench<pl011> b(pl011_config{});
    pl011_port p;
    reader r;
    const std::string text = paste_text(200);
    b.m.cpu(0).create_task("open", [&] { open_pl011(p, b.line); });
    b.m.cpu(0).create_task("reader", [&] { r.run(p.tty, text.size()); });
    b.inj.send(text, sc_time(200, SC_US));
    sc_start(sc_time(30, SC_MS));
    EXPECT_EQ(r.got, text);
    EXPECT_EQ(p.uap.port.icount.rx, 200u);
    EXPECT_EQ(p.uap.port.icount.overrun, 0u);
    // 12 RX interrupts at 16, 32, ... 192 characters, then the receive timeout for the last 8.
    EXPECT_EQ(b.m.irq_lines()[0].count, 13u);
    EXPECT_EQ(p.uap.rx_drains, 13u);
    EXPECT_EQ(p.uap.rx_drain_max, 16u);
    // One RX interrupt, access by access: RIS & im, ICR (nothing to clear), FR before every DR, FR
    // with RXFE, RIS again (nothing left).
    const std::size_t k = first_index(b.log(), 0x3C, sc_time(200, SC_US));
    std::vector<std::string> want{"R3c/2", "W44/2=0"};
    for (int i = 0; i < 16; ++i) {
        want.push_back("R18/2");
        want.push_back("R0/2");
    }
    want.push_back("R18/2");
    want.push_back("R3c/2");
    EXPECT_EQ(b.trace(k, want.size()), want);
    // The first RX interrupt comes with the 16th character: 15 frames and the 16th's stop bit after
    // the first start bit.
    const sc_time t16 = b.log()[k].at - sc_time(200, SC_US);
    EXPECT_GT(t16, sc_time(15.9 * 86.806, SC_US));
    EXPECT_LT(t16, sc_time(16.0 * 86.806, SC_US));
}

TEST(TtyPl011, WriteFillsTheFifoThenSixteenDrWritesPerTxInterruptWithoutFrReads) {
    UARTVP_SIM_TEST();
    bench<pl011> b(pl011_config{});
    pl011_port p;
    const std::string text = paste_text(300);
    b.m.cpu(0).create_task("open", [&] { open_pl011(p, b.line); });
    b.m.cpu(0).create_task("writer", [&] {
        sw::tty_write(p.tty, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    });
    sc_start(sc_time(40, SC_MS));
    EXPECT_EQ(b.text_sent(), text);
    EXPECT_EQ(p.uap.port.icount.tx, 300u);
    // start_tx wrote what fit (an FR read before each DR write), the interrupts 16 each.
    const std::uint64_t by_task = 300 - p.uap.tx_irq_chars;
    EXPECT_GE(by_task, 32u);
    EXPECT_LE(by_task, 33u);
    EXPECT_EQ(p.uap.tx_irq_burst_max, 16u);
    EXPECT_EQ(p.uap.tx_irq_bursts, (p.uap.tx_irq_chars + 15) / 16);
    EXPECT_EQ(b.m.irq_lines()[0].count, p.uap.tx_irq_bursts);
    // One TX interrupt: RIS, ICR, 16 DR writes back to back, RIS.
    const std::size_t k = first_index(b.log(), 0x3C, sc_time(1, SC_US));
    std::vector<std::string> want{"R3c/2", "W44/2=0"};
    for (int i = 0; i < 16; ++i)
        want.push_back("W0/2=" + [&] {
            char h[8];
            std::snprintf(h, sizeof h, "%x", static_cast<unsigned char>(text[by_task + i]));
            return std::string(h);
        }());
    want.push_back("R3c/2");
    EXPECT_EQ(b.trace(k, want.size()), want);
    // The line never idles: each character starts where the one before ended.
    for (std::size_t i = 1; i < b.sent.size(); ++i)
        ASSERT_LT(b.sent[i].start.to_seconds() - b.sent[i - 1].end.to_seconds(), 1 / baud)
            << "character " << i;
    // The last burst's stop_tx masked TXIM.
    EXPECT_EQ(p.uap.im, sw::UART011_RTIM | sw::UART011_RXIM);
}

// While the CPU holds IRQs off for 5 ms, the FIFO fills (32) and the characters after it are lost; the
// next one that fits carries OE, the driver counts one overrun, the line discipline reports it and
// reads nothing for it: the reader gets the paste with one gap.
TEST(TtyPl011, IrqsOffLongerThanTheFifoLosesOneRunAndReportsOneOverrun) {
    UARTVP_SIM_TEST();
    bench<pl011> b(pl011_config{});
    pl011_port p;
    reader r;
    const std::string text = paste_text(400);
    b.m.cpu(0).create_task("open", [&] { open_pl011(p, b.line); });
    b.m.cpu(0).create_task("reader", [&] { r.run(p.tty, text.size()); });
    b.m.cpu(0).create_task("hog", [&] {
        kapi::ktime_t at = 1'200'000;
        kapi::schedule_hrtimeout(&at, kapi::HRTIMER_MODE_ABS);
        kapi::irqflags f;
        kapi::local_irq_save(f);
        kapi::udelay(5000);
        kapi::local_irq_restore(f);
    });
    b.inj.send(text, sc_time(200, SC_US));
    sc_start(sc_time(60, SC_MS));
    ASSERT_LT(r.got.size(), text.size());
    std::size_t a = 0;
    while (a < r.got.size() && r.got[a] == text[a])
        ++a;
    const std::size_t tail = r.got.size() - a;
    EXPECT_EQ(r.got.substr(a), text.substr(text.size() - tail)) << "one gap, the rest in order";
    // 5 ms is 57.6 characters; the FIFO held 32 of them (and what was there when the window opened).
    const std::size_t lost = text.size() - r.got.size();
    EXPECT_GT(lost, 20u);
    EXPECT_LT(lost, 58u);
    EXPECT_EQ(p.uap.port.icount.overrun, 1u);
    EXPECT_EQ(p.tty.overruns_reported, 1u);
    EXPECT_EQ(p.tty.received, r.got.size());
    EXPECT_EQ(p.uap.port.icount.rx, r.got.size()) << "the driver took every character that was kept";
}

// ---- 8250 (a 16550A at 1.8432 MHz, MMIO bytes at stride 1)

uart16550_config com_config() {
    uart16550_config c;
    c.clock_hz = 1'843'200;
    return c;
}

struct com_port {
    sw::uart_8250_port up;
    sw::uart_state state;
    sw::tty_struct tty;
    sw::irq_info chain;
};

void open_8250(com_port& p, int line) {
    p.up.iotype = sw::upio::mem;
    p.up.membase = uart_base;
    p.up.port.irq = line;
    p.up.port.ops = &sw::serial8250_pops;
    p.up.fcr = sw::UART_FCR_ENABLE_FIFO | sw::UART_FCR_R_TRIG_10; // uart_config[PORT_16550A].fcr
    sw::uart_port_attach(p.up.port, p.state, p.tty);
    ASSERT_EQ(sw::serial8250_do_startup(p.up, p.chain), 0);
    sw::serial8250_do_set_termios(p.up, 1, sw::UART_LCR_WLEN8);
    sw::serial8250_raise_dtr_rts(p.up);
}

TEST(Tty8250, StartupTouchesTheUartAsSerial8250DoStartupThenSetTermiosWritesIerBeforeFcr) {
    UARTVP_SIM_TEST();
    bench<uart16550> b(com_config());
    com_port p;
    b.m.cpu(0).create_task("open", [&] { open_8250(p, b.line); });
    sc_start(sc_time(1, SC_MS));
    std::vector<std::string> t = b.trace(0, 200);
    const std::vector<std::string> head{
        "W2/1=1", "W2/1=7", "W2/1=0",         // clear and disable the FIFOs
        "R5/1",   "R0/1",   "R2/1",   "R6/1", // clear the interrupt registers
        "R5/1",                               // the LSR safety check
        "R5/1",                               // THRE test: wait_for_xmitr(THRE), THRE already set
        "W1/1=2", "R3/1",                     // IER <- THRI, synced (LCR read back on MMIO)
    };
    ASSERT_GE(t.size(), head.size());
    EXPECT_EQ(std::vector<std::string>(t.begin(), t.begin() + head.size()), head);
    const std::vector<std::string> tail{
        "W3/1=3",                                 // LCR <- 8N1
        "W4/1=8",                                 // MCR <- OUT2
        "W1/1=2",  "R5/1",    "R2/1",   "W1/1=0", // TXEN test
        "R5/1",    "R0/1",    "R2/1",   "R6/1",   // again, for luck
        "W1/1=5",                                 // set_termios: IER <- RLSI|RDI
        "W3/1=83", "W0/1=1",  "W1/1=0", "W3/1=3", // divisor 1 under DLAB
        "W2/1=1",  "W2/1=81",                     // FCR: ENABLE, then with the RX trigger of 8
        "W4/1=8",                                 // MCR
        "W4/1=b",                                 // DTR|RTS|OUT2
    };
    ASSERT_GE(t.size(), tail.size());
    EXPECT_EQ(std::vector<std::string>(t.end() - static_cast<long>(tail.size()), t.end()), tail);
    EXPECT_EQ(p.up.bugs, 0u) << "a 16550 reasserts THRE and raises it when THRI is set";
    EXPECT_EQ(p.up.ier, sw::UART_IER_RLSI | sw::UART_IER_RDI);
}

TEST(Tty8250, PasteReachesTheReaderOneInterruptPer8WithIirLsrRbrLsrMsrIir) {
    UARTVP_SIM_TEST();
    bench<uart16550> b(com_config());
    com_port p;
    reader r;
    const std::string text = paste_text(200);
    b.m.cpu(0).create_task("open", [&] { open_8250(p, b.line); });
    b.m.cpu(0).create_task("reader", [&] { r.run(p.tty, text.size()); });
    b.inj.send(text, sc_time(200, SC_US));
    sc_start(sc_time(30, SC_MS));
    EXPECT_EQ(r.got, text);
    EXPECT_EQ(p.up.port.icount.rx, 200u);
    EXPECT_EQ(b.m.irq_lines()[0].count, 25u) << "RX trigger 8: 200 / 8";
    // One interrupt: the chain handler reads IIR, serial8250_handle_irq LSR, then RBR and LSR per
    // character, MSR, and IIR again (no interrupt: the chain ends).
    const std::size_t k = first_index(b.log(), 2, sc_time(200, SC_US));
    std::vector<std::string> want{"R2/1", "R5/1"};
    for (int i = 0; i < 8; ++i) {
        want.push_back("R0/1");
        want.push_back("R5/1");
    }
    want.push_back("R6/1");
    want.push_back("R2/1");
    EXPECT_EQ(b.trace(k, want.size()), want);
}

TEST(Tty8250, WriteProvokesTheFirstThreInterruptBySettingThriThenSixteenThrWritesPerThre) {
    UARTVP_SIM_TEST();
    bench<uart16550> b(com_config());
    com_port p;
    const std::string text = paste_text(300);
    b.m.cpu(0).create_task("open", [&] { open_8250(p, b.line); });
    b.m.cpu(0).create_task("writer", [&] {
        sw::tty_write(p.tty, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    });
    sc_start(sc_time(40, SC_MS));
    EXPECT_EQ(b.text_sent(), text);
    EXPECT_EQ(p.up.port.icount.tx, 300u);
    EXPECT_EQ(p.up.tx_irq_chars, 300u) << "everything from the interrupt";
    EXPECT_EQ(p.up.tx_irq_bursts, 19u) << "18 bursts of 16 and one of 12";
    EXPECT_EQ(p.up.tx_irq_burst_max, 16u);
    // __start_tx: IER |= THRI; the interrupt it raises: IIR (THRI), LSR, MSR, 16 THR writes, IIR.
    const std::size_t k = first_index(b.log(), 1, sc_time(1, SC_US)); // after the open's IER writes
    std::size_t start = k;
    for (std::size_t i = 0; i < b.log().size(); ++i)
        if (b.log()[i].offset == 1 && b.log()[i].write && b.log()[i].value == 7) {
            start = i;
            break;
        }
    std::vector<std::string> want{"W1/1=7", "R2/1", "R5/1", "R6/1"};
    for (int i = 0; i < 16; ++i) {
        char h[16];
        std::snprintf(h, sizeof h, "W0/1=%x", static_cast<unsigned char>(text[i]));
        want.push_back(h);
    }
    want.push_back("R2/1");
    EXPECT_EQ(b.trace(start, want.size()), want);
    EXPECT_EQ(p.up.ier, sw::UART_IER_RLSI | sw::UART_IER_RDI) << "__stop_tx cleared THRI at the end";
    (void)k;
}

} // namespace
