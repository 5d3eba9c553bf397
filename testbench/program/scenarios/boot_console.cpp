// SPDX-License-Identifier: Apache-2.0
// Scenario boot-console (seeds 001 and 003): a boot whose UART probe registers the serial console
// while the log is already long. With the first nbcon console and no printer kthread yet (v6.15,
// v6.16) the whole log is replayed by write_atomic with IRQs off on the registering CPU, the boot
// waits for it, and a synchronous IPI from another CPU spins on its CSD lock for the whole replay. The
// variants are the kernels around the fix: the legacy console before 2eb2608618ce, the nbcon one
// without a fix, the three proposed fixes.
//
// Profile rpi3b (seed 003): the Raspberry Pi 3B+'s BCM2835 AUX mini UART (uart16550_part::bcm2835_mini)
// driven by the 8250 driver's console (sw/serial/8250_console.*), legacy or the reverted nbcon patches;
// no BMC, no IPI.
//
// The machine: `cores` cores (profile grace: 72, as the seed's machine has). The boot task on CPU1
// stores the log's records at their times, with the work between them; console_init() in start_kernel,
// printk's kthreads ready at do_pre_smp_initcalls, the SBSA UART's probe (acpi_init) registering
// ttyAMA0, `Run /init` last. CPU2 and up are idle. On CPU0 an hrtimer queues, at ipi_at_ms, the work
// that sends kick_all_cpus_sync (KFENCE's toggle_allocation_gate patching a static key). The printer
// kthread pr/ttyAMA0 runs on CPU0 (the lowest core other than the boot task's). The UART is the SBSA
// PL011 (RTL) at 115200 with CTSEN left on by firmware; the BMC behind it takes one character per
// bmc_char_ns by deasserting CTS while it is busy. With earlycon=1 the PL011 earlycon is a boot console
// from the first record on (so the real console skips the replay); loglevel/quiet set console_loglevel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <stdexcept>

#include <fmt/core.h>

#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/scoreboard.h>
#include <uartvp/uart16550.h>

#include "cli/stop.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "drivers/tty/serial/8250/8250_nbcon.h"
#include "drivers/tty/serial/amba-pl011-nbcon.h"
#include "kernel/printk/printk.h"
#include "platforms/pl011_platform.h"
#include "plugins/plugins.h"
#include "scenarios/payload_printk.h"
#include "scenarios/scenario.h"
#include "workloads/bootlog.h"
#include <uartvp/sw/pl011.h>
#include <uartvp/sw/serial8250.h>

namespace uartvp::program {

using namespace sc_core;

namespace {

constexpr unsigned boot_cpu = 1;

// One record of the boot: when the boot task stores it (from boot start, when consoles cost nothing).
struct boot_record {
    double t_ns;
    std::string text;
};

// The boot to run: the records before the UART's probe, the probe's time, the records after it up to
// `Run /init`, and where console_init() and printk_set_kthreads_ready() come (record indices).
struct boot_plan {
    std::vector<boot_record> before, after;
    double probe_at_ns = 0, init_at_ns = 0;
    std::size_t console_init_at = 0, kthreads_ready_at = 0;
};

// "[    1.234567] text" -> 1.234567 s and "text"; a line without the prefix keeps `t_ns`.
boot_record parse_line(std::string line, double t_ns) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.pop_back();
    if (line.size() > 2 && line[0] == '[') {
        const std::size_t close = line.find(']');
        if (close != std::string::npos) {
            char* end = nullptr;
            const std::string num = line.substr(1, close - 1);
            const double s = std::strtod(num.c_str(), &end);
            if (end && *end == '\0' && s >= 0) {
                std::size_t text_at = close + 1;
                if (text_at < line.size() && line[text_at] == ' ') ++text_at;
                return {std::max(t_ns, s * 1e9), line.substr(text_at)};
            }
        }
    }
    return {t_ns, line};
}

std::size_t wire_chars(const std::string& text) {
    return text.size() + 17; // the 15-character time prefix, "\r\n"
}

// Wire characters logged when the Pi's console registers (calibrated: the nbcon-atomic probe time).
constexpr std::size_t rpi3b_backlog_chars = 93200;

bool is_rpi(const params& p) {
    return p.uart_model == "mini";
}

// A calibrated boot: the generated arm64 log (log_bytes of it) without its early console lines;
// `backlog` wire characters logged evenly until before_end_ns (the probe's own lines, `probe_lines`
// characters, are part of it), the probe at probe_ns; 2,000 characters more (assumed), from after_ns
// after the probe to after_margin_ns before `Run /init` at init_ns; console_init() once about 19 KB are
// logged (section 10 B), the kthreads ready right after.
struct calibrated_boot {
    std::size_t log_bytes, backlog, probe_lines;
    double before_end_ns, probe_ns, init_ns, after_ns, after_margin_ns;
};

boot_plan calibrated_plan(const calibrated_boot& b) {
    boot_plan plan;
    const std::vector<std::string> lines = sw::generate_boot_log(b.log_bytes);
    std::vector<std::string> texts;
    for (const std::string& l : lines) {
        boot_record r = parse_line(l, 0);
        if (r.text.find("earlycon") != std::string::npos || r.text.find("bootconsole") != std::string::npos)
            continue;
        texts.push_back(r.text);
    }
    const std::size_t target_before = b.backlog - b.probe_lines;
    std::size_t i = 0, chars = 0;
    while (i < texts.size() && chars + wire_chars(texts[i]) <= target_before)
        chars += wire_chars(texts[i++]);
    const double before_end = b.before_end_ns, probe = b.probe_ns, init = b.init_ns;
    for (std::size_t k = 0; k < i; ++k)
        plan.before.push_back({before_end * static_cast<double>(k) / static_cast<double>(i), texts[k]});
    std::size_t after_chars = 0;
    std::vector<std::string> after;
    while (i < texts.size() && after_chars < 2000) {
        after_chars += wire_chars(texts[i]);
        after.push_back(texts[i++]);
    }
    for (std::size_t k = 0; k < after.size(); ++k)
        plan.after.push_back({probe + b.after_ns +
                                  (init - probe - b.after_margin_ns) * static_cast<double>(k) /
                                      static_cast<double>(after.size()),
                              after[k]});
    plan.probe_at_ns = probe;
    plan.init_at_ns = init;
    std::size_t c = 0;
    for (std::size_t k = 0; k < plan.before.size(); ++k) {
        c += wire_chars(plan.before[k].text);
        if (c >= 19000) {
            plan.console_init_at = k + 1;
            break;
        }
    }
    plan.kthreads_ready_at = plan.console_init_at;
    return plan;
}

// Grace (seed 001, calibrated): about 47,800 characters logged before "enabled" at 0.3078 s, evenly
// over the boot so far (the port report and "enabled", 80 and 52 characters, included); `Run /init`
// at 0.63 s.
boot_plan grace_plan() {
    return calibrated_plan({200000, 47800, 80 + 52, 300e6, 307.8e6, 630e6, 1e6, 2e6});
}

// Raspberry Pi 3B+ (seed 003, calibrated): the log before the console registers holds about 93,200
// wire characters, chosen so that the nbcon-atomic replay gives the seed's probe time (8.090 s); logged
// evenly up to the probe at 0.2947 s (the RFC boot's probe line at 0.302173 s minus its 7479 us);
// `Run /init` at 1.0965 s (the RFC boot's), when the console costs nothing.
boot_plan rpi3b_plan() {
    return calibrated_plan({400000, rpi3b_backlog_chars, 97 + 50, 294.0e6, 294.694e6, 1096.505e6, 8e6, 10e6});
}

// A log of the user's (or generated): each record at its own time; the probe after three quarters
// of the records, console_init() after the first third, `Run /init` at the last record's time.
boot_plan payload_plan(payload_reader& payload) {
    std::vector<boot_record> all;
    double t = 0;
    for (std::string line; payload.next(line);) {
        boot_record r = parse_line(line, t);
        t = r.t_ns;
        all.push_back(std::move(r));
    }
    if (const std::string why = payload.error(); !why.empty()) throw std::runtime_error(why);
    boot_plan plan;
    const std::size_t split = all.size() * 3 / 4;
    plan.before.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(split));
    plan.after.assign(all.begin() + static_cast<std::ptrdiff_t>(split), all.end());
    plan.probe_at_ns = plan.before.empty() ? 0 : plan.before.back().t_ns;
    plan.init_at_ns = all.empty() ? 0 : all.back().t_ns;
    plan.console_init_at = plan.kthreads_ready_at = split / 3;
    return plan;
}

