// SPDX-License-Identifier: Apache-2.0
// Scenario hvc-paste: a paste into a hypervisor console (the hvc layer of sw/hvc/) over OPAL firmware
// (powernv with a BMC) or a virtio console, with __hvc_poll's read loop before latency breaking (loop),
// after it (latency-break) and with seed 004's batching. How long are IRQs off per interrupt, and how
// fast does the paste arrive?
//
// The machine: `cores` cores (default 2). The backend's interrupt, kopald (OPAL) and the interrupt's
// work run on cpu0, khvcd on khvcd_cpu (default cpu0: seed 004's trace shows the interrupt's poll taking
// hp->lock at once, which it does when khvcd is not reading on another core), the reader and the tty's
// flush_to_ldisc work on the last core (all on cpu0 with one core). The host pastes from t0 = 1 ms in bursts
// of burst_bytes at paste_kbps.
#include <algorithm>
#include <array>
#include <chrono>
#include <memory>

#include <fmt/core.h>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/hvc_backends.h>
#include <uartvp/router.h>

#include "cli/stop.h"
#include "cli/timeline.h"
#include "cli/waves.h"
#include "drivers/tty/hvc/hvc_console.h"
#include "drivers/tty/hvc/hvc_opal.h"
#include "drivers/tty/hvc/virtio_console.h"
#include "scenarios/rx_check.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

using namespace sc_core;

namespace {

constexpr std::uint64_t backend_base = 0x20000000;
constexpr unsigned virtio_queue_size = 128; // the input virtqueue's buffers (assumed)
constexpr double virtio_access_ns = 50;     // one access to the queue (guest memory, cheap; assumed)

sc_time t0() {
    return sc_time(1, SC_MS);
}

cpu::timing_profile timing(const params& p) {
    cpu::timing_profile t;
    // OPAL's registers cost nothing (a firmware call's cost is spent by the call); virtio's a little.
    const sc_time c = p.hvc_backend == "opal" ? SC_ZERO_TIME : sc_time(virtio_access_ns, SC_NS);
    t.regions.push_back({"hvc", backend_base, 0x1000, c, c});
    return t;
}

sw::hvc_read_loop read_loop(const std::string& variant) {
    if (variant == "loop") return sw::hvc_read_loop::loop;
    if (variant == "latency-break") return sw::hvc_read_loop::latency_break;
    return sw::hvc_read_loop::batching;
}

class hvc_platform : public sc_module {
public:
    sc_signal<bool> irq{"irq", false};
    // For waves: khvcd running (1) or asleep (0); kopald's handler span (IRQs off, hard-IRQ context on
    // real hardware); bytes read by the latest interrupt-driven poll and khvcd poll; OPAL's buffer fill
    // after each poll.
    sc_signal<bool, SC_UNCHECKED_WRITERS> khvcd_running{"khvcd_running", false};
    sc_signal<bool, SC_UNCHECKED_WRITERS> kopald_handler{"kopald_handler", false};
    sc_signal<unsigned, SC_UNCHECKED_WRITERS> irq_poll_bytes{"irq_poll_bytes", 0};
    sc_signal<unsigned, SC_UNCHECKED_WRITERS> khvcd_poll_bytes{"khvcd_poll_bytes", 0};
    sc_signal<unsigned, SC_UNCHECKED_WRITERS> backend_fill{"backend_fill", 0};
    cpu::machine kernel;
    router bus;
    std::unique_ptr<opal_console> opal;
    std::unique_ptr<virtio_console_rx> vio;
    int irq_line = -1;
    std::function<bool()> settled;
    bool timed_out = false;
    sc_time source_end;
    std::uint64_t pasted_bytes = 0;

