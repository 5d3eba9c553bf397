// SPDX-License-Identifier: Apache-2.0
#include <uartvp/scoreboard.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace uartvp {

namespace {
// Costs of the alignment, ten times those in the header. A run of k lost bytes costs
// min(100 k, 6000 + k): short runs cost enough that the alignment does not jump ahead to a repeat of the
// text (a log line often repeats a name a few dozen bytes later); long runs (a FIFO overrun) stay
// cheaper than calling the bytes after them wrong. Among explanations of equal cost the one that matches
// each byte earliest wins: it never runs ahead of the truth. Where most bytes are lost, a lost byte costs
// 10 whatever the run, so bursts such as 15 of every 16 dropped are all lost. A duplicate costs as much
// as a corruption, so one wrong byte equal to its predecessor stays one corrupted byte (not duplicated +
// lost); extra costs a hair more, so a last wrong byte is corrupted, not extra + lost.
constexpr std::int32_t cost_match = 0;
constexpr std::int32_t cost_lose_short = 100;
constexpr std::int32_t cost_lose_long_open = 6000;
constexpr std::int32_t cost_lose_long = 1;
constexpr std::int32_t cost_lose_sparse = 10;
constexpr std::int32_t cost_duplicate = 3000;
constexpr std::int32_t cost_corrupt = 3000;
constexpr std::int32_t cost_extra = 3020;
// A burst of loss: more than half of the observed bytes come right after lost ones (averaged over about
// the last 16 observed bytes, or within the window being aligned). One long run (an overrun) is not one.
constexpr double sparse_threshold = 0.5;
constexpr double run_rate_weight = 1.0 / 16;
constexpr std::int32_t inf = std::numeric_limits<std::int32_t>::max() / 4;
} // namespace

const char* to_string(difference_kind k) {
    switch (k) {
    case difference_kind::lost:
        return "lost";
    case difference_kind::duplicated:
        return "duplicated";
    case difference_kind::corrupted:
        return "corrupted";
    case difference_kind::extra:
        return "extra";
    }
    return "?";
}

scoreboard::scoreboard(std::size_t max_pending)
    : m_max_pending(std::max<std::size_t>(max_pending, 1)) {}

void scoreboard::set_data_bits(unsigned bits) {
    if (bits < 5 || bits > 8) throw std::invalid_argument("scoreboard: data bits must be 5..8");
    m_mask = static_cast<std::uint8_t>((1u << bits) - 1u);
}

void scoreboard::expect(std::string_view bytes) {
    // The limit applies to the bytes of earlier writes: this write's bytes all wait, however long it is
    // (a console write of a megabyte is still on its way, byte by byte, when it is handed over).
    trim();
    for (char c : bytes)
        m_expected.push_back(static_cast<std::uint8_t>(c));
}

void scoreboard::observe(std::uint8_t byte, sc_core::sc_time when) {
    const std::uint64_t index = m_observed_count++;
    m_last_time = when;
    if (m_window.empty() && !m_expected.empty() && same(byte, m_expected.front())) {
        m_expected.pop_front();
        ++m_expected_base;
        ++m_matched;
        note_observed();
        m_last_observed = byte;
        return;
    }
    m_window.push_back(observed{byte, index, when});
    if (m_window.size() >= window_size) resolve(false);
}

void scoreboard::finish() {
    finish(m_last_time);
}

void scoreboard::finish(sc_core::sc_time when) {
    if (!m_window.empty()) resolve(true);
    while (!m_expected.empty())
        lose_front(when);
}

bool scoreboard::clean() const {
    return m_lost == 0 && m_duplicated == 0 && m_corrupted == 0 && m_extra == 0 && m_window.empty();
}

void scoreboard::trim() {
    if (m_expected.size() <= m_max_pending) return;
    // Far more waiting than any UART holds: settle the window, then the oldest bytes are lost.
    if (!m_window.empty()) resolve(true);
    while (m_expected.size() > m_max_pending)
        lose_front(m_last_time);
}

