// SPDX-License-Identifier: Apache-2.0
// Scenario tty-paste: the interrupt-driven tty paths of sw/ under a paste into the console, its echo, or
// a write, while a task holds IRQs off for a while every period. How long may a CPU keep IRQs off before
// a paste loses characters? Each UART answers with its FIFO and RX trigger level: the PL011 of
// earlycon-pl011 (`hw`) and the 16550 COM1 of console-8250 (`pc`).
//
// The machine: `cores` cores; the UART's interrupt routed to irq_cpu, where the port is opened and the
// reader (or writer) runs, and where the interrupt's tty_flip_buffer_push queues the line discipline's
// work (that CPU's kworker). The hog, a task on hog_cpu, holds IRQs off for hog_us at the start of
// every period of hog_period_us from the first pasted start bit (t0), or, with hog_sync rx_irq, from
// the first rise of the UART's RX interrupt at or after that start (the worst phase: the FIFO is at its
// trigger level as the window opens).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <fmt/core.h>

#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/rx_injector.h>
#include <uartvp/scoreboard.h>
#include <uartvp/uart16550.h>

#include "cli/progress.h"
#include "cli/stop.h"
#include "cli/terminal.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "drivers/tty/serial/8250/8250_port.h"
#include "drivers/tty/serial/amba-pl011.h"
#include "platforms/pl011_platform.h"
#include "scenarios/rx_check.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

using namespace sc_core;

namespace {

// The first pasted start bit (or the writer's first write): the port is open well before.
sc_time t0() {
    return sc_time(1, SC_MS);
}

bool is_16550(const params& p) {
    return p.uart_model == "16550";
}

// The 16550 sends 1.5 stop bits for 5-bit words with LCR.STB: the monitor checks the first one.
serial_format line_format(const params& p) {
    serial_format m = p.frame;
    if (is_16550(p) && m.data_bits == 5) m.stop_bits = 1;
    return m;
}

double line_baud(const params& p) {
    if (!is_16550(p)) return static_cast<double>(p.baud);
    return static_cast<double>(p.uartclk_hz) /
           (16.0 * static_cast<double>(uart_get_divisor(p.uartclk_hz, p.baud)));
}

// RX trigger: the PL011's IFLS RX field and level in entries, the 16550's FCR bits and level.
unsigned rx_trigger_entries(const params& p) {
    if (is_16550(p)) return static_cast<unsigned>(std::stoul(p.rx_trigger));
    static const char* const levels[] = {"1/8", "1/4", "1/2", "3/4", "7/8"};
    static const unsigned eighths[] = {1, 2, 4, 6, 7};
    for (unsigned i = 0; i < 5; ++i)
        if (p.rx_trigger == levels[i]) return p.fifo_depth * eighths[i] / 8;
    return p.fifo_depth / 2;
}

std::uint32_t pl011_ifls(const params& p) {
    static const char* const levels[] = {"1/8", "1/4", "1/2", "3/4", "7/8"};
    std::uint32_t rx = sw::UART011_IFLS_RX4_8;
    for (unsigned i = 0; i < 5; ++i)
        if (p.rx_trigger == levels[i]) rx = i << 3;
    return rx | sw::UART011_IFLS_TX4_8;
}

std::uint8_t fcr_rx_trigger(const params& p) {
    switch (std::stoul(p.rx_trigger)) {
    case 1:
        return sw::UART_FCR_R_TRIG_00;
    case 4:
        return sw::UART_FCR_R_TRIG_01;
    case 14:
        return sw::UART_FCR_R_TRIG_11;
    default:
        return sw::UART_FCR_R_TRIG_10;
    }
}

// LCR_H's frame bits as pl011_set_termios computes them (FEN added there).
std::uint32_t pl011_lcr_h(const serial_format& f) {
    std::uint32_t l = (f.data_bits - 5) << 5;
    if (f.stop_bits == 2) l |= 1u << 3;
    if (f.parity != parity_mode::none) l |= 1u << 1;                                   // PEN
    if (f.parity == parity_mode::even || f.parity == parity_mode::space) l |= 1u << 2; // EPS
    if (f.parity == parity_mode::mark || f.parity == parity_mode::space) l |= 1u << 7; // SPS
    return l;
}

// LCR as serial8250_compute_lcr computes it.
std::uint8_t serial8250_lcr(const serial_format& f) {
    std::uint8_t l = static_cast<std::uint8_t>(f.data_bits - 5);
    if (f.stop_bits == 2) l |= 0x04;
    if (f.parity != parity_mode::none) l |= 0x08;
    if (f.parity == parity_mode::even || f.parity == parity_mode::space) l |= 0x10;
    if (f.parity == parity_mode::mark || f.parity == parity_mode::space) l |= 0x20;
    return l;
}

cpu::timing_profile timing(const params& p) {
    cpu::timing_profile t;
    t.cpu_hz = p.cpu_hz;
    t.cpu_relax_cycles = p.relax_cycles;
    const std::uint64_t base = p.port_io ? t.io_base + p.uart_base : p.uart_base;
    const std::uint64_t size = is_16550(p) ? std::uint64_t{8} << p.reg_shift : pl011::map_size();
    t.regions.push_back(
        {"uart", base, size, sc_time(p.mmio_read_ns, SC_NS), sc_time(p.mmio_write_ns, SC_NS)});
    return t;
}

// A machine of `cores` cores, one UART (a PL011 or a 16550) with its IRQ line to irq_cpu, an RX
// injector pasting into RXD (or, with a terminal, the terminal typing into it), a line monitor on TXD.
class tty_platform : public sc_module {
public:
    sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    sc_signal<bool> rxd_unused{"rxd_unused", true}; // the injector's line while a terminal drives RXD
    cpu::machine kernel;
    router bus;
    std::unique_ptr<pl011> pl;
    std::unique_ptr<uart16550> com;
    rx_injector inj;
    line_monitor tx_monitor;
    int irq_line = -1;
    unsigned rx_fifo_max = 0, tx_fifo_max = 0;
    bool paste = false;            // the workload is the paste: done once the injector is
    sc_event workload_done;        // else the writer notifies it once it handed everything over
    std::function<bool()> settled; // nothing left to do: the supervisor stops the simulation
    bool timed_out = false;
    serial_terminal* term = nullptr; // drives RXD: the run lasts as long as it does

