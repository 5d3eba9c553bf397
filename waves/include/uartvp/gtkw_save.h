// SPDX-License-Identifier: Apache-2.0
#pragma once
// A GTKWave save file (.gtkw): the dump it opens, the window's zoom, and the signals in groups, each
// with its display format; values may be shown through a translate filter file (value -> name), which
// write_translate_filter() writes. Knows nothing of what the signals are.
#include <string>
#include <utility>
#include <vector>

namespace uartvp {

class gtkw_save {
public:
    // Display formats (GTKWave's trace flags, analyzer.h): right-justified binary, hex, decimal, an
    // analog step trace.
    enum class format { bit, hex, dec, analog };

    // A group (collapsible, in GTKWave's signal list) around the signals added until end_group();
    // groups nest.
    void begin_group(const std::string& name);
    void end_group();
    // A signal by its full name in the dump, a vector with its range (`uart0.tx_fifo_level[31:0]`).
    void signal(format f, const std::string& name);
    // A signal shown through translate filter number `filter` (1, 2, ...), the file at `filter_path`
    // (absolute: the save file opens from anywhere); `f` is hex or dec.
    void translated(format f, int filter, const std::string& filter_path, const std::string& name);

    // Writes the file: `dumpfile` and `savefile` by absolute path (GTKWave falls back to the dump's
    // path relative to the save file when both have moved), zoomed to show `window_ps` of simulated
    // time across the window. False if the write failed.
    bool write(const std::string& path, const std::string& dumpfile, const std::string& savefile,
               double window_ps) const;

private:
    void add(const char* flags, const std::string& row);
    std::vector<std::string> m_rows;
    std::vector<std::string> m_open; // the groups begun and not yet ended, innermost last
};

// A translate filter file: one line per entry, "VALUE NAME", VALUE as GTKWave shows the signal
// (decimal, or hex with every digit of the vector's width). False if the write failed.
bool write_translate_filter(const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& entries);

} // namespace uartvp
