// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hypervisor-console backends as bus devices: what the guest's hvc drivers (sw/hvc/) read console input
// from. Both are fed by a host-side source that delivers a paste in bursts of burst_bytes at an average
// rate (KB/s of 1000 bytes): burst k, once its bytes have been produced, i.e. at
// start + (bytes up to the end of burst k) / rate.
//
// uartvp::opal_console: OPAL firmware's console as the guest's firmware calls see it (powernv: the BMC's
// UART behind OPAL). An input buffer of buffer_bytes (overflow is counted and lost), the pending-events
// word (OPAL_EVENT_CONSOLE_INPUT while it holds input), the OPAL interrupt (raised by each burst,
// lowered by opal_handle_interrupt's read), a console read (length request, then the bytes), and a small
// console output buffer drained at the same rate. A firmware call is not a bus access: the guest's OPAL
// wrappers spend the call's cost on the calling core and then touch these registers, which cost nothing.
//
// uartvp::virtio_console_rx: a virtio console port's input virtqueue: `queue_size` guest buffers of
// burst_bytes; the host fills an available buffer per burst, puts it on the used ring and raises the
// interrupt (ISR bit 0; reading ISR lowers it). The guest takes a used buffer (virtqueue_get_buf), copies
// bytes out of it, and gives it back (add_inbuf). With no buffer available the host waits (no loss).
// Output bytes (put_chars) go to the host at once.
//
// The interrupt output is driven by a method of the device's own, whoever's access changes it.
// Registers are 32 bits wide, word accesses only (other lengths: TLM_BURST_ERROR_RESPONSE); an offset
// outside the map or misaligned: TLM_ADDRESS_ERROR_RESPONSE; a write to a read-only register or a read
// of a write-only one: TLM_COMMAND_ERROR_RESPONSE. Debug reads have no side effects.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace uartvp {

// One register of a backend's map: declared once, with its offset and reset value.
struct hvc_reg {
    const char* name;
    std::uint32_t offset;
    std::uint32_t reset;
    bool readable, writable;
};

// A paste as the host delivers it: the bytes, when the source starts, its rate, the burst size.
struct hvc_paste {
    std::string text;
    sc_core::sc_time start;
    double kbps = 1000; // KB/s, 1000 bytes
    std::uint64_t burst_bytes = 4096;
    // When burst k (its last byte at index end - 1) has been produced.
    sc_core::sc_time due(std::uint64_t end) const {
        return start + sc_core::sc_time(static_cast<double>(end) / (kbps * 1000.0), sc_core::SC_SEC);
    }
};

class opal_console : public sc_core::sc_module {
public:
    static constexpr std::uint32_t OPAL_EVENT_CONSOLE_INPUT = 0x10; // bit 4 of the events word
    static constexpr std::uint32_t OPAL_EVENT_CONSOLE_OUTPUT = 0x08;
    enum offsets : std::uint32_t {
        POLL_EVENTS = 0x00,      // R: pending events (opal_poll_events)
        HANDLE_INTERRUPT = 0x04, // R: pending events; lowers the OPAL interrupt (opal_handle_interrupt)
        READ_LEN = 0x08,         // W: opal_console_read's requested length; R: the bytes it granted
        READ_DATA = 0x0C,        // R: the next granted byte (0 once none is left)
        BUFFERED = 0x10,         // R: input bytes buffered
        LOST = 0x14,             // R: input bytes lost to a full buffer
        WRITE_SPACE = 0x18,      // R: free bytes of the output buffer (opal_console_write_buffer_space)
        WRITE_DATA = 0x1C,       // W: one output byte (dropped when there is no space)
    };
    static const std::vector<hvc_reg>& registers();
    static constexpr std::uint64_t map_size() { return 0x20; }
    static constexpr std::uint64_t out_buffer_bytes = 256;

    tlm_utils::simple_target_socket<opal_console, 32> bus;
    sc_core::sc_out<bool> irq;