    // The PL011's lines as characters (line_model): the TX monitor takes the reported characters,
    // and TXD is driven edge by edge only for a terminal; the injector reports its characters to the
    // receiver, except with a terminal (it drives RXD). The waves then take both lines from the
    // reports too (add_waves).
    tty_platform(const sc_module_name& name, const params& p, serial_terminal* terminal)
        : sc_module(name)
        , kernel("kernel", p.cores, timing(p), assumed_kernel_costs(p.hz))
        , bus("bus")
        , inj("paste", static_cast<double>(p.baud), p.frame)
        , tx_monitor("txd_monitor", line_baud(p), line_format(p))
        , term(terminal)
        , m_p(p) {
        for (auto& c : kernel.cores) {
            c->set_collapse_polls(!p.reference);
            c->bus.bind(bus.target);
        }
        if (is_16550(p)) {
            com = std::make_unique<uart16550>("uart0", uart16550_of(p)); // on its pins
            bus.map(com->bus, timing(p).regions[0].base, com->map_size(), "uart0");
            com->txd(txd);
            com->irq(irq);
            com->rxd(rxd);
        } else {
            m_chars = p.line_as_characters();
            pl = std::make_unique<pl011>("uart0", pl011_config_of(p, !m_chars || term));
            if (m_chars) {
                pl->report_line(tx_monitor);
                tx_monitor.take_characters(true);
            }
            if (m_chars && !term) inj.report_to(pl->rx_line());
            bus.map(pl->bus, p.uart_base, pl011::map_size(), "uart0");
            pl->txd(txd);
            pl->irq(irq);
            pl->rxd(rxd);
        }
        if (term) {
            inj.line(rxd_unused);
            term->rxd(rxd);
            term->txd(txd);
        } else {
            inj.line(rxd);
        }
        tx_monitor.line(txd);
        irq_line = kernel.add_irq_line(irq, com ? "serial" : "uart-pl011", p.irq_cpu);
        SC_HAS_PROCESS(tty_platform);
        // The FIFOs' highest levels, at each change (observed_signal: no process, no delta cycle).
        keep_highest(com ? com->tx_fifo_level : pl->tx_fifo_level, tx_fifo_max);
        keep_highest(com ? com->rx_fifo_level : pl->rx_fifo_level, rx_fifo_max);
        SC_THREAD(supervise);
    }