sw::printk_variant printk_variant_of(const std::string& v) {
    if (v == "pending-start") return sw::printk_variant::pending_start;
    if (v == "kthread-first") return sw::printk_variant::kthread_first;
    if (v == "merged") return sw::printk_variant::merged;
    return sw::printk_variant::v6_16; // legacy, nbcon-atomic, console-initcall
}

// The BMC behind the UART: it takes a character as its start bit comes and deasserts CTS until it
// can take the next, bmc_char_ns after that start. (Firmware left CR.CTSEN on; the SBSA driver never
// touches CR: the PL011 waits for CTS before each character.)
class bmc_cts : public sc_module, public serial_line_if {
public:
    sc_in<bool> txd{"txd"};
    sc_signal<bool, SC_MANY_WRITERS> ncts{"ncts", false};
    bmc_cts(const sc_module_name& n, double baud, const serial_format& f, double char_ns)
        : sc_module(n)
        , m_frame(sc_time(static_cast<double>(f.bits_per_frame()) - 0.5, SC_SEC) / baud)
        , m_char(char_ns, SC_NS) {
        SC_HAS_PROCESS(bmc_cts);
        SC_METHOD(on_pin);
        sensitive << txd.neg();
        dont_initialize();
        SC_METHOD(on_fall);
        sensitive << m_fall;
        dont_initialize();
        SC_METHOD(on_ready);
        sensitive << m_ready;
        dont_initialize();
    }
    std::uint64_t chars = 0;

    // From the PL011's reports instead of the pin (take_characters): a character's start, or the line
    // going low between characters (a break), is the falling edge the pin would show, at its time.
    void take_characters() { m_feed = true; }
    void line_char(const serial_char& c) override { falling_at(c.start()); }
    void line_level(const sc_time& t, bool level) override {
        if (!level && m_level) falling_at(t);
        m_level = level;
    }

private:
    void falling_at(const sc_time& t) {
        m_level = true; // back high after the character
        m_falls.push_back(t);
        m_fall.notify(t - sc_time_stamp());
    }
    void on_fall() {
        while (!m_falls.empty() && m_falls.front() <= sc_time_stamp()) {
            m_falls.pop_front();
            on_txd();
        }
        if (!m_falls.empty()) m_fall.notify(m_falls.front() - sc_time_stamp());
    }
    std::deque<sc_time> m_falls;
    sc_event m_fall;
    bool m_feed = false, m_level = true;
    void on_pin() {
        if (!m_feed) on_txd(); // from characters, the pin is not read
    }
    void on_txd() {
        if (sc_time_stamp() < m_frame_end) return; // a falling edge inside a frame
        m_frame_end = sc_time_stamp() + m_frame;
        ++chars;
        if (m_char == SC_ZERO_TIME) return;
        ncts.write(true);
        m_ready.notify(m_char);
    }
    void on_ready() { ncts.write(false); }
    sc_time m_frame, m_char, m_frame_end;
    sc_event m_ready;
};

cpu::timing_profile boot_timing(const params& p) {
    cpu::timing_profile t;
    t.cpu_hz = p.cpu_hz;
    t.cpu_relax_cycles = p.relax_cycles;
    t.regions.push_back({"uart", p.uart_base, is_rpi(p) ? std::uint64_t{32} : pl011::map_size(),
                         sc_time(p.mmio_read_ns, SC_NS), sc_time(p.mmio_write_ns, SC_NS)});
    return t;
}

cpu::kernel_params boot_kernel(const params& p) {
    cpu::kernel_params k;
    k.csdlock_debug = true;
    k.csd_lock_timeout_ms = p.csd_lock_timeout_ms;
    return k;
}

// The mini UART's rate: core clock / (8 x (AUX_MU_BAUD + 1)); the PL011's as asked.
double line_baud(const params& p) {
    if (!is_rpi(p)) return static_cast<double>(p.baud);
    return static_cast<double>(p.uartclk_hz) /
           (8.0 * static_cast<double>(bcm2835aux_baud_reg(p.uartclk_hz, p.baud) + 1));
}

class boot_platform : public sc_module {
public:
    sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    cpu::machine kernel;
    router bus;
    std::unique_ptr<pl011> uart;     // grace: the SBSA PL011 (RTL)
    std::unique_ptr<bmc_cts> bmc;    // grace: the BMC's CTS pacing
    std::unique_ptr<uart16550> mini; // rpi3b: the BCM2835 AUX mini UART
    line_monitor monitor;
    // printk for the waves: records stored, records the console finished, the CPU that printed the last.
    sc_signal<std::uint64_t, SC_UNCHECKED_WRITERS> records_stored{"records_stored", 0},
        records_printed{"records_printed", 0};
    sc_signal<int, SC_UNCHECKED_WRITERS> printing_cpu{"printing_cpu", -1};
    unsigned tx_fifo_max = 0;
    std::function<bool()> settled;
    bool timed_out = false;
    sc_event boot_done;

