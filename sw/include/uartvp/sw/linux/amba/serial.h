// SPDX-License-Identifier: Apache-2.0
#pragma once
// The PL011's registers and bits under the names of the kernel's include/linux/amba/serial.h (the
// UART01x names the PL010 shares, the UART011 names the PL011's own), for the driver routines and
// for plugins. Offsets are bytes from the port's membase; values as the PL011 TRM (DDI 0183) gives
// them. The PL010-only registers are left out: nothing here models a PL010.
#include <cstdint>

namespace uartvp::sw {

// Register offsets.
constexpr std::uint32_t UART01x_DR = 0x00;    // data read or written
constexpr std::uint32_t UART01x_RSR = 0x04;   // receive status (read)
constexpr std::uint32_t UART01x_ECR = 0x04;   // error clear (write)
constexpr std::uint32_t UART01x_FR = 0x18;    // flags
constexpr std::uint32_t UART01x_ILPR = 0x20;  // IrDA low-power counter
constexpr std::uint32_t UART011_IBRD = 0x24;  // integer baud rate divisor
constexpr std::uint32_t UART011_FBRD = 0x28;  // fractional baud rate divisor
constexpr std::uint32_t UART011_LCRH = 0x2C;  // line control
constexpr std::uint32_t UART011_CR = 0x30;    // control
constexpr std::uint32_t UART011_IFLS = 0x34;  // interrupt FIFO level select
constexpr std::uint32_t UART011_IMSC = 0x38;  // interrupt mask set/clear
constexpr std::uint32_t UART011_RIS = 0x3C;   // raw interrupt status
constexpr std::uint32_t UART011_MIS = 0x40;   // masked interrupt status
constexpr std::uint32_t UART011_ICR = 0x44;   // interrupt clear
constexpr std::uint32_t UART011_DMACR = 0x48; // DMA control

// DR: a received character's error bits beside its data.
constexpr std::uint32_t UART011_DR_OE = 1u << 11, UART011_DR_BE = 1u << 10, UART011_DR_PE = 1u << 9,
                        UART011_DR_FE = 1u << 8;

// RSR / ECR.
constexpr std::uint32_t UART01x_RSR_OE = 0x08, UART01x_RSR_BE = 0x04, UART01x_RSR_PE = 0x02,
                        UART01x_RSR_FE = 0x01, UART01x_RSR_ANY = 0x0F;

// FR.
constexpr std::uint32_t UART011_FR_RI = 0x100, UART011_FR_TXFE = 0x080, UART011_FR_RXFF = 0x040,
                        UART01x_FR_TXFF = 0x020, UART01x_FR_RXFE = 0x010, UART01x_FR_BUSY = 0x008,
                        UART01x_FR_DCD = 0x004, UART01x_FR_DSR = 0x002, UART01x_FR_CTS = 0x001;
constexpr std::uint32_t UART01x_FR_TMSK = UART01x_FR_TXFF | UART01x_FR_BUSY;
constexpr std::uint32_t UART01x_FR_MODEM_ANY = UART01x_FR_DCD | UART01x_FR_DSR | UART01x_FR_CTS;

// CR.
constexpr std::uint32_t UART011_CR_CTSEN = 0x8000, UART011_CR_RTSEN = 0x4000, UART011_CR_OUT2 = 0x2000,
                        UART011_CR_OUT1 = 0x1000, UART011_CR_RTS = 0x0800, UART011_CR_DTR = 0x0400,
                        UART011_CR_RXE = 0x0200, UART011_CR_TXE = 0x0100, UART011_CR_LBE = 0x0080,
                        UART01x_CR_IIRLP = 0x0004, UART01x_CR_SIREN = 0x0002, UART01x_CR_UARTEN = 0x0001;

// LCRH.
constexpr std::uint32_t UART01x_LCRH_SPS = 0x80, UART01x_LCRH_WLEN_8 = 0x60, UART01x_LCRH_WLEN_7 = 0x40,
                        UART01x_LCRH_WLEN_6 = 0x20, UART01x_LCRH_WLEN_5 = 0x00, UART01x_LCRH_FEN = 0x10,
                        UART01x_LCRH_STP2 = 0x08, UART01x_LCRH_EPS = 0x04, UART01x_LCRH_PEN = 0x02,
                        UART01x_LCRH_BRK = 0x01;

// IFLS: the RX level in bits 5:3, the TX level in bits 2:0 (1/8, 1/4, 1/2, 3/4, 7/8 full).
constexpr std::uint32_t UART011_IFLS_RX1_8 = 0u << 3, UART011_IFLS_RX2_8 = 1u << 3,
                        UART011_IFLS_RX4_8 = 2u << 3, UART011_IFLS_RX6_8 = 3u << 3,
                        UART011_IFLS_RX7_8 = 4u << 3;
constexpr std::uint32_t UART011_IFLS_TX1_8 = 0u << 0, UART011_IFLS_TX2_8 = 1u << 0,
                        UART011_IFLS_TX4_8 = 2u << 0, UART011_IFLS_TX6_8 = 3u << 0,
                        UART011_IFLS_TX7_8 = 4u << 0;

// Interrupts: the same bit in IMSC (..IM), RIS, MIS (..IS) and ICR.
constexpr std::uint32_t UART011_OEIM = 1u << 10, UART011_BEIM = 1u << 9, UART011_PEIM = 1u << 8,
                        UART011_FEIM = 1u << 7, UART011_RTIM = 1u << 6, UART011_TXIM = 1u << 5,
                        UART011_RXIM = 1u << 4, UART011_DSRMIM = 1u << 3, UART011_DCDMIM = 1u << 2,
                        UART011_CTSMIM = 1u << 1, UART011_RIMIM = 1u << 0;
constexpr std::uint32_t UART011_OEIS = 1u << 10, UART011_BEIS = 1u << 9, UART011_PEIS = 1u << 8,
                        UART011_FEIS = 1u << 7, UART011_RTIS = 1u << 6, UART011_TXIS = 1u << 5,
                        UART011_RXIS = 1u << 4, UART011_DSRMIS = 1u << 3, UART011_DCDMIS = 1u << 2,
                        UART011_CTSMIS = 1u << 1, UART011_RIMIS = 1u << 0;

// DMACR.
constexpr std::uint32_t UART011_DMAONERR = 0x04, UART011_TXDMAE = 0x02, UART011_RXDMAE = 0x01;

} // namespace uartvp::sw
