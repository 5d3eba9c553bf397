// SPDX-License-Identifier: Apache-2.0
#pragma once
// A timeline file in the Trace Event Format (its JSON object form), which Perfetto, chrome://tracing and
// speedscope open: one process (pid 1), threads by number, complete events (`ph` X), counters (C),
// instants (i) and metadata (M). Events are written as they come (the format asks for no order).
// Timestamps are in microseconds as exact multiples of 2^-20 us (0.95 ps): a viewer that adds a span's
// dur to its ts in floating point gets the next span's ts exactly, up to 2^33 us (2.4 hours).
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <systemc>

namespace uartvp {

class trace_event_writer {
public:
    // Opens `path` and writes the header and the process's name. Throws std::runtime_error if the
    // file cannot be opened.
    trace_event_writer(const std::string& path, const std::string& process_name);
    ~trace_event_writer();
    trace_event_writer(const trace_event_writer&) = delete;
    trace_event_writer& operator=(const trace_event_writer&) = delete;

    // A thread's name and its place among the threads (metadata events).
    void thread(unsigned tid, const std::string& name, unsigned sort_index);
    // A span from `start` to `end` on thread `tid`; `args`: a JSON object, or empty for none.
    void complete(unsigned tid, std::string_view name, std::string_view cat, const sc_core::sc_time& start,
                  const sc_core::sc_time& end, const std::string& args = "");
    // A counter's values at `at` (`args`: a JSON object of series and values).
    void counter(std::string_view name, const sc_core::sc_time& at, const std::string& args);
    // An instant on thread `tid` (`scope` 't') or across the process (`scope` 'g', shown on tid 0).
    void instant(char scope, unsigned tid, std::string_view name, std::string_view cat,
                 const sc_core::sc_time& at, const std::string& args);
    // One event object, without its braces.
    void event(const std::string& body);

    // Ends the event list and closes the file; false if any write failed.
    bool close();

    // A JSON string (invalid UTF-8 replaced, not refused).
    static std::string json_string(std::string_view s);
    // A time as the file writes it: microseconds, exactly, in the units above.
    std::string time(const sc_core::sc_time& t) const;

private:
    std::uint64_t steps(const sc_core::sc_time& t) const;
    std::string time(std::uint64_t steps) const;
    std::FILE* m_out = nullptr;
    bool m_first = true, m_ok = true;
    std::uint64_t m_units_per_us = 1;
};

} // namespace uartvp
