// SPDX-License-Identifier: Apache-2.0
// The drivers' divisor arithmetic for a rate, against figures worked out by hand and the profiles'
// documented ones: the PL011's IBRD/FBRD, the 8250's uart_get_divisor, the mini UART's AUX_MU_BAUD.
#include <gtest/gtest.h>

#include <uartvp/sw/pl011.h>
#include <uartvp/sw/serial/serial_core.h>
#include <uartvp/sw/serial8250.h>

using namespace uartvp::sw;

TEST(Divisors, Pl011IbrdFbrdRoundToTheNearestSixtyFourth) {
    std::uint32_t ibrd = 0, fbrd = 0;
    pl011_baud_divisor(24'000'000, 115200, ibrd, fbrd); // 13.0208: 13 + 1/64 (13.015625)
    EXPECT_EQ(ibrd, 13u);
    EXPECT_EQ(fbrd, 1u);
    pl011_baud_divisor(7'372'800, 115200, ibrd, fbrd); // exactly 4
    EXPECT_EQ(ibrd, 4u);
    EXPECT_EQ(fbrd, 0u);
    pl011_baud_divisor(24'000'000, 57600, ibrd, fbrd); // 26.0417: 26 + 3/64 (26.046875)
    EXPECT_EQ(ibrd, 26u);
    EXPECT_EQ(fbrd, 3u);
}

TEST(Divisors, Uart16550DivisorRoundsToTheNearest) {
    EXPECT_EQ(uart_get_divisor(1'843'200, 115200), 1u);
    EXPECT_EQ(uart_get_divisor(1'843'200, 9600), 12u);
    EXPECT_EQ(uart_get_divisor(24'000'000, 115200), 13u); // 13.02
    EXPECT_EQ(uart_get_divisor(1'843'200, 1'000'000), 0u); // out of the latch's range: the caller refuses
}

TEST(Divisors, MiniUartBaudRegisterCountsEightSamplesPerBit) {
    EXPECT_EQ(bcm2835aux_baud_reg(250'000'000, 115200), 270); // 250e6 / (8 * 271) = 115,313 baud
    EXPECT_EQ(bcm2835aux_baud_reg(250'000'000, 100'000'000), -1);
}