    unsigned rx_level() const { return com ? com->rx_fifo_level.read() : pl->rx_fifo_level.read(); }
    bool tx_idle() const { return com ? com->temt.read() : !pl->busy.read(); }
    bool cores_idle() const {
        for (const auto& c : kernel.cores)
            if (!c->idle() || c->in_interrupt()) return false;
        return true;
    }
    sc_time char_time() const {
        return sc_time(m_p.frame.bits_per_frame() / static_cast<double>(m_p.baud), SC_SEC);
    }

    register_names register_names_of() const {
        return com ? uart16550_register_names(timing(m_p).regions[0].base, m_p.reg_shift)
                   : pl011_register_names(m_p.uart_base);
    }
    void add_timeline(timeline& t) {
        t.watch(kernel, register_names_of());
        t.counter(com ? com->tx_fifo_level : pl->tx_fifo_level, "uart0 tx_fifo_level");
        t.counter(com ? com->rx_fifo_level : pl->rx_fifo_level, "uart0 rx_fifo_level");
    }
    void add_waves(waves& w) {
        w.machine_and_bus(kernel);
        w.name_registers(register_names_of());
        w.begin_group(com ? "UART0 (16550A)" : "UART0 (PL011)");
        if (com) {
            w.level(com->tx_fifo_level, "uart0.tx_fifo_level", 16);
            w.level(com->rx_fifo_level, "uart0.rx_fifo_level", 16);
            w.bit(com->thre, "uart0.thre");
            w.bit(com->temt, "uart0.temt");
            w.bit(com->dr, "uart0.dr");
        } else {
            w.level(pl->tx_fifo_level, "uart0.tx_fifo_level", m_p.fifo_depth);
            w.level(pl->rx_fifo_level, "uart0.rx_fifo_level", m_p.fifo_depth);
            w.bit(pl->busy, "uart0.busy");
            w.bit(pl->rxff, "uart0.rxff");
            w.bit(pl->rxfe, "uart0.rxfe");
        }
        w.bit(irq, "uart0.irq");
        w.end_group();
        // Both lines from the reports where the pins show the lines between characters only.
        if (m_chars && !term) {
            const waves::reported_lines l = w.lines_from_reports();
            pl->report_line(l.txd);
            inj.report_to(l.rxd);
        } else {
            w.lines(txd, rxd);
        }
    }

private:
    // After the workload, looks once per character time whether everything has settled (the
    // interrupts served, the reader or the line done); a run that does not settle within a second and
    // two hog periods is an internal error.
    void supervise() {
        if (term) {
            // Until the terminal ends; at the end of input, until what was typed has been served (and
            // echoed), at a hang-up or the duration's end at once.
            if (!term->ended()) wait(term->ended_event());
            if (term->reason() != serial_terminal::end_reason::end_of_input) {
                sc_stop();
                return;
            }
        } else if (paste) {
            wait(t0());
            if (!inj.idle()) wait(inj.done_event());
        } else {
            wait(workload_done);
        }
        const sc_time deadline = sc_time_stamp() + sc_time(1, SC_SEC) + sc_time(2 * m_p.hog_period_us, SC_US);
        while (!(settled && settled())) {
            if (sc_time_stamp() > deadline) {
                timed_out = true;
                break;
            }
            wait(char_time());
        }
        wait(char_time()); // the monitors see the last stop bit
        sc_stop();
    }
    params m_p;
    bool m_chars = false; // the PL011's lines as characters
};

struct hog_window {
    sc_time start, end;
    std::uint64_t overruns_at_start;
};

// One tty-paste run in its steps (run_tty_paste): the platform and its outputs with the port as the
// driver's probe leaves it, the port's open, the line's watchers, the workload, the hog, the
// simulation, the results. The tasks refer to what is here, which outlives the simulation.
class tty_run {
public:
    explicit tty_run(const run_request& rq);
    void open_port();
    void watch_lines();
    void start_workload();
    void start_hog();
    void simulate();
    run_result results() const;

private:
    nlohmann::json extra_results(const run_result& r) const;

