// SPDX-License-Identifier: Apache-2.0
// Scenario console-8250 (seed 002): the 8250 console prints a log through a 16550A, one console write
// per printk record: per character (one byte per THRE wait), through the FIFO (bursts of tx_loadsz, with
// the v5.19 and the v6.14 timeouts), the first FIFO version before the port is started (FIFO off: bursts
// overwrite THR), and 8250_early. Each line is printk'd and written by printk's legacy loop (8250_early
// as a boot console, the others and a plugin's variant as the legacy console ttyS0): IRQs off for each
// record.
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/line_monitor.h>
#include <uartvp/router.h>
#include <uartvp/scoreboard.h>
#include <uartvp/uart16550.h>

#include "cli/stop.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "plugins/plugins.h"
#include "scenarios/payload_printk.h"
#include "scenarios/scenario.h"
#include <uartvp/sw/serial8250.h>

namespace uartvp::program {

using namespace sc_core;

namespace {

constexpr const char* s_name = "console-8250";

// Seed 002's slow machine (HP ProLiant DL380 Gen9, BMC-emulated COM port), fitted to both of its rates:
// 2.5 KB/s per character and 3.1 KB/s through the FIFO (see console_8250_scenario()). The console
// writes with IER cleared (FIFO polled mode), where the datasheet's own THRE delay does not apply: the
// late THRE alone separates the per-character path from the FIFO's drain rate.
constexpr double slow_bmc_drain_ns = 316'500;
constexpr double slow_bmc_thre_delay_ns = 78'000;

double actual_baud(const params& p) {
    return static_cast<double>(p.uartclk_hz) /
           (16.0 * static_cast<double>(uart_get_divisor(p.uartclk_hz, p.baud)));
}

// The 16550 sends 1.5 stop bits for 5-bit words with LCR.STB: the monitor checks the first one.
serial_format line_format(const serial_format& f) {
    serial_format m = f;
    if (m.data_bits == 5) m.stop_bits = 1;
    return m;
}

std::uint8_t lcr_for(const serial_format& f) {
    std::uint8_t l = static_cast<std::uint8_t>(f.data_bits - 5);
    if (f.stop_bits == 2) l |= 0x04;
    switch (f.parity) {
    case parity_mode::none:
        break;
    case parity_mode::odd:
        l |= 0x08;
        break;
    case parity_mode::even:
        l |= 0x08 | 0x10;
        break;
    case parity_mode::mark:
        l |= 0x08 | 0x20;
        break;
    case parity_mode::space:
        l |= 0x08 | 0x10 | 0x20;
        break;
    }
    return l;
}

uart16550_config uart_config(const params& p, bool chars) {
    uart16550_config c = uart16550_of(p);
    c.txd_edges = !chars;
    return c;
}

// A machine with one core and one 16550: core -> router -> 16550 -> TXD -> line monitor -> scoreboard.
class uart16550_platform : public sc_module {
public:
    sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    sc_signal<bool, SC_MANY_WRITERS> nreset{"nreset", true};
    cpu::machine kernel; // `cores` cores; the console prints from cpu0
    cpu::core& cpu0;
    router bus;
    uart16550 uart;
    line_monitor monitor;
    scoreboard sb;
    std::string text_head; // the first decoded characters

    uart16550_platform(const sc_module_name& name, const params& p)
        : sc_module(name)
        , kernel("kernel", p.cores, timing(p))
        , cpu0(kernel.cpu(0))
        , bus("bus")
        , uart("uart0", uart_config(p, p.line_as_characters()))
        , monitor("console", actual_baud(p), line_format(p.frame))
        , m_p(p) {
        if (p.line_as_characters()) {
            uart.report_line(monitor);
            monitor.take_characters(true);
        }
        for (auto& c : kernel.cores) {
            c->set_collapse_polls(!p.reference);
            c->bus.bind(bus.target);
        }
        bus.map(uart.bus, bus_address(), uart.map_size(), "uart0");
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        uart.nreset(nreset);
        monitor.line(txd);
        sb.set_data_bits(p.frame.data_bits);
        monitor.on_char([this](const decoded_char& c) {
            if (m_reset_at && c.start < *m_reset_at && c.end > *m_reset_at) return; // cut off: lost
            if (c.is_break) return;
            sb.observe(c.data, c.start);
            // Printable for JSON: bytes above 0x7F show as '?'.
            if (text_head.size() < 256) text_head += c.data < 0x80 ? static_cast<char>(c.data) : '?';
        });
        // The highest TX FIFO level and the time TEMT last rose, at each change (observed_signal: no
        // process and no delta cycle of their own).
        keep_highest(uart.tx_fifo_level, m_tx_fifo_max);
        uart.temt.on_change([this] {
            if (uart.temt.read()) m_line_idle = sc_time_stamp();
        });
        SC_HAS_PROCESS(uart16550_platform);
        SC_THREAD(supervise);
    }

