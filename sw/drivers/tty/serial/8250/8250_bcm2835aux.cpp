// SPDX-License-Identifier: Apache-2.0
// The BCM2835 AUX mini UART's baud register (drivers/tty/serial/8250/8250_bcm2835aux.c): eight samples
// per bit, not the 16550's sixteen.
#include <uartvp/sw/serial8250.h>

namespace uartvp::sw {

std::int64_t bcm2835aux_baud_reg(std::uint64_t clock, std::uint64_t baud) {
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(clock) + 4 * baud) / (8 * baud)) - 1;
}

} // namespace uartvp::sw
