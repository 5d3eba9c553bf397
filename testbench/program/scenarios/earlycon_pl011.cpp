// SPDX-License-Identifier: Apache-2.0
// Scenario earlycon-pl011 (seed 000): the PL011 earlycon prints the boot log, one console write per
// printk record, in the variants around the patch that drops the per-character BUSY wait; beside them
// the full driver's legacy console write for ARM's PL011, the SBSA generic UART and QDF2400 erratum 44.
// Each line is printk'd and written by printk's legacy loop (the earlycon as a boot console, the full
// driver's as a legacy console; a plugin's variant as the earlycon): IRQs off for each record.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <uartvp/cpu/kernel.h>

#include "cli/bus_log.h"
#include "cli/stop.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "platforms/pl011_platform.h"
#include "platforms/virt_platform.h"
#include "plugins/plugins.h"
#include "scenarios/payload_printk.h"
#include "scenarios/scenario.h"
#include <uartvp/sw/pl011.h>

namespace uartvp::program {

using namespace sc_core;

namespace {

constexpr const char* s_name = "earlycon-pl011";

using write_fn = void (*)(sw::uart_port&, std::string_view);

write_fn variant_write(const std::string& v) {
    if (v == "v0") return sw::pl011_early_write_v0;
    if (v == "v0-literal") return sw::pl011_early_write_v0_literal;
    if (v == "v1") return sw::pl011_early_write_v1;
    if (v == "v2") return sw::pl011_early_write_v2;
    if (v == "qdf2400-e44") return sw::qdf2400_e44_early_write;
    if (v == "console" || v == "console-sbsa" || v == "console-qdf2400-e44") return sw::pl011_console_write;
    return nullptr;
}

// The vendor data the probe picks for the full driver's console (amba_pl011 for ARM's part,
// sbsa_uart_probe for the other two).
const sw::vendor_data& variant_vendor(const std::string& v) {
    if (v == "console-sbsa") return sw::vendor_sbsa;
    if (v == "console-qdf2400-e44") return sw::vendor_qdt_qdf2400_e44;
    return sw::vendor_arm;
}

std::uint32_t lcrh_for(const serial_format& f) {
    std::uint32_t l = (f.data_bits - 5) << 5;
    if (f.stop_bits == 2) l |= 1u << 3;
    switch (f.parity) {
    case parity_mode::none:
        break;
    case parity_mode::odd:
        l |= 1u << 1;
        break;
    case parity_mode::even:
        l |= (1u << 1) | (1u << 2);
        break;
    case parity_mode::mark:
        l |= (1u << 1) | (1u << 7);
        break;
    case parity_mode::space:
        l |= (1u << 1) | (1u << 2) | (1u << 7);
        break;
    }
    return l;
}

// One earlycon-pl011 run in its steps (run_earlycon): the SoC with its outputs and the port, the
// firmware's setup, the console and the boot task, the simulation, the results. The tasks refer to
// what is here, which outlives the simulation.
class earlycon_run {
public:
    explicit earlycon_run(const run_request& rq);
    void start_firmware();
    void start_boot();
    void simulate();
    run_result results() const;

private:
    void close_rtl_trace();

