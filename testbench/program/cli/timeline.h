// SPDX-License-Identifier: Apache-2.0
#pragma once
// The timeline of one run (--trace FILE.json) in the Trace Event Format that Perfetto, chrome://tracing
// and speedscope open: one process, a track per core (thread `cpuN`) with complete events (`ph` X) for
// the tasks by name, hard-IRQ handlers ("irq NAME", "IPI", "tick", ...), one `irqs off` event per
// IRQs-off window, polling spans with the reads each stood for, the console's records as spans with
// their text (tty-paste: its reads and writes as instants); counters (`ph` C) for the FIFO levels;
// instant events for lost and corrupted bytes. Events are written as they end (the format does not ask
// for order) under a temporary name, put in place with the run's other outputs (outputs::commit()).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <systemc>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/scoreboard.h>
#include <uartvp/trace_event_writer.h>

#include "cli/waves.h"

namespace uartvp::program {

class timeline : public sc_core::sc_module, public cpu::core_observer {
public:
    // `title` names the process (scenario, variant, profile). Throws std::runtime_error if `path`
    // cannot be written.
    timeline(const sc_core::sc_module_name& name, const std::string& path, const std::string& title);
    ~timeline() override;

    // A track per core of the machine; `names` gives the polled registers' names.
    void watch(cpu::machine& m, const register_names& names);
    // A counter track of a FIFO level ("uart0 tx_fifo_level").
    void counter(const sc_core::sc_signal_in_if<unsigned>& s, const std::string& name);
    // Instants for the scoreboard's lost and corrupted bytes (and duplicated, extra), under `side`.
    void watch(scoreboard& sb, const std::string& side);
    // A console record (or write) handed over on core `c` from `start` to `end` (the core's time).
    void console_write(const cpu::core& c, const sc_core::sc_time& start, const sc_core::sc_time& end,
                       std::string_view text);
    // An instant on core `c`'s track with a text (tty-paste's reads and writes).
    void text_instant(const cpu::core& c, const std::string& name, const sc_core::sc_time& at,
                      std::string_view text);

    // A track of its own (a core the stub does not run: the aarch64 core), thread `tid` named `name`.
    void track(unsigned tid, const std::string& name);
    // Spans on track `tid` while `s` is high, named `name` (a span still open ends at finish()).
    void spans(const sc_core::sc_signal_in_if<bool>& s, unsigned tid, const std::string& name,
               const std::string& cat);

    // Ends the tasks' spans, closes the file; throws std::runtime_error if a write failed.
    void finish();
    const std::string& path() const { return m_path; }

    // core_observer
    void task_span(const cpu::core& c, const cpu::task_stats& t, const sc_core::sc_time& start,
                   const sc_core::sc_time& end) override;
    void irqs_off_span(const cpu::core& c, const sc_core::sc_time& start,
                       const sc_core::sc_time& end) override;
    void hardirq_span(const cpu::core& c, const std::string& what, const sc_core::sc_time& start,
                      const sc_core::sc_time& end) override;
    void poll_span(const cpu::core& c, std::uint64_t addr, const sc_core::sc_time& start,
                   const sc_core::sc_time& end, std::uint64_t reads) override;

private:
    std::string m_path, m_tmp;
    std::unique_ptr<trace_event_writer> m_out;
    bool m_done = false;
    cpu::machine* m_machine = nullptr;
    register_names m_names;
    std::uint64_t m_io_base = 0;
    struct open_span {
        const sc_core::sc_signal_in_if<bool>* s;
        unsigned tid;
        std::string name, cat;
        bool open = false;
        sc_core::sc_time since;
    };
    std::vector<std::unique_ptr<open_span>> m_spans;
};

struct run_request;
// The run's timeline if it asked for one (--trace), else null.
std::unique_ptr<timeline> make_timeline(const run_request& rq);

// Checks that --trace FILE can be written; a one-line reason if not.
std::string trace_path_problem(const std::string& path);

} // namespace uartvp::program