    hvc_platform(const sc_module_name& name, const params& p)
        : sc_module(name)
        , kernel("kernel", p.cores, timing(p), assumed_kernel_costs(p.hz))
        , bus("bus")
        , m_p(p) {
        for (auto& c : kernel.cores) {
            c->set_collapse_polls(!p.reference);
            c->bus.bind(bus.target);
        }
        if (p.hvc_backend == "opal") {
            opal = std::make_unique<opal_console>("opal", p.bmc_buffer_bytes);
            bus.map(opal->bus, backend_base, opal_console::map_size(), "opal");
            opal->irq(irq);
            irq_line = kernel.add_irq_line(irq, "opal", 0);
        } else {
            vio = std::make_unique<virtio_console_rx>("virtio", virtio_queue_size, p.burst_bytes);
            bus.map(vio->bus, backend_base, virtio_console_rx::map_size(), "virtio");
            vio->irq(irq);
            irq_line = kernel.add_irq_line(irq, "virtio0-input", 0);
        }
        SC_HAS_PROCESS(hvc_platform);
        SC_THREAD(supervise);
    }
    std::uint64_t delivered() const { return opal ? opal->delivered() : vio->delivered(); }
    register_names register_names_of() const {
        register_names n;
        if (opal)
            for (const hvc_reg& r : opal_console::registers())
                n[backend_base + r.offset] = std::string("opal.") + r.name;
        else
            for (const hvc_reg& r : virtio_console_rx::registers())
                n[backend_base + r.offset] = std::string("virtio.") + r.name;
        return n;
    }
    void add_timeline(timeline& t) { t.watch(kernel, register_names_of()); }
    void add_waves(waves& w) {
        w.machine_and_bus(kernel);
        w.name_registers(register_names_of());
        w.begin_group("hvc");
        w.bit(khvcd_running, "hvc.khvcd_running");
        if (opal) w.bit(kopald_handler, "hvc.kopald_handler");
        w.level(irq_poll_bytes, "hvc.irq_poll_bytes", 160);
        w.level(khvcd_poll_bytes, "hvc.khvcd_poll_bytes", 4096);
        w.end_group();
        w.begin_group(opal ? "OPAL" : "virtio");
        w.bit(irq, opal ? "opal.irq" : "virtio.irq");
        if (opal) w.level(backend_fill, "opal.buffered", static_cast<unsigned>(m_p.bmc_buffer_bytes));
        w.end_group();
    }
    bool cores_idle() const {
        for (const auto& c : kernel.cores)
            if (!c->idle() || c->in_interrupt()) return false;
        return true;
    }

private:
    // After the paste was delivered, looks every millisecond whether everything has settled; one that
    // does not within 30 s and 50 ms per 16 bytes pasted (khvcd's slowest pace, 30 ms per chunk at HZ
    // 100, with room) is an internal error.
    void supervise() {
        wait(source_end > sc_time_stamp() ? source_end - sc_time_stamp() : SC_ZERO_TIME);
        const sc_time deadline = sc_time_stamp() + sc_time(30, SC_SEC) +
                                 sc_time(0.05 * static_cast<double>(pasted_bytes + 16) / 16.0, SC_SEC);
        while (!(settled && settled())) {
            if (sc_time_stamp() > deadline) {
                timed_out = true;
                break;
            }
            wait(sc_time(1, SC_MS));
        }
        sc_stop();
    }
    params m_p;
};

// One hvc-paste run in its steps (run_hvc_paste): the platform and its outputs with the host's paste,
// the probes on the polls, the console's open, the reader, the simulation, the results. The tasks
// refer to what is here, which outlives the simulation.
class hvc_run {
public:
    explicit hvc_run(const run_request& rq);
    void watch_polls();
    void open_console();
    void start_reader();
    void simulate();
    run_result results() const;

private:
    void span(const sc_time& d);
    nlohmann::json extra_results(const run_result& r) const;

