// SPDX-License-Identifier: Apache-2.0
#pragma once
// The console writes of a run, read one at a time as the boot task prints them: neither a generated
// boot log nor a payload file is held whole in memory.
#include <cstddef>
#include <memory>
#include <string>

namespace uartvp::program {

class payload_reader {
public:
    virtual ~payload_reader() = default;
    // The next console write (a log line with its '\n'; a last line may lack it); false after the last
    // or on a read error.
    virtual bool next(std::string& line) = 0;
    // Why reading stopped early (empty: it did not). A run whose payload failed is an internal error.
    virtual std::string error() const { return {}; }
};

// The generated arm64 boot log of exactly `bytes` bytes.
std::unique_ptr<payload_reader> generated_payload(std::size_t bytes);

// A log file of the user's: it must be a regular file (a FIFO, socket or device is refused without
// being opened for reading), readable and not empty. Throws usage_error naming the problem.
std::unique_ptr<payload_reader> file_payload(const std::string& path);

// How a run's JSON names its payload ("payload"): the file as given, "generated:N" (--payload-bytes N,
// else the scenario's default size), or "calibrated:PROFILE" (no size: the profile's own workload).
// `bytes` 0: not given. One place, for `run` and for `sweep --collect`, which checks results by it.
std::string payload_source(const std::string& file, std::size_t bytes, std::size_t default_bytes,
                           const std::string& profile);

} // namespace uartvp::program