void scoreboard::lose_front(sc_core::sc_time when) {
    const bool next_known = !m_window.empty();
    record(difference_kind::lost, m_expected_base, next_known ? m_window.front().index : m_observed_count,
           next_known ? m_window.front().when : when, m_expected.front(), -1);
    m_expected.pop_front();
    ++m_expected_base;
    m_after_loss = true;
}

void scoreboard::note_observed() {
    m_run_rate += ((m_after_loss ? 1.0 : 0.0) - m_run_rate) * run_rate_weight;
    m_after_loss = false;
}

void scoreboard::record(difference_kind k, std::uint64_t exp_idx, std::uint64_t obs_idx,
                        sc_core::sc_time when, int exp_byte, int obs_byte) {
    switch (k) {
    case difference_kind::lost:
        ++m_lost;
        break;
    case difference_kind::duplicated:
        ++m_duplicated;
        break;
    case difference_kind::corrupted:
        ++m_corrupted;
        break;
    case difference_kind::extra:
        ++m_extra;
        break;
    }
    if (!m_first) m_first = difference{k, exp_idx, obs_idx, when, exp_byte, obs_byte};
    if (m_on_difference) m_on_difference(difference{k, exp_idx, obs_idx, when, exp_byte, obs_byte});
}

void scoreboard::commit(op o) {
    if (o == op_lose) {
        lose_front(m_last_time);
        return;
    }
    const observed ob = m_window.front();
    m_window.pop_front();
    if (o == op_insert) {
        const bool dup = m_last_observed >= 0 && same(ob.byte, static_cast<std::uint8_t>(m_last_observed));
        record(dup ? difference_kind::duplicated : difference_kind::extra, m_expected_base, ob.index, ob.when,
               -1, ob.byte);
    } else {
        if (o == op_match)
            ++m_matched;
        else
            record(difference_kind::corrupted, m_expected_base, ob.index, ob.when, m_expected.front(),
                   ob.byte);
        m_expected.pop_front();
        ++m_expected_base;
    }
    note_observed();
    m_last_observed = ob.byte;
}

void scoreboard::resolve(bool all) {
    const bool sparse = m_run_rate > sparse_threshold;
    std::vector<op> ops = align(sparse);
    if (!sparse) {
        // A window whose bytes mostly come right after lost ones is in a burst of loss: align it as such.
        std::size_t runs = 0, observed = 0;
        for (std::size_t k = 0; k < ops.size(); ++k) {
            observed += ops[k] != op_lose;
            runs += ops[k] != op_lose && k > 0 && ops[k - 1] == op_lose;
        }
        if (static_cast<double>(runs) > sparse_threshold * static_cast<double>(observed)) ops = align(true);
    }
    const std::size_t half = all ? m_window.size() : m_window.size() / 2;
    std::size_t done = 0, k = 0;
    for (; k < ops.size() && done < half; ++k) {
        commit(ops[k]);
        if (ops[k] != op_lose) ++done;
    }
    // Matches right after the committed half agree with the fast path: take them too.
    for (; k < ops.size() && ops[k] == op_match; ++k)
        commit(ops[k]);
}