    // With the line as characters (line_model, fast mode) it goes to the monitor, on grace to the BMC
    // too, and to the waves.
    boot_platform(const sc_module_name& name, const params& p)
        : sc_module(name)
        , kernel("kernel", p.cores, boot_timing(p), boot_kernel(p))
        , bus("bus")
        , monitor("txd_monitor", line_baud(p), p.frame)
        , m_p(p) {
        for (auto& c : kernel.cores) {
            c->set_collapse_polls(!p.reference);
            c->bus.bind(bus.target);
        }
        if (is_rpi(p)) {
            uart16550_config c;
            c.part = uart16550_part::bcm2835_mini;
            c.clock_hz = p.uartclk_hz;
            c.reg_shift = 2;
            c.reg_io_width = 4;
            m_chars = p.line_as_characters();
            c.txd_edges = !m_chars;
            mini = std::make_unique<uart16550>("uart0", c);
            if (m_chars) {
                mini->report_line(monitor);
                monitor.take_characters(true);
            }
            bus.map(mini->bus, p.uart_base, mini->map_size(), "uart0");
            mini->txd(txd);
            mini->irq(irq);
            mini->rxd(rxd);
        } else {
            const bool chars = p.line_as_characters();
            m_chars = chars;
            pl011_config c = make_config(p);
            c.txd_edges = !chars;
            uart = std::make_unique<pl011>("uart0", c);
            bmc = std::make_unique<bmc_cts>("bmc", static_cast<double>(p.baud), p.frame, p.bmc_char_ns);
            if (chars) {
                uart->report_line(monitor);
                monitor.take_characters(true);
                uart->report_line(*bmc);
                bmc->take_characters();
            }
            bus.map(uart->bus, p.uart_base, pl011::map_size(), "uart0");
            uart->txd(txd);
            uart->irq(irq);
            uart->rxd(rxd);
            uart->ncts(bmc->ncts);
            bmc->txd(txd);
        }
        monitor.line(txd);
        SC_HAS_PROCESS(boot_platform);
        SC_THREAD(supervise);
        // The TX FIFO's highest level, at each change (observed_signal: no process, no delta cycle).
        keep_highest(tx_fifo_level(), tx_fifo_max);
    }
    observed_signal<unsigned>& tx_fifo_level() { return mini ? mini->tx_fifo_level : uart->tx_fifo_level; }
    // The transmitter has nothing left: FIFO empty, the last stop bit sent.
    bool tx_idle() const {
        return mini ? mini->temt.read() : !uart->busy.read() && uart->tx_fifo_level.read() == 0;
    }
    register_names registers() const {
        return mini ? uart16550_register_names(m_p.uart_base, 2) : pl011_register_names(m_p.uart_base);
    }
    // Every core (task, IRQs off, hard IRQ, its IRQ lines and IPI: the replay's batches, the kworker
    // spinning on the CSD lock, the printer kthread's records) with the bus.
    void add_waves(waves& w) {
        w.machine_and_bus(kernel);
        w.name_registers(registers());
        w.begin_group("printk");
        w.number(records_stored, "printk.records_stored");
        w.number(records_printed, "printk.records_printed");
        w.number(printing_cpu, "printk.printing_cpu");
        w.end_group();
        if (mini) {
            w.begin_group("UART0 (BCM2835 mini UART)");
            w.level(mini->tx_fifo_level, "uart0.tx_fifo_level", 8);
            w.bit(mini->thre, "uart0.lsr_thre");
            w.bit(mini->temt, "uart0.lsr_temt");
            w.end_group();
        } else {
            w.begin_group("UART0 (SBSA PL011)");
            w.level(uart->tx_fifo_level, "uart0.tx_fifo_level", m_p.fifo_depth);
            w.bit(uart->busy, "uart0.busy");
            w.bit(bmc->ncts, "uart0.ncts");
            w.end_group();
        }
        // TXD from the UART's character reports where it does not drive the pin.
        if (m_chars && mini)
            mini->report_line(w.lines_from_reports(rxd));
        else if (m_chars)
            uart->report_line(w.lines_from_reports(rxd));
        else
            w.lines(txd, rxd);
    }

private:
    static pl011_config make_config(const params& p) {
        pl011_config c;
        c.clock_hz = p.uartclk_hz;
        c.fifo_depth = p.fifo_depth;
        c.clock_every_cycle = p.reference;
        return c;
    }
    // After the boot, looks every millisecond whether every console has printed what it will print
    // and the line is idle; a run that does not settle within 10 minutes of simulated time is an error.
    void supervise() {
        wait(boot_done);
        const sc_time deadline = sc_time_stamp() + sc_time(600, SC_SEC);
        while (!(settled && settled())) {
            if (sc_time_stamp() > deadline) {
                timed_out = true;
                break;
            }
            wait(sc_time(1, SC_MS));
        }
        wait(sc_time(200, SC_US)); // the monitor sees the last stop bit
        sc_stop();
    }
    params m_p;
    bool m_chars = false; // the UART reports its line as characters (no TXD edges)
};

