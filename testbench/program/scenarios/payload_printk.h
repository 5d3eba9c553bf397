// SPDX-License-Identifier: Apache-2.0
#pragma once
// The console scenarios' printk (earlycon-pl011, console-8250): each payload line is one printk record,
// already formatted (no time prefix of printk's own), of any length, and the console routine under test
// is the one console, printed by printk's legacy loop: console_emit_next_record holds IRQs off for the
// record, as the kernel does for every legacy and boot console. The registration prints nothing (the
// payload is the console's whole output) and no record is kept once printed (memory stays flat).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kernel/printk/printk.h"

namespace uartvp {
class scoreboard;
namespace cpu {
class core;
}
} // namespace uartvp

namespace uartvp::program {

class payload_reader;
class timeline;

inline sw::printk_config payload_printk_config() {
    sw::printk_config pc;
    pc.time = false;
    pc.record_max = SIZE_MAX;
    pc.announce_consoles = false;
    pc.keep_printed = false;
    pc.console_loglevel = 15; // every record (all are KERN_INFO)
    return pc;
}

// The bytes the console hands to the UART for a record's text: a '\r' before each '\n'.
inline std::size_t console_bytes(std::string_view text) {
    std::size_t n = text.size();
    for (char c : text)
        n += c == '\n';
    return n;
}
// Appends those bytes to `out`.
inline void append_console_bytes(std::string& out, std::string_view text) {
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
}

// printk set up as above and its one console, `name` and `index` as the kernel names it, a boot console
// (CON_BOOT) or a legacy one; its write is the scenario's to set. Static: it outlives the tasks' threads.
sw::console& payload_console(const std::string& name, int index, bool boot);

// The console scenarios' boot task: registers the console, then printk's each payload line as one
// record, the scoreboard expecting what the routine hands to the UART, until the payload ends or
// `stopped` says so (a plugin's routine failed). The record and those bytes live here rather than on
// the task's stack: a task still suspended when the simulation stops (a plugin's routine that never
// returned) is never unwound.
class payload_boot {
public:
    void run(sw::console& con, payload_reader& payload, scoreboard& sb, cpu::core& cpu, timeline* tl,
             const std::function<bool()>& stopped);
    std::uint64_t lines() const { return m_lines; }
    std::uint64_t bytes_written() const { return m_bytes_written; }

private:
    std::string m_line, m_out;
    std::uint64_t m_lines = 0, m_bytes_written = 0;
};

} // namespace uartvp::program