    opal_console(const sc_core::sc_module_name& name, std::uint64_t buffer_bytes);
    const char* kind() const override { return "uartvp::opal_console"; }
    void paste(hvc_paste p); // before the simulation starts

    std::uint64_t delivered() const { return m_delivered; } // bytes the source handed over
    std::uint64_t lost() const { return m_lost; }
    std::uint64_t buffered() const { return m_in.size(); }
    std::uint64_t bursts() const { return m_bursts; }
    std::uint64_t buffer_max() const { return m_in_max; }
    bool irq_level() const { return m_irq_level; } // the interrupt as the device drives it (this delta)
    const std::string& output() const { return m_output; }

    // One register access, already decoded (its direction checked); false: refused.
    bool access(std::uint32_t offset, bool write, std::uint32_t& v, bool debug);

private:
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& tx);
    std::uint32_t events() const;
    void source();
    void drain();
    void set_irq(bool level);
    void drive_irq();
    bool m_irq_level = false;
    sc_core::sc_event m_irq_ev;

    std::uint64_t m_capacity;
    hvc_paste m_paste;
    std::deque<unsigned char> m_in;
    std::uint32_t m_granted = 0;
    std::deque<unsigned char> m_out;
    std::string m_output;
    std::uint64_t m_delivered = 0, m_lost = 0, m_bursts = 0, m_in_max = 0;
    sc_core::sc_event m_out_ev;
};

class virtio_console_rx : public sc_core::sc_module {
public:
    enum offsets : std::uint32_t {
        ISR = 0x00,     // R: bit 0, used-buffer notification; the read lowers the interrupt
        USED = 0x04,    // R: filled buffers on the used ring
        GET_BUF = 0x08, // R: takes the next used buffer (virtqueue_get_buf): its length, 0 if none
        DATA = 0x0C,    // R: the next byte of the buffer taken (guest memory: a copy)
        ADD_BUF = 0x10, // W: gives the buffer taken back to the available ring (add_inbuf, kick)
        AVAIL = 0x14,   // R: buffers the host may fill
        NUM = 0x18,     // R: the queue's size in buffers
        OUT_DATA = 0x1C // W: one output byte to the host
    };
    static const std::vector<hvc_reg>& registers();
    static constexpr std::uint64_t map_size() { return 0x20; }

    tlm_utils::simple_target_socket<virtio_console_rx, 32> bus;
    sc_core::sc_out<bool> irq;

    virtio_console_rx(const sc_core::sc_module_name& name, unsigned queue_size, std::uint64_t buffer_bytes);
    const char* kind() const override { return "uartvp::virtio_console_rx"; }
    void paste(hvc_paste p);

    std::uint64_t delivered() const { return m_delivered; }
    std::uint64_t bursts() const { return m_bursts; }
    std::uint64_t host_waits() const { return m_waits; } // bursts that waited for a free buffer
    bool irq_level() const { return m_irq_level; }
    // Input the guest has not consumed: used buffers not taken, or a buffer in its hands.
    bool input_pending() const { return !m_used.empty() || m_have_taken; }
    const std::string& output() const { return m_output; }

    // One register access, already decoded (its direction checked); false: refused.
    bool access(std::uint32_t offset, bool write, std::uint32_t& v, bool debug);

private:
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& tx);
    void source();
    void set_irq(bool level);
    void drive_irq();
    bool m_irq_level = false;
    sc_core::sc_event m_irq_ev;

    unsigned m_queue_size;
    std::uint64_t m_buffer_bytes;
    hvc_paste m_paste;
    unsigned m_avail;
    std::deque<std::string> m_used;
    std::string m_taken;
    std::size_t m_taken_pos = 0;
    bool m_have_taken = false;
    std::uint32_t m_isr = 0;
    std::string m_output;
    std::uint64_t m_delivered = 0, m_bursts = 0, m_waits = 0;
    sc_core::sc_event m_buffer_back;
};

} // namespace uartvp