// The CSD report as the waiter prints it (kernel/smp.c), with the target's NMI backtrace and the
// waiter's own stack on the first report: one record per line, from the waiting CPU.
void print_csd_report(const cpu::csd_report& r) {
    if (r.kind == cpu::csd_report::unstuck) {
        sw::printk(sw::LOGLEVEL_ALERT, r.text);
        return;
    }
    sw::printk(sw::LOGLEVEL_ALERT, r.text.substr(0, r.text.size() - 1) + " do_nothing+0x0/0x10(0x0).");
    sw::printk(sw::LOGLEVEL_ALERT, fmt::format("\tcsd: CSD lock (#{}) unresponsive.", r.number));
    if (r.kind != cpu::csd_report::detected) return;
    sw::printk(sw::LOGLEVEL_INFO, fmt::format("Sending NMI from CPU {} to CPUs {}:", r.cpu, r.target_cpu));
    sw::printk(sw::LOGLEVEL_INFO, fmt::format("NMI backtrace for cpu {}", r.target_cpu));
    sw::printk(sw::LOGLEVEL_INFO,
               fmt::format("CPU: {} PID: 1 Comm: swapper/0 Not tainted 6.15.0 #1", r.target_cpu));
    sw::printk(sw::LOGLEVEL_INFO, "Hardware name: NVIDIA Grace CPU Superchip, BIOS 1.0");
    sw::printk(sw::LOGLEVEL_INFO, "pstate: 03400009 (nzcv daif +PAN -UAO +TCO +DIT -SSBS BTYPE=--)");
    sw::printk(sw::LOGLEVEL_INFO, "pc : pl011_console_write_atomic+0x94/0x170");
    sw::printk(sw::LOGLEVEL_INFO, "lr : pl011_console_write_atomic+0x84/0x170");
    sw::printk(sw::LOGLEVEL_INFO, "sp : ffff80008002b6f0");
    for (int x = 29; x >= 0; x -= 3)
        sw::printk(sw::LOGLEVEL_INFO, fmt::format("x{:<2}: 0000000000000000 x{:<2}: ffff0000c0a41000 x{:<2}: "
                                                  "0000000000000001",
                                                  x, x - 1 >= 0 ? x - 1 : 0, x - 2 >= 0 ? x - 2 : 0));
    static const char* const target_trace[] = {"pl011_console_write_atomic+0x94/0x170",
                                               "nbcon_emit_next_record+0x234/0x388",
                                               "__nbcon_atomic_flush_pending_con+0x88/0x108",
                                               "nbcon_atomic_flush_pending_con+0x5c/0x138",
                                               "nbcon_atomic_flush_pending+0xe0/0x120",
                                               "vprintk_emit+0x1ac/0x3e8",
                                               "vprintk_default+0x3c/0x50",
                                               "vprintk+0x2c/0x40",
                                               "_printk+0x50/0x68",
                                               "register_console+0x3c4/0x560",
                                               "serial_core_register_port+0x6b4/0x800",
                                               "serial_ctrl_register_port+0x20/0x38",
                                               "uart_add_one_port+0x18/0x30",
                                               "pl011_register_port+0x70/0x130",
                                               "sbsa_uart_probe+0x13c/0x1d8",
                                               "platform_probe+0x70/0xd0",
                                               "really_probe+0xc8/0x3a0",
                                               "__driver_probe_device+0x84/0x160",
                                               "driver_probe_device+0x44/0x128",
                                               "__device_attach_driver+0xc4/0x170",
                                               "bus_for_each_drv+0x88/0xe8",
                                               "__device_attach+0xa4/0x1e0",
                                               "device_initial_probe+0x1c/0x30",
                                               "bus_probe_device+0xb4/0xc0",
                                               "device_add+0x5c8/0x830",
                                               "platform_device_add+0x1a8/0x288",
                                               "acpi_create_platform_device+0x23c/0x2d8",
                                               "acpi_bus_attach+0x230/0x2c8",
                                               "acpi_bus_scan+0x74/0x110",
                                               "acpi_scan_init+0x10c/0x2a0",
                                               "acpi_init+0x1f8/0x2c0",
                                               "do_one_initcall+0x60/0x2c8",
                                               "kernel_init_freeable+0x1f4/0x3f0",
                                               "kernel_init+0x2c/0x1f8",
                                               "ret_from_fork+0x10/0x20"};
    sw::printk(sw::LOGLEVEL_INFO, "Call trace:");
    for (const char* f : target_trace)
        sw::printk(sw::LOGLEVEL_INFO, std::string(" ") + f);
    sw::printk(sw::LOGLEVEL_ALERT,
               fmt::format("csd: Re-sending CSD lock (#{}) IPI from CPU#{:02} to CPU#{:02}", r.number, r.cpu,
                           r.target_cpu));
    sw::printk(sw::LOGLEVEL_INFO,
               fmt::format("CPU: {} PID: 12 Comm: kworker/{}:1 Not tainted 6.15.0 #1", r.cpu, r.cpu));
    sw::printk(sw::LOGLEVEL_INFO, "Workqueue: events toggle_allocation_gate");
    static const char* const waiter_trace[] = {"dump_backtrace+0xa0/0x100",
                                               "show_stack+0x20/0x38",
                                               "dump_stack_lvl+0x48/0x60",
                                               "dump_stack+0x18/0x28",
                                               "smp_call_function_many_cond+0x4d4/0x6e8",
                                               "kick_all_cpus_sync+0x50/0xa0",
                                               "aarch64_insn_patch_text+0x70/0xa8",
                                               "arch_jump_label_transform_apply+0x40/0x60",
                                               "__jump_label_update+0x138/0x1a8",
                                               "jump_label_update+0xc8/0x160",
                                               "static_key_enable_cpuslocked+0xa4/0x100",
                                               "static_key_enable+0x24/0x40",
                                               "toggle_allocation_gate+0x48/0x128",
                                               "process_one_work+0x174/0x3e0",
                                               "worker_thread+0x2d4/0x3f0",
                                               "kthread+0x110/0x128",
                                               "ret_from_fork+0x10/0x20"};
    sw::printk(sw::LOGLEVEL_INFO, "Call trace:");
    for (const char* f : waiter_trace)
        sw::printk(sw::LOGLEVEL_INFO, std::string(" ") + f);
}

struct record_check {
    std::uint64_t printed = 0, lost = 0, duplicated = 0, reordered = 0, text_mismatch = 0;
};

// The console's records against the ring buffer's, in order: each record due (from the console's first
// to `end_due`, of a level console_loglevel lets through) printed once, in sequence, with the text the
// ring buffer holds (markers where due).
record_check check_records(const std::vector<sw::printed_record>& printed,
                           const std::vector<sw::printk_info>& stored, std::uint64_t first_due,
                           std::uint64_t end_due) {
    record_check c;
    std::vector<bool> seen(stored.size(), false);
    std::uint64_t max_seq = 0;
    bool any = false;
    for (const sw::printed_record& p : printed) {
        ++c.printed;
        if (p.seq >= stored.size()) {
            ++c.text_mismatch;
            continue;
        }
        if (seen[p.seq])
            ++c.duplicated;
        else if (any && p.seq < max_seq)
            ++c.reordered;
        seen[p.seq] = true;
        if (!any || p.seq > max_seq) max_seq = p.seq;
        any = true;
        std::string want;
        if (p.dropped_before) want += sw::dropped_marker(p.dropped_before);
        if (p.replayed) want += sw::replay_marker;
        want += sw::record_print_text(stored[p.seq], sw::printk_cfg().time);
        if (want != p.text) ++c.text_mismatch;
    }
    for (std::uint64_t s = first_due; s < std::min<std::uint64_t>(end_due, stored.size()); ++s) {
        if (!seen[s] && !sw::suppress_message_printing(stored[s].level)) {
            ++c.lost;
            continue;
        }
    }
    return c;
}

// What the kernel's state refers to beyond a run's steps (the ports, the consoles, the IPI's work and
// timer): static, it outlives the tasks' threads.
struct boot_statics {
    sw::uart_port port;                // grace: the SBSA UART
    sw::uart_8250_port up;             // rpi3b: the mini UART
    sw::serial8250_console_port cport; // rpi3b: the 8250 console's port
    sw::console con, bootcon;          // the real console, the earlycon
    kapi::work_struct gate_work;
    cpu::hrtimer gate_timer;
};

boot_statics& fresh_statics() {
    static boot_statics s;
    s = boot_statics{};
    return s;
}

