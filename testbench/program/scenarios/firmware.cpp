// SPDX-License-Identifier: Apache-2.0
// Scenario firmware: a bare-metal aarch64 ELF (--elf) on the instruction-accurate core, on QEMU virt's
// memory map (virt_platform, docs/firmware.md). The payload, if any, is pasted into the PL011's RXD; the
// run ends when the firmware stops (PSCI SYSTEM_OFF, or wfi for an interrupt nothing will raise) and both
// lines are idle, or at --duration.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "cli/bus_log.h"
#include "cli/terminal.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "platforms/virt_platform.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

using namespace sc_core;

namespace {

constexpr const char* s_name = "firmware";
constexpr const char* default_image = "hello.elf"; // without --elf

// The ELF, checked before anything is built (a bad file is bad input: exit 2 with the reason).
cpu::elf_image read_image(const run_request& rq) {
    std::string why;
    if (!cpu::a64_available(&why)) throw usage_error(std::string(s_name) + ": " + why);
    const std::string path = rq.elf.empty() ? virt_platform::firmware_image(default_image, &why) : rq.elf;
    if (path.empty())
        throw usage_error("firmware without --elf runs the project's " + std::string(default_image) + ": " +
                          why);
    try {
        return cpu::read_elf(path, virt_platform::ram_base, virt_platform::ram_size);
    } catch (const cpu::elf_error& e) {
        throw usage_error(std::string("--elf ") + e.what());
    }
}

constexpr std::size_t line_text_max = 65536;

class firmware_run {
public:
    explicit firmware_run(const run_request& rq);
    void paste();
    void simulate();
    run_result results() const;

private:
    const run_request& rq;
    const cpu::elf_image image;
    std::unique_ptr<bus_log> log;
    std::unique_ptr<waves> w;
    // --terminal: it types into RXD from paste_at_us on (the image has set the UART up by then).
    const std::unique_ptr<serial_terminal> term;
    virt_platform soc;
    std::unique_ptr<timeline> tl;
    std::uint64_t pasted_lines = 0, pasted_bytes = 0;
};

firmware_run::firmware_run(const run_request& rq_)
    : rq(rq_)
    , image(read_image(rq_))
    , log(rq_.bus_log.empty() ? nullptr : std::make_unique<bus_log>(rq_.bus_log))
    , w(make_waves(rq_, static_cast<double>(rq_.p.baud)))
    , term(rq_.terminal.empty() ? nullptr
                                : open_terminal(rq_, static_cast<double>(rq_.p.baud), rq_.p.frame,
                                                sc_time(rq_.p.paste_at_us, SC_US)))
    , soc("virt", rq_.p, log ? &log->monitor : nullptr, term.get()) {
    soc.load(image);
    if (w) soc.add_waves(*w);
    tl = make_timeline(rq);
    if (tl) soc.add_timeline(*tl);
}

// The payload as one paste into RXD from paste_at_us.
void firmware_run::paste() {
    if (!rq.payload) return;
    std::string text;
    for (std::string line; rq.payload->next(line); ++pasted_lines)
        text += line;
    if (const std::string why = rq.payload->error(); !why.empty()) throw std::runtime_error(why);
    pasted_bytes = text.size();
    if (!text.empty()) soc.inj.send(text, sc_time(rq.p.paste_at_us, SC_US));
}

void firmware_run::simulate() {
    soc.run(rq.duration_s > 0 ? sc_time(rq.duration_s, SC_SEC) : SC_ZERO_TIME);
    if (term) term->drain(std::chrono::seconds(1));
    if (w) w->finish();
    if (tl) tl->finish();
    if (log) log->close();
}

run_result firmware_run::results() const {
    run_result r = result_of(rq, pasted_lines);
    if (!rq.payload) r.payload_source = term ? "terminal:" + rq.terminal : "none";
    r.interactive = term != nullptr;
    const cpu::a64_core& c = *soc.cpu;
    const cpu::a64_stats& s = c.stats();
    add_a64_results(r, soc);
    r.bytes_on_line = soc.monitor.chars();
    r.framing_errors = soc.monitor.framing_errors() + soc.com_monitor.framing_errors();
    r.parity_errors = soc.monitor.parity_errors() + soc.com_monitor.parity_errors();
    const cpu::a64_stop stop = soc.timed_out() ? cpu::a64_stop::running : c.stop_reason();
    r.failure = stop == cpu::a64_stop::fault ? "firmware fault: " + c.fault() : "";
    r.extra = {{"elf", rq.elf.empty() ? virt_platform::firmware_image(default_image) : rq.elf},
               {"a64_stop", soc.timed_out() ? "duration" : cpu::to_string(stop)},
               {"instructions", s.instructions},
               {"cpu_busy_ns", to_ns(s.busy)},
               {"interrupts", s.interrupts},
               {"hardirq_ns", to_ns(s.hardirq)},
               {"pasted_bytes", pasted_bytes},
               {"rx_chars_sent", soc.inj.chars_sent()},
               {"line_text", ascii_head(soc.monitor.text(), line_text_max)},
               {"uart16550_bytes_on_line", soc.com_monitor.chars()},
               {"uart16550_text_head", ascii_head(soc.com_monitor.text())}};
    if (!c.fault().empty()) r.extra["fault"] = c.fault();
    if (term) r.extra["terminal"] = terminal_results(*term);
    return r;
}

run_result run_firmware(const run_request& rq) {
    return run_in_steps<firmware_run>(rq, &firmware_run::paste, &firmware_run::simulate);
}

} // namespace

scenario_def firmware_scenario() {
    scenario_def s;
    s.name = s_name;
    s.description =
        "a bare-metal aarch64 ELF (--elf; default the project's hello.elf) on the instruction-"
        "accurate core, QEMU virt's memory map: the PL011 RTL, a GICv2, a 16550; --payload pasted "
        "into the PL011's RXD";
    s.variants = {{"a64", "the image on the aarch64 core (Unicorn), every device access a TLM transaction"}};
    s.profiles = {
        {"virt",
         "QEMU virt's map: PL011 at 24 MHz UARTCLK, 115200 8N1, device reads 120 ns, writes 60 ns, a "
         "1 GHz core at one cycle per instruction",
         [](params&) {}}};
    s.default_profile = "virt";
    s.default_payload_bytes = 0;
    s.run = run_firmware;
    s.has_rtl = false;
    s.takes_elf = true;
    s.terminal_variants = {"a64"};
    s.takes_duration = true;
    s.takes_bus_log = true;
    s.summary_rows = [](const run_result& r) {
        std::vector<std::pair<std::string, std::string>> rows = {
            {"stopped by", r.extra.value("a64_stop", "")},
            {"instructions", std::to_string(r.extra.value("instructions", std::uint64_t{0}))},
            {"cpu busy", fmt::format("{:.3f} ms", r.extra.value("cpu_busy_ns", 0.0) / 1e6)},
            {"interrupts", std::to_string(r.extra.value("interrupts", std::uint64_t{0}))},
            {"line text", r.line_text_head.substr(0, 60)},
        };
        if (r.extra.contains("fault")) rows.push_back({"fault", r.extra["fault"].get<std::string>()});
        return rows;
    };
    return s;
}

} // namespace uartvp::program
