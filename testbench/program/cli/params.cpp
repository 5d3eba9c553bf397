#include "cli/params.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

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

} // namespace

std::string shown(std::string_view value) {
    constexpr std::size_t limit = 80;
    if (value.size() <= limit) return std::string(value);
    return std::string(value.substr(0, limit)) + "...";
}

const std::map<std::string, std::string>& params::keys() {
    static const std::map<std::string, std::string> k{
        {"cpu_hz", "CPU clock in Hz"},
        {"cores", "cores of the machine, 1 to 8 (the console scenarios print from core 0; the others idle; "
                  "hvc-paste: default 2)"},
        {"mmio_read_ns", "cost of one UART register read, ns (a trapped access under a hypervisor)"},
        {"mmio_write_ns", "cost of one UART register write, ns"},
        {"relax_cycles", "CPU cycles of one cpu_relax()"},
        {"uartclk_hz", "UART reference clock in Hz"},
        {"baud", "baud rate"},
        {"frame", "frame format: data bits, parity N/E/O/M/S, stop bits (8N1, 7E1, 8N2, ...)"},
        {"fifo_depth", "FIFO depth: PL011 16 or 32; 16550 16; BCM2835 mini UART 8"},
        {"uart_base", "UART base address (decimal or 0x...; an I/O port number on port-I/O profiles)"},
        {"reset_after_write", "assert the UART's reset right after the last write returns (0/1)"},
        {"reg_shift", "16550: register i at uart_base + (i << reg_shift): 0, 1 or 2 (MMIO only)"},
        {"reg_io_width", "16550: access width in bytes, 1 or 4 (MMIO only; 4 needs reg_shift 2)"},
        {"thre_delay_ns", "16550: a slow part's late THRE, ns after the last byte left THR/FIFO"},
        {"tx_drain_ns", "16550: a slow part's per-byte drain time, ns a byte waits at the head of THR/FIFO"},
        {"irq_cpu", "tty-paste: the core the UART's interrupt is routed to (default 0)"},
        {"hog_us", "tty-paste: a task holds IRQs off this many us per period (default 0: no hog)"},
        {"hog_period_us", "tty-paste: the hog's period, us, more than hog_us (default 10000)"},
        {"hog_cpu", "tty-paste: the hog's core (default irq_cpu)"},
        {"hog_sync", "tty-paste: none (default: windows every period) or rx_irq (each window opens as the "
                     "UART's RX interrupt rises, the worst phase)"},
        {"rx_trigger",
         "tty-paste: RX FIFO trigger level, PL011 1/8 1/4 1/2 3/4 7/8 (default 1/2), 16550 1 4 8 "
         "14 (default 8)"},
        {"ipi_at_ms", "boot-console: ms from boot start at which a kworker on CPU0 sends kick_all_cpus_sync "
                      "(a synchronous IPI; default 413.5 on grace, -1 on rpi3b; -1: none)"},
        {"bmc_char_ns", "boot-console: ns per character the BMC behind the UART accepts, by CTS flow control "
                        "(grace only; default 177800, fitted to seed 001; 0: CTS always asserted)"},
        {"csd_lock_timeout_ms", "boot-console: ms a CSD lock waiter spins before csdlock_debug reports it "
                                "(default 5000; 0: no reports)"},
        {"earlycon", "boot-console: 1: an earlycon (pl011,mmio32 at uart_base) registered as a boot console "
                     "before the first record; the real console then skips the replay (default 0)"},
        {"loglevel", "boot-console: console_loglevel, 0 to 15: records of this level or less urgent are "
                     "stored, not printed (default 7: all but KERN_DEBUG)"},
        {"quiet",
         "boot-console: 1: the kernel's quiet, console_loglevel 4 (only KERN_ERR and more urgent are "
         "printed; not with loglevel) (default 0)"},
        {"hz",
         "tty-paste, hvc-paste: the kernel's HZ, 100 250 300 or 1000 (default 250; the tick costs 2 us)"},
        {"burst_bytes", "hvc-paste: bytes per burst the host delivers (opal: into OPAL's buffer; virtio: one "
                        "filled buffer and interrupt each), 1 to 2^30 (default 4096)"},
        {"paste_kbps",
         "hvc-paste: the paste's rate, KB/s of 1000 bytes, more than 0 up to 1e6 (default 1000)"},
        {"bmc_buffer_bytes", "hvc-paste, opal: OPAL's console input buffer, bytes, 1 to 2^30 (default 65536; "
                             "overflow is lost)"},
        {"khvcd_cpu",
         "hvc-paste: the core khvcd runs on, below cores (default 0, beside the interrupt and "
         "kopald; on another core khvcd drains while kopald polls and they contend for hp->lock)"},
    };
    return k;
}