// One boot-console run in its steps (run_boot_console): the plan and the platform with its outputs,
// printk, the consoles, the boot on CPU1, the other CPUs' work and the IPI, the simulation, the
// results. The tasks refer to what is here, which outlives the simulation.
class boot_run {
public:
    explicit boot_run(const run_request& rq);
    void set_up_printk();
    void set_up_consoles();
    void start_boot();
    void start_other_cpus();
    void simulate();
    run_result results() const;

private:
    // The boot task's parts, in order.
    void firmware();
    void early_records();
    void probe(cpu::core& c);
    void work_until(double t_ns);
    nlohmann::json extra_results(const record_check& rc, const record_check& bc) const;

    const run_request& rq;
    const params& p;
    // A plugin's variant: its console write as a legacy console, the rest as variant `legacy`.
    const plugin::boot_console_hook* hook;
    const std::string v;
    const bool rpi;
    const boot_plan plan;
    std::unique_ptr<waves> w;
    boot_platform soc;
    std::unique_ptr<timeline> tl;
    std::vector<sw::printk_info> stored;
    std::uint64_t printed_count = 0;
    // The line carries every console's records (the earlycon's, then the real console's) in the order
    // they were written: the console and the index of each in its printk_printed().
    std::vector<std::pair<const sw::console*, std::size_t>> print_order;
    boot_statics& d;
    std::unique_ptr<plugin_guard> guard;
    bool registered = false, boot_finished = false, ipi_done;
    double ipi_sent_ns = -1; // when kick_all_cpus_sync was called (-1: not)
    double probe_ns = -1, init_ns = 0, register_ns = -1;
    double planned = 0; // boot start is time 0: firmware's few accesses are part of the boot
    std::uint64_t first_due = 0;
    sc_time boot_end;
    std::vector<std::pair<char, sc_time>> line;
};

boot_plan plan_of(const run_request& rq) {
    const bool calibrated = rq.payload_source.rfind("calibrated:", 0) == 0;
    if (calibrated || !rq.payload) return is_rpi(rq.p) ? rpi3b_plan() : grace_plan();
    return payload_plan(*rq.payload);
}

boot_run::boot_run(const run_request& rq_)
    : rq(rq_)
    , p(rq_.p)
    , hook(plugin_hook<plugin::boot_console_hook>(rq.variant))
    , v(hook ? std::string("legacy") : rq.variant)
    , rpi(is_rpi(p))
    , plan(plan_of(rq))
    , w(make_waves(rq, static_cast<double>(p.baud)))
    , soc("soc", p)
    , d(fresh_statics())
    , ipi_done(p.ipi_at_ms < 0) {
    if (w) soc.add_waves(*w);
    tl = make_timeline(rq);
    if (tl) {
        tl->watch(soc.kernel, soc.registers());
        tl->counter(soc.tx_fifo_level(), "uart0 tx_fifo_level");
    }
}

// printk as the boot has it; the records stored and printed for the waves and the line's check; the
// CSD lock's reports printed as the waiter prints them.
void boot_run::set_up_printk() {
    sw::printk_config pc;
    pc.log_buf_len = 1u << 20; // Grace: 128 KB and a per-CPU share for 72 CPUs; the Pi: assumed
    pc.preferred = rpi ? "ttyS0" : "ttyAMA0"; // SPCR; the Pi's console=ttyS0
    pc.variant = printk_variant_of(v);
    pc.kthread_cpu = 0;
    pc.store_ns = 1000; // assumed: formatting and storing a record, 1 us with IRQs off
    pc.console_loglevel = p.console_loglevel();
    sw::printk_init(pc);
    sw::printk_on_store([this](const sw::printk_info& r) {
        stored.push_back(r);
        soc.records_stored.write(stored.size());
    });
    sw::printk_on_printed([this](const sw::console& c, const sw::printed_record&) {
        print_order.emplace_back(&c, sw::printk_printed(c).size() - 1);
        soc.records_printed.write(++printed_count);
        soc.printing_cpu.write(static_cast<int>(cpu::core::current().id()));
    });
    soc.kernel.on_csd_report(print_csd_report);
}

// The ports as firmware and the probe leave them, the real console (a plugin's write in place of the
// driver's, under a guard) and the earlycon.
void boot_run::set_up_consoles() {
    // The SBSA UART: 32-bit accesses, always enabled.
    d.port.membase = p.uart_base;
    d.port.vendor = &sw::vendor_sbsa;
    d.port.iotype32 = true;
    // The Pi's mini UART as 8250_bcm2835aux registers it: MMIO32, reg-shift 2, 8-byte FIFOs,
    // UART_CAP_FIFO | UART_CAP_MINI.
    d.up.iotype = sw::upio::mem32;
    d.up.membase = p.uart_base;
    d.up.regshift = 2;
    d.up.fifosize = d.up.tx_loadsz = 8;
    d.up.cap_mini = true;
    d.cport.up = &d.up;
    if (rpi)
        sw::serial8250_console_init(d.con, d.cport, 0, v != "legacy");
    else
        sw::pl011_console_init(d.con, d.port, 0, v != "legacy");
    if (hook) { // the guard takes a write that throws or never returns
        guard = std::make_unique<plugin_guard>(*find_plugin_variant("boot-console", rq.variant));
        d.con.write = [this](sw::console&, std::string_view text) {
            if (guard->failed()) return;
            guard->call(
                "write",
                console_write_limit(text.size() * 2, p.frame.bits_per_frame(), static_cast<double>(p.baud)),
                [&] {
                    if (rpi)
                        hook->serial8250_write(d.up, text);
                    else
                        hook->pl011_write(d.port, text);
                });
        };
    }
    // The earlycon as a boot console: on Grace earlycon=pl011,mmio32,<uart_base> (SPCR's):
    // pl011_early_write, whose pl011_putc waits for BUSY after each character ("pl11", as the kernel
    // names it); on the Pi earlycon=uart8250,mmio32,<uart_base>: 8250_early's write, THRE and TEMT
    // after each character.
    d.bootcon.name = rpi ? "uart" : "pl1";
    d.bootcon.index = rpi ? 0 : 1;
    d.bootcon.flags = sw::CON_PRINTBUFFER | sw::CON_BOOT;
    if (rpi)
        d.bootcon.write = [this](sw::console&, std::string_view text) {
            sw::early_serial8250_write(d.up, text);
        };
    else
        d.bootcon.write = [this](sw::console&, std::string_view text) {
            sw::pl011_early_write_v0(d.port, text);
        };
}

// The boot on CPU1: firmware's UART setup, the earlycon, the records before the probe, the probe
// registering the console, the records after it, `Run /init`.
void boot_run::start_boot() {
    soc.kernel.cpu(boot_cpu).create_task("swapper/0", [this] {
        firmware();
        cpu::core& c = cpu::core::current();
        early_records();
        work_until(plan.probe_at_ns);
        if (v != "console-initcall") probe(c);
        for (const boot_record& r : plan.after) {
            work_until(r.t_ns);
            sw::pr_info(r.text);
        }
        work_until(plan.init_at_ns);
        sw::pr_info("Run /init as init process");
        init_ns = static_cast<double>(stored.back().ts_nsec);
        c.sync();
        boot_end = c.local_time();
        boot_finished = true;
        soc.boot_done.notify(SC_ZERO_TIME);
    });
}

