// SPDX-License-Identifier: Apache-2.0
#include "workloads/bootlog.h"
#include <uartvp/scoreboard.h>

#include <gtest/gtest.h>

#include <string>

using sc_core::sc_time;
using sc_core::SC_US;
using uartvp::difference_kind;
using uartvp::scoreboard;

namespace {
// Time of the observed byte #i in these tests: 100 us per character.
sc_time at(std::uint64_t i) {
    return sc_time(100.0 * static_cast<double>(i + 1), SC_US);
}

// Observe `wire` in order, numbering the bytes from `first`.
void observe_all(scoreboard& sb, std::string_view wire, std::uint64_t first = 0) {
    for (std::size_t i = 0; i < wire.size(); ++i)
        sb.observe(static_cast<std::uint8_t>(wire[i]), at(first + i));
}

const std::string text =
    "[    0.123456] Serial: AMBA PL011 UART driver\n"
    "[    0.123999] 9000000.pl011: ttyAMA0 at MMIO 0x9000000 (irq = 13, base_baud = 0)\n";
} // namespace

TEST(scoreboard, identical_streams_are_clean) {
    scoreboard sb;
    sb.expect(text);
    observe_all(sb, text);
    EXPECT_TRUE(sb.clean());
    sb.finish();
    EXPECT_TRUE(sb.clean());
    EXPECT_EQ(sb.matched(), text.size());
    EXPECT_EQ(sb.expected_count(), text.size());
    EXPECT_EQ(sb.observed_count(), text.size());
    EXPECT_FALSE(sb.first_difference());
    EXPECT_EQ(sb.pending(), 0u);
}

TEST(scoreboard, bytes_still_in_flight_are_not_lost_before_finish) {
    scoreboard sb;
    sb.expect("hello");
    observe_all(sb, "hel");
    EXPECT_TRUE(sb.clean());
    EXPECT_EQ(sb.pending(), 2u);
    sb.finish(sc_time(1, sc_core::SC_MS));
    EXPECT_FALSE(sb.clean());
    EXPECT_EQ(sb.lost(), 2u);
    const auto d = sb.first_difference();
    ASSERT_TRUE(d);
    EXPECT_EQ(d->kind, difference_kind::lost);
    EXPECT_EQ(d->expected_index, 3u);
    EXPECT_EQ(d->observed_index, 3u);
    EXPECT_EQ(d->when, sc_time(1, sc_core::SC_MS));
    EXPECT_EQ(d->expected_byte, 'l');
}

TEST(scoreboard, tail_cut_by_a_reset_is_lost_at_finish_with_last_observation_time) {
    scoreboard sb;
    sb.expect(text);
    const std::size_t sent = text.size() - 16; // a 16-byte FIFO tail never left
    observe_all(sb, text.substr(0, sent));
    sb.finish();
    EXPECT_EQ(sb.lost(), 16u);
    EXPECT_EQ(sb.corrupted() + sb.extra() + sb.duplicated(), 0u);
    EXPECT_EQ(sb.first_difference()->expected_index, sent);
    EXPECT_EQ(sb.first_difference()->when, at(sent - 1));
}

TEST(scoreboard, one_dropped_byte_is_one_lost) {
    scoreboard sb;
    sb.expect(text);
    std::string wire = text;
    wire.erase(30, 1);
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.lost(), 1u);
    EXPECT_EQ(sb.duplicated() + sb.corrupted() + sb.extra(), 0u);
    EXPECT_EQ(sb.matched(), text.size() - 1);
    const auto d = sb.first_difference();
    ASSERT_TRUE(d);
    EXPECT_EQ(d->kind, difference_kind::lost);
    EXPECT_EQ(d->expected_index, 30u);
    EXPECT_EQ(d->observed_index, 30u); // where it should have appeared
    EXPECT_EQ(d->when, at(30));        // seen missing when the next byte came
    EXPECT_EQ(d->expected_byte, static_cast<unsigned char>(text[30]));
}