// hvc-paste takes cores, hz and its own keys and refuses every other known key; its own keys are refused
// elsewhere. Nothing if `key` is none of this (an unknown key, or a key of another scenario's).
std::optional<std::optional<std::string>> params::set_hvc_key(const std::string& key,
                                                              const std::string& value) {
    static const char* const own[] = {"burst_bytes", "paste_kbps", "bmc_buffer_bytes", "khvcd_cpu"};
    const bool is_own = std::find(std::begin(own), std::end(own), key) != std::end(own);
    auto bad = [&](const std::string& what) -> std::optional<std::string> {
        return "--set " + shown(key) + "=" + shown(value) + ": " + what;
    };
    if (!hvc) {
        if (is_own) return bad("applies to hvc-paste only");
        return std::nullopt;
    }
    if (key == "cores") {
        const auto v = parse_u64(value);
        if (!v || *v < 1 || *v > 8) return bad("expected a whole number of cores from 1 to 8");
        cores = static_cast<unsigned>(*v);
    } else if (key == "hz") {
        if (value != "100" && value != "250" && value != "300" && value != "1000")
            return bad("expected 100, 250, 300 or 1000");
        hz = static_cast<unsigned>(std::stoul(value));
    } else if (key == "burst_bytes" || key == "bmc_buffer_bytes") {
        if (key == "bmc_buffer_bytes" && hvc_backend != "opal")
            return bad("applies to the opal profile only");
        const auto v = parse_u64(value);
        if (!v || *v < 1 || *v > (std::uint64_t{1} << 30))
            return bad("expected a whole number of bytes from 1 to 2^30");
        (key == "burst_bytes" ? burst_bytes : bmc_buffer_bytes) = *v;
    } else if (key == "paste_kbps") {
        const auto v = parse_double(value);
        if (!v || *v <= 0 || *v > 1e6) return bad("expected KB/s (1000 bytes) more than 0, up to 1e6");
        paste_kbps = *v;
    } else if (key == "khvcd_cpu") {
        const auto v = parse_u64(value);
        if (!v || *v > 7) return bad("expected a core number from 0 to 7 (below cores)");
        khvcd_cpu = static_cast<unsigned>(*v);
    } else if (keys().count(key)) {
        return "--set " + shown(key) +
               ": does not apply to hvc-paste (its keys: cores, hz, burst_bytes, paste_kbps, "
               "bmc_buffer_bytes, khvcd_cpu)";
    } else {
        return std::nullopt;
    }
    return std::optional<std::string>{};
}

// The tty-paste keys: nothing if `key` is not one of them, else the error (or nothing) setting it gives.
std::optional<std::optional<std::string>> params::set_tty_key(const std::string& key,
                                                              const std::string& value) {
    static const char* const names[] = {"irq_cpu",    "hog_us", "hog_period_us", "hog_cpu", "hog_sync",
                                        "rx_trigger", "hz"};
    if (std::find(std::begin(names), std::end(names), key) == std::end(names)) return std::nullopt;
    auto bad = [&](const std::string& what) -> std::optional<std::string> {
        return "--set " + shown(key) + "=" + shown(value) + ": " + what;
    };
    if (!tty)
        return bad(key == "hz" ? "applies to tty-paste and hvc-paste only" : "applies to tty-paste only");
    if (key == "irq_cpu" || key == "hog_cpu") {
        const auto v = parse_u64(value);
        if (!v || *v > 7) return bad("expected a core number from 0 to 7 (below cores)");
        (key == "irq_cpu" ? irq_cpu : hog_cpu.emplace()) = static_cast<unsigned>(*v);
    } else if (key == "hog_us" || key == "hog_period_us") {
        const auto v = parse_double(value);
        if (!v || *v < 0 || *v > 1e7) return bad("expected a number of microseconds from 0 to 1e7");
        if (key == "hog_period_us" && *v == 0) return bad("the period must be more than 0");
        (key == "hog_us" ? hog_us : hog_period_us) = *v;
    } else if (key == "hog_sync") {
        if (value != "none" && value != "rx_irq") return bad("expected none or rx_irq");
        hog_sync = value;
    } else if (key == "rx_trigger") {
        static const char* const pl011_levels[] = {"1/8", "1/4", "1/2", "3/4", "7/8"};
        static const char* const levels_16550[] = {"1", "4", "8", "14"};
        if (uart_model == "16550") {
            if (std::find(std::begin(levels_16550), std::end(levels_16550), value) == std::end(levels_16550))
                return bad("the 16550's RX trigger is 1, 4, 8 or 14 bytes");
        } else if (std::find(std::begin(pl011_levels), std::end(pl011_levels), value) ==
                   std::end(pl011_levels)) {
            return bad("the PL011's RX level is 1/8, 1/4, 1/2, 3/4 or 7/8 full");
        }
        rx_trigger = value;
    } else { // hz
        if (value != "100" && value != "250" && value != "300" && value != "1000")
            return bad("expected 100, 250, 300 or 1000");
        hz = static_cast<unsigned>(std::stoul(value));
    }
    return std::optional<std::string>{};
}

