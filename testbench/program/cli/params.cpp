// SPDX-License-Identifier: Apache-2.0
#include "cli/params.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace uartvp::program {

namespace {

std::optional<std::uint64_t> parse_u64(const std::string& s) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::stoull(s);
}
std::optional<double> parse_double(const std::string& s) {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (errno || *end || !std::isfinite(v)) return std::nullopt;
    return v;
}
std::optional<bool> parse_bool(const std::string& s) {
    if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
    if (s == "0" || s == "false" || s == "no" || s == "off") return false;
    return std::nullopt;
}

using problem = std::optional<std::string>;

template <class T> void store(T& to, std::uint64_t v) {
    to = static_cast<T>(v);
}
template <class T> void store(std::optional<T>& to, std::uint64_t v) {
    to = static_cast<T>(v);
}

// The field as it is, for the JSON (an optional one without a value: null).
template <class T> nlohmann::json json_of(const T& v) {
    return nlohmann::json(v);
}
template <class T> nlohmann::json json_of(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
}
template <class T> std::function<nlohmann::json(const params&)> as_is(T params::*field) {
    return [field](const params& p) { return json_of(p.*field); };
}

// A whole number from `lo` to `hi` (else `expected`).
template <class T>
key_value whole(T params::*field, std::uint64_t lo, std::uint64_t hi, std::string expected) {
    return {[=](params& p, const std::string& s) -> problem {
                const auto v = parse_u64(s);
                if (!v || *v < lo || *v > hi) return expected;
                store(p.*field, *v);
                return std::nullopt;
            },
            as_is(field)};
}

// A number from `lo` to `hi` (else `expected`).
key_value number(double params::*field, double lo, double hi, std::string expected) {
    return {[=](params& p, const std::string& s) -> problem {
                const auto v = parse_double(s);
                if (!v || *v < lo || *v > hi) return expected;
                p.*field = *v;
                return std::nullopt;
            },
            as_is(field)};
}

// 0 or 1 (also false/true, no/yes, off/on).
key_value flag(bool params::*field) {
    return {[=](params& p, const std::string& s) -> problem {
                const auto b = parse_bool(s);
                if (!b) return std::string("expected 0 or 1");
                p.*field = *b;
                return std::nullopt;
            },
            as_is(field)};
}

// One of `choices`, as written (else `expected`).
template <class T>
key_value one_of(T params::*field, std::vector<std::string> choices, std::string expected) {
    return {[=](params& p, const std::string& s) -> problem {
                if (std::find(choices.begin(), choices.end(), s) == choices.end()) return expected;
                if constexpr (std::is_same_v<T, std::string>)
                    p.*field = s;
                else
                    p.*field = static_cast<T>(std::stoul(s));
                return std::nullopt;
            },
            as_is(field)};
}

// A value of its own parser, shown in the JSON by `json` (or as the field is).
key_value parsed(problem (*parse)(params&, const std::string&),
                 std::function<nlohmann::json(const params&)> json) {
    return {parse, std::move(json)};
}
template <class T> key_value parsed(problem (*parse)(params&, const std::string&), T params::*field) {
    return {parse, as_is(field)};
}

// The same value, shown otherwise in the JSON (the value in effect).
key_value shown_as(key_value v, std::function<nlohmann::json(const params&)> json) {
    v.json = std::move(json);
    return v;
}

constexpr std::uint64_t any = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t gib = std::uint64_t{1} << 30;

// uart_base: an address (a port number on port-I/O profiles); the PL011's 4 KiB-aligned. The 16550's
// alignment depends on reg_shift: check().
problem parse_uart_base(params& p, const std::string& value) {
    const bool is_16550 = p.uart_model == "16550";
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 0);
    if (!is_16550 && p.uart_model != "mini" && (value.empty() || errno || *end || v % 0x1000))
        return std::string("expected a 4 KiB-aligned address");
    if (value.empty() || value[0] == '-' || errno || *end) return std::string("expected an address");
    p.uart_base = v;
    return std::nullopt;
}