TEST(scoreboard, a_run_of_dropped_bytes_is_all_lost) {
    // A FIFO overrun: 40 bytes dropped in one go.
    scoreboard sb;
    sb.expect(text);
    std::string wire = text;
    wire.erase(50, 40);
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.lost(), 40u);
    EXPECT_EQ(sb.duplicated() + sb.corrupted() + sb.extra(), 0u);
    EXPECT_EQ(sb.first_difference()->expected_index, 50u);
}

TEST(scoreboard, an_overrun_of_hundreds_of_bytes_is_all_lost) {
    // Long runs lost every few KB of a boot log (text that repeats itself line after line).
    const auto lines = uartvp::sw::generate_boot_log(60000, 6);
    std::string exp;
    for (const auto& l : lines)
        exp += l;
    std::string wire;
    std::vector<std::size_t> source; // index in exp of each wire byte
    std::uint64_t lost = 0;
    for (std::size_t i = 0; i < exp.size(); ++i) {
        if (i % 7000 >= 3000 && i % 7000 < 3000 + 700 + i / 7000 * 50) {
            ++lost;
            continue;
        }
        wire += exp[i];
        source.push_back(i);
    }
    scoreboard sb;
    std::size_t e = 0;
    for (std::size_t o = 0; o < wire.size(); ++o) {
        // The software stays about 1.5 KB ahead of the wire.
        const std::size_t upto = std::min(exp.size(), source[o] + 1500);
        if (upto > e) {
            sb.expect(std::string_view(exp).substr(e, upto - e));
            e = upto;
        }
        sb.observe(static_cast<std::uint8_t>(wire[o]), at(o));
    }
    sb.expect(exp.substr(e));
    sb.finish();
    EXPECT_EQ(sb.lost(), lost);
    EXPECT_EQ(sb.duplicated() + sb.corrupted() + sb.extra(), 0u) << sb.summary();
    // Where the streams first differ (3000, or later if the run starts with a repeat of what follows it).
    const std::size_t first = sb.first_difference()->expected_index;
    EXPECT_GE(first, 3000u);
    EXPECT_EQ(exp.compare(0, first, wire, 0, first), 0);
    EXPECT_NE(exp[first], wire[first]);
}

TEST(scoreboard, a_repeated_byte_is_one_duplicated) {
    scoreboard sb;
    sb.expect(text);
    std::string wire = text;
    wire.insert(41, 1, wire[40]);
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.duplicated(), 1u);
    EXPECT_EQ(sb.lost() + sb.corrupted() + sb.extra(), 0u);
    const auto d = sb.first_difference();
    ASSERT_TRUE(d);
    EXPECT_EQ(d->kind, difference_kind::duplicated);
    EXPECT_EQ(d->observed_index, 41u);
    EXPECT_EQ(d->expected_index, 41u);
    EXPECT_EQ(d->when, at(41));
    EXPECT_EQ(d->observed_byte, static_cast<unsigned char>(text[40]));
}

TEST(scoreboard, a_flipped_bit_is_one_corrupted) {
    scoreboard sb;
    sb.expect(text);
    std::string wire = text;
    wire[60] = static_cast<char>(wire[60] ^ 0x04);
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.corrupted(), 1u);
    EXPECT_EQ(sb.lost() + sb.duplicated() + sb.extra(), 0u);
    const auto d = sb.first_difference();
    ASSERT_TRUE(d);
    EXPECT_EQ(d->kind, difference_kind::corrupted);
    EXPECT_EQ(d->expected_index, 60u);
    EXPECT_EQ(d->observed_index, 60u);
    EXPECT_EQ(d->when, at(60));
    EXPECT_EQ(d->expected_byte, static_cast<unsigned char>(text[60]));
    EXPECT_EQ(d->observed_byte, static_cast<unsigned char>(wire[60]));
}