void boot_run::firmware() {
    if (rpi) {
        // Firmware (enable_uart=1): AUX_MU_BAUD under DLAB, the frame, interrupts off.
        const auto b = static_cast<std::uint16_t>(bcm2835aux_baud_reg(p.uartclk_hz, p.baud));
        const std::uint8_t lcr = p.frame.data_bits == 8 ? 0x03 : 0x02;
        sw::serial_out(d.up, sw::UART_LCR, lcr | sw::UART_LCR_DLAB);
        sw::serial_out(d.up, sw::UART_DLL, b & 0xFF);
        sw::serial_out(d.up, sw::UART_DLM, b >> 8);
        sw::serial_out(d.up, sw::UART_LCR, lcr);
        sw::serial_out(d.up, sw::UART_IER, 0);
    } else {
        // Firmware: divisor, frame, UART and TX on, CTS flow control on (the BMC's).
        std::uint32_t ibrd = 0, fbrd = 0;
        pl011_baud_divisor(p.uartclk_hz, p.baud, ibrd, fbrd);
        sw::pl011_firmware_setup(d.port, ibrd, fbrd, 0x60);
        sw::pl011_write(sw::pl011_read(d.port, sw::UART011_CR) | sw::UART011_CR_CTSEN, d.port,
                        sw::UART011_CR);
    }
}

// The earlycon (setup_earlycon, parse_early_param: its line, then the boot console, which prints
// what is stored, CON_PRINTBUFFER, and every record after it as it is stored); the records before
// the probe, with console_init() and the kthreads' readiness where the plan puts them.
void boot_run::early_records() {
    if (p.earlycon) {
        sw::pr_info(fmt::format("earlycon: {} at MMIO32 0x{:016x} (options '')", rpi ? "uart0" : "pl11",
                                p.uart_base));
        sw::register_console(d.bootcon);
    }
    for (std::size_t i = 0; i < plan.before.size(); ++i) {
        if (i == plan.console_init_at && v == "console-initcall") {
            // console_init() in start_kernel: pl011_init as a console_initcall, before driver_init()
            // registered the platform bus and before amba_init (postcore_initcall).
            sw::pr_err("Driver 'sbsa-uart' was unable to register with bus_type 'platform' because the "
                       "bus was not initialized.");
            sw::pr_warn("could not register SBSA UART platform driver");
            sw::pr_err("Driver 'uart-pl011' was unable to register with bus_type 'amba' because the bus "
                       "was not initialized.");
        }
        if (i == plan.kthreads_ready_at) sw::printk_set_kthreads_ready();
        work_until(plan.before[i].t_ns);
        sw::pr_info(plan.before[i].text);
    }
    if (plan.kthreads_ready_at >= plan.before.size()) sw::printk_set_kthreads_ready();
}

// acpi_init -> ... -> sbsa_uart_probe -> pl011_register_port -> uart_add_one_port (the Pi:
// 8250_bcm2835aux's probe): the port's line, the console's registration, the probe's time.
void boot_run::probe(cpu::core& c) {
    c.sync();
    const sc_time probe0 = c.local_time();
    if (rpi) // 8250_bcm2835aux: uartclk = 2 x the core clock, base_baud = uartclk / 16
        sw::pr_info(fmt::format("{:x}.serial: ttyS0 at MMIO 0x{:x} (irq = 53, base_baud = {}) is a 16550",
                                p.uart_base, p.uart_base, p.uartclk_hz / 8));
    else
        sw::pr_info(fmt::format("ARMH0011:00: ttyAMA0 at MMIO 0x{:x} (irq = 66, base_baud = 0) is a SBSA",
                                p.uart_base));
    c.sync();
    register_ns = to_ns(c.local_time());
    sw::register_console(d.con);
    registered = d.con.registered;
    // CON_PRINTBUFFER without a boot console: the whole log; after one, from where it stopped.
    first_due = d.con.init_seq;
    c.sync();
    // ktime_to_us: whole microseconds, truncated
    const std::uint64_t usecs = static_cast<std::uint64_t>(to_ns(c.local_time() - probe0)) / 1000;
    probe_ns = static_cast<double>(usecs) * 1e3;
    sw::pr_info(fmt::format("probe of {} returned 0 after {} usecs",
                            rpi ? fmt::format("{:x}.serial", p.uart_base) : std::string("ARMH0011:00"),
                            usecs));
}

// The boot's own work up to the plan's time.
void boot_run::work_until(double t_ns) {
    if (t_ns > planned) {
        kapi::ndelay(static_cast<unsigned long>(t_ns - planned));
        planned = t_ns;
    }
}

// CPU2 and up idle (the initcalls run on the boot CPU; an idle core takes its IPIs from idle and costs
// no wall time). CPU0: the hrtimer that queues the IPI's work (a delayed work item in the kernel).
void boot_run::start_other_cpus() {
    d.gate_work.func = [this](kapi::work_struct*) {
        cpu::core& c = cpu::core::current();
        c.sync();
        ipi_sent_ns = to_ns(c.local_time());
        kapi::kick_all_cpus_sync();
        ipi_done = true;
    };
    d.gate_timer.function = [this](cpu::hrtimer*) { kapi::queue_work_on(0, d.gate_work); };
    if (p.ipi_at_ms >= 0)
        soc.kernel.cpu(0).create_task(
            "kfence", [this] { soc.kernel.hrtimer_start(d.gate_timer, sc_time(p.ipi_at_ms, SC_MS)); });
}

// Until the boot is done, the IPI sent and every console has printed what it will.
void boot_run::simulate() {
    soc.monitor.on_char([this](const decoded_char& ch) {
        if (!ch.is_break) line.emplace_back(static_cast<char>(ch.data), ch.start);
    });
    soc.settled = [this] { return boot_finished && ipi_done && sw::printk_all_printed() && soc.tx_idle(); };
    stop::simulate();
    if (guard) guard->check(true); // a routine that failed or never returned: the run's error
    if (soc.timed_out) throw std::runtime_error("the boot's consoles never finished printing");
    if (!boot_finished) throw std::runtime_error("the boot never reached Run /init");
    if (w) w->finish();
    if (tl) tl->finish();
}