// The boot-console keys: nothing if `key` is not one of them, else the error (or nothing) setting it gives.
std::optional<std::optional<std::string>> params::set_boot_key(const std::string& key,
                                                               const std::string& value) {
    if (key != "ipi_at_ms" && key != "bmc_char_ns" && key != "csd_lock_timeout_ms" && key != "earlycon" &&
        key != "loglevel" && key != "quiet")
        return std::nullopt;
    auto bad = [&](const std::string& what) -> std::optional<std::string> {
        return "--set " + shown(key) + "=" + shown(value) + ": " + what;
    };
    if (!boot) return bad("applies to boot-console only");
    if (key == "bmc_char_ns" && uart_model == "mini")
        return bad("applies to profile grace only (no BMC behind the Raspberry Pi's mini UART)");
    const auto v = parse_double(value);
    if (key == "ipi_at_ms") {
        if (!v || (*v < 0 && *v != -1) || *v > 1e6) return bad("expected ms from 0 to 1e6, or -1 (no IPI)");
        ipi_at_ms = *v;
    } else if (key == "bmc_char_ns") {
        if (!v || *v < 0 || *v > 1e8) return bad("expected ns per character from 0 to 1e8");
        bmc_char_ns = *v;
    } else if (key == "earlycon" || key == "quiet") {
        const auto b = parse_bool(value);
        if (!b) return bad("expected 0 or 1");
        (key == "earlycon" ? earlycon : quiet) = *b;
    } else if (key == "loglevel") {
        const auto u = parse_u64(value);
        if (!u || *u > 15) return bad("expected a console_loglevel from 0 to 15");
        loglevel = static_cast<int>(*u);
    } else {
        const auto u = parse_u64(value);
        if (!u || *u > 1'000'000) return bad("expected a whole number of ms from 0 to 1000000");
        csd_lock_timeout_ms = static_cast<unsigned>(*u);
    }
    return std::optional<std::string>{};
}

