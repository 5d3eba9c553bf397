// SPDX-License-Identifier: Apache-2.0
#include "cli/line_header.h"

#include <fmt/core.h>

namespace uartvp::program {

namespace {
std::string hz_text(double hz) {
    if (hz >= 1e6) return fmt::format("{:g} MHz", hz / 1e6);
    if (hz >= 1e3) return fmt::format("{:g} kHz", hz / 1e3);
    return fmt::format("{:g} Hz", hz);
}
} // namespace

std::string line_header(const nlohmann::json& p) {
    if (!p.contains("baud") || !p.contains("uartclk_hz")) return {};
    const double baud = p["baud"].get<double>(), clk = p["uartclk_hz"].get<double>();
    const std::uint64_t baud_n = p["baud"].get<std::uint64_t>();
    const std::string frame = p.value("frame", std::string("?"));
    double divisor = 0;
    std::string clock, div;
    if (p.contains("ibrd")) { // PL011: UARTCLK / (16 * (IBRD + FBRD/64))
        const unsigned ibrd = p["ibrd"].get<unsigned>(), fbrd = p["fbrd"].get<unsigned>();
        divisor = ibrd + fbrd / 64.0;
        clock = "UARTCLK " + hz_text(clk);
        div = fmt::format("IBRD {} FBRD {} (divisor {})", ibrd, fbrd, divisor);
    } else if (p.contains("aux_mu_baud")) { // BCM2835 mini UART: core clock / (8 * (AUX_MU_BAUD + 1))
        const unsigned d = p["aux_mu_baud"].get<unsigned>();
        divisor = (d + 1) / 2.0; // as a 16x divisor
        clock = "core clock " + hz_text(clk);
        div = fmt::format("AUX_MU_BAUD {}", d);
    } else if (p.contains("divisor")) { // 16550: XIN / (16 * divisor)
        divisor = p["divisor"].get<double>();
        clock = "XIN " + hz_text(clk);
        div = fmt::format("divisor {}", divisor);
    } else {
        return {};
    }
    const double actual = divisor > 0 ? clk / (16 * divisor) : 0;
    return fmt::format("line: {} baud {}, {}, {}, {:.0f} baud actual ({:+.3f} %)\n", baud_n, frame, clock,
                       div, actual, baud > 0 ? (actual - baud) / baud * 100 : 0.0);
}

} // namespace uartvp::program
