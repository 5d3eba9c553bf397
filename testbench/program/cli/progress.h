// SPDX-License-Identifier: Apache-2.0
#pragma once
// Progress on standard error for long runs: `run` shows simulated time, the share of the payload done,
// wall time and an estimate of the rest, at most four times a second; `compare` and `sweep` which runs
// are done. On a terminal one status line is rewritten in place and cleared at the end; off a terminal
// nothing is shown unless --progress forces it (then one line per update); --quiet silences it.
//
// The simulation's figures are read in its own thread: a host thread asks every 250 ms for an update
// through a primitive channel (async_request_update(), SystemC's thread-safe way in), whose update()
// runs in the kernel's update phase and changes nothing that is simulated. (Debian 12 has progress
// libraries for Go and Perl, none for C++: a status line of our own.)
#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "cli/payload.h"

namespace uartvp::program::progress {

enum class setting { automatic, forced, quiet };
// From --progress and --quiet (both given: a usage error, checked by the caller).
void configure(setting s);
bool enabled();

// A status line on standard error: on a terminal it replaces the previous one, else it is one line.
void status(const std::string& text);
// Removes the status line from a terminal (before other output, and at the end).
void clear();
// Writes `text` to `f` with the status line out of the way (a terminal's stdout and stderr share it).
void print(std::FILE* f, const std::string& text);

// `run`: counts what the boot task has taken of the payload (`total_bytes` of it) for the share.
std::shared_ptr<payload_reader> counted(std::shared_ptr<payload_reader> inner, std::uint64_t total_bytes);
// A scenario whose work is not the payload's reading (tty-paste reads it whole first, then pastes it)
// says how far it is, 0 to 1; cleared by simulation_ended().
void set_share(std::function<double()> share);

// Called around sc_start() (stop::simulate): starts and stops the run's updates.
void simulation_starting();
void simulation_ended();

} // namespace uartvp::program::progress