// Semi-global alignment of the whole window against a prefix of the waiting expected bytes. States: 0 the
// last step consumed an observed byte, 1 inside a short loss run, 2 inside a long loss run (a two-piece
// concave cost per run: min(short per byte, long open + long per byte)). Returns the steps in order.
std::vector<scoreboard::op> scoreboard::align(bool sparse) {
    // Where most bytes are lost, every byte lost costs the same (so bursts of loss never look cheaper
    // as corruption); elsewhere short runs cost more (see the costs above).
    const std::int32_t lose_short = sparse ? cost_lose_sparse : cost_lose_short;
    const std::size_t n = m_window.size();
    const std::size_t m = std::min(m_expected.size(), search_limit);
    const std::size_t w = m + 1;
    for (int s = 0; s < 3; ++s) {
        m_cost[s].assign((n + 1) * w, inf);
        m_back[s].assign((n + 1) * w, 0);
    }
    auto& c0 = m_cost[0];
    auto& c1 = m_cost[1];
    auto& c2 = m_cost[2];
    auto& b0 = m_back[0]; // step (low 2 bits) and the previous state (bits 2-3)
    auto& b1 = m_back[1]; // previous state
    auto& b2 = m_back[2]; // previous state
    // Cheapest state at a cell; on a tie a loss state, which puts the previous match earlier.
    auto best_state = [&](std::size_t at) {
        int s = c2[at] <= c1[at] ? 2 : 1;
        return m_cost[s][at] <= c0[at] ? s : 0;
    };
    c0[0] = 0;
    for (std::size_t i = 0; i <= n; ++i) {
        std::int32_t ins = 0;
        if (i > 0) {
            const std::uint8_t byte = m_window[i - 1].byte;
            const int prev = i >= 2 ? m_window[i - 2].byte : m_last_observed;
            ins = prev >= 0 && same(byte, static_cast<std::uint8_t>(prev)) ? cost_duplicate : cost_extra;
        }
        for (std::size_t j = 0; j <= m; ++j) {
            const std::size_t at = i * w + j;
            if (i > 0) {
                std::int32_t best = inf;
                std::uint8_t back = 0;
                if (j > 0) {
                    const std::size_t from = at - w - 1;
                    const int s = best_state(from);
                    const bool eq = same(m_window[i - 1].byte, m_expected[j - 1]);
                    best = m_cost[s][from] + (eq ? cost_match : cost_corrupt);
                    back = static_cast<std::uint8_t>((eq ? op_match : op_corrupt) | (s << 2));
                }
                const std::size_t from = at - w;
                const int s = best_state(from);
                if (m_cost[s][from] + ins < best) {
                    best = m_cost[s][from] + ins;
                    back = static_cast<std::uint8_t>(op_insert | (s << 2));
                }
                c0[at] = best;
                b0[at] = back;
            }
            if (j > 0) {
                const std::int32_t short_new = c0[at - 1] + lose_short;
                const std::int32_t short_more = c1[at - 1] + lose_short;
                c1[at] = std::min(short_new, short_more);
                b1[at] = short_more <= short_new ? 1 : 0;
                const std::int32_t long_new = c0[at - 1] + cost_lose_long_open + cost_lose_long;
                const std::int32_t long_more = c2[at - 1] + cost_lose_long;
                c2[at] = std::min(long_new, long_more);
                b2[at] = long_more <= long_new ? 2 : 0;
            }
        }
    }
    // Cheapest end; on a tie the one that consumed fewer expected bytes: lagging behind the truth never
    // leaves a later byte without its match, running ahead can.
    std::size_t j = 0;
    for (std::size_t k = 1; k <= m; ++k)
        if (c0[n * w + k] < c0[n * w + j]) j = k;
    std::vector<op> ops;
    std::size_t i = n;
    int s = 0;
    while (i > 0 || j > 0) {
        const std::size_t at = i * w + j;
        if (s != 0) {
            ops.push_back(op_lose);
            s = s == 1 ? b1[at] : b2[at];
            --j;
            continue;
        }
        const auto o = static_cast<op>(b0[at] & 3u);
        s = (b0[at] >> 2) & 3;
        ops.push_back(o);
        --i;
        if (o != op_insert) --j;
    }
    std::reverse(ops.begin(), ops.end());
    return ops;
}

std::string scoreboard::summary() const {
    std::string s;
    if (clean()) {
        s = "clean: " + std::to_string(m_matched) + " bytes matched";
    } else {
        s = "lost " + std::to_string(m_lost) + ", duplicated " + std::to_string(m_duplicated) +
            ", corrupted " + std::to_string(m_corrupted) + ", extra " + std::to_string(m_extra) +
            " (matched " + std::to_string(m_matched) + ")";
        if (!m_window.empty()) s += ", " + std::to_string(m_window.size()) + " unclassified";
    }
    if (m_first) {
        s += "; first: " + std::string(to_string(m_first->kind)) + " at expected #" +
             std::to_string(m_first->expected_index) + ", observed #" +
             std::to_string(m_first->observed_index) + ", " + m_first->when.to_string();
    }
    return s;
}

} // namespace uartvp