TEST(scoreboard, a_corrupted_byte_equal_to_a_later_one_is_still_corrupted) {
    // 'A' -> 'L' where an 'L' follows 6 bytes later: not 6 lost and then a mess.
    scoreboard sb;
    const std::string exp = "Serial: AMBA PL011 UART driver\n";
    sb.expect(exp);
    std::string wire = exp;
    ASSERT_EQ(wire[8], 'A');
    wire[8] = 'L';
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.corrupted(), 1u);
    EXPECT_EQ(sb.lost() + sb.duplicated() + sb.extra(), 0u);
    EXPECT_EQ(sb.first_difference()->expected_index, 8u);
}

TEST(scoreboard, the_last_byte_corrupted_is_corrupted_not_extra_and_lost) {
    scoreboard sb;
    sb.expect("abc\n");
    observe_all(sb, "abc\x0b");
    sb.finish();
    EXPECT_EQ(sb.corrupted(), 1u);
    EXPECT_EQ(sb.lost() + sb.extra(), 0u);
}

TEST(scoreboard, unexpected_bytes_are_extra) {
    scoreboard sb;
    sb.expect(text);
    std::string wire = text;
    wire.insert(20, "\xff\xfe");
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.extra(), 2u);
    EXPECT_EQ(sb.lost() + sb.duplicated() + sb.corrupted(), 0u);
    const auto d = sb.first_difference();
    EXPECT_EQ(d->kind, difference_kind::extra);
    EXPECT_EQ(d->observed_index, 20u);
    EXPECT_EQ(d->expected_index, 20u);
    EXPECT_EQ(d->when, at(20));
}

TEST(scoreboard, bytes_when_nothing_was_expected_are_extra) {
    scoreboard sb;
    observe_all(sb, "xy");
    EXPECT_FALSE(sb.clean()); // not yet classified, but already a difference
    sb.finish();
    EXPECT_EQ(sb.extra(), 2u);
    EXPECT_EQ(sb.first_difference()->expected_index, 0u);
    EXPECT_EQ(sb.first_difference()->observed_index, 0u);
}

TEST(scoreboard, first_difference_is_the_earliest_of_several) {
    scoreboard sb;
    sb.expect(text);
    std::string wire = text;
    wire[70] = '#';      // corrupted later
    wire.erase(25, 1);   // lost first
    wire.insert(5, "!"); // extra first of all
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.extra(), 1u);
    EXPECT_EQ(sb.lost(), 1u);
    EXPECT_EQ(sb.corrupted(), 1u);
    const auto d = sb.first_difference();
    EXPECT_EQ(d->kind, difference_kind::extra);
    EXPECT_EQ(d->observed_index, 5u);
}

TEST(scoreboard, with_7_data_bits_only_the_low_bits_are_compared) {
    scoreboard sb;
    sb.set_data_bits(7);
    sb.expect("h\xe9llo"); // 0xe9 goes out as 0x69 on a 7-bit line
    observe_all(sb, "h\x69llo");
    sb.finish();
    EXPECT_TRUE(sb.clean()) << sb.summary();

    scoreboard sb8; // the same bytes at 8 data bits differ
    sb8.expect("h\xe9llo");
    observe_all(sb8, "h\x69llo");
    sb8.finish();
    EXPECT_EQ(sb8.corrupted(), 1u);
}

TEST(scoreboard, with_5_data_bits_a_difference_in_the_low_bits_still_counts) {
    scoreboard sb;
    sb.set_data_bits(5);
    sb.expect("ABCDEFGH");
    std::string wire;
    for (char c : std::string("ABCDEFGH"))
        wire += static_cast<char>(c & 0x1f);
    wire[3] = static_cast<char>(wire[3] ^ 0x10); // bit 4 is on the wire
    observe_all(sb, wire);
    sb.finish();
    EXPECT_EQ(sb.corrupted(), 1u);
    EXPECT_EQ(sb.lost() + sb.extra() + sb.duplicated(), 0u);
    EXPECT_THROW(sb.set_data_bits(4), std::invalid_argument);
}