std::optional<std::string> params::set(const std::string& key, const std::string& value) {
    auto bad = [&](const std::string& what) {
        return "--set " + shown(key) + "=" + shown(value) + ": " + what;
    };
    const bool is_16550 = uart_model == "16550";
    if (auto r = set_hvc_key(key, value)) return *r;
    if (auto r = set_tty_key(key, value)) return *r;
    if (auto r = set_boot_key(key, value)) return *r;
    if (!is_16550 &&
        (key == "reg_shift" || key == "reg_io_width" || key == "thre_delay_ns" || key == "tx_drain_ns"))
        return bad("applies to the 16550 scenarios only");
    if (key == "cpu_hz" || key == "uartclk_hz" || key == "baud") {
        const auto v = parse_u64(value);
        if (!v || *v == 0) return bad("expected a positive whole number");
        if (key == "uartclk_hz" && *v > max_uartclk_hz)
            return bad("at most 10^12 Hz: one UARTCLK cycle must last at least the 1 ps time resolution");
        (key == "cpu_hz" ? cpu_hz : key == "uartclk_hz" ? uartclk_hz : baud) = *v;
    } else if (key == "mmio_read_ns" || key == "mmio_write_ns") {
        const auto v = parse_double(value);
        if (!v || *v < 0 || *v > 1e9) return bad("expected a number of nanoseconds from 0 to 1e9");
        (key == "mmio_read_ns" ? mmio_read_ns : mmio_write_ns) = *v;
    } else if (key == "relax_cycles") {
        const auto v = parse_u64(value);
        if (!v || *v > 1'000'000) return bad("expected a whole number from 0 to 1000000");
        relax_cycles = static_cast<unsigned>(*v);
    } else if (key == "frame") {
        const auto f = serial_format::parse(value);
        if (!f) return bad("expected data bits 5-8, parity N/E/O/M/S, stop bits 1-2, such as 8N1");
        frame = *f;
    } else if (key == "fifo_depth") {
        if (is_16550 && value != "16") return bad("the 16550 FIFO depth is 16");
        if (uart_model == "mini" && value != "8") return bad("the mini UART's FIFO depth is 8");
        if (value != "16" && value != "32") return bad("the PL011 FIFO depth is 16 or 32");
        fifo_depth = static_cast<unsigned>(std::stoul(value));
    } else if (key == "uart_base") {
        char* end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(value.c_str(), &end, 0);
        if (!is_16550 && uart_model != "mini" && (value.empty() || errno || *end || v % 0x1000))
            return bad("expected a 4 KiB-aligned address");
        if (value.empty() || value[0] == '-' || errno || *end) return bad("expected an address");
        uart_base = v; // the 16550's alignment depends on reg_shift: check()
    } else if (key == "reg_shift") {
        if (value != "0" && value != "1" && value != "2") return bad("expected 0, 1 or 2");
        reg_shift = static_cast<unsigned>(std::stoul(value));
    } else if (key == "reg_io_width") {
        if (value != "1" && value != "4") return bad("expected 1 or 4");
        reg_io_width = static_cast<unsigned>(std::stoul(value));
    } else if (key == "thre_delay_ns" || key == "tx_drain_ns") {
        const auto v = parse_double(value);
        if (!v || *v < 0 || *v > 1e9) return bad("expected a number of nanoseconds from 0 to 1e9");
        (key == "thre_delay_ns" ? thre_delay_ns : tx_drain_ns) = *v;
    } else if (key == "cores") {
        const auto v = parse_u64(value);
        if (!v || *v < 1 || *v > 8) return bad("expected a whole number of cores from 1 to 8");
        cores = static_cast<unsigned>(*v);
    } else if (key == "reset_after_write") {
        if (tty || boot) return bad("applies to earlycon-pl011 and console-8250 only");
        const auto v = parse_bool(value);
        if (!v) return bad("expected 0 or 1");
        reset_after_write = *v;
    } else {
        return "--set " + shown(key) +
               ": unknown key (known: cpu_hz, cores, mmio_read_ns, mmio_write_ns, relax_cycles, "
               "uartclk_hz, baud, frame, fifo_depth, uart_base, reset_after_write, reg_shift, reg_io_width, "
               "thre_delay_ns, tx_drain_ns, irq_cpu, hog_us, hog_period_us, hog_cpu, hog_sync, rx_trigger, "
               "hz, ipi_at_ms, bmc_char_ns, csd_lock_timeout_ms, earlycon, loglevel, quiet, burst_bytes, "
               "paste_kbps, bmc_buffer_bytes, khvcd_cpu)";
    }
    return std::nullopt;
}

void pl011_divisor(std::uint64_t uartclk, std::uint64_t baud, std::uint32_t& ibrd, std::uint32_t& fbrd) {
    const unsigned __int128 x64 = (static_cast<unsigned __int128>(uartclk) * 4 + baud / 2) / baud;
    ibrd = static_cast<std::uint32_t>(x64 >> 6);
    fbrd = static_cast<std::uint32_t>(x64 & 63);
}

std::uint64_t uart16550_divisor(std::uint64_t clock, std::uint64_t baud) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(clock) + 8 * baud) / (16 * baud));
}

std::int64_t mini_uart_baud_reg(std::uint64_t clock, std::uint64_t baud) {
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(clock) + 4 * baud) / (8 * baud)) - 1;
}

std::optional<std::string> params::check_tty() const {
    const std::string have =
        " (the machine has " + std::to_string(cores) + (cores == 1 ? " core" : " cores") + ": --set cores=N)";
    if (irq_cpu >= cores) return "irq_cpu " + std::to_string(irq_cpu) + " is not a core" + have;
    if (hog_cpu && *hog_cpu >= cores) return "hog_cpu " + std::to_string(*hog_cpu) + " is not a core" + have;
    if (hog_us > 0 && hog_period_us <= hog_us)
        return "hog_period_us must be more than hog_us (the hog holds IRQs off for hog_us of every period)";
    return std::nullopt;
}