    cpu::timing_profile timing(const params& p) const {
        cpu::timing_profile t;
        t.cpu_hz = p.cpu_hz;
        t.cpu_relax_cycles = p.relax_cycles;
        const std::uint64_t base = p.port_io ? t.io_base + p.uart_base : p.uart_base;
        t.regions.push_back({"uart", base, std::uint64_t{8} << p.reg_shift, sc_time(p.mmio_read_ns, SC_NS),
                             sc_time(p.mmio_write_ns, SC_NS)});
        return t;
    }
    std::uint64_t bus_address() const {
        return m_p.port_io ? cpu0.timing().io_base + m_p.uart_base : m_p.uart_base;
    }

    // Asserts the UART's reset now (a reboot); a frame on the line at that moment is lost.
    void reset_uart() {
        cpu0.sync();
        m_reset_at = sc_time_stamp();
        nreset.write(false);
    }

    unsigned tx_fifo_max() const { return m_tx_fifo_max; }
    sc_time line_idle_at() const { return m_line_idle; }

private:
    void supervise() {
        if (!cpu0.idle()) wait(cpu0.idle_event());
        if (m_reset_at) {
            wait(sc_time(1, SC_US));
            nreset.write(true);
            wait(SC_ZERO_TIME);
        }
        while (!uart.temt.read())
            wait(uart.temt.posedge_event());
        // Let the monitor sample the last stop bit(s).
        wait(sc_time((m_p.frame.stop_bits + 1.0) / actual_baud(m_p), SC_SEC));
        sc_stop();
    }

    params m_p;
    unsigned m_tx_fifo_max = 0;
    sc_time m_line_idle;
    std::optional<sc_time> m_reset_at;
};

using write_fn = void (*)(sw::uart_8250_port&, std::string_view);

// One console-8250 run in its steps (run_console): the machine with its outputs and the port, the
// variant's setup of the port, the console and the boot task, the simulation, the results. The tasks
// refer to what is here, which outlives the simulation.
class console_run {
public:
    explicit console_run(const run_request& rq);
    void start_port();
    void start_boot();
    void simulate();
    run_result results() const;

private:
    void add_waves();

    const run_request& rq;
    const params& p;
    uart16550_platform m;
    std::unique_ptr<waves> w;
    std::unique_ptr<timeline> tl;
    sw::uart_8250_port port;
    const std::uint16_t divisor;
    const std::uint8_t lcr;
    write_fn write = nullptr;
    // A plugin's variant: its routines on the port as startup leaves it, run under a guard.
    const plugin::console_8250_hook* hook = nullptr;
    std::unique_ptr<plugin_guard> guard;
    payload_boot records;
    // fifo-before-init: the record at which the 8250 driver's init starts (serial8250_init's line; 0:
    // before the first record). The port has no FIFO capability until autoconfig, right after it.
    std::uint64_t driver_init_record = 0;
    std::uint64_t records_written = 0;
};

// The line serial8250_init() prints before it registers the ports (autoconfig then finds the FIFO).
constexpr std::string_view driver_init_line = "Serial: 8250/16550 driver";

// The number of the payload file's line that starts the driver's init (1-based), or 0 if it has none (a
// generated log: the init comes before its first record).
std::uint64_t driver_init_in(const std::string& payload_source) {
    if (payload_source.rfind("generated:", 0) == 0 || payload_source.rfind("calibrated:", 0) == 0) return 0;
    std::ifstream in(payload_source);
    std::uint64_t n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.find(driver_init_line) != std::string::npos) return n;
    }
    return 0;
}

console_run::console_run(const run_request& rq_)
    : rq(rq_)
    , p(rq_.p)
    , m("machine", p)
    , divisor(static_cast<std::uint16_t>(uart_get_divisor(p.uartclk_hz, p.baud)))
    , lcr(lcr_for(p.frame)) {
    add_waves();
    tl = make_timeline(rq);
    if (tl) {
        tl->watch(m.kernel, uart16550_register_names(m.bus_address(), p.reg_shift));
        tl->counter(m.uart.tx_fifo_level, "uart0 tx_fifo_level");
        tl->counter(m.uart.rx_fifo_level, "uart0 rx_fifo_level");
        tl->watch(m.sb, "console");
    }
    port.iotype = p.port_io ? sw::upio::port : p.reg_io_width == 4 ? sw::upio::mem32 : sw::upio::mem;
    port.iobase = static_cast<std::uint16_t>(p.port_io ? p.uart_base : 0);
    port.membase = p.port_io ? 0 : p.uart_base;
    port.regshift = p.reg_shift;
    port.fifosize = port.tx_loadsz = p.fifo_depth;
}