    const run_request& rq;
    const params& p;
    const bool pc, paste;
    std::unique_ptr<waves> w;
    // A terminal's input is read from t0 on, once the port is open.
    const std::unique_ptr<serial_terminal> term;
    tty_platform soc;
    std::unique_ptr<timeline> tl;
    // The payload as it is: the paste's (or the write's) bytes; a terminal's input replaces it.
    std::string text;
    std::uint64_t lines = 0;
    // The port, as the driver's probe and the tty's open leave it.
    sw::uart_amba_port uap;
    sw::uart_8250_port up;
    sw::irq_info chain;
    sw::uart_state state;
    sw::tty_struct tty;
    sw::uart_port& port;
    bool opened = false;
    kapi::wait_queue_head open_wait;
    sc_time open_end;
    // The transmit side's scoreboard: what the software handed to the tty against TXD (echo, write).
    // It holds up to the transmit buffer and a FIFO in flight.
    scoreboard tx_sb{2 * sw::UART_XMIT_SIZE};
    sc_time last_tx_end, prev_tx_end;
    double tx_idle_ns = 0;
    std::uint64_t tx_idle_gaps = 0, tx_decoded = 0;
    bool any_tx = false;
    rx_check rx;
    std::uint64_t received = 0;
    sc_time last_rx_at;
    bool writer_done = false;
    std::vector<hog_window> windows;
    bool armed = false; // the hog waits for the RX interrupt's rise
};

tty_run::tty_run(const run_request& rq_)
    : rq(rq_)
    , p(rq_.p)
    , pc(is_16550(p))
    , paste(rq.variant == "read" || rq.variant == "echo")
    , w(make_waves(rq, static_cast<double>(p.baud)))
    , term(rq.terminal.empty() ? nullptr : open_terminal(rq, line_baud(p), line_format(p), t0()))
    , soc("soc", p, term.get())
    , port(pc ? up.port : uap.port) {
    if (w) soc.add_waves(*w);
    tl = make_timeline(rq);
    if (tl) soc.add_timeline(*tl);
    for (std::string line; !term && rq.payload->next(line); ++lines)
        text += line;
    if (const std::string why = rq.payload->error(); !why.empty()) throw std::runtime_error(why);
    port.irq = soc.irq_line;
    if (pc) {
        up.iotype = p.port_io ? sw::upio::port : p.reg_io_width == 4 ? sw::upio::mem32 : sw::upio::mem;
        up.iobase = static_cast<std::uint16_t>(p.port_io ? p.uart_base : 0);
        up.membase = p.port_io ? 0 : p.uart_base;
        up.regshift = p.reg_shift;
        up.fifosize = up.tx_loadsz = 16;
        up.fcr = sw::UART_FCR_ENABLE_FIFO | fcr_rx_trigger(p);
        up.port.ops = &sw::serial8250_pops;
    } else {
        uap.port.membase = p.uart_base;
        uap.fifosize = p.fifo_depth;
        uap.ifls = pl011_ifls(p);
        uap.port.ops = &sw::amba_pl011_pops;
    }
    sw::uart_port_attach(port, state, tty);
}

// The tty's open on the IRQ's core: the driver's startup and termios, DTR and RTS up.
void tty_run::open_port() {
    soc.kernel.cpu(p.irq_cpu).create_task("open", [this] {
        int err = 0;
        if (pc) {
            err = sw::serial8250_do_startup(up, chain);
            if (!err) {
                sw::serial8250_do_set_termios(
                    up, static_cast<std::uint16_t>(uart_get_divisor(p.uartclk_hz, p.baud)),
                    serial8250_lcr(p.frame));
                sw::serial8250_raise_dtr_rts(up);
            }
        } else {
            err = sw::pl011_startup(uap);
            if (!err) {
                std::uint32_t ibrd = 0, fbrd = 0;
                pl011_baud_divisor(p.uartclk_hz, p.baud, ibrd, fbrd);
                sw::pl011_set_termios(uap, ibrd, fbrd, pl011_lcr_h(p.frame));
                sw::pl011_set_mctrl_dtr_rts(uap);
            }
        }
        if (err) throw std::runtime_error("the port's startup failed with " + std::to_string(err));
        cpu::core::current().sync();
        open_end = cpu::core::current().local_time();
        opened = true;
        kapi::wake_up(open_wait);
    });
}

// TXD's characters into the transmit scoreboard and the idle gaps; the received side's check.
void tty_run::watch_lines() {
    tx_sb.set_data_bits(p.frame.data_bits);
    soc.tx_monitor.on_char([this](const decoded_char& c) {
        if (c.is_break) return;
        ++tx_decoded;
        if (!term) tx_sb.observe(c.data, c.start); // a terminal's run has no scoreboard
        // The transmitter idles where a character starts a quarter bit or more after the one before.
        if (any_tx && c.start > prev_tx_end &&
            (c.start - prev_tx_end).to_seconds() * static_cast<double>(p.baud) >= 0.25) {
            tx_idle_ns += to_ns(c.start - prev_tx_end);
            ++tx_idle_gaps;
        }
        any_tx = true;
        prev_tx_end = last_tx_end = c.end;
    });
    rx.text = &text;
    if (tl) {
        tl->watch(tx_sb, "tx");
        rx.on_gap = [this](std::size_t from, std::size_t to, const sc_time& when) {
            tl->text_instant(soc.kernel.cpu(p.irq_cpu), fmt::format("rx lost {} bytes", to - from), when,
                             std::string_view(text).substr(from, to - from));
        };
    }
}

// The paste and a task reading the tty (echo: writing back what it read), or a task writing the
// payload to it, on the IRQ's core once the port is open.
void tty_run::start_workload() {
    cpu::core& cpu = soc.kernel.cpu(p.irq_cpu);
    if (!paste) {
        cpu.create_task("writer", [this] {
            kapi::wait_event(open_wait, [this] { return opened; });
            kapi::ktime_t at = static_cast<kapi::ktime_t>(to_ns(t0()));
            kapi::schedule_hrtimeout(&at, kapi::HRTIMER_MODE_ABS);
            constexpr std::size_t chunk = 1024;
            for (std::size_t i = 0; i < text.size(); i += chunk) {
                const std::size_t n = std::min(chunk, text.size() - i);
                tx_sb.expect(std::string_view(text).substr(i, n));
                if (tl)
                    tl->text_instant(cpu::core::current(), fmt::format("write {} bytes", n),
                                     cpu::core::current().local_time(), std::string_view(text).substr(i, n));
                sw::tty_write(tty, reinterpret_cast<const unsigned char*>(text.data() + i), n);
            }
            writer_done = true;
            soc.workload_done.notify();
        });
        return;
    }
    if (!term) soc.inj.send(text, t0());
    const bool echo = rq.variant == "echo";
    cpu.create_task(echo ? "echo" : "reader", [this, echo] {
        kapi::wait_event(open_wait, [this] { return opened; });
        read_tty_forever(tty, [this, echo](const unsigned char* buf, std::size_t n, const sc_time& at) {
            last_rx_at = at;
            for (std::size_t i = 0; i < n && !term; ++i)
                rx.observe(buf[i], at);
            const std::string_view got(reinterpret_cast<const char*>(buf), n);
            if (tl) tl->text_instant(cpu::core::current(), fmt::format("read {} bytes", n), at, got);
            received += n;
            if (echo) { // write(fd, buf, n): what was read goes back out
                if (!term) tx_sb.expect(got);
                sw::tty_write(tty, buf, n);
            }
        });
    });
    soc.paste = true;
}

// The hog: IRQs off for hog_us at the start of every period from t0, or at the first rise of the
// RX interrupt at or after it (hog_sync rx_irq).
void tty_run::start_hog() {
    if (p.hog_us <= 0) return;
    const bool at_rise = p.hog_sync == "rx_irq";
    const unsigned trigger = rx_trigger_entries(p);
    cpu::task* hog_task = &soc.kernel.cpu(p.hog_cpu_or_irq_cpu()).create_task("hog", [this, at_rise] {
        const double period_ns = p.hog_period_us * 1e3, t0_ns = to_ns(t0());
        for (std::uint64_t k = 0;; ++k) {
            kapi::ktime_t due = static_cast<kapi::ktime_t>(t0_ns + static_cast<double>(k) * period_ns);
            kapi::schedule_hrtimeout(&due, kapi::HRTIMER_MODE_ABS);
            if (at_rise) {
                armed = true;
                while (armed)
                    kapi::schedule_timeout(-1); // the RX interrupt's rise wakes it first
            }
            kapi::irqflags flags;
            kapi::local_irq_save(flags);
            cpu::core::current().sync();
            hog_window win{cpu::core::current().local_time(), {}, port.icount.overrun};
            kapi::ndelay(static_cast<unsigned long>(p.hog_us * 1e3));
            kapi::local_irq_restore(flags);
            cpu::core::current().sync();
            win.end = cpu::core::current().local_time();
            windows.push_back(win);
            // The next period whose start is still ahead.
            const double started = (to_ns(win.start) - t0_ns) / period_ns;
            k = std::max<std::uint64_t>(k, static_cast<std::uint64_t>(started));
        }
    });
    if (at_rise)
        soc.kernel.on_irq_raised(soc.irq_line, [this, trigger, hog_task] {
            if (armed && soc.rx_level() >= trigger) {
                armed = false;
                hog_task->cpu->make_runnable_first(*hog_task);
            }
        });
}

// Until everything has settled (progress: the paste's, or the write's, share on the line).
void tty_run::simulate() {
    soc.settled = [this] {
        if (!soc.cores_idle() || soc.irq.read() || soc.rx_level() != 0 || !soc.tx_idle()) return false;
        const sw::tty_port& tp = state.port;
        if (!tp.buf_pending.empty() || !tp.buf_committed.empty() || !tty.read_buf.empty()) return false;
        if (!tp.xmit_fifo.is_empty()) return false;
        return paste || writer_done;
    };
    if (!text.empty())
        progress::set_share([this] {
            const double done =
                paste ? static_cast<double>(soc.inj.chars_sent()) : static_cast<double>(port.icount.tx);
            return done / static_cast<double>(text.size());
        });
    stop::simulate();
    if (soc.timed_out)
        throw std::runtime_error("the tty did not settle: the interrupts or the reader never caught up");
    if (sc_time_stamp() >= sc_max_time() / 2)
        throw std::runtime_error("simulated time ran out of range: the timing parameters are too slow");
    if (term) term->drain(std::chrono::seconds(1));
    tx_sb.finish(sc_time_stamp());
    if (w) w->finish();
    if (tl) tl->finish();
    if (open_end > t0())
        throw std::runtime_error("the port's open took longer than the time before the paste");
}

run_result tty_run::results() const {
    run_result r = result_of(rq, lines);
    r.interactive = term != nullptr;
    if (term) r.payload_source = "terminal:" + rq.terminal;
    const sc_time end = rq.variant == "read" ? last_rx_at : last_tx_end;
    r.sim_time_ns = end > t0() ? to_ns(end - t0()) : 0;
    r.line_idle_ns = last_tx_end > t0() ? to_ns(last_tx_end - t0()) : 0;
    r.bytes_written = port.icount.tx;
    add_line_results(r, tx_sb, soc.tx_monitor);
    if (term)
        r.bytes_on_line = tx_decoded; // a terminal's run has no scoreboard: count what the monitor decoded
    add_machine_accesses(r, soc.kernel);
    r.tx_fifo_max = soc.tx_fifo_max;
    if (soc.pl) {
        r.rtl_cycles = soc.pl->clock().edge_at_or_before(sc_time_stamp());
        r.rtl_edges_evaluated = soc.pl->edges_evaluated();
        r.rtl_eval_s = soc.pl->rtl_eval_seconds();
    }
    add_kernel_results(r, soc.kernel);
    add_host_counts(r, soc.pl.get());
    // The received side: pasted bytes the reader never got, by in-order comparison.
    const std::uint64_t pasted = term ? term->injector().chars_sent() : soc.inj.chars_sent();
    r.rx_lost_bytes = paste && !term ? pasted - rx.matched : 0;
    r.rx_extra_bytes = rx.extra;
    r.extra = extra_results(r);
    if (term) r.extra["terminal"] = terminal_results(*term);
    return r;
}

// tty-paste's own figures: the received side, the UART's interrupt, the TX bursts and idle gaps, the
// hog's windows (those within the workload, and those an overrun followed).
nlohmann::json tty_run::extra_results(const run_result& r) const {
    const std::uint64_t pasted = term ? term->injector().chars_sent() : soc.inj.chars_sent();
    const cpu::irq_line_stats& line = soc.kernel.irq_lines().at(static_cast<std::size_t>(soc.irq_line));
    std::uint64_t hog_windows = 0, with_overrun = 0;
    const sc_time workload_end = paste ? t0() + soc.char_time() * static_cast<double>(pasted) : last_tx_end;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        if (windows[i].end > workload_end) break;
        ++hog_windows;
        const std::uint64_t after =
            i + 1 < windows.size() ? windows[i + 1].overruns_at_start : port.icount.overrun;
        if (after > windows[i].overruns_at_start) ++with_overrun;
    }
    return {{"rx_bytes_pasted", pasted},
            {"rx_bytes_received", received},
            {"rx_lost_bytes", r.rx_lost_bytes},
            {"rx_extra_bytes", r.rx_extra_bytes},
            {"rx_first_difference", rx.first_difference},
            {"rx_overruns", port.icount.overrun},
            {"rx_overruns_reported", tty.overruns_reported},
            {"rx_fifo_max", soc.rx_fifo_max},
            {"rx_trigger_entries", rx_trigger_entries(p)},
            {"uart_irqs", line.count},
            {"irq_latency_max_ns", to_ns(line.latency_max)},
            {"irq_latency_mean_ns", line.served ? to_ns(line.latency_total) / line.served : 0.0},
            {"tx_irq_bursts", pc ? up.tx_irq_bursts : uap.tx_irq_bursts},
            {"tx_irq_chars", pc ? up.tx_irq_chars : uap.tx_irq_chars},
            {"tx_irq_burst_max", pc ? up.tx_irq_burst_max : uap.tx_irq_burst_max},
            {"tx_idle_ns", tx_idle_ns},
            {"tx_idle_gaps", tx_idle_gaps},
            {"hog_windows", hog_windows},
            {"hog_windows_with_overrun", with_overrun}};
}