TEST(scoreboard, fifteen_of_every_sixteen_dropped_counts_them_all_lost) {
    // Bursts of 16 written into a 1-byte holding register: only the first of each burst reaches the wire.
    const auto lines = uartvp::sw::generate_boot_log(20000, 9);
    scoreboard sb;
    std::string all;
    for (const auto& l : lines)
        all += l;
    std::uint64_t observed = 0;
    for (std::size_t b = 0; b < all.size(); b += 16) {
        sb.expect(std::string_view(all).substr(b, 16));
        sb.observe(static_cast<std::uint8_t>(all[b]), at(observed++));
    }
    sb.finish();
    const std::uint64_t bursts = (all.size() + 15) / 16;
    EXPECT_EQ(sb.matched(), bursts);
    EXPECT_EQ(sb.lost(), all.size() - bursts);
    EXPECT_EQ(sb.corrupted() + sb.extra() + sb.duplicated(), 0u) << sb.summary();
    EXPECT_EQ(sb.first_difference()->expected_index, 1u);
    EXPECT_EQ(sb.first_difference()->observed_index, 1u);
    EXPECT_LE(sb.pending(), 0u);
}

TEST(scoreboard, first_and_last_of_each_burst_surviving_counts_fourteen_lost) {
    // The same bug with a transmit shift register: the first byte of a burst goes straight to the shift
    // register, the last one stays in THR, the 14 between are overwritten ("[0I 15" on the console).
    const std::string line = "[    6.443501] Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled\n";
    std::string all;
    for (int i = 0; i < 200; ++i)
        all += line;
    all.resize(all.size() / 16 * 16);
    scoreboard sb;
    std::uint64_t observed = 0;
    for (std::size_t b = 0; b < all.size(); b += 16) {
        sb.expect(std::string_view(all).substr(b, 16));
        sb.observe(static_cast<std::uint8_t>(all[b]), at(observed++));
        sb.observe(static_cast<std::uint8_t>(all[b + 15]), at(observed++));
    }
    sb.finish();
    EXPECT_EQ(sb.matched(), all.size() / 8);
    EXPECT_EQ(sb.lost(), all.size() / 16 * 14);
    EXPECT_EQ(sb.corrupted() + sb.extra() + sb.duplicated(), 0u) << sb.summary();
}

TEST(scoreboard, a_clean_megabyte_stays_clean_in_bounded_memory) {
    const auto lines = uartvp::sw::generate_boot_log(1u << 20, 1);
    scoreboard sb;
    std::uint64_t observed = 0;
    std::size_t max_pending = 0;
    // The UART lags the software by up to a 32-byte FIFO.
    std::string in_flight;
    for (const auto& l : lines) {
        sb.expect(l);
        in_flight += l;
        while (in_flight.size() > 32) {
            sb.observe(static_cast<std::uint8_t>(in_flight.front()), at(observed++));
            in_flight.erase(0, 1);
        }
        max_pending = std::max(max_pending, sb.pending());
    }
    observe_all(sb, in_flight, observed);
    sb.finish();
    EXPECT_TRUE(sb.clean()) << sb.summary();
    EXPECT_EQ(sb.matched(), 1u << 20);
    EXPECT_LE(max_pending, 32u + 200u); // the FIFO plus one line
    EXPECT_EQ(sb.pending(), 0u);
}

TEST(scoreboard, a_dead_uart_does_not_grow_memory_beyond_max_pending) {
    scoreboard sb(1000);
    const std::string chunk(100, 'x');
    for (int i = 0; i < 10000; ++i) { // 1 MB expected, nothing observed
        sb.expect(chunk);
        ASSERT_LE(sb.pending(), 1000u + chunk.size()) << "the limit and the latest write";
    }
    EXPECT_EQ(sb.lost(), 1000000u - 1000u - chunk.size());
    sb.finish();
    EXPECT_EQ(sb.lost(), 1000000u);
    EXPECT_EQ(sb.first_difference()->expected_index, 0u);
}

