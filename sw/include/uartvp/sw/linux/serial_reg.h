// SPDX-License-Identifier: Apache-2.0
#pragma once
// The 8250/16550's registers and bits under the names of the kernel's include/uapi/linux/serial_reg.h,
// for the driver routines and for plugins. Offsets are register indices (the byte offset is the index
// << regshift); values as the 16550A data sheet gives them, with the XScale IER bit the 8250 early
// console keeps.
#include <cstdint>

namespace uartvp::sw {

// Register indices (DLAB = LCR bit 7 selects DLL/DLM at 0 and 1).
constexpr unsigned UART_RX = 0;  // receive buffer (read)
constexpr unsigned UART_TX = 0;  // transmit holding (write)
constexpr unsigned UART_DLL = 0; // divisor latch, low byte (DLAB = 1)
constexpr unsigned UART_IER = 1; // interrupt enable
constexpr unsigned UART_DLM = 1; // divisor latch, high byte (DLAB = 1)
constexpr unsigned UART_IIR = 2; // interrupt identification (read)
constexpr unsigned UART_FCR = 2; // FIFO control (write)
constexpr unsigned UART_LCR = 3; // line control
constexpr unsigned UART_MCR = 4; // modem control
constexpr unsigned UART_LSR = 5; // line status
constexpr unsigned UART_MSR = 6; // modem status
constexpr unsigned UART_SCR = 7; // scratch

// IER.
constexpr std::uint8_t UART_IER_MSI = 0x08, UART_IER_RLSI = 0x04, UART_IER_THRI = 0x02, UART_IER_RDI = 0x01;
constexpr std::uint8_t UART_IER_UUE = 0x40; // XScale: UART unit enable

// IIR.
constexpr std::uint8_t UART_IIR_NO_INT = 0x01, UART_IIR_ID = 0x0E, UART_IIR_MSI = 0x00, UART_IIR_THRI = 0x02,
                       UART_IIR_RDI = 0x04, UART_IIR_RLSI = 0x06, UART_IIR_BUSY = 0x07,
                       UART_IIR_RX_TIMEOUT = 0x0C;
constexpr std::uint8_t UART_IIR_FIFO_ENABLED = 0xC0, UART_IIR_FIFO_ENABLED_8250 = 0x00,
                       UART_IIR_FIFO_ENABLED_16550 = 0x80, UART_IIR_FIFO_ENABLED_16550A = 0xC0;

// FCR.
constexpr std::uint8_t UART_FCR_ENABLE_FIFO = 0x01, UART_FCR_CLEAR_RCVR = 0x02, UART_FCR_CLEAR_XMIT = 0x04,
                       UART_FCR_DMA_SELECT = 0x08;
constexpr std::uint8_t UART_FCR_R_TRIG_00 = 0x00, UART_FCR_R_TRIG_01 = 0x40, UART_FCR_R_TRIG_10 = 0x80,
                       UART_FCR_R_TRIG_11 = 0xC0, UART_FCR_TRIGGER_MASK = 0xC0;
constexpr std::uint8_t UART_FCR_TRIGGER_1 = 0x00, UART_FCR_TRIGGER_4 = 0x40, UART_FCR_TRIGGER_8 = 0x80,
                       UART_FCR_TRIGGER_14 = 0xC0;

// LCR.
constexpr std::uint8_t UART_LCR_DLAB = 0x80, UART_LCR_SBC = 0x40, UART_LCR_SPAR = 0x20, UART_LCR_EPAR = 0x10,
                       UART_LCR_PARITY = 0x08, UART_LCR_STOP = 0x04, UART_LCR_WLEN5 = 0x00,
                       UART_LCR_WLEN6 = 0x01, UART_LCR_WLEN7 = 0x02, UART_LCR_WLEN8 = 0x03;

// MCR.
constexpr std::uint8_t UART_MCR_LOOP = 0x10, UART_MCR_OUT2 = 0x08, UART_MCR_OUT1 = 0x04, UART_MCR_RTS = 0x02,
                       UART_MCR_DTR = 0x01;

// LSR.
constexpr std::uint8_t UART_LSR_FIFOE = 0x80, UART_LSR_TEMT = 0x40, UART_LSR_THRE = 0x20, UART_LSR_BI = 0x10,
                       UART_LSR_FE = 0x08, UART_LSR_PE = 0x04, UART_LSR_OE = 0x02, UART_LSR_DR = 0x01;
constexpr std::uint8_t UART_LSR_BRK_ERROR_BITS = UART_LSR_BI | UART_LSR_FE | UART_LSR_PE | UART_LSR_OE;
constexpr std::uint8_t UART_LSR_BOTH_EMPTY = UART_LSR_TEMT | UART_LSR_THRE;

// MSR.
constexpr std::uint8_t UART_MSR_DCD = 0x80, UART_MSR_RI = 0x40, UART_MSR_DSR = 0x20, UART_MSR_CTS = 0x10,
                       UART_MSR_DDCD = 0x08, UART_MSR_TERI = 0x04, UART_MSR_DDSR = 0x02, UART_MSR_DCTS = 0x01;
constexpr std::uint8_t UART_MSR_ANY_DELTA = 0x0F;

} // namespace uartvp::sw
