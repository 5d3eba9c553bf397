// SPDX-License-Identifier: Apache-2.0
#pragma once
// Child runs of the program side by side (compare -j N, sweep -j N): each simulation in a process of its
// own (SystemC simulates once per process), at most N at once, their results taken in order.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace uartvp::program::jobs {

// A scratch directory for the children's results, removed with its files (also by a stop by signal).
class scratch_dir {
public:
    explicit scratch_dir(const std::string& prefix); // "/tmp/uartvp-compare-"
    ~scratch_dir();
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

struct outcome {
    int status = 0;     // as wait4 reports it
    double peak_mb = 0; // the child's peak resident memory
    double wall_s = 0;  // from its start to its end
};

// Runs every argv (argv[0] an absolute path) with standard output on /dev/null, at most `parallel` at
// once, in order of their index. `in_order(i, outcome)` is called in the calling thread for each run in
// index order, as soon as that run and every earlier one has ended; `ended(count)` after each run ends.
// Children end with this process (PR_SET_PDEATHSIG) and on a stop by signal; a stop throws
// stop::interrupted once the running children have been reaped.
void run_all(const std::vector<std::vector<std::string>>& argvs, unsigned parallel,
             const std::function<void(std::size_t, const outcome&)>& in_order,
             const std::function<void(std::size_t)>& ended);

// The cores this process may run on (sched_getaffinity), at least 1: the default of -j.
unsigned default_parallel();

// Parses -j's value: a whole number from 1 to 1024; throws usage_error naming the value.
unsigned parse_parallel(const std::string& value);

} // namespace uartvp::program::jobs