void console_run::add_waves() {
    w = make_waves(rq, static_cast<double>(p.baud));
    if (!w) return;
    w->machine_and_bus(m.kernel);
    w->name_registers(uart16550_register_names(m.bus_address(), p.reg_shift));
    w->begin_group("UART0 (16550A)");
    w->level(m.uart.tx_fifo_level, "uart0.tx_fifo_level", 16);
    w->level(m.uart.rx_fifo_level, "uart0.rx_fifo_level", 16);
    w->bit(m.uart.thre, "uart0.thre");
    w->bit(m.uart.temt, "uart0.temt");
    w->bit(m.uart.dr, "uart0.dr");
    w->bit(m.uart.fifo_enabled, "uart0.fifo_enabled");
    w->bit(m.irq, "uart0.irq");
    w->end_group();
    // TXD from the 16550's character reports where it does not drive the pin.
    if (p.line_as_characters())
        m.uart.report_line(w->lines_from_reports(m.rxd));
    else
        w->lines(m.txd, m.rxd);
}

// The port as the variant's console finds it, and the variant's write.
void console_run::start_port() {
    hook = plugin_hook<plugin::console_8250_hook>(rq.variant);
    if (hook) {
        guard = std::make_unique<plugin_guard>(*find_plugin_variant(s_name, rq.variant));
        m.cpu0.add_task("startup", [this] {
            sw::serial8250_port_startup(port, divisor, lcr);
            if (hook->setup) guard->call("setup", setup_limit(), [&] { hook->setup(port); });
        });
    } else if (rq.variant == "putchar" || rq.variant == "fifo" || rq.variant == "fifo-v6.14") {
        // The port as serial8250_startup() leaves it: FIFO enabled, initialised.
        m.cpu0.add_task("startup", [this] { sw::serial8250_port_startup(port, divisor, lcr); });
        write = rq.variant == "putchar" ? sw::serial8250_console_write_v0
                : rq.variant == "fifo"  ? sw::serial8250_console_write
                                        : sw::serial8250_console_write_v6_14;
    } else {
        // As 8250_early leaves it (8N1, FIFO off); for fifo-before-init the console is the real driver's,
        // registered before the port was started up.
        m.cpu0.add_task("early-setup", [this] { sw::early_serial8250_init_port(port, divisor); });
        write = rq.variant == "early" ? sw::early_serial8250_write : sw::serial8250_console_write_v1;
        if (rq.variant == "fifo-before-init") {
            // Before the driver's init the port is as registered by the console initcall, not yet
            // autoconfigured: no FIFO capability, so each record goes out a character per THRE.
            driver_init_record = driver_init_in(rq.payload_source);
            port.cap_fifo = driver_init_record == 0;
        }
    }
}

// The console printk writes each record on (8250_early's boot console "uart0" or ttyS0) and the boot
// task printing the payload on it; a reset after the last write if asked for.
void console_run::start_boot() {
    const bool early = !hook && rq.variant == "early";
    sw::console& con = payload_console(early ? "uart" : "ttyS", 0, early);
    con.write = [this](sw::console&, std::string_view text) {
        if (hook)
            guard->call("write",
                        console_write_limit(console_bytes(text), p.frame.bits_per_frame(), actual_baud(p)),
                        [&] { hook->write(port, text); });
        else
            write(port, text);
        // Autoconfig finds the 16550A right after serial8250_init's line.
        if (++records_written == driver_init_record) port.cap_fifo = true;
    };
    m.cpu0.add_task("boot", [this, &con] {
        const auto failed = [this] { return guard && guard->failed(); };
        records.run(con, *rq.payload, m.sb, m.cpu0, tl.get(), failed);
        if (p.reset_after_write && !failed()) m.reset_uart();
    });
}

void console_run::simulate() {
    stop::simulate();
    if (guard) guard->check(m.cpu0.idle());
    m.sb.finish(sc_time_stamp());
    if (w) w->finish();
    if (tl) tl->finish();
}

