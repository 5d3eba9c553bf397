// SPDX-License-Identifier: Apache-2.0
#pragma once
// The received side's scoreboard of tty-paste and hvc-paste: the reader's bytes against the paste.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#include <systemc>

#include <uartvp/cpu/core.h>
#include <uartvp/sw/tty/tty.h>

#include "scenarios/scenario.h"

namespace uartvp::program {

// The reader's bytes against the paste, in order: each received byte is matched to the next equal pasted
// byte; those skipped were lost. (The tty path loses only whole characters, to overrun, and a backend
// only the bytes its full buffer refuses: what the reader gets is the paste with gaps, a subsequence,
// and matching each byte to its earliest place counts the lost bytes exactly.) A byte found nowhere
// later is extra.
struct rx_check {
    const std::string* text = nullptr;
    std::size_t next = 0;
    std::uint64_t matched = 0, extra = 0;
    nlohmann::json first_difference; // the first gap: where, and when the byte after it came
    // Pasted bytes [from, to) lost, seen when the byte after them came (optional).
    std::function<void(std::size_t from, std::size_t to, const sc_core::sc_time& when)> on_gap;

    void observe(unsigned char b, const sc_core::sc_time& when) {
        const std::size_t at = text->find(static_cast<char>(b), next);
        if (at == std::string::npos) {
            ++extra;
            if (first_difference.is_null())
                first_difference = {{"kind", "extra"},
                                    {"expected_index", next},
                                    {"observed_index", matched + extra - 1},
                                    {"time_ns", to_ns(when)},
                                    {"expected_byte", -1},
                                    {"observed_byte", b}};
            return;
        }
        if (at > next && first_difference.is_null())
            first_difference = {{"kind", "lost"},
                                {"expected_index", next},
                                {"observed_index", matched + extra},
                                {"time_ns", to_ns(when)},
                                {"expected_byte", static_cast<unsigned char>((*text)[next])},
                                {"observed_byte", -1}};
        if (at > next && on_gap) on_gap(next, at, when);
        next = at + 1;
        ++matched;
    }
};

// A reader task's read(fd, buf, 4096) for ever: each read's bytes handed to `got` with the time it
// returned. A template, and the buffer on the task's stack: SystemC never unwinds a thread still
// suspended when the simulation ends, so nothing of it may live on the heap.
template <class fn_t> [[noreturn]] void read_tty_forever(sw::tty_struct& tty, fn_t&& got) {
    std::array<unsigned char, 4096> buf;
    for (;;) {
        const std::size_t n = sw::n_tty_read(tty, buf.data(), buf.size());
        cpu::core::current().sync();
        got(buf.data(), n, cpu::core::current().local_time());
    }
}

} // namespace uartvp::program