// The line against every console's records in the order written ('\r' before '\n'); each console's
// records against the ring buffer's.
run_result boot_run::results() const {
    const record_check rc = registered
                                ? check_records(sw::printk_printed(d.con), stored, first_due, stored.size())
                                : record_check{};
    // The earlycon's: from the first record until it was unregistered (or the end).
    const record_check bc = p.earlycon ? check_records(sw::printk_printed(d.bootcon), stored, 0,
                                                       d.bootcon.registered ? stored.size() : d.bootcon.seq)
                                       : record_check{};
    std::string expected;
    for (const auto& [c, i] : print_order)
        append_console_bytes(expected, sw::printk_printed(*c)[i].text);
    scoreboard sb(expected.size() + 16);
    sb.expect(expected);
    for (const auto& [ch, t] : line)
        sb.observe(static_cast<std::uint8_t>(ch), t);
    sb.finish(sc_time_stamp());

    run_result r = result_of(rq, plan.before.size() + plan.after.size());
    // What the scenario fixes: csdlock_debug on, the boot task's CPU, the printer kthread's.
    r.params.update({{"csdlock_debug", true}, {"boot_cpu", boot_cpu}, {"kthread_cpu", 0}});
    const sc_time last_char_end = line.empty() ? SC_ZERO_TIME : line.back().second;
    r.sim_time_ns = to_ns(sc_time_stamp());
    r.line_idle_ns = to_ns(last_char_end);
    r.bytes_written = expected.size();
    add_line_results(r, sb, soc.monitor);
    r.corrupted_bytes +=
        rc.text_mismatch + bc.text_mismatch; // records whose text differs from what was logged
    add_machine_accesses(r, soc.kernel);
    r.tx_fifo_max = soc.tx_fifo_max;
    r.rtl_cycles = rpi ? 0 : soc.uart->clock().edge_at_or_before(sc_time_stamp());
    r.rtl_edges_evaluated = rpi ? 0 : soc.uart->edges_evaluated();
    add_kernel_results(r, soc.kernel);
    add_host_counts(r, rpi ? nullptr : soc.uart.get());
    r.extra = extra_results(rc, bc);
    if (rc.lost + rc.duplicated + rc.reordered + bc.lost + bc.duplicated + bc.reordered > 0 && r.clean())
        r.extra_bytes += 1; // a record-level difference the byte comparison could not see
    return r;
}

// boot-console's own figures: when the boot reached init and the console its probe, the records.
nlohmann::json boot_run::extra_results(const record_check& rc, const record_check& bc) const {
    nlohmann::json x = {
        {"init_ns", init_ns},
        {"console_probe_ns", probe_ns < 0 ? nlohmann::json(nullptr) : nlohmann::json(probe_ns)},
        {"console_register_ns", register_ns < 0 ? nlohmann::json(nullptr) : nlohmann::json(register_ns)},
        {"console_registered", registered},
        {"records_stored", stored.size()},
        {"records_printed", rc.printed},
        {"records_lost", rc.lost + bc.lost},
        {"records_duplicated", rc.duplicated + bc.duplicated},
        {"records_reordered", rc.reordered + bc.reordered},
        {"bootcon_records_printed", bc.printed},
        {"console_replays", d.con.replays},
        {"ipi_sent_ns", ipi_sent_ns < 0 ? nlohmann::json(nullptr) : nlohmann::json(ipi_sent_ns)}};
    if (soc.bmc) x["bmc_chars"] = soc.bmc->chars;
    if (rpi) x["modem_status_deferred"] = d.cport.modem_status_deferred;
    return x;
}

run_result run_boot_console(const run_request& rq) {
    return run_in_steps<boot_run>(rq, &boot_run::set_up_printk, &boot_run::set_up_consoles,
                                  &boot_run::start_boot, &boot_run::start_other_cpus, &boot_run::simulate);
}

bool is_rpi(const nlohmann::json& run) {
    return run["params"].value("uart_model", std::string()) == "mini";
}

std::string probe_text(const nlohmann::json& r) {
    return r["console_probe_ns"].is_null() ? std::string("-")
                                           : fmt::format("{:.6f}", r["console_probe_ns"].get<double>() / 1e9);
}

std::string compare_head(const nlohmann::json& base, std::size_t vw) {
    const nlohmann::json& prm = base["params"];
    const double ipi = prm["ipi_at_ms"].get<double>();
    std::string t = fmt::format(
        "boot-console on profile {} ({}, {} cores, {}, {}, csd_lock_timeout {} ms)\n",
        base["profile"].get<std::string>(), base["payload"].get<std::string>(), prm["cores"].get<unsigned>(),
        ipi < 0 ? std::string("no IPI") : fmt::format("IPI at {} ms", ipi),
        is_rpi(base) ? std::string("BCM2835 mini UART, 8250 console")
                     : fmt::format("BMC {} ns per character", prm["bmc_char_ns"].get<double>()),
        prm["csd_lock_timeout_ms"].get<unsigned>());
    return t + fmt::format("{:<{}} {:>9} {:>8} {:>15} {:>12} {:>8} {:>8} {:>12} {:>7}\n", "variant", vw,
                           "probe s", "init s", "irqoff max ms", "csd reports", "printed", "lost",
                           "console end s", "wall s");
}

std::string compare_row(const nlohmann::json& r, const nlohmann::json& /*base*/, std::size_t vw) {
    std::string csd;
    for (const nlohmann::json& c : r["csd_reports"]) {
        if (!csd.empty()) csd += ",";
        csd += fmt::format("{}@{:.3f}", c["kind"].get<std::string>().substr(0, 1),
                           c["time_ns"].get<double>() / 1e9);
    }
    if (csd.empty()) csd = "none";
    return fmt::format("{:<{}} {:>9} {:>8.3f} {:>15.3f} {:>12} {:>8} {:>8} {:>12.3f} {:>7.2f}\n",
                       r["variant"].get<std::string>(), vw, probe_text(r), r["init_ns"].get<double>() / 1e9,
                       r["irq_off_max_ns"].get<double>() / 1e6, csd,
                       r["records_printed"].get<std::uint64_t>(), r["records_lost"].get<std::uint64_t>(),
                       r["line_idle_ns"].get<double>() / 1e9, r["wall_s"].get<double>());
}

// Seed 003's boots beside the model's, after the rows (RPi 3B+ only): the mainline-based kernel with
// the 8250 nbcon patches (nbcon-atomic) and with the RFC (pending-start).
std::string compare_tail(const std::vector<nlohmann::json>& runs, std::size_t vw) {
    if (!is_rpi(runs.front())) return "";
    // How each model figure beside a seed's is obtained (docs/scenarios/boot-console.md's table).
    std::string t = fmt::format("{:<{}} {:>9} {:>12} {:<21} {:>8} {:>11} {}\n", "variant", vw, "probe s",
                                "seed probe s", "  obtained", "init s", "seed init s", "  obtained");
    for (const nlohmann::json& r : runs) {
        const std::string v = r["variant"].get<std::string>();
        const bool atomic = v == "nbcon-atomic", rfc = v == "pending-start";
        const char* seed_probe = atomic ? "8.090191" : rfc ? "0.007479" : "-";
        const char* seed_init = atomic ? "9.316964" : rfc ? "1.096505" : "-";
        const char* probe_obtained = atomic ? "calibrated" : rfc ? "predicted" : "-";
        const char* init_obtained = atomic || rfc ? "follows from inputs" : "-";
        t += fmt::format("{:<{}} {:>9} {:>12}   {:<19} {:>8.3f} {:>11}   {}\n", v, vw, probe_text(r),
                         seed_probe, probe_obtained, r["init_ns"].get<double>() / 1e9, seed_init,
                         init_obtained);
    }
    return t;
}