    const run_request& rq;
    const params& p;
    const bool on_opal;
    std::uint64_t lines = 0;  // before text, which counts them
    std::string text;         // the paste
    std::unique_ptr<waves> w; // no serial line: the lines file stays empty, the zoom about 2 ms
    hvc_platform soc;
    std::unique_ptr<timeline> tl;
    const unsigned last; // the reader's core, flush_to_ldisc's
    sw::hvc_struct hp;
    sw::tty_struct tty;
    // Probes: the interrupt-driven polls (reads, bytes), their IRQs-off spans.
    std::uint64_t irq_polls = 0, reads_max = 0, bytes_max = 0, irq_poll_bytes = 0, khvcd_polls = 0;
    double span_max = 0, span_total = 0;
    std::uint64_t spans = 0;
    bool opened = false;
    kapi::wait_queue_head open_wait;
    sc_time open_end;
    // The received side's scoreboard: the reader's bytes against the paste, in order.
    rx_check sb;
    std::uint64_t received = 0;
    sc_time last_rx_at;
};

std::string payload_text(const run_request& rq, std::uint64_t& lines) {
    std::string text;
    for (std::string line; rq.payload->next(line); ++lines)
        text += line;
    if (const std::string why = rq.payload->error(); !why.empty()) throw std::runtime_error(why);
    return text;
}

hvc_run::hvc_run(const run_request& rq_)
    : rq(rq_)
    , p(rq_.p)
    , on_opal(p.hvc_backend == "opal")
    , text(payload_text(rq, lines))
    , w(make_waves(rq, 200000.0))
    , soc("soc", p)
    , last(p.cores - 1) {
    if (w) soc.add_waves(*w);
    tl = make_timeline(rq);
    if (tl) soc.add_timeline(*tl);
    hvc_paste paste{text, t0(), p.paste_kbps, p.burst_bytes};
    soc.source_end = paste.due(text.size());
    soc.pasted_bytes = text.size();
    if (soc.opal)
        soc.opal->paste(paste);
    else
        soc.vio->paste(paste);
    hp.port.flush_cpu = static_cast<int>(last);
}

void hvc_run::span(const sc_time& d) {
    span_max = std::max(span_max, to_ns(d));
    span_total += to_ns(d);
    ++spans;
}

// Each poll (khvcd's or the interrupt's) and khvcd's runs into the waves and the probes; the
// backend's interrupt spans (OPAL's event handler; virtio's hard IRQ with entry and exit).
void hvc_run::watch_polls() {
    sw::hvc_globals& g = sw::hvc_state();
    g.on_poll = [this](const sw::hvc_poll_record& r) {
        cpu::core::current().sync();
        if (soc.opal) soc.backend_fill.write(static_cast<unsigned>(soc.opal->buffered()));
        if (r.may_sleep || sw::hvc_state().hvc_task == kapi::current_task()) {
            ++khvcd_polls;
            soc.khvcd_poll_bytes.write(r.bytes);
            return;
        }
        soc.irq_poll_bytes.write(r.bytes);
        ++irq_polls;
        reads_max = std::max<std::uint64_t>(reads_max, r.reads);
        bytes_max = std::max<std::uint64_t>(bytes_max, r.bytes);
        irq_poll_bytes += r.bytes;
    };
    g.on_khvcd = [this](bool running) {
        cpu::core::current().sync();
        soc.khvcd_running.write(running);
    };
    if (on_opal) {
        sw::opal().base = backend_base;
        sw::opal().irq = soc.irq_line;
        sw::opal().on_event_handled = [this](const sw::opal_event_record& r) { span(r.end - r.start); };
        sw::opal().on_kopald_handler = [this](bool in) { soc.kopald_handler.write(in); };
    } else {
        sw::virtio_console().base = backend_base;
        sw::virtio_console().irq = soc.irq_line;
        const cpu::kernel_params kp = assumed_kernel_costs(p.hz);
        sw::virtio_console().on_interrupt = [this, kp](const sc_time& a, const sc_time& b) {
            span(b - a + kp.irq_entry + kp.irq_exit);
        };
    }
}

// On cpu0: the backend's probe, hvc_init (khvcd on khvcd_cpu), hvc_alloc and the tty's open.
void hvc_run::open_console() {
    soc.kernel.cpu(0).create_task("init", [this] {
        int rc = on_opal ? sw::opal_event_init(0) : sw::virtio_console_probe();
        sw::hvc_init(read_loop(rq.variant), p.khvcd_cpu);
        sw::hvc_alloc(hp, 0, on_opal ? sw::hvc_opal_raw_ops() : sw::hv_ops_virtio(), soc.irq_line);
        if (!rc) rc = sw::hvc_open(hp, tty);
        if (rc) throw std::runtime_error("the console's open failed with " + std::to_string(rc));
        cpu::core::current().sync();
        open_end = cpu::core::current().local_time();
        opened = true;
        kapi::wake_up(open_wait);
    });
}

// On the last core, once the console is open: read(fd, buf, 4096) for ever.
void hvc_run::start_reader() {
    sb.text = &text;
    soc.kernel.cpu(last).create_task("reader", [this] {
        kapi::wait_event(open_wait, [this] { return opened; });
        read_tty_forever(tty, [this](const unsigned char* buf, std::size_t n, const sc_time& at) {
            last_rx_at = at;
            for (std::size_t i = 0; i < n; ++i)
                sb.observe(buf[i], at);
            received += n;
        });
    });
}

// Until the paste was delivered and everything has settled; the tail that never came is the first
// difference.
void hvc_run::simulate() {
    soc.settled = [this] {
        if (!soc.cores_idle() || soc.irq.read() || soc.delivered() < text.size()) return false;
        if (soc.opal && (soc.opal->buffered() || soc.opal->irq_level())) return false;
        if (soc.vio && (soc.vio->input_pending() || soc.vio->irq_level())) return false;
        if (!hp.port.buf_pending.empty() || !hp.port.buf_committed.empty() || !tty.read_buf.empty())
            return false;
        return true;
    };
    stop::simulate();
    if (w) w->finish();
    if (tl) tl->finish();
    if (soc.timed_out) throw std::runtime_error("the console did not settle: the paste was never all read");
    if (open_end > t0())
        throw std::runtime_error("the console's open took longer than the time before the paste");
    if (sb.first_difference.is_null() && sb.matched < text.size()) // the tail never came
        sb.first_difference = {{"kind", "lost"},
                               {"expected_index", sb.next},
                               {"observed_index", received},
                               {"time_ns", to_ns(sc_time_stamp())},
                               {"expected_byte", static_cast<unsigned char>(text[sb.next])},
                               {"observed_byte", -1}};
}

run_result hvc_run::results() const {
    run_result r = result_of(rq, lines);
    r.sim_time_ns = last_rx_at > t0() ? to_ns(last_rx_at - t0()) : 0;
    add_machine_accesses(r, soc.kernel);
    add_kernel_results(r, soc.kernel);
    add_host_counts(r, nullptr);
    r.rx_lost_bytes = text.size() - sb.matched;
    r.rx_extra_bytes = sb.extra;
    r.extra = extra_results(r);
    return r;
}

// hvc-paste's own figures: the received side and its rate, the backend, the polls and their IRQs-off
// spans, khvcd, the tty's throttling.
nlohmann::json hvc_run::extra_results(const run_result& r) const {
    const sw::hvc_globals& g = sw::hvc_state();
    const double window = last_rx_at > t0() ? (last_rx_at - t0()).to_seconds() : 0;
    const cpu::irq_line_stats& line = soc.kernel.irq_lines().at(static_cast<std::size_t>(soc.irq_line));
    return {{"rx_bytes_pasted", text.size()},
            {"rx_bytes_received", received},
            {"rx_lost_bytes", r.rx_lost_bytes},
            {"rx_extra_bytes", r.rx_extra_bytes},
            {"rx_first_difference", sb.first_difference},
            {"rx_throughput_kbps", window > 0 ? static_cast<double>(received) / window / 1000.0 : 0.0},
            {"backend_lost_bytes", soc.opal ? soc.opal->lost() : 0},
            {"backend_bursts", soc.opal ? soc.opal->bursts() : soc.vio->bursts()},
            {"backend_buffer_max", soc.opal ? soc.opal->buffer_max() : 0},
            {"poll_irq_off_max_ns", span_max},
            {"poll_irq_off_mean_ns", spans ? span_total / static_cast<double>(spans) : 0.0},
            {"interrupt_polls", irq_polls},
            {"interrupt_poll_bytes", irq_poll_bytes},
            {"reads_per_poll_max", reads_max},
            {"bytes_per_poll_max", bytes_max},
            {"khvcd_polls", khvcd_polls},
            {"khvcd_irq_off_max_ns", to_ns(g.khvcd_irq_off_max)},
            {"khvcd_wakeups", g.khvcd_wakeups},
            {"khvcd_timed_sleeps", g.khvcd_timed_sleeps},
            {"throttled_polls", g.throttled_polls},
            {"tty_throttles", tty.throttles},
            {"flip_dropped_bytes", hp.port.buf_dropped},
            {"backend_irqs", line.count},
            {"firmware_calls", on_opal ? sw::opal().firmware_calls : 0}};
}

run_result run_hvc_paste(const run_request& rq) {
    return run_in_steps<hvc_run>(rq, &hvc_run::watch_polls, &hvc_run::open_console, &hvc_run::start_reader,
                                 &hvc_run::simulate);
}

std::string compare_head(const nlohmann::json& base, std::size_t vw) {
    const nlohmann::json& prm = base["params"];
    std::string t = fmt::format(
        "hvc-paste on profile {} ({}, {} core{}, khvcd on cpu{}, HZ {}, bursts of {} B at {} KB/s{})\n",
        base["profile"].get<std::string>(), base["payload"].get<std::string>(), prm["cores"].get<unsigned>(),
        prm["cores"] == 1 ? "" : "s", prm["khvcd_cpu"].get<unsigned>(), prm["hz"].get<unsigned>(),
        prm["burst_bytes"].get<std::uint64_t>(), prm["paste_kbps"].get<double>(),
        prm.contains("bmc_buffer_bytes")
            ? fmt::format(", OPAL buffer {} B", prm["bmc_buffer_bytes"].get<std::uint64_t>())
            : std::string());
    t += fmt::format("{:<{}} {:>8} {:>8} {:>6} {:>10} {:>12} {:>12} {:>10} {:>9} {:>11} {:>8} {:>7} {:>7}\n",
                     "variant", vw, "pasted", "received", "lost", "KB/s", "poll off max", "poll off avg",
                     "reads/poll", "B/poll", "khvcd off", "wakeups", "timed", "wall s");
    t += fmt::format("{:<{}} {:>8} {:>8} {:>6} {:>10} {:>12} {:>12} {:>10} {:>9} {:>11} {:>8} {:>7} {:>7}\n",
                     "", vw, "", "", "", "", "us", "us", "max", "max", "max us", "", "sleeps", "");
    return t;
}

std::string compare_row(const nlohmann::json& r, const nlohmann::json& /*base*/, std::size_t vw) {
    return fmt::format(
        "{:<{}} {:>8} {:>8} {:>6} {:>10.3f} {:>12.3f} {:>12.3f} {:>10} {:>9} {:>11.3f} {:>8} {:>7} "
        "{:>7.2f}\n",
        r["variant"].get<std::string>(), vw, r["rx_bytes_pasted"].get<std::uint64_t>(),
        r["rx_bytes_received"].get<std::uint64_t>(), r["rx_lost_bytes"].get<std::uint64_t>(),
        r["rx_throughput_kbps"].get<double>(), r["poll_irq_off_max_ns"].get<double>() / 1e3,
        r["poll_irq_off_mean_ns"].get<double>() / 1e3, r["reads_per_poll_max"].get<std::uint64_t>(),
        r["bytes_per_poll_max"].get<std::uint64_t>(), r["khvcd_irq_off_max_ns"].get<double>() / 1e3,
        r["khvcd_wakeups"].get<std::uint64_t>(), r["khvcd_timed_sleeps"].get<std::uint64_t>(),
        r["wall_s"].get<double>());
}

std::vector<std::pair<std::string, std::string>> summary_rows(const run_result& r) {
    const nlohmann::json& x = r.extra;
    return {
        {"pasted / received", fmt::format("{} / {}", x["rx_bytes_pasted"].get<std::uint64_t>(),
                                          x["rx_bytes_received"].get<std::uint64_t>())},
        {"rx lost", fmt::format("{} (backend {})", x["rx_lost_bytes"].get<std::uint64_t>(),
                                x["backend_lost_bytes"].get<std::uint64_t>())},
        {"rx throughput", fmt::format("{:.3f} KB/s", x["rx_throughput_kbps"].get<double>())},
        {"irq polls",
         fmt::format("{} (at most {} reads, {} bytes)", x["interrupt_polls"].get<std::uint64_t>(),
                     x["reads_per_poll_max"].get<std::uint64_t>(),
                     x["bytes_per_poll_max"].get<std::uint64_t>())},
        {"poll irqs off",
         fmt::format("max {:.3f} us, mean {:.3f} us", x["poll_irq_off_max_ns"].get<double>() / 1e3,
                     x["poll_irq_off_mean_ns"].get<double>() / 1e3)},
        {"khvcd",
         fmt::format("{} wakeups, {} timed sleeps, lock held at most {:.3f} us",
                     x["khvcd_wakeups"].get<std::uint64_t>(), x["khvcd_timed_sleeps"].get<std::uint64_t>(),
                     x["khvcd_irq_off_max_ns"].get<double>() / 1e3)},
    };
}

void hvc_common(params& p, const char* backend) {
    p.uart_model.clear(); // no UART
    p.hvc_backend = backend;
    p.cores = 2;
}

} // namespace

