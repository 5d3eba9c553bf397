#pragma once
// The console scenarios' printk (earlycon-pl011, console-8250): each payload line is one printk record,
// already formatted (no time prefix of printk's own), of any length, and the console routine under test
// is the one console, printed by printk's legacy loop: console_emit_next_record holds IRQs off for the
// record, as the kernel does for every legacy and boot console. The registration prints nothing (the
// payload is the console's whole output) and no record is kept once printed (memory stays flat).
#include <cstdint>
#include <string_view>

#include "kernel/printk/printk.h"

namespace uartvp::program {

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

} // namespace uartvp::program
