// SPDX-License-Identifier: Apache-2.0
#pragma once
// The line parameters in effect, for the header of `run` and `compare`: what a --set changed (or did
// not) shows at a glance.
#include <string>

#include <nlohmann/json.hpp>

namespace uartvp::program {

// "line: 115200 baud 8N1, UARTCLK 24 MHz, IBRD 13 FBRD 1 (divisor 13.015625), 115246 baud actual
// (+0.040 %)" from a run's `params` (a PL011's IBRD/FBRD, a 16550's XIN and divisor); empty when the
// parameters name no baud rate.
std::string line_header(const nlohmann::json& params);

} // namespace uartvp::program