run_result run_tty_paste(const run_request& rq) {
    return run_in_steps<tty_run>(rq, &tty_run::open_port, &tty_run::watch_lines, &tty_run::start_workload,
                                 &tty_run::start_hog, &tty_run::simulate);
}

std::string hog_text(const nlohmann::json& prm) {
    if (prm.value("hog_us", 0.0) <= 0) return "no hog";
    return fmt::format("hog {} us every {} us on cpu{}{}", prm["hog_us"].get<double>(),
                       prm["hog_period_us"].get<double>(), prm["hog_cpu"].get<unsigned>(),
                       prm["hog_sync"] == "rx_irq" ? " at the RX interrupt's rise" : "");
}

std::string compare_head(const nlohmann::json& base, std::size_t vw) {
    const nlohmann::json& prm = base["params"];
    std::string t =
        fmt::format("tty-paste on profile {} ({}, {} core{}, IRQ on cpu{}, {}, RX trigger {})\n",
                    base["profile"].get<std::string>(), base["payload"].get<std::string>(),
                    prm["cores"].get<unsigned>(), prm["cores"] == 1 ? "" : "s",
                    prm["irq_cpu"].get<unsigned>(), hog_text(prm), prm["rx_trigger"].get<std::string>());
    t += fmt::format("{:<{}} {:>11} {:>8} {:>9} {:>7} {:>9} {:>8} {:>8} {:>9} {:>13} {:>12} {:>7}\n",
                     "variant", vw, "sim ms", "pasted", "received", "lost", "overruns", "written", "tx lost",
                     "uart irqs", "irq lat max us", "irqoff max us", "wall s");
    return t;
}