std::vector<std::pair<std::string, std::string>> summary_rows(const run_result& r) {
    const nlohmann::json& x = r.extra;
    std::vector<std::pair<std::string, std::string>> rows{
        {"Run /init at", fmt::format("{:.6f} s", x["init_ns"].get<double>() / 1e9)},
        {"console probe", x["console_probe_ns"].is_null()
                              ? "none"
                              : fmt::format("{:.6f} s", x["console_probe_ns"].get<double>() / 1e9)},
        {"console registered", x["console_registered"].get<bool>() ? "yes" : "no"},
        {"records stored/printed", fmt::format("{} / {}", x["records_stored"].get<std::uint64_t>(),
                                               x["records_printed"].get<std::uint64_t>())},
        {"records lost/dup/reord", fmt::format("{} / {} / {}", x["records_lost"].get<std::uint64_t>(),
                                               x["records_duplicated"].get<std::uint64_t>(),
                                               x["records_reordered"].get<std::uint64_t>())},
        {"irqoff max", fmt::format("{:.3f} ms", r.irq_off_max_ns / 1e6)},
        {"IPI sent",
         x["ipi_sent_ns"].is_null() ? "none" : fmt::format("{:.6f} s", x["ipi_sent_ns"].get<double>() / 1e9)},
    };
    for (const nlohmann::json& c : r.kernel["csd_reports"])
        rows.push_back({"csd " + c["kind"].get<std::string>(),
                        fmt::format("{:.6f} s (CPU{} waiting for CPU{}, {:.3f} s)",
                                    c["time_ns"].get<double>() / 1e9, c["cpu"].get<unsigned>(),
                                    c["target_cpu"].get<unsigned>(), c["wait_ns"].get<double>() / 1e9)});
    return rows;
}

} // namespace

scenario_def boot_console_scenario() {
    scenario_def s;
    s.name = "boot-console";
    s.description =
        "printk during boot: the UART's probe registers the serial console with a long log behind "
        "it (legacy or nbcon; the atomic replay with IRQs off, the CSD lock stall, the fixes)";
    s.variants = {
        {"nbcon-atomic",
         "v6.15/v6.16: the nbcon console's first registration replays the log with "
         "write_atomic, IRQs off across it, on the probing CPU (rpi3b: the reapplied 8250 nbcon "
         "patches)"},
        {"legacy", "amba-pl011 before 2eb2608618ce (rpi3b: mainline's 8250): the legacy console, "
                   "console_unlock with IRQs off one record at a time"},
        {"console-initcall", "seed 001's patch: pl011_init as a console_initcall, before the buses exist: "
                             "no serial console"},
        {"pending-start", "seed 003's RFC: printk_kthreads_pending_start, offload chosen while the first "
                          "kthread is pending"},
        {"kthread-first", "seed 003's reorder: printk_kthreads_check_locked before \"enabled\""},
        {"merged", "v6.17 (cf5543870186): the printer kthread made in nbcon_alloc; it prints the backlog"},
    };
    s.profiles = {
        {"grace",
         "NVIDIA Grace (seed 001): 72 cores, the boot on CPU1, SBSA PL011 at 0xc280000, 24 MHz, "
         "115200 8N1, no earlycon, CTS flow control from the BMC (bmc_char_ns), csdlock_debug=1, the "
         "KFENCE kworker's IPI at 413.5 ms; calibrated boot: 47,800 characters before \"enabled\" at "
         "0.308 s, Run /init at 0.63 s",
         [](params& p) {
             p.cores = 72;
             p.uart_base = 0xc280000;
             p.uartclk_hz = 24'000'000;
             p.baud = 115200;
             p.fifo_depth = 32;
             p.ipi_at_ms = 413.5;
             p.bmc_char_ns = 177800;
             p.csd_lock_timeout_ms = 5000;
         }},
        {"rpi3b",
         "Raspberry Pi 3B+ (seed 003): 4 cores at 1.4 GHz, the boot on CPU1, the BCM2835 AUX mini UART at "
         "0x3f215040 (250 MHz core clock, AUX_MU_BAUD 270: 115,313 baud, 8N1) with the 8250 console, no "
         "earlycon, no IPI; calibrated boot: 93,200 characters before the console registers at 0.295 s, Run "
         "/init at 1.097 s",
         [](params& p) {
             p.cores = 4;
             p.cpu_hz = 1'400'000'000;
             p.uart_model = "mini";
             p.uart_base = 0x3f215040;
             p.uartclk_hz = 250'000'000;
             p.baud = 115200;
             p.fifo_depth = 8;
             p.ipi_at_ms = -1;
             p.bmc_char_ns = 0;
             p.csd_lock_timeout_ms = 5000;
         }},
    };
    s.plugin_kinds = {plugin::boot_console_hook::kind};
    s.variant_refusal = [](const std::string& variant,
                           const std::string& profile) -> std::optional<std::string> {
        if (const auto* hook = plugin_hook<plugin::boot_console_hook>(variant)) {
            if (profile == "rpi3b" && !hook->serial8250_write)
                return std::string("the plugin gives no serial8250_write for the Pi's 8250 console");
            if (profile != "rpi3b" && !hook->pl011_write)
                return std::string("the plugin gives no pl011_write for the PL011 console");
        }
        if (variant == "console-initcall" && profile == "rpi3b")
            return std::string("has no meaning here: seed 001's console_initcall patch is to amba-pl011, the "
                               "Pi's mini UART is an 8250 port");
        return std::nullopt;
    };
    s.check_params = [](const params& p) -> std::optional<std::string> {
        if (p.cores < 2)
            return "boot-console needs at least 2 cores (the boot task runs on CPU1): --set cores=N";
        if (p.quiet && p.loglevel)
            return "quiet and loglevel both set console_loglevel (quiet: 4): give one of them";
        return std::nullopt;
    };
    s.default_profile = "grace";
    s.default_payload_bytes = 0; // the profile's calibrated boot
    s.run = run_boot_console;
    s.compare_table = {compare_head, compare_row, compare_tail, 17};
    s.summary_rows = summary_rows;
    s.has_rtl = false;
    return s;
}

} // namespace uartvp::program
