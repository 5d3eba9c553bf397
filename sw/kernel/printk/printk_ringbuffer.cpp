// SPDX-License-Identifier: Apache-2.0
// The ring buffer (kernel/printk/printk_ringbuffer.c as far as the model needs it: records in order,
// the oldest overwritten when full) and the text a record prints as.
#include "kernel/printk/printk.h"

#include <cstdio>

namespace uartvp::sw {

// ---- the ring buffer

std::uint64_t printk_ringbuffer::reserve(printk_info info) {
    if (info.text.size() > m_record_max) info.text.resize(m_record_max);
    info.seq = next_reserve_seq();
    const std::size_t need = info.text.size() + block_header;
    // The data area is a ring: the oldest committed records make room (their descriptors become
    // invalid); a record still reserved is not taken.
    while (!m_records.empty() && m_committed.front() && m_used + need > m_len) {
        m_used -= m_records.front().text.size() + block_header;
        m_records.pop_front();
        m_committed.pop_front();
        ++m_first;
    }
    m_committed_to = std::max(m_committed_to, m_first);
    m_used += need;
    m_records.push_back(std::move(info));
    m_committed.push_back(false);
    return m_records.back().seq;
}

void printk_ringbuffer::commit(std::uint64_t seq) {
    if (seq < m_first || seq >= next_reserve_seq()) return;
    m_committed[static_cast<std::size_t>(seq - m_first)] = true;
    while (m_committed_to < next_reserve_seq() &&
           m_committed[static_cast<std::size_t>(m_committed_to - m_first)])
        ++m_committed_to;
}

bool printk_ringbuffer::read_valid(std::uint64_t seq, printk_info* out) const {
    if (seq < m_first) seq = m_first;
    if (seq >= next_reserve_seq() || !m_committed[static_cast<std::size_t>(seq - m_first)]) return false;
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
