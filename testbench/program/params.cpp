#include "params.h"

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

const std::map<std::string, std::string>& params::keys() {
    static const std::map<std::string, std::string> k{
        {"cpu_hz", "CPU clock in Hz"},
        {"mmio_read_ns", "cost of one UART register read, ns (a trapped access under a hypervisor)"},
        {"mmio_write_ns", "cost of one UART register write, ns"},
        {"relax_cycles", "CPU cycles of one cpu_relax()"},
        {"uartclk_hz", "UART reference clock in Hz"},
        {"baud", "baud rate"},
        {"frame", "frame format: data bits, parity N/E/O/M/S, stop bits (8N1, 7E1, 8N2, ...)"},
        {"fifo_depth", "PL011 FIFO depth: 16 or 32"},
        {"uart_base", "UART base address (decimal or 0x...)"},
        {"reset_after_write", "assert the UART's reset right after the last write returns (0/1)"},
    };
    return k;
}

std::optional<std::string> params::set(const std::string& key, const std::string& value) {
    auto bad = [&](const char* what) { return "--set " + key + "=" + value + ": " + what; };
    if (key == "cpu_hz" || key == "uartclk_hz" || key == "baud") {
        const auto v = parse_u64(value);
        if (!v || *v == 0) return bad("expected a positive whole number");
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
        if (value != "16" && value != "32") return bad("the PL011 FIFO depth is 16 or 32");
        fifo_depth = static_cast<unsigned>(std::stoul(value));
    } else if (key == "uart_base") {
        char* end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(value.c_str(), &end, 0);
        if (value.empty() || errno || *end || v % 0x1000) return bad("expected a 4 KiB-aligned address");
        uart_base = v;
    } else if (key == "reset_after_write") {
        const auto v = parse_bool(value);
        if (!v) return bad("expected 0 or 1");
        reset_after_write = *v;
    } else {
        return "--set " + key +
               ": unknown key (known: cpu_hz, mmio_read_ns, mmio_write_ns, relax_cycles, "
               "uartclk_hz, baud, frame, fifo_depth, uart_base, reset_after_write)";
    }
    return std::nullopt;
}

void pl011_divisor(std::uint64_t uartclk, std::uint64_t baud, std::uint32_t& ibrd, std::uint32_t& fbrd) {
    const unsigned __int128 x64 = (static_cast<unsigned __int128>(uartclk) * 4 + baud / 2) / baud;
    ibrd = static_cast<std::uint32_t>(x64 >> 6);
    fbrd = static_cast<std::uint32_t>(x64 & 63);
}

std::optional<std::string> params::check() const {
    std::uint32_t ibrd = 0, fbrd = 0;
    pl011_divisor(uartclk_hz, baud, ibrd, fbrd);
    if (ibrd == 0 || (static_cast<unsigned __int128>(ibrd) << 6 | fbrd) > (0xFFFFull << 6))
        return "baud " + std::to_string(baud) + " is impossible with uartclk_hz " +
               std::to_string(uartclk_hz) + ": the divisor UARTCLK/(16*baud) must be from 1 to 65535";
    if (cpu_hz > 100'000'000'000ull) return "cpu_hz above 100 GHz is not a CPU";
    return std::nullopt;
}

nlohmann::json params::to_json() const {
    std::uint32_t ibrd = 0, fbrd = 0;
    pl011_divisor(uartclk_hz, baud, ibrd, fbrd);
    return {{"cpu_hz", cpu_hz},
            {"mmio_read_ns", mmio_read_ns},
            {"mmio_write_ns", mmio_write_ns},
            {"relax_cycles", relax_cycles},
            {"uartclk_hz", uartclk_hz},
            {"baud", baud},
            {"frame", frame.name()},
            {"fifo_depth", fifo_depth},
            {"uart_base", uart_base},
            {"ibrd", ibrd},
            {"fbrd", fbrd},
            {"mode", reference ? "reference" : "fast"},
            {"reset_after_write", reset_after_write}};
}

} // namespace uartvp::program