std::optional<std::string> params::check() const {
    if (hvc) { // each key was checked as it was set; khvcd's core against the machine's
        if (khvcd_cpu >= cores)
            return "khvcd_cpu " + std::to_string(khvcd_cpu) + " is not a core (the machine has " +
                   std::to_string(cores) + (cores == 1 ? " core" : " cores") + ": --set cores=N)";
        return std::nullopt;
    }
    if (tty)
        if (auto err = check_tty()) return err;
    if (boot && cores < 2)
        return "boot-console needs at least 2 cores (the boot task runs on CPU1): --set cores=N";
    if (boot && quiet && loglevel)
        return "quiet and loglevel both set console_loglevel (quiet: 4): give one of them";
    if (uart_model == "mini") {
        if (cpu_hz > 100'000'000'000ull) return "cpu_hz above 100 GHz is not a CPU";
        if (cpu_hz < 1'000'000) return "cpu_hz below 1 MHz is not a CPU that prints a boot log";
        const std::int64_t d = mini_uart_baud_reg(uartclk_hz, baud);
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
        const std::uint64_t div = uart16550_divisor(uartclk_hz, baud);
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
    std::uint32_t ibrd = 0, fbrd = 0;
    pl011_divisor(uartclk_hz, baud, ibrd, fbrd);
    if (ibrd == 0 || (static_cast<unsigned __int128>(ibrd) << 6 | fbrd) > (0xFFFFull << 6))
        return "baud " + std::to_string(baud) + " is impossible with uartclk_hz " +
               std::to_string(uartclk_hz) + ": the divisor UARTCLK/(16*baud) must be from 1 to 65535";
    if (cpu_hz > 100'000'000'000ull) return "cpu_hz above 100 GHz is not a CPU";
    if (cpu_hz < 1'000'000) return "cpu_hz below 1 MHz is not a CPU that prints a boot log";
    return std::nullopt;
}

nlohmann::json params::to_json() const {
    if (hvc) {
        nlohmann::json j{{"backend", hvc_backend},
                         {"cores", cores},
                         {"hz", hz},
                         {"burst_bytes", burst_bytes},
                         {"paste_kbps", paste_kbps},
                         {"khvcd_cpu", khvcd_cpu},
                         {"mode", reference ? "reference" : "fast"}};
        if (hvc_backend == "opal") j["bmc_buffer_bytes"] = bmc_buffer_bytes;
        return j;
    }
    // What every console UART's run shows; each model adds its own (keys come out sorted).
    nlohmann::json j{{"cpu_hz", cpu_hz},
                     {"cores", cores},
                     {"mmio_read_ns", mmio_read_ns},
                     {"mmio_write_ns", mmio_write_ns},
                     {"relax_cycles", relax_cycles},
                     {"uartclk_hz", uartclk_hz},
                     {"baud", baud},
                     {"frame", frame.name()},
                     {"fifo_depth", fifo_depth},
                     {"uart_base", uart_base},
                     {"mode", reference ? "reference" : "fast"}};
    if (uart_model == "mini") {
        const std::int64_t d = mini_uart_baud_reg(uartclk_hz, baud);
        j["uart_model"] = uart_model;
        j["aux_mu_baud"] = d;
        j["actual_baud"] = static_cast<double>(uartclk_hz) / (8.0 * (d + 1));
        return j;
    }
    if (uart_model == "16550") {
        const std::uint64_t div = uart16550_divisor(uartclk_hz, baud);
        j["uart_model"] = uart_model;
        j["divisor"] = div;
        j["actual_baud"] = div ? static_cast<double>(uartclk_hz) / (16.0 * div) : 0.0;
        j["port_io"] = port_io;
        j["reg_shift"] = reg_shift;
        j["reg_io_width"] = reg_io_width;
        j["thre_delay_ns"] = thre_delay_ns;
        j["tx_drain_ns"] = tx_drain_ns;
        j["reset_after_write"] = reset_after_write;
        return j;
    }
    std::uint32_t ibrd = 0, fbrd = 0;
    pl011_divisor(uartclk_hz, baud, ibrd, fbrd);
    j["ibrd"] = ibrd;
    j["fbrd"] = fbrd;
    j["reset_after_write"] = reset_after_write;
    return j;
}

} // namespace uartvp::program