run_result console_run::results() const {
    const cpu::task_stats& boot = m.cpu0.tasks().at(1);
    run_result r = console_result(rq, m.sb, m.monitor, m.cpu0, boot, m.line_idle_at(), records.lines(),
                                  records.bytes_written(), m.tx_fifo_max());
    add_kernel_results(r, m.kernel);
    add_host_counts(r, nullptr);
    r.line_text_head = m.text_head;
    // The seed's figures: the slow machine's two paths, the fast machine's line rate (no change with FIFO).
    // Measured with v5.19's FIFO path: fifo-v6.14 has none.
    // The slow machine's rates are what tx_drain_ns and thre_delay_ns were fitted to; the fast machine's
    // is the line rate, arithmetic of the baud rate and the frame.
    if (rq.profile == "slow-bmc" && (rq.variant == "putchar" || rq.variant == "fifo")) {
        r.seed_kbps = rq.variant == "putchar" ? 2.5 : 3.1;
        r.seed_obtained = "fitted";
    }
    if (rq.profile == "pc" && (rq.variant == "putchar" || rq.variant == "fifo")) {
        r.seed_kbps = 11.5;
        r.seed_obtained = "follows from inputs";
    }
    // Where the driver's init falls in the log: the record of its first line (0: before the first).
    if (rq.variant == "fifo-before-init") r.extra["driver_init_record"] = driver_init_record;
    return r;
}

run_result run_console(const run_request& rq) {
    return run_in_steps<console_run>(rq, &console_run::start_port, &console_run::start_boot,
                                     &console_run::simulate);
}

} // namespace

scenario_def console_8250_scenario() {
    scenario_def s;
    s.name = s_name;
    s.plugin_kinds = {plugin::console_8250_hook::kind};
    s.description =
        "8250 console prints a log through a 16550A, one console write per printk record (seed 002)";
    s.variants = {
        {"putchar", "serial8250_console_write before the FIFO patch: wait for THRE, write one byte"},
        {"fifo", "serial8250_console_write as merged (v5.19): bursts of tx_loadsz bytes per THRE, one "
                 "10 ms THRE wait per burst"},
        {"fifo-v6.14",
         "the FIFO path since v6.14: the THRE wait before each burst allows one timeout per FIFO byte, and "
         "one more wait (one timeout per byte of the last burst) before the final THRE|TEMT wait"},
        {"fifo-before-init",
         "the first FIFO version (reverted): decides on FCR read back (IIR) and bursts 16 bytes before the "
         "port is started, FIFO off: 15 of every 16 bytes lost"},
        {"early", "8250_early serial_putc: write THR, spin until THRE and TEMT (init_port: 8N1, FIFO off)"},
    };
    // 8250_early's init_port programs 8N1 whatever the console was asked for, and fifo-before-init runs
    // on the port as it leaves it: other frames cannot be honoured by these two.
    s.check_variants = [](const std::vector<std::string>& variants,
                          const params& p) -> std::optional<std::string> {
        if (p.frame == serial_format{}) return std::nullopt;
        std::string names;
        unsigned n = 0;
        for (const std::string& v : variants)
            if (v == "early" || v == "fifo-before-init") names += (n++ ? " and " : "") + v;
        if (n == 0) return std::nullopt;
        return "frame " + p.frame.name() + ": 8250_early programs 8N1, so " +
               (n > 1 ? "variants " : "variant ") + names + " cannot print " + p.frame.name() +
               (variants.size() > 1 ? " (compare needs --set frame=8N1)"
                                    : " (use --set frame=8N1 or another variant)");
    };
    s.profiles = {
        {"pc", "COM1 at I/O port 0x3F8, 1.8432 MHz, 115200 8N1, 1.7 us per port access, 2.4 GHz CPU",
         pc_com1},
        {"slow-bmc",
         "seed 002's slow machine: port reads 1.74 us, writes 1.70 us (the seed's trace); a part that drains "
         "a byte in 316.5 us and raises THRE 78 us late (fitted to 2.5 KB/s per character and 3.1 KB/s "
         "with FIFO)",
         [](params& p) {
             pc_com1(p);
             p.mmio_read_ns = 1740;
             p.mmio_write_ns = 1700;
             p.tx_drain_ns = slow_bmc_drain_ns;
             p.thre_delay_ns = slow_bmc_thre_delay_ns;
         }},
        {"soc",
         "an SoC's 16550-compatible UART: MMIO at 0x10000000, reg-shift 2, 32-bit accesses, 24 MHz clock "
         "(divisor 13: 115385 baud), APB reads 120 ns, writes 60 ns, 1 GHz CPU",
         [](params& p) {
             p.uart_model = "16550";
             p.port_io = false;
             p.uart_base = 0x10000000;
             p.reg_shift = 2;
             p.reg_io_width = 4;
             p.uartclk_hz = 24'000'000;
             p.baud = 115200;
             p.fifo_depth = 16;
         }},
    };
    s.default_profile = "pc";
    s.default_payload_bytes = 2500; // seed 002: sertest -n 2500
    s.run = run_console;
    return s;
}

} // namespace uartvp::program