problem parse_fifo_depth(params& p, const std::string& value) {
    if (p.uart_model == "16550" && value != "16") return std::string("the 16550 FIFO depth is 16");
    if (p.uart_model == "mini" && value != "8") return std::string("the mini UART's FIFO depth is 8");
    if (value != "16" && value != "32") return std::string("the PL011 FIFO depth is 16 or 32");
    p.fifo_depth = static_cast<unsigned>(std::stoul(value));
    return std::nullopt;
}

problem parse_rx_trigger(params& p, const std::string& value) {
    static const char* const pl011_levels[] = {"1/8", "1/4", "1/2", "3/4", "7/8"};
    static const char* const levels_16550[] = {"1", "4", "8", "14"};
    if (p.uart_model == "16550") {
        if (std::find(std::begin(levels_16550), std::end(levels_16550), value) == std::end(levels_16550))
            return std::string("the 16550's RX trigger is 1, 4, 8 or 14 bytes");
    } else if (std::find(std::begin(pl011_levels), std::end(pl011_levels), value) == std::end(pl011_levels)) {
        return std::string("the PL011's RX level is 1/8, 1/4, 1/2, 3/4 or 7/8 full");
    }
    p.rx_trigger = value;
    return std::nullopt;
}

problem parse_uartclk_hz(params& p, const std::string& s) {
    const auto v = parse_u64(s);
    if (!v || *v == 0) return std::string("expected a positive whole number");
    if (*v > params::max_uartclk_hz)
        return std::string("at most 10^12 Hz: one UARTCLK cycle must last at least the 1 ps time resolution");
    p.uartclk_hz = *v;
    return std::nullopt;
}

problem parse_frame(params& p, const std::string& s) {
    const auto f = serial_format::parse(s);
    if (!f) return std::string("expected data bits 5-8, parity N/E/O/M/S, stop bits 1-2, such as 8N1");
    p.frame = *f;
    return std::nullopt;
}

problem parse_line_model(params& p, const std::string& s) {
    if (s != "characters" && s != "pins") return std::string("expected characters or pins");
    if (s == "characters" && p.reference)
        return std::string("reference mode drives the pins (characters go with --mode fast)");
    p.line_model = s == "pins" ? line_kind::pins : line_kind::characters;
    return std::nullopt;
}

problem parse_hog_period_us(params& p, const std::string& s) {
    const auto v = parse_double(s);
    if (!v || *v < 0 || *v > 1e7) return std::string("expected a number of microseconds from 0 to 1e7");
    if (*v == 0) return std::string("the period must be more than 0");
    p.hog_period_us = *v;
    return std::nullopt;
}

problem parse_ipi_at_ms(params& p, const std::string& s) {
    const auto v = parse_double(s);
    if (!v || (*v < 0 && *v != -1) || *v > 1e6)
        return std::string("expected ms from 0 to 1e6, or -1 (no IPI)");
    p.ipi_at_ms = *v;
    return std::nullopt;
}

problem parse_paste_kbps(params& p, const std::string& s) {
    const auto v = parse_double(s);
    if (!v || *v <= 0 || *v > 1e6) return std::string("expected KB/s (1000 bytes) more than 0, up to 1e6");
    p.paste_kbps = *v;
    return std::nullopt;
}

// The values in effect where a key was not given: the IRQ's core for the hog, 7 or quiet's 4.
nlohmann::json hog_cpu_in_effect(const params& p) {
    return p.hog_cpu_or_irq_cpu();
}
nlohmann::json loglevel_in_effect(const params& p) {
    return p.console_loglevel();
}
nlohmann::json frame_name(const params& p) {
    return p.frame.name();
}
nlohmann::json line_in_effect(const params& p) {
    return p.line_as_characters() ? "characters" : "pins";
}

// hvc-paste takes no UART key: it answers a key it does not take by naming the few it takes.
bool names_its_keys(const std::string& scenario) {
    return scenario == "hvc-paste";
}

} // namespace