scenario_def hvc_paste_scenario() {
    scenario_def s;
    s.name = "hvc-paste";
    s.description = "a paste into a hypervisor console (hvc): __hvc_poll's read loop from the interrupt and "
                    "from khvcd, over OPAL firmware or a virtio console (burst_bytes, paste_kbps, "
                    "bmc_buffer_bytes, cores, hz, khvcd_cpu); the interrupt, kopald and khvcd on cpu0, the "
                    "reader on the last core";
    s.variants = {
        {"batching",
         "seed 004's fix (after ec97eaad1383): in IRQ context until at least 128 bytes were read, from khvcd "
         "until empty, dropping the lock between reads"},
        {"latency-break", "ec97eaad1383: one 16-byte get_chars per poll, then another poll is asked for"},
        {"loop", "up to v4.16: read until get_chars returns nothing or the flip buffer is full, IRQs off"},
    };
    s.profiles = {
        {"opal",
         "powernv: OPAL firmware's console (a BMC's UART): 14.7 us per firmware call, two per 16-byte "
         "read (calibrated on seed 004's trace), the event interrupt waking kopald on cpu0; IRQ entry 1 us, "
         "exit 0.5 us, tick 2 us (assumed)",
         [](params& p) { hvc_common(p, "opal"); }},
        {"virtio",
         "a virtio console: one interrupt per filled input buffer of burst_bytes, get_chars a copy (50 ns "
         "per access, assumed); IRQ entry 1 us, exit 0.5 us, tick 2 us (assumed)",
         [](params& p) { hvc_common(p, "virtio"); }},
    };
    // Each key was checked as it was set; khvcd's core against the machine's.
    s.check_params = [](const params& p) -> std::optional<std::string> {
        if (p.khvcd_cpu < p.cores) return std::nullopt;
        return "khvcd_cpu " + std::to_string(p.khvcd_cpu) + " is not a core (the machine has " +
               std::to_string(p.cores) + (p.cores == 1 ? " core" : " cores") + ": --set cores=N)";
    };
    s.default_profile = "opal";
    s.default_payload_bytes = 16384;
    s.run = run_hvc_paste;
    s.compare_table = {compare_head, compare_row, nullptr, 14};
    s.summary_rows = summary_rows;
    s.terminal_refusal =
        "there is no UART: the paste comes from the backend's host side (OPAL's BMC, the virtio "
        "host), generated or from --payload";
    return s;
}

} // namespace uartvp::program
