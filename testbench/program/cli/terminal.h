// SPDX-License-Identifier: Apache-2.0
#pragma once
// `uartvp run ... --terminal stdio|pty|tcp:PORT [--duration S]`: a scenario's UART on a host terminal
// (uartvp::serial_terminal), whose input replaces the RX payload. The run is paced to wall-clock time,
// has no scoreboard (outcome "interactive") and ends at the end of input, a hang-up or after S
// simulated seconds.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <systemc>

#include <uartvp/serial_format.h>
#include <uartvp/serial_terminal.h>

#include "scenarios/scenario.h"

namespace uartvp::program {

// Checks --terminal and --duration against the scenario and variant and puts them into the request;
// throws usage_error (nothing has run). `payload_given`: --payload or --payload-bytes was given too.
void apply_terminal_options(const scenario_def& s, run_request& rq, const std::string& terminal,
                            const std::string& duration, bool duration_given, bool payload_given);

// Opens the request's terminal at the UART's rate and frame, reading input from `input_from` on (once
// the software has opened the port), and says on stderr where to connect ("terminal: /dev/pts/N"). A
// port in use or no pseudo-terminal left is bad input (usage_error).
std::unique_ptr<serial_terminal> open_terminal(const run_request& rq, double baud, const serial_format& fmt,
                                               const sc_core::sc_time& input_from);

// The terminal's figures for the JSON (`terminal`): device, how and when it ended, bytes both ways.
nlohmann::json terminal_results(const serial_terminal& t);

} // namespace uartvp::program