TEST(scoreboard, errors_in_a_long_stream_are_each_counted_once) {
    // A 200 KB boot log with one fault of each kind every 10 KB.
    const auto lines = uartvp::sw::generate_boot_log(200000, 4);
    std::string exp;
    for (const auto& l : lines)
        exp += l;
    std::string wire;
    std::uint64_t lost = 0, dup = 0, bad = 0;
    for (std::size_t i = 0; i < exp.size(); ++i) {
        const std::size_t k = i % 10000;
        if (k == 1000) {
            ++lost;
            continue;
        }
        if (k == 3000) {
            wire += static_cast<char>(exp[i] ^ 0x20);
            ++bad;
            continue;
        }
        wire += exp[i];
        if (k == 6000) {
            wire += exp[i];
            ++dup;
        }
    }
    scoreboard sb;
    std::size_t o = 0, max_pending = 0;
    for (std::size_t i = 0; i < exp.size(); i += 64) {
        sb.expect(std::string_view(exp).substr(i, 64));
        // Observe what the wire holds up to roughly this point, lagging by a few bytes.
        for (; o + 16 < std::min(wire.size(), i); ++o)
            sb.observe(static_cast<std::uint8_t>(wire[o]), at(o));
        max_pending = std::max(max_pending, sb.pending());
    }
    for (; o < wire.size(); ++o)
        sb.observe(static_cast<std::uint8_t>(wire[o]), at(o));
    sb.finish();
    EXPECT_EQ(sb.lost(), lost);
    EXPECT_EQ(sb.corrupted(), bad);
    EXPECT_EQ(sb.duplicated(), dup);
    EXPECT_EQ(sb.extra(), 0u);
    EXPECT_LE(max_pending, 200u);
    // Byte 1000 was dropped; inside a run of equal bytes the streams first differ at the run's end.
    const std::size_t first = sb.first_difference()->expected_index;
    EXPECT_GE(first, 1000u);
    EXPECT_EQ(exp.compare(0, first, wire, 0, first), 0);
    EXPECT_NE(exp[first], wire[first]);
    EXPECT_EQ(sb.first_difference()->observed_index, first);
}

// A console write longer than max_pending is handed over whole before its first byte reaches the wire:
// none of it is lost, nor the tail of the write before it, still in the FIFO.
TEST(scoreboard, a_write_longer_than_max_pending_waits_whole) {
    for (std::size_t len : {std::size_t{4097}, std::size_t{4096} * 3, std::size_t{1} << 20}) {
        scoreboard sb; // max_pending 4096
        std::string big(len, 'a');
        for (std::size_t i = 0; i < len; ++i)
            big[i] = static_cast<char>('!' + (i * 7 + i / 94) % 94);
        big.back() = '\n';
        const std::string before = "[    0.000000] the line before\n", after = "[    0.000001] after\n";
        std::string wire;
        std::uint64_t o = 0;
        auto drain_to = [&](std::size_t keep) { // the UART holds `keep` bytes
            for (; o + keep < wire.size(); ++o)
                sb.observe(static_cast<std::uint8_t>(wire[o]), at(o));
        };
        sb.expect(before);
        wire += before;
        drain_to(20); // 20 bytes of the line before are still in the FIFO
        sb.expect(big);
        wire += big;
        drain_to(32);
        sb.expect(after);
        wire += after;
        drain_to(0);
        sb.finish();
        EXPECT_TRUE(sb.clean()) << len << ": " << sb.summary();
        EXPECT_EQ(sb.matched(), before.size() + len + after.size());
        EXPECT_EQ(sb.pending(), 0u);
    }
}