    const run_request& rq;
    const params& p;
    std::unique_ptr<waves> w;
    std::unique_ptr<bus_log> log; // --bus-log
    pl011_platform soc;
    std::unique_ptr<timeline> tl;
    const write_fn write;
    // A plugin's variant: its routines, run under a guard (a routine that throws or does not return).
    const plugin::earlycon_pl011_hook* hook;
    std::unique_ptr<plugin_guard> guard;
    sw::uart_port port;
    payload_boot records;
};

earlycon_run::earlycon_run(const run_request& rq_)
    : rq(rq_)
    , p(rq_.p)
    , w(make_waves(rq, static_cast<double>(p.baud)))
    , log(rq.bus_log.empty() ? nullptr : std::make_unique<bus_log>(rq.bus_log))
    , soc("soc", p, w && rq.vcd_rtl ? w->rtl_trace_path() : "", w && rq.vcd_rtl,
          log ? &log->monitor : nullptr)
    , write(variant_write(rq.variant))
    , hook(plugin_hook<plugin::earlycon_pl011_hook>(rq.variant)) {
    if (w) soc.add_waves(*w);
    tl = make_timeline(rq);
    if (tl) soc.add_timeline(*tl);
    if (hook) guard = std::make_unique<plugin_guard>(*find_plugin_variant(s_name, rq.variant));
    port.membase = p.uart_base;
    port.vendor = &variant_vendor(rq.variant);
    port.iotype32 = port.vendor->access_32b;
}

// Firmware's divisor and frame (and a plugin's setup).
void earlycon_run::start_firmware() {
    soc.cpu0.add_task("firmware", [this] {
        std::uint32_t ibrd = 0, fbrd = 0;
        pl011_baud_divisor(p.uartclk_hz, p.baud, ibrd, fbrd);
        sw::pl011_firmware_setup(port, ibrd, fbrd, lcrh_for(p.frame));
        if (hook && hook->setup) guard->call("setup", setup_limit(), [&] { hook->setup(port); });
    });
}

// The console printk writes each record on (the earlycon, a boot console, "pl11" as the kernel names
// it, or the full driver's ttyAMA0) and the boot task printing the payload on it; a reset after the
// last write if asked for.
void earlycon_run::start_boot() {
    const bool full_driver = !hook && rq.variant.rfind("console", 0) == 0;
    sw::console& con = full_driver ? payload_console("ttyAMA", 0, false) : payload_console("pl1", 1, true);
    con.write = [this](sw::console&, std::string_view text) {
        if (hook)
            guard->call("write",
                        console_write_limit(console_bytes(text), p.frame.bits_per_frame(),
                                            static_cast<double>(p.baud)),
                        [&] { hook->write(port, text); });
        else
            write(port, text);
    };
    soc.cpu0.add_task("boot", [this, &con] {
        const auto failed = [this] { return guard && guard->failed(); };
        records.run(con, *rq.payload, soc.sb, soc.cpu0, tl.get(), failed);
        if (p.reset_after_write && !failed()) soc.reset_uart();
    });
}

void earlycon_run::simulate() {
    soc.run();
    if (guard) guard->check(soc.cpu0.idle());
    soc.sb.finish(sc_time_stamp());
    close_rtl_trace();
    if (w) w->finish();
    if (tl) tl->finish();
    if (log) log->close();
}

// Throws if a write of the RTL trace failed (a full disk), naming the file asked for where the model
// names the temporary it wrote.
void earlycon_run::close_rtl_trace() {
    try {
        soc.uart.close_rtl_trace();
    } catch (const std::runtime_error& e) {
        std::string why = e.what();
        const std::string tmp = w ? w->rtl_trace_path() : "";
        if (const auto at = why.find(tmp); !tmp.empty() && at != std::string::npos)
            why.replace(at, tmp.size(), w->rtl_path());
        throw std::runtime_error(why);
    }
}

run_result earlycon_run::results() const {
    const cpu::task_stats& boot = soc.cpu0.tasks().at(1);
    run_result r = console_result(rq, soc.sb, soc.monitor, soc.cpu0, boot, soc.line_idle_at(),
                                  records.lines(), records.bytes_written(), soc.tx_fifo_max());
    add_kernel_results(r, soc.kernel);
    r.rtl_cycles = soc.uart.clock().edge_at_or_before(sc_time_stamp()); // UARTCLK cycles simulated
    r.rtl_edges_evaluated = soc.uart.edges_evaluated();
    r.rtl_eval_s = soc.uart.rtl_eval_seconds();
    add_host_counts(r, &soc.uart);
    return r;
}

// ---- the a64 variants: the same routines compiled (sw/firmware/earlycon.c), on the aarch64 core

bool is_a64(const std::string& variant) {
    return variant.size() > 4 && variant.compare(variant.size() - 4, 4, "-a64") == 0;
}

// Why an a64 variant cannot run here (the add-on or its image missing), or nothing.
std::optional<std::string> a64_missing(const std::string& variant) {
    std::string why;
    if (!cpu::a64_available(&why)) return why;
    if (virt_platform::firmware_image("earlycon-" + variant.substr(0, 2) + ".elf", &why).empty()) return why;
    return std::nullopt;
}

class earlycon_a64_run {
public:
    explicit earlycon_a64_run(const run_request& rq);
    void simulate();
    run_result results() const;

private:
    const run_request& rq;
    std::unique_ptr<bus_log> log;
    std::unique_ptr<waves> w;
    virt_platform soc;
    std::unique_ptr<timeline> tl;
    // The whole payload is handed over at once (the mailbox): every byte may wait ('\r' added).
    scoreboard sb{2 * virt_platform::mailbox_max};
    std::uint64_t lines = 0, bytes_written = 0;
};

earlycon_a64_run::earlycon_a64_run(const run_request& rq_)
    : rq(rq_)
    , log(rq_.bus_log.empty() ? nullptr : std::make_unique<bus_log>(rq_.bus_log))
    , w(rq_.vcd_rtl ? nullptr : make_waves(rq_, static_cast<double>(rq_.p.baud)))
    , soc("virt", rq_.p, log ? &log->monitor : nullptr) {
    if (rq.vcd_rtl) throw usage_error("--vcd-rtl: the a64 variants write no RTL trace (the stub's do)");
    if (w) soc.add_waves(*w);
    tl = make_timeline(rq);
    if (tl) soc.add_timeline(*tl);
    const std::string path = virt_platform::firmware_image("earlycon-" + rq.variant.substr(0, 2) + ".elf");
    cpu::elf_image image = cpu::read_elf(path, virt_platform::ram_base, virt_platform::ram_size);
    // The payload in the mailbox, each line one console write; the scoreboard expects what
    // uart_console_write hands to the UART ('\r' before each '\n'), as for the stub's variants.
    std::string mailbox, line;
    for (; rq.payload->next(line); ++lines) {
        if (line.empty() || line.back() != '\n') line += '\n'; // printk ends every record with one
        mailbox += line;
        std::string out;
        append_console_bytes(out, line);
        sb.expect(out);
        bytes_written += out.size();
    }
    if (const std::string why = rq.payload->error(); !why.empty()) throw std::runtime_error(why);
    if (mailbox.size() > virt_platform::mailbox_max)
        throw usage_error("the a64 variants take at most " + std::to_string(virt_platform::mailbox_max) +
                          " bytes of payload (the firmware's mailbox)");
    soc.load(image, mailbox);
    // The line the keys ask for, as the stub's firmware task programs it (the image reads it there).
    std::uint32_t config[4] = {0x54524155u /* "UART" */, 0, 0, lcrh_for(rq.p.frame) | 0x10u /* FEN */};
    pl011_baud_divisor(rq.p.uartclk_hz, rq.p.baud, config[1], config[2]);
    soc.cpu->write_memory(virt_platform::config_base, config, sizeof config);
    sb.set_data_bits(rq.p.frame.data_bits);
    soc.monitor.on_char([this](const decoded_char& c) {
        if (!c.is_break) sb.observe(c.data, c.start);
    });
}

void earlycon_a64_run::simulate() {
    soc.run(SC_ZERO_TIME);
    sb.finish(sc_time_stamp());
    if (w) w->finish();
    if (tl) tl->finish();
    if (log) log->close();
}

run_result earlycon_a64_run::results() const {
    const cpu::a64_core& c = *soc.cpu;
    const cpu::a64_stats& s = c.stats();
    run_result r = result_of(rq, lines);
    // The firmware's whole run: its set-up (a few writes), the records, SYSTEM_OFF.
    add_a64_results(r, soc);
    r.bytes_written = bytes_written;
    add_line_results(r, sb, soc.monitor);
    if (c.stop_reason() != cpu::a64_stop::system_off)
        r.failure = std::string("the firmware did not power off: ") + cpu::to_string(c.stop_reason()) +
                    (c.fault().empty() ? "" : ": " + c.fault());
    // What the instructions cost, which the stub's routines do not (their code between accesses is free).
    const double instructions_ns =
        static_cast<double>(s.instructions) * rq.p.cpi * 1e9 / static_cast<double>(rq.p.cpu_hz);
    r.extra = {
        {"instructions", s.instructions},
        {"instructions_ns", instructions_ns},
        {"cpu_busy_ns", to_ns(s.busy)},
        {"a64_stop", cpu::to_string(c.stop_reason())},
    };
    return r;
}

run_result run_earlycon(const run_request& rq) {
    if (is_a64(rq.variant)) {
        if (auto why = a64_missing(rq.variant)) throw usage_error(rq.variant + ": " + *why);
        return run_in_steps<earlycon_a64_run>(rq, &earlycon_a64_run::simulate);
    }
    return run_in_steps<earlycon_run>(rq, &earlycon_run::start_firmware, &earlycon_run::start_boot,
                                      &earlycon_run::simulate);
}

} // namespace

// The trapped-access cost of the `vm` profile, calibrated on seed 000's verbose row: v0 - v1 = 38.1 ms
// over the bytes the 99,000-byte boot log hands to the UART (one extra trapped FR read per byte).
constexpr double vm_trap_ns = 377;

scenario_def earlycon_pl011_scenario() {
    scenario_def s;
    s.name = s_name;
    s.plugin_kinds = {plugin::earlycon_pl011_hook::kind};
    s.description = "PL011 earlycon prints a boot log, one console write per printk record (seed 000)";
    s.variants = {
        {"v0", "pl011_putc before the patch: waits for TXFF, writes DR, waits for BUSY after every byte"},
        {"v0-literal", "v0 with the kernel's literal loops (while (readl(FR) & BUSY) cpu_relax();), not "
                       "spin_while: the same figures as v0"},
        {"v1", "patch v1: no BUSY wait at all (the flush guarantee is lost)"},
        {"v2", "patch v2: no BUSY wait per byte, one per pl011_early_write call"},
        {"qdf2400-e44", "QDF2400 erratum 44 putc: waits for TXFE after every byte, 32-bit DR writes"},
        {"console", "the full driver's legacy pl011_console_write (ARM's PL011): IRQs off, port lock, CR "
                    "saved and restored, 16-bit accesses, one BUSY wait"},
        {"console-sbsa", "the same console write on the SBSA generic UART (always_enabled): no CR save and "
                         "restore, 32-bit accesses, one BUSY wait"},
        {"console-qdf2400-e44", "the same on QDF2400 erratum 44 (as console-sbsa): each record ends on "
                                "TXFE, the vendor's inverted busy, not on BUSY"},
        {"v0-a64", "v0's pl011_putc and pl011_early_write as the kernel's C, compiled for aarch64 "
                   "(sw/firmware/earlycon.c) and run on the instruction-accurate core: v0's accesses, and "
                   "the instructions' cost (cpi cycles each)"},
        {"v1-a64", "v1 compiled, on the aarch64 core"},
        {"v2-a64", "v2 compiled, on the aarch64 core"},
    };
    s.profiles = {
        {"hw", "an SoC: 24 MHz UARTCLK, 115200 8N1, APB reads 120 ns, writes 60 ns, 1 GHz CPU",
         [](params& p) {}},
        {"vm",
         "seed 000's VMM: every MMIO access traps (377 ns, calibrated), the emulated UART drains at once "
         "(640 MHz UARTCLK, 40 Mbaud: a frame is shorter than one trap)",
         [](params& p) {
             p.mmio_read_ns = vm_trap_ns;
             p.mmio_write_ns = vm_trap_ns;
             p.uartclk_hz = 640'000'000;
             p.baud = 40'000'000;
         }},
    };
    s.default_profile = "hw";
    s.default_payload_bytes = 4096;
    s.run = run_earlycon;
    s.has_rtl = true;
    s.takes_bus_log = true;
    s.variant_refusal = [](const std::string& variant, const std::string&) -> std::optional<std::string> {
        return is_a64(variant) ? a64_missing(variant) : std::nullopt;
    };
    // The compiled routines run on QEMU virt's map with one core and their own accesses: the keys that
    // move the UART, add cores, price cpu_relax() or reset the UART are the stub's; the instruction
    // keys are theirs alone.
    s.check_variants = [](const std::vector<std::string>& vs, const params& p) -> std::optional<std::string> {
        params d;
        d.scenario = p.scenario;
        d.profile = p.profile;
        for (const std::string& v : vs) {
            if (is_a64(v)) {
                if (p.uart_base != d.uart_base)
                    return v + " has its PL011 at 0x09000000 (QEMU virt's map): uart_base";
                if (p.cores != 1) return v + " runs on one aarch64 core: cores";
                if (p.relax_cycles != d.relax_cycles)
                    return v + " executes cpu_relax() as the yield instruction (cpi cycles): relax_cycles";
                if (p.reset_after_write)
                    return "reset_after_write applies to the instruction stub's variants, not to " + v;
            } else if (p.cpi != d.cpi || p.quantum_ns != d.quantum_ns ||
                       p.a64_fast_forward != d.a64_fast_forward) {
                return "cpi, quantum_ns and a64_fast_forward apply to the aarch64 core's variants (v0-a64, "
                       "v1-a64, "
                       "v2-a64), not to " +
                       v;
            }
        }
        return std::nullopt;
    };
    return s;
}

} // namespace uartvp::program
