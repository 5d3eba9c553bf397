// SPDX-License-Identifier: Apache-2.0
#pragma once
// `uartvp sweep`: the cross product of variants, profiles, payload sizes and --set values, one simulation
// per child process, -j N at once, one JSON object per run and line (JSON Lines) with the point it ran.
// `--emit-jobs FILE` writes the same runs as shell commands instead (one a line, absolute paths), each
// writing its result beside FILE, for GNU parallel or a Slurm job array; `--collect DIR` gathers those
// results into the same JSON Lines as a direct sweep.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace uartvp::program {

struct sweep_options {
    std::string scenario;
    std::vector<std::string> variants, profiles, payload_bytes; // empty: every variant, the default
    std::string payload_file;                                   // one payload for every run, or empty
    std::vector<std::string> sets;                              // KEY=A,B,C
    std::string mode = "fast";
    bool expect_loss = false;
    unsigned parallel = 1;
    std::string json, csv, emit_jobs, collect;
    std::vector<std::string> plugins; // --plugin FILE, absolute paths (emitted jobs run elsewhere)
};

// One run of the sweep.
struct sweep_point {
    std::string variant, profile, payload_bytes;           // payload_bytes empty: not given
    std::vector<std::pair<std::string, std::string>> sets; // in the order the keys were given
};

// Checks a point as `run` would (throws usage_error): given by the command line's code.
using point_check = std::function<void(const sweep_point&)>;

// The sweep command; `self` is this program's absolute path. Returns the exit code (the worst run's).
int cmd_sweep(const sweep_options& o, const std::string& self, const point_check& check);

// A comma-separated list's items; empty items are refused (usage_error naming `what`).
std::vector<std::string> split_list(const std::string& text, const std::string& what);

} // namespace uartvp::program
