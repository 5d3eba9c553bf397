// SPDX-License-Identifier: Apache-2.0
#pragma once
// Compares what the software meant to print (expect) with the bytes decoded from the wire (observe).
//
// Algorithm: expected bytes wait in a FIFO until observed. An observed byte equal to the oldest waiting
// byte is matched at once (the clean fast path, O(1)). After a mismatch, observed bytes collect in a
// resync window of 32; when it is full (or at finish()) the window is aligned (dynamic programming)
// against the oldest waiting bytes (at most 2048), cheapest explanation first: match 0, a run of k lost
// bytes min(10k, 600 + 0.1k), duplicated (an extra byte equal to the previous observed one) 300, corrupted
// 300, extra 302; waiting bytes after the window's last match cost nothing (still in flight); ties go to
// the earliest matches, which never run ahead of the truth. In a burst of loss (most observed bytes come
// right after lost ones) a lost byte costs 1 whatever the run: 15 of every 16 dropped is then all lost.
// The first half of the window (and the matches right after it) is committed; the rest waits for more.
// Limits: a difference is classified up to 31 observed bytes late (finish() settles everything); a
// corrupted or duplicated byte whose neighbourhood repeats within 30 bytes may show as lost + extra
// instead; in a run of equal bytes the loss or duplicate is reported at the run's end (where the streams
// first differ); reordering shows as lost + extra; when a write is handed over while more than
// max_pending (default 4096) bytes of earlier writes still wait, the oldest of them count as lost (a dead
// UART); the bytes of the latest write all wait, however long it is. Memory: at most max_pending expected
// bytes plus the latest write plus the window, however long the run.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <systemc>
#include <vector>

namespace uartvp {

enum class difference_kind { lost, duplicated, corrupted, extra };
const char* to_string(difference_kind k);

struct difference {
    difference_kind kind;
    // lost, corrupted: index of the byte in the expected stream; duplicated, extra: index of the next
    // expected byte (where the unexpected byte was inserted).
    std::uint64_t expected_index;
    // duplicated, corrupted, extra: index of the byte in the observed stream; lost: index of the next
    // observed byte (the observed count if none came).
    std::uint64_t observed_index;
    // When the difference showed on the wire: the observed byte's time; for a lost byte, the time of the
    // next observed byte (or the time given to finish()).
    sc_core::sc_time when;
    int expected_byte; // -1 for duplicated and extra
    int observed_byte; // -1 for lost
};

class scoreboard {
public:
    explicit scoreboard(std::size_t max_pending = 4096);

    // Append to the expected stream (as the software hands bytes to the UART): one console write.
    void expect(std::string_view bytes);
    // The next byte decoded from the wire.
    void observe(std::uint8_t byte, sc_core::sc_time when);
    // With 5..7 data bits only the low bits are compared (8 by default).
    void set_data_bits(unsigned bits);
    // End of the run: settle the window; whatever is still expected and not observed is lost.
    // Lost bytes found here get time `when` (default: the last observation's time).
    void finish();
    void finish(sc_core::sc_time when);

    std::uint64_t lost() const { return m_lost; }
    std::uint64_t duplicated() const { return m_duplicated; }
    std::uint64_t corrupted() const { return m_corrupted; }
    std::uint64_t extra() const { return m_extra; }
    std::uint64_t matched() const { return m_matched; }
    std::uint64_t expected_count() const { return m_expected_base + m_expected.size(); }
    std::uint64_t observed_count() const { return m_observed_count; }

    // No difference so far and none waiting to be classified. Before finish() expected bytes that were not
    // observed yet are not differences (they may still be in flight).
    bool clean() const;
    std::optional<difference> first_difference() const { return m_first; }
    // Called with every difference as it is classified (up to 31 observed bytes late; at finish()).
    void on_difference(std::function<void(const difference&)> fn) { m_on_difference = std::move(fn); }
    // Bytes held in memory: expected bytes not observed yet plus unresolved observed bytes.
    std::size_t pending() const { return m_expected.size() + m_window.size(); }
    // One-line summary, e.g. "clean: 1000 bytes" or "lost 3, ... first: lost at expected #12 ...".
    std::string summary() const;

    static constexpr std::size_t window_size = 32;
    static constexpr std::size_t search_limit = 2048;

private:
    struct observed {
        std::uint8_t byte;
        std::uint64_t index;
        sc_core::sc_time when;
    };
    enum op : std::uint8_t { op_match, op_corrupt, op_insert, op_lose };

    bool same(std::uint8_t a, std::uint8_t b) const { return ((a ^ b) & m_mask) == 0; }
    void resolve(bool all);
    std::vector<op> align(bool sparse);
    void commit(op o);
    void record(difference_kind k, std::uint64_t exp_idx, std::uint64_t obs_idx, sc_core::sc_time when,
                int exp_byte, int obs_byte);
    void trim();
    void lose_front(sc_core::sc_time when);
    void note_observed();

    std::size_t m_max_pending;
    std::uint8_t m_mask = 0xff;
    std::deque<std::uint8_t> m_expected; // expected, not observed yet
    std::uint64_t m_expected_base = 0;   // stream index of m_expected.front()
    std::deque<observed> m_window;       // observed, not classified yet
    std::uint64_t m_observed_count = 0;
    int m_last_observed = -1;  // last classified observed byte (for duplicates)
    double m_run_rate = 0;     // moving share of observed bytes that came right after lost ones
    bool m_after_loss = false; // a byte was lost since the last observed byte was classified
    sc_core::sc_time m_last_time;
    std::uint64_t m_lost = 0, m_duplicated = 0, m_corrupted = 0, m_extra = 0, m_matched = 0;
    std::optional<difference> m_first;
    std::function<void(const difference&)> m_on_difference;
    // Alignment scratch, reused between calls.
    std::vector<std::int32_t> m_cost[3];
    std::vector<std::uint8_t> m_back[3];
};

} // namespace uartvp
