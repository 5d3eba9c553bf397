// SPDX-License-Identifier: Apache-2.0
// The ring buffer (kernel/printk/printk_ringbuffer.c as far as the model needs it: records in order,
// the oldest overwritten when full) and the text a record prints as.
#include "kernel/printk/printk.h"

#include <cstdio>

namespace uartvp::sw {

// ---- the ring buffer

std::uint64_t printk_ringbuffer::store(printk_info info) {
    if (info.text.size() > m_record_max) info.text.resize(m_record_max);
    info.seq = next_seq();
    const std::size_t need = info.text.size() + block_header;
    // The data area is a ring: the oldest records make room (their descriptors become invalid).
    while (!m_records.empty() && m_used + need > m_len) {
        m_used -= m_records.front().text.size() + block_header;
        m_records.pop_front();
        ++m_first;
    }
    m_used += need;
    m_records.push_back(std::move(info));
    return m_records.back().seq;
}

bool printk_ringbuffer::read_valid(std::uint64_t seq, printk_info* out) const {
    if (seq < m_first) seq = m_first;
    if (seq >= next_seq()) return false;
    if (out) *out = m_records[static_cast<std::size_t>(seq - m_first)];
    return true;
}

std::string print_time(std::uint64_t ts_nsec) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "[%5lu.%06lu] ", static_cast<unsigned long>(ts_nsec / 1000000000ull),
                  static_cast<unsigned long>(ts_nsec % 1000000000ull / 1000));
    return buf;
}

std::string record_print_text(const printk_info& r, bool time) {
    const std::string prefix = time ? print_time(r.ts_nsec) : std::string();
    std::string out;
    std::size_t from = 0;
    for (;;) {
        const std::size_t nl = r.text.find('\n', from);
        out += prefix;
        out.append(r.text, from, nl == std::string::npos ? std::string::npos : nl - from);
        out += '\n';
        if (nl == std::string::npos) break;
        from = nl + 1;
    }
    return out;
}

std::string dropped_marker(std::uint64_t n) {
    return "** " + std::to_string(n) + " printk messages dropped **\n";
}
const char* const replay_marker = "** replaying previous printk message **\n";

} // namespace uartvp::sw