std::string compare_row(const nlohmann::json& r, const nlohmann::json& /*base*/, std::size_t vw) {
    return fmt::format(
        "{:<{}} {:>11.3f} {:>8} {:>9} {:>7} {:>9} {:>8} {:>8} {:>9} {:>13.3f} {:>12.3f} {:>7.2f}\n",
        r["variant"].get<std::string>(), vw, r["sim_time_ns"].get<double>() / 1e6,
        r["rx_bytes_pasted"].get<std::uint64_t>(), r["rx_bytes_received"].get<std::uint64_t>(),
        r["rx_lost_bytes"].get<std::uint64_t>(), r["rx_overruns"].get<std::uint64_t>(),
        r["bytes_written"].get<std::uint64_t>(), r["lost_bytes"].get<std::uint64_t>(),
        r["uart_irqs"].get<std::uint64_t>(), r["irq_latency_max_ns"].get<double>() / 1e3,
        r["irq_off_max_ns"].get<double>() / 1e3, r["wall_s"].get<double>());
}

std::vector<std::pair<std::string, std::string>> summary_rows(const run_result& r) {
    const nlohmann::json& x = r.extra;
    if (x.contains("terminal")) {
        const nlohmann::json& t = x["terminal"];
        return {{"terminal", fmt::format("{}, {} at {:.6f} s simulated", t["device"].get<std::string>(),
                                         t["end"].get<std::string>(), t["end_time_ns"].get<double>() / 1e9)},
                {"typed / shown", fmt::format("{} / {}", t["bytes_typed"].get<std::uint64_t>(),
                                              t["bytes_shown"].get<std::uint64_t>())},
                {"received", std::to_string(x["rx_bytes_received"].get<std::uint64_t>())},
                {"rx overruns", std::to_string(x["rx_overruns"].get<std::uint64_t>())},
                {"uart irqs", std::to_string(x["uart_irqs"].get<std::uint64_t>())}};
    }
    return {
        {"pasted / received", fmt::format("{} / {}", x["rx_bytes_pasted"].get<std::uint64_t>(),
                                          x["rx_bytes_received"].get<std::uint64_t>())},
        {"rx lost / overruns", fmt::format("{} / {}", x["rx_lost_bytes"].get<std::uint64_t>(),
                                           x["rx_overruns"].get<std::uint64_t>())},
        {"rx fifo max", fmt::format("{} (trigger {})", x["rx_fifo_max"].get<unsigned>(),
                                    x["rx_trigger_entries"].get<unsigned>())},
        {"uart irqs", std::to_string(x["uart_irqs"].get<std::uint64_t>())},
        {"irq latency max", fmt::format("{:.3f} us", x["irq_latency_max_ns"].get<double>() / 1e3)},
        {"tx irq bursts",
         fmt::format("{} ({} characters, at most {})", x["tx_irq_bursts"].get<std::uint64_t>(),
                     x["tx_irq_chars"].get<std::uint64_t>(), x["tx_irq_burst_max"].get<unsigned>())},
        {"tx line idle", fmt::format("{:.3f} us in {} gaps", x["tx_idle_ns"].get<double>() / 1e3,
                                     x["tx_idle_gaps"].get<std::uint64_t>())},
        {"hog windows", fmt::format("{} ({} followed by an overrun)", x["hog_windows"].get<std::uint64_t>(),
                                    x["hog_windows_with_overrun"].get<std::uint64_t>())},
    };
}

