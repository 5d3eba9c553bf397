// SPDX-License-Identifier: Apache-2.0
#pragma once
// Console workloads: synthetic Linux arm64 boot logs and a user's own log split into printk records.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace uartvp::sw {

// A deterministic, realistic arm64 boot log as printed with
// "ignore_loglevel initcall_debug printk.time=1": boot banner, memory and zone lines, initcall
// calling/returned pairs with probe messages in between, and the rootfs-less panic at the end.
// One element per printk record (one console write), each ending in '\n'; timestamps never decrease.
// The total size is exactly `bytes`: the last line is cut if needed (still ending in '\n').
// The same (bytes, seed) gives the same log on every platform and standard library.
std::vector<std::string> generate_boot_log(std::size_t bytes, std::uint32_t seed = 1);

// The same log one record at a time, generated as it is read: memory stays flat however many bytes
// (a 2^30-byte log holds a few lines at a time, not the log).
class boot_log_stream {
public:
    explicit boot_log_stream(std::size_t bytes, std::uint32_t seed = 1);
    ~boot_log_stream();
    boot_log_stream(const boot_log_stream&) = delete;
    boot_log_stream& operator=(const boot_log_stream&) = delete;
    // The next record into `line`; false after the last.
    bool next(std::string& line);

private:
    struct impl;
    std::unique_ptr<impl> m;
};

// Splits a log into lines, each keeping its '\n'; a last line without '\n' is kept as is.
std::vector<std::string> split_log_lines(std::string_view text);

} // namespace uartvp::sw