std::string shown(std::string_view value) {
    constexpr std::size_t limit = 80;
    if (value.size() <= limit) return std::string(value);
    return std::string(value.substr(0, limit)) + "...";
}

const key_scope* key_def::scope_of(const std::string& s) const {
    for (const key_scope& k : scope)
        if (k.scenario == s) return &k;
    return nullptr;
}

bool key_def::takes(const std::string& s, const std::string& p) const {
    const key_scope* k = scope_of(s);
    return k &&
           (k->profiles.empty() || std::find(k->profiles.begin(), k->profiles.end(), p) != k->profiles.end());
}

// To add a key: a row here (its name with its unit, the default as --set takes it, the description
// `uartvp list` shows, where it applies and how its value is parsed), a field in params for its value,
// and the scenario's use of it. The message for an unknown key, the list and the JSON follow.
const std::vector<key_def>& keys() {
    static const std::vector<key_def> table = [] {
        // The scopes and messages several keys share.
        const std::vector<key_scope> consoles = {
            {"earlycon-pl011"}, {"console-8250"}, {"tty-paste"}, {"boot-console"}}; // a UART's console
        // The aarch64 core's runs, and the console keys they share (the core's accesses, the PL011, the
        // line).
        const std::vector<key_scope> a64 = {{"earlycon-pl011"}, {"firmware"}};
        const std::string only_a64 =
            "applies to the aarch64 core's runs only (firmware, earlycon-pl011's -a64 variants)";
        std::vector<key_scope> consoles_a64 = consoles;
        consoles_a64.push_back({"firmware"});
        std::vector<key_scope> every = consoles;
        every.push_back({"hvc-paste"});
        const std::string only_16550 = "applies to the 16550 scenarios only";
        const std::vector<key_scope> uart16550 = {{"console-8250"}, {"tty-paste", {"pc"}, only_16550}};
        const std::vector<key_scope> tty = {{"tty-paste"}}, boot = {{"boot-console"}}, hvc = {{"hvc-paste"}};
        const std::vector<key_scope> earlycon_8250 = {{"earlycon-pl011"}, {"console-8250"}},
                                     tty_hvc = {{"tty-paste"}, {"hvc-paste"}};
        const std::string no_bmc =
            "applies to profile grace only (no BMC behind the Raspberry Pi's mini UART)";
        const std::vector<key_scope> grace = {{"boot-console", {"grace"}, no_bmc}};
        // tty-paste's 16550 (profile pc) drives its pins whatever the key says.
        const std::vector<key_scope> lines = {
            {"earlycon-pl011"},
            {"console-8250"},
            {"tty-paste", {"hw"}, "applies to the PL011 of profile hw only"},
            {"boot-console"},
            {"firmware"}};
        const std::vector<key_scope> opal = {{"hvc-paste", {"opal"}, "applies to the opal profile only"}};
        const std::string only_tty = "applies to tty-paste only", only_boot = "applies to boot-console only",
                          only_hvc = "applies to hvc-paste only";
        const std::string ns = "expected a number of nanoseconds from 0 to 1e9",
                          core = "expected a core number from 0 to 127 (below cores)",
                          bytes = "expected a whole number of bytes from 1 to 2^30";
        // name, unit, default, description, scope, refusal, value
        return std::vector<key_def>{
            {"cpu_hz", "Hz", "1000000000", "CPU clock in Hz", consoles_a64, "",
             whole(&params::cpu_hz, 1, any, "expected a positive whole number")},
            {"cores", "", "1",
             "cores of the machine, 1 to 128 (the console scenarios print from core 0; the others idle; "
             "hvc-paste: default 2; boot-console on grace: 72)",
             every, "", whole(&params::cores, 1, 128, "expected a whole number of cores from 1 to 128")},
            {"mmio_read_ns", "ns", "120",
             "cost of one UART register read, ns (a trapped access under a hypervisor; firmware: any "
             "device's)",
             consoles_a64, "", number(&params::mmio_read_ns, 0, 1e9, ns)},
            {"mmio_write_ns", "ns", "60", "cost of one UART register write, ns (firmware: any device's)",
             consoles_a64, "", number(&params::mmio_write_ns, 0, 1e9, ns)},
            {"relax_cycles", "cycles", "4", "CPU cycles of one cpu_relax()", consoles, "",
             whole(&params::relax_cycles, 0, 1'000'000, "expected a whole number from 0 to 1000000")},
            {"uartclk_hz", "Hz", "24000000", "UART reference clock in Hz (firmware: the PL011's)",
             consoles_a64, "", parsed(parse_uartclk_hz, &params::uartclk_hz)},
            {"baud", "baud", "115200", "baud rate (firmware: the rate the monitors and the paste take)",
             consoles_a64, "", whole(&params::baud, 1, any, "expected a positive whole number")},
            {"frame", "", "8N1", "frame format: data bits, parity N/E/O/M/S, stop bits (8N1, 7E1, 8N2, ...)",
             consoles_a64, "", parsed(parse_frame, frame_name)},
            {"fifo_depth", "", "32", "FIFO depth: PL011 16 or 32; 16550 16; BCM2835 mini UART 8",
             consoles_a64, "", parsed(parse_fifo_depth, &params::fifo_depth)},
            {"uart_base", "", "0x09000000",
             "UART base address (decimal or 0x...; an I/O port number on port-I/O profiles)", consoles, "",
             parsed(parse_uart_base, &params::uart_base)},
            {"reset_after_write", "", "0", "assert the UART's reset right after the last write returns (0/1)",
             earlycon_8250, "applies to earlycon-pl011 and console-8250 only",
             flag(&params::reset_after_write)},
            {"line_model", "", "characters",
             "how the line monitor and the waves take the UART's lines: characters (default: as the UART "
             "reports them) or pins (edge by edge, for comparison; --mode reference: always pins)",
             lines, "applies to the UART consoles (tty-paste: profile hw) only",
             parsed(parse_line_model, line_in_effect)},
            {"reg_shift", "", "0", "16550: register i at uart_base + (i << reg_shift): 0, 1 or 2 (MMIO only)",
             uart16550, only_16550, one_of(&params::reg_shift, {"0", "1", "2"}, "expected 0, 1 or 2")},
            {"reg_io_width", "", "1", "16550: access width in bytes, 1 or 4 (MMIO only; 4 needs reg_shift 2)",
             uart16550, only_16550, one_of(&params::reg_io_width, {"1", "4"}, "expected 1 or 4")},
            {"thre_delay_ns", "ns", "0",
             "16550: a slow part's late THRE, ns after the last byte left THR/FIFO", uart16550, only_16550,
             number(&params::thre_delay_ns, 0, 1e9, ns)},
            {"tx_drain_ns", "ns", "0",
             "16550: a slow part's per-byte drain time, ns a byte waits at the head of THR/FIFO", uart16550,
             only_16550, number(&params::tx_drain_ns, 0, 1e9, ns)},
            {"irq_cpu", "", "0", "tty-paste: the core the UART's interrupt is routed to (default 0)", tty,
             only_tty, whole(&params::irq_cpu, 0, 127, core)},
            {"hog_us", "us", "0",
             "tty-paste: a task holds IRQs off this many us per period (default 0: no hog)", tty, only_tty,
             number(&params::hog_us, 0, 1e7, "expected a number of microseconds from 0 to 1e7")},
            {"hog_period_us", "us", "10000",
             "tty-paste: the hog's period, us, more than hog_us (default 10000)", tty, only_tty,
             parsed(parse_hog_period_us, &params::hog_period_us)},
            {"hog_cpu", "", "", "tty-paste: the hog's core (default irq_cpu)", tty, only_tty,
             shown_as(whole(&params::hog_cpu, 0, 127, core), hog_cpu_in_effect)},
            {"hog_sync", "", "none",
             "tty-paste: none (default: windows every period) or rx_irq (each window opens as the UART's "
             "RX interrupt rises, the worst phase)",
             tty, only_tty, one_of(&params::hog_sync, {"none", "rx_irq"}, "expected none or rx_irq")},
            {"rx_trigger", "", "",
             "tty-paste: RX FIFO trigger level, PL011 1/8 1/4 1/2 3/4 7/8 (default 1/2), 16550 1 4 8 14 "
             "(default 8)",
             tty, only_tty, parsed(parse_rx_trigger, &params::rx_trigger)},
            {"hz", "Hz", "250",
             "tty-paste, hvc-paste: the kernel's HZ, 100 250 300 or 1000 (default 250; the tick costs 2 us)",
             tty_hvc, "applies to tty-paste and hvc-paste only",
             one_of(&params::hz, {"100", "250", "300", "1000"}, "expected 100, 250, 300 or 1000")},
            {"ipi_at_ms", "ms", "413.5",
             "boot-console: ms from boot start at which a kworker on CPU0 sends kick_all_cpus_sync (a "
             "synchronous IPI; default 413.5 on grace, -1 on rpi3b; -1: none)",
             boot, only_boot, parsed(parse_ipi_at_ms, &params::ipi_at_ms)},
            {"bmc_char_ns", "ns", "177800",
             "boot-console: ns per character the BMC behind the UART accepts, by CTS flow control (grace "
             "only; default 177800, fitted to seed 001; 0: CTS always asserted)",
             grace, only_boot,
             number(&params::bmc_char_ns, 0, 1e8, "expected ns per character from 0 to 1e8")},
            {"csd_lock_timeout_ms", "ms", "5000",
             "boot-console: ms a CSD lock waiter spins before csdlock_debug reports it (default 5000; 0: "
             "no reports)",
             boot, only_boot,
             whole(&params::csd_lock_timeout_ms, 0, 1'000'000,
                   "expected a whole number of ms from 0 to 1000000")},
            {"earlycon", "", "0",
             "boot-console: 1: an earlycon (pl011,mmio32 at uart_base) registered as a boot console before "
             "the first record; the real console then skips the replay (default 0)",
             boot, only_boot, flag(&params::earlycon)},
            {"loglevel", "", "",
             "boot-console: console_loglevel, 0 to 15: records of this level or less urgent are stored, not "
             "printed (default 7: all but KERN_DEBUG)",
             boot, only_boot,
             shown_as(whole(&params::loglevel, 0, 15, "expected a console_loglevel from 0 to 15"),
                      loglevel_in_effect)},
            {"quiet", "", "0",
             "boot-console: 1: the kernel's quiet, console_loglevel 4 (only KERN_ERR and more urgent are "
             "printed; not with loglevel) (default 0)",
             boot, only_boot, flag(&params::quiet)},
            {"burst_bytes", "bytes", "4096",
             "hvc-paste: bytes per burst the host delivers (opal: into OPAL's buffer; virtio: one filled "
             "buffer and interrupt each), 1 to 2^30 (default 4096)",
             hvc, only_hvc, whole(&params::burst_bytes, 1, gib, bytes)},
            {"paste_kbps", "KB/s", "1000",
             "hvc-paste: the paste's rate, KB/s of 1000 bytes, more than 0 up to 1e6 (default 1000)", hvc,
             only_hvc, parsed(parse_paste_kbps, &params::paste_kbps)},
            {"bmc_buffer_bytes", "bytes", "65536",
             "hvc-paste, opal: OPAL's console input buffer, bytes, 1 to 2^30 (default 65536; overflow is "
             "lost)",
             opal, only_hvc, whole(&params::bmc_buffer_bytes, 1, gib, bytes)},
            {"khvcd_cpu", "", "0",
             "hvc-paste: the core khvcd runs on, below cores (default 0, beside the interrupt and kopald; on "
             "another core khvcd drains while kopald polls and they contend for hp->lock)",
             hvc, only_hvc, whole(&params::khvcd_cpu, 0, 127, core)},
            {"cpi", "", "1", "aarch64 core: cycles per instruction, at cpu_hz", a64, only_a64,
             whole(&params::cpi, 1, 1000, "expected a whole number of cycles from 1 to 1000")},
            {"quantum_ns", "ns", "1000",
             "aarch64 core: how far it may run ahead of SystemC time between device accesses, ns", a64,
             only_a64,
             whole(&params::quantum_ns, 1, 1'000'000'000, "expected a whole number of ns from 1 to 1e9")},
            {"a64_fast_forward", "", "1",
             "aarch64 core: in fast mode, run a polling loop that a read promise covers as one operation "
             "(0: execute every iteration, as reference mode does; the same results, slower)",
             a64, only_a64, flag(&params::a64_fast_forward)},
            {"paste_at_us", "us", "100",
             "firmware: when the --payload paste into the PL011's RXD starts, us (the firmware has set the "
             "UART up by then)",
             std::vector<key_scope>{{"firmware"}}, "applies to firmware only",
             number(&params::paste_at_us, 0, 1e9, "expected a number of us from 0 to 1e9")},
        };
    }();
    return table;
}

const key_def* find_key(const std::string& name) {
    for (const key_def& k : keys())
        if (k.name == name) return &k;
    return nullptr;
}

namespace {

// The names of the keys `keep` selects, in the table's order, comma-separated.
std::string key_names(const std::function<bool(const key_def&)>& keep) {
    std::string out;
    for (const key_def& k : keys())
        if (keep(k)) out += (out.empty() ? "" : ", ") + k.name;
    return out;
}

} // namespace

params::params() {
    for (const key_def& k : keys())
        if (!k.default_value.empty())
            if (const auto err = k.value.parse(*this, k.default_value))
                throw std::logic_error("key " + k.name + ": its default " + k.default_value + ": " + *err);
}

std::optional<std::string> params::set(const std::string& key, const std::string& value) {
    const key_def* k = find_key(key);
    if (!k)
        return "--set " + shown(key) +
               ": unknown key (known: " + key_names([](const key_def&) { return true; }) + ")";
    const std::string given = "--set " + shown(key) + "=" + shown(value) + ": ";
    if (!k->takes(scenario, profile)) {
        // Its scenario on another profile; a scenario that names the keys it takes; the key's word.
        if (const key_scope* in = k->scope_of(scenario))
            return given + (in->profile_refusal.empty() ? k->refusal : in->profile_refusal);
        if (names_its_keys(scenario))
            return "--set " + shown(key) + ": does not apply to " + scenario + " (its keys: " +
                   key_names([&](const key_def& d) { return d.scope_of(scenario) != nullptr; }) + ")";
        return given + k->refusal;
    }
    if (auto err = k->value.parse(*this, value)) return given + *err;
    return std::nullopt;
}

std::optional<std::string> params::check() const {
    if (uart_model == "mini") {
        if (cpu_hz > 100'000'000'000ull) return "cpu_hz above 100 GHz is not a CPU";
        if (cpu_hz < 1'000'000) return "cpu_hz below 1 MHz is not a CPU that prints a boot log";
        const std::int64_t d = bcm2835aux_baud_reg(uartclk_hz, baud);
        const double actual = d >= 0 ? static_cast<double>(uartclk_hz) / (8.0 * (d + 1)) : 0;
        if (d < 0 || d > 0xFFFF || std::abs(actual - baud) > 0.02 * baud)
            return "baud " + std::to_string(baud) + " is impossible with uartclk_hz " +
                   std::to_string(uartclk_hz) +
                   ": the mini UART needs AUX_MU_BAUD = clock/(8*baud) - 1 from 0 to 65535 within 2%";
        if ((frame.data_bits != 7 && frame.data_bits != 8) || frame.parity != parity_mode::none ||
            frame.stop_bits != 1)
            return "frame " + frame.name() +
                   ": the BCM2835 mini UART sends 7 or 8 data bits, no parity, 1 stop "
                   "bit (7N1 or 8N1)";
        if (uart_base % 32) return "uart_base " + std::to_string(uart_base) + " must be a multiple of 32";
        return std::nullopt;
    }
    if (uart_model == "16550") {
        if (cpu_hz > 100'000'000'000ull) return "cpu_hz above 100 GHz is not a CPU";
        if (cpu_hz < 1'000'000) return "cpu_hz below 1 MHz is not a CPU that prints a boot log";
        const std::uint64_t div = uart_get_divisor(uartclk_hz, baud);
        const double actual = div ? static_cast<double>(uartclk_hz) / (16.0 * div) : 0;
        if (div == 0 || div > 0xFFFF || std::abs(actual - baud) > 0.02 * baud)
            return "baud " + std::to_string(baud) + " is impossible with uartclk_hz " +
                   std::to_string(uartclk_hz) +
                   ": the 16550 needs a divisor uartclk/(16*baud) from 1 to 65535 within 2%";
        if (port_io && (reg_shift != 0 || reg_io_width != 1))
            return "port I/O registers are bytes at stride 1: reg_shift 0 and reg_io_width 1";
        if (reg_io_width > (1u << reg_shift))
            return "reg_io_width " + std::to_string(reg_io_width) + " needs reg_shift 2";
        const std::uint64_t span = std::uint64_t{8} << reg_shift;
        if (uart_base % span || (port_io && uart_base > 0xFFF8))
            return "uart_base " + std::to_string(uart_base) + " must be a multiple of " +
                   std::to_string(span) + (port_io ? " up to 0xFFF8 (an I/O port)" : "");
        return std::nullopt;
    }
    if (uart_model != "pl011") return std::nullopt; // no UART
    std::uint32_t ibrd = 0, fbrd = 0;
    pl011_baud_divisor(uartclk_hz, baud, ibrd, fbrd);
    if (ibrd == 0 || (static_cast<unsigned __int128>(ibrd) << 6 | fbrd) > (0xFFFFull << 6))
        return "baud " + std::to_string(baud) + " is impossible with uartclk_hz " +
               std::to_string(uartclk_hz) + ": the divisor UARTCLK/(16*baud) must be from 1 to 65535";
    if (cpu_hz > 100'000'000'000ull) return "cpu_hz above 100 GHz is not a CPU";
    if (cpu_hz < 1'000'000) return "cpu_hz below 1 MHz is not a CPU that prints a boot log";
    return std::nullopt;
}

nlohmann::json params::to_json() const {
    nlohmann::json j{{"mode", reference ? "reference" : "fast"}};
    for (const key_def& k : keys())
        if (k.takes(scenario, profile)) j[k.name] = k.value.json(*this);
    // What the profile fixes and what follows from the keys: the UART's divisor and its actual rate.
    if (!hvc_backend.empty()) j["backend"] = hvc_backend;
    if (uart_model == "mini") {
        const std::int64_t d = bcm2835aux_baud_reg(uartclk_hz, baud);
        j["uart_model"] = uart_model;
        j["aux_mu_baud"] = d;
        j["actual_baud"] = static_cast<double>(uartclk_hz) / (8.0 * (d + 1));
    } else if (uart_model == "16550") {
        const std::uint64_t div = uart_get_divisor(uartclk_hz, baud);
        j["uart_model"] = uart_model;
        j["divisor"] = div;
        j["actual_baud"] = div ? static_cast<double>(uartclk_hz) / (16.0 * div) : 0.0;
        j["port_io"] = port_io;
    } else if (uart_model == "pl011") {
        std::uint32_t ibrd = 0, fbrd = 0;
        pl011_baud_divisor(uartclk_hz, baud, ibrd, fbrd);
        j["ibrd"] = ibrd;
        j["fbrd"] = fbrd;
    }
    return j;
}

} // namespace uartvp::program