// The cores the keys name must exist; the hog's window must fit its period.
std::optional<std::string> check_params(const params& p) {
    const std::string have = " (the machine has " + std::to_string(p.cores) +
                             (p.cores == 1 ? " core" : " cores") + ": --set cores=N)";
    if (p.irq_cpu >= p.cores) return "irq_cpu " + std::to_string(p.irq_cpu) + " is not a core" + have;
    if (p.hog_cpu && *p.hog_cpu >= p.cores)
        return "hog_cpu " + std::to_string(*p.hog_cpu) + " is not a core" + have;
    if (p.hog_us > 0 && p.hog_period_us <= p.hog_us)
        return "hog_period_us must be more than hog_us (the hog holds IRQs off for hog_us of every period)";
    return std::nullopt;
}

} // namespace

scenario_def tty_paste_scenario() {
    scenario_def s;
    s.name = "tty-paste";
    s.description =
        "interrupt-driven tty paths: a paste into the console, its echo, or a write, while a task "
        "holds IRQs off for a while every period (hog_us, hog_period_us, hog_cpu, hog_sync)";
    s.variants = {
        {"read", "the payload pasted into RXD at the line rate; a task reads the tty"},
        {"echo", "as read, and every byte read is written back through the TX path: TXD carries the paste"},
        {"write", "nothing pasted; a task writes the payload to the tty"},
    };
    s.profiles = {
        {"hw",
         "the PL011 of earlycon-pl011: 24 MHz UARTCLK, 115200 8N1, 32-entry FIFOs (RX trigger 1/2: 16), APB "
         "reads 120 ns, writes 60 ns, 1 GHz CPU; IRQ entry 1 us, exit 0.5 us, tick 2 us (assumed)",
         [](params& p) { p.rx_trigger = "1/2"; }},
        {"pc",
         "the 16550 COM1 of console-8250: I/O port 0x3F8, 1.8432 MHz, 115200 8N1, 16-byte FIFOs (RX trigger "
         "8), "
         "1.7 us per port access, 2.4 GHz CPU; IRQ entry 1 us, exit 0.5 us, tick 2 us (assumed)",
         [](params& p) {
             pc_com1(p);
             p.rx_trigger = "8";
         }},
    };
    s.default_profile = "hw";
    s.default_payload_bytes = 4096;
    s.check_params = check_params;
    s.run = run_tty_paste;
    s.compare_table = {compare_head, compare_row, nullptr, 8};
    s.summary_rows = summary_rows;
    s.terminal_variants = {"echo", "read"};
    s.terminal_refusal = "reads nothing: the write variant only writes its payload (--terminal goes with "
                         "--variant echo or read)";
    return s;
}

} // namespace uartvp::program
