// SPDX-License-Identifier: Apache-2.0
#include <uartvp/serial_format.h>

#include <gtest/gtest.h>

using uartvp::parity_mode;
using uartvp::serial_format;

TEST(serial_format, parses_common_formats) {
    auto f = serial_format::parse("8N1");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->data_bits, 8u);
    EXPECT_EQ(f->parity, parity_mode::none);
    EXPECT_EQ(f->stop_bits, 1u);

    f = serial_format::parse("7E1");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->data_bits, 7u);
    EXPECT_EQ(f->parity, parity_mode::even);

    f = serial_format::parse("5O2");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->data_bits, 5u);
    EXPECT_EQ(f->parity, parity_mode::odd);
    EXPECT_EQ(f->stop_bits, 2u);

    EXPECT_EQ(serial_format::parse("6M1")->parity, parity_mode::mark);
    EXPECT_EQ(serial_format::parse("6S2")->parity, parity_mode::space);
}

TEST(serial_format, parity_letter_is_case_insensitive) {
    for (const char* s : {"8n1", "8e1", "8o1", "8m1", "8s1"}) {
        auto lower = serial_format::parse(s);
        std::string upper = s;
        upper[1] = static_cast<char>(std::toupper(upper[1]));
        ASSERT_TRUE(lower) << s;
        EXPECT_EQ(*lower, *serial_format::parse(upper)) << s;
    }
}

TEST(serial_format, rejects_everything_else) {
    for (const char* s : {"", "8N", "8N3", "8N0", "9N1", "4N1", "8X1", "8N1 ", " 8N1", "8-N-1", "N81", "88N1",
                          "8N1.5", "8n11", "abc"})
        EXPECT_FALSE(serial_format::parse(s)) << '"' << s << '"';
}

TEST(serial_format, name_round_trips_every_format) {
    const char letters[] = {'N', 'E', 'O', 'M', 'S'};
    for (unsigned d = 5; d <= 8; ++d)
        for (char p : letters)
            for (unsigned s = 1; s <= 2; ++s) {
                std::string name;
                name += static_cast<char>('0' + d);
                name += p;
                name += static_cast<char>('0' + s);
                auto f = serial_format::parse(name);
                ASSERT_TRUE(f) << name;
                EXPECT_EQ(f->name(), name);
                EXPECT_TRUE(f->valid());
            }
}

TEST(serial_format, default_is_8n1) {
    EXPECT_EQ(serial_format{}.name(), "8N1");
}

TEST(serial_format, bits_per_frame_counts_start_data_parity_stop) {
    EXPECT_EQ(serial_format::parse("8N1")->bits_per_frame(), 10u);
    EXPECT_EQ(serial_format::parse("7E1")->bits_per_frame(), 10u);
    EXPECT_EQ(serial_format::parse("8O2")->bits_per_frame(), 12u);
    EXPECT_EQ(serial_format::parse("5N1")->bits_per_frame(), 7u);
    EXPECT_EQ(serial_format::parse("5S2")->bits_per_frame(), 9u);
}

TEST(serial_format, even_and_odd_parity_complete_the_count_of_ones) {
    const auto even = *serial_format::parse("8E1");
    const auto odd = *serial_format::parse("8O1");
    EXPECT_EQ(even.parity_bit(0x00), 0);
    EXPECT_EQ(odd.parity_bit(0x00), 1);
    EXPECT_EQ(even.parity_bit(0x01), 1);
    EXPECT_EQ(odd.parity_bit(0x01), 0);
    EXPECT_EQ(even.parity_bit(0x03), 0);
    EXPECT_EQ(even.parity_bit(0xff), 0);
    EXPECT_EQ(even.parity_bit(0x7f), 1);
    for (unsigned v = 0; v < 256; ++v) {
        const unsigned ones = static_cast<unsigned>(__builtin_popcount(v));
        EXPECT_EQ((ones + even.parity_bit(static_cast<std::uint8_t>(v))) % 2, 0u) << v;
        EXPECT_EQ((ones + odd.parity_bit(static_cast<std::uint8_t>(v))) % 2, 1u) << v;
    }
}

TEST(serial_format, parity_covers_only_the_data_bits) {
    const auto even7 = *serial_format::parse("7E1");
    // Bit 7 is not sent with 7 data bits and must not count.
    EXPECT_EQ(even7.parity_bit(0x80), 0);
    EXPECT_EQ(even7.parity_bit(0x81), 1);
    const auto odd5 = *serial_format::parse("5O1");
    EXPECT_EQ(odd5.parity_bit(0xe0), 1);
    EXPECT_EQ(odd5.parity_bit(0x1f), 0);
}

TEST(serial_format, stick_parity_is_constant) {
    const auto mark = *serial_format::parse("8M1");
    const auto space = *serial_format::parse("8S1");
    const auto none = *serial_format::parse("8N1");
    for (unsigned v : {0x00u, 0x01u, 0x55u, 0xffu}) {
        EXPECT_EQ(mark.parity_bit(static_cast<std::uint8_t>(v)), 1);
        EXPECT_EQ(space.parity_bit(static_cast<std::uint8_t>(v)), 0);
        EXPECT_EQ(none.parity_bit(static_cast<std::uint8_t>(v)), 0);
    }
}

TEST(serial_format, bit_offsets_are_rounded_once_from_the_start) {
    // 115200 baud: 8680555.555... ps per bit.
    EXPECT_EQ(uartvp::bit_offset_ps(115200, 2), 8680556u);
    EXPECT_EQ(uartvp::bit_offset_ps(115200, 1), 4340278u);
    EXPECT_EQ(uartvp::bit_offset_ps(115200, 20), 86805556u);
    // 1,000,000 characters of 10 bits: no drift from summing rounded periods.
    EXPECT_EQ(uartvp::bit_offset_ps(115200, 2ull * 10 * 1000000), 86805555555556ull);
    EXPECT_EQ(uartvp::bit_offset_ps(9600, 2), 104166667u);
    // A non-integral baud rate goes through long double; still the nearest picosecond.
    EXPECT_EQ(uartvp::bit_offset_ps(115200 * 1.5, 2), 5787037u);
    EXPECT_EQ(uartvp::bit_offset_ps(3.0 / 7.0 * 1e6, 2), 2333333u);
}
