// SPDX-License-Identifier: Apache-2.0
#include <uartvp/hvc_backends.h>

#include <algorithm>

#include "bus/tlm_access.h"

namespace uartvp {

using namespace sc_core;

namespace {

const hvc_reg* find_reg(const std::vector<hvc_reg>& regs, std::uint32_t offset) {
    for (const hvc_reg& r : regs)
        if (r.offset == offset) return &r;
    return nullptr;
}

// Word accesses only; the register's direction checked; `access` does the rest.
template <class dev_t>
tlm::tlm_response_status word_transport(dev_t& dev, const std::vector<hvc_reg>& regs, std::uint64_t map_size,
                                        tlm::tlm_generic_payload& tx, bool debug) {
    const std::uint64_t addr = tx.get_address();
    if (tx.get_data_length() != 4 || tx.get_streaming_width() < 4) return tlm::TLM_BURST_ERROR_RESPONSE;
    if (addr >= map_size || addr % 4) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (tx.get_byte_enable_ptr() && tx.get_byte_enable_length() == 0)
        return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    const hvc_reg* r = find_reg(regs, static_cast<std::uint32_t>(addr));
    if (!r) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    const bool write = tx.is_write();
    if (write ? !r->writable : !r->readable) return tlm::TLM_COMMAND_ERROR_RESPONSE;
    if (debug && write) return tlm::TLM_COMMAND_ERROR_RESPONSE;
    std::uint32_t v = 0;
    if (write) std::copy_n(tx.get_data_ptr(), 4, reinterpret_cast<unsigned char*>(&v));
    if (!dev.access(r->offset, write, v, debug)) return tlm::TLM_COMMAND_ERROR_RESPONSE;
    if (!write) std::copy_n(reinterpret_cast<unsigned char*>(&v), 4, tx.get_data_ptr());
    return tlm::TLM_OK_RESPONSE;
}

} // namespace

// ---- OPAL

const std::vector<hvc_reg>& opal_console::registers() {
    static const std::vector<hvc_reg> r{
        {"POLL_EVENTS", POLL_EVENTS, 0, true, false},
        {"HANDLE_INTERRUPT", HANDLE_INTERRUPT, 0, true, false},
        {"READ_LEN", READ_LEN, 0, true, true},
        {"READ_DATA", READ_DATA, 0, true, false},
        {"BUFFERED", BUFFERED, 0, true, false},
        {"LOST", LOST, 0, true, false},
        {"WRITE_SPACE", WRITE_SPACE, out_buffer_bytes, true, false},
        {"WRITE_DATA", WRITE_DATA, 0, false, true},
    };
    return r;
}

opal_console::opal_console(const sc_module_name& name, std::uint64_t buffer_bytes)
    : sc_module(name)
    , bus("bus")
    , irq("irq")
    , m_capacity(buffer_bytes) {
    bus.register_b_transport(this, &opal_console::b_transport);
    bus.register_transport_dbg(this, &opal_console::transport_dbg);
    SC_HAS_PROCESS(opal_console);
    SC_METHOD(drive_irq);
    sensitive << m_irq_ev;
    SC_THREAD(source);
    SC_THREAD(drain);
}

void opal_console::set_irq(bool level) {
    m_irq_level = level;
    m_irq_ev.notify(); // at once: the line changes in this delta, as a write of the signal would
}

void opal_console::drive_irq() {
    irq.write(m_irq_level);
}

void opal_console::paste(hvc_paste p) {
    m_paste = std::move(p);
}

std::uint32_t opal_console::events() const {
    return (m_in.empty() ? 0 : OPAL_EVENT_CONSOLE_INPUT) | (m_out.empty() ? 0 : OPAL_EVENT_CONSOLE_OUTPUT);
}

void opal_console::source() {
    const std::string& t = m_paste.text;
    for (std::uint64_t at = 0; at < t.size();) {
        const std::uint64_t end = std::min<std::uint64_t>(t.size(), at + m_paste.burst_bytes);
        const sc_time due = m_paste.due(end);
        if (due > sc_time_stamp()) wait(due - sc_time_stamp());
        for (; at < end; ++at) {
            ++m_delivered;
            if (m_in.size() >= m_capacity) {
                ++m_lost; // the BMC's bytes with nowhere to go
                continue;
            }
            m_in.push_back(static_cast<unsigned char>(t[at]));
        }
        m_in_max = std::max<std::uint64_t>(m_in_max, m_in.size());
        ++m_bursts;
        set_irq(true); // the console-input event
    }
}

// The output buffer drains to the BMC at the paste's rate (the same line).
void opal_console::drain() {
    for (;;) {
        while (m_out.empty())
            wait(m_out_ev);
        wait(sc_time(1.0 / (m_paste.kbps * 1000.0), SC_SEC));
        m_output.push_back(static_cast<char>(m_out.front()));
        m_out.pop_front();
    }
}

bool opal_console::access(std::uint32_t offset, bool write, std::uint32_t& v, bool debug) {
    switch (offset) {
    case POLL_EVENTS:
        v = events();
        return true;
    case HANDLE_INTERRUPT:
        v = events();
        if (!debug) set_irq(false);
        return true;
    case READ_LEN:
        if (write)
            m_granted = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, m_in.size()));
        else
            v = m_granted;
        return true;
    case READ_DATA:
        v = 0;
        if (m_granted && !m_in.empty()) {
            v = m_in.front();
            if (!debug) {
                m_in.pop_front();
                --m_granted;
            }
        }
        return true;
    case BUFFERED:
        v = static_cast<std::uint32_t>(m_in.size());
        return true;
    case LOST:
        v = static_cast<std::uint32_t>(m_lost);
        return true;
    case WRITE_SPACE:
        v = static_cast<std::uint32_t>(out_buffer_bytes - m_out.size());
        return true;
    case WRITE_DATA:
        if (m_out.size() < out_buffer_bytes) {
            m_out.push_back(static_cast<unsigned char>(v));
            m_out_ev.notify(SC_ZERO_TIME);
        }
        return true;
    }
    return false;
}

void opal_console::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    if (delay != SC_ZERO_TIME) { // applied at its time, in order with the source's bursts
        wait(delay);
        delay = SC_ZERO_TIME;
    }
    tx.set_response_status(word_transport(*this, registers(), map_size(), tx, false));
}

unsigned opal_console::transport_dbg(tlm::tlm_generic_payload& tx) {
    const tlm::tlm_response_status s = word_transport(*this, registers(), map_size(), tx, true);
    tx.set_response_status(s);
    return s == tlm::TLM_OK_RESPONSE ? 4 : 0;
}

// ---- virtio console input queue

const std::vector<hvc_reg>& virtio_console_rx::registers() {
    static const std::vector<hvc_reg> r{
        {"ISR", ISR, 0, true, false},         {"USED", USED, 0, true, false},
        {"GET_BUF", GET_BUF, 0, true, false}, {"DATA", DATA, 0, true, false},
        {"ADD_BUF", ADD_BUF, 0, false, true}, {"AVAIL", AVAIL, 0, true, false},
        {"NUM", NUM, 0, true, false},         {"OUT_DATA", OUT_DATA, 0, false, true},
    };
    return r;
}

virtio_console_rx::virtio_console_rx(const sc_module_name& name, unsigned queue_size,
                                     std::uint64_t buffer_bytes)
    : sc_module(name)
    , bus("bus")
    , irq("irq")
    , m_queue_size(queue_size)
    , m_buffer_bytes(buffer_bytes)
    , m_avail(queue_size) { // the driver fills the queue at probe (fill_queue)
    bus.register_b_transport(this, &virtio_console_rx::b_transport);
    bus.register_transport_dbg(this, &virtio_console_rx::transport_dbg);
    SC_HAS_PROCESS(virtio_console_rx);
    SC_METHOD(drive_irq);
    sensitive << m_irq_ev;
    SC_THREAD(source);
}

void virtio_console_rx::set_irq(bool level) {
    m_irq_level = level;
    m_irq_ev.notify(); // at once: the line changes in this delta, as a write of the signal would
}

void virtio_console_rx::drive_irq() {
    irq.write(m_irq_level);
}

void virtio_console_rx::paste(hvc_paste p) {
    m_paste = std::move(p);
}

void virtio_console_rx::source() {
    const std::string& t = m_paste.text;
    for (std::uint64_t at = 0; at < t.size();) {
        const std::uint64_t end = std::min<std::uint64_t>(t.size(), at + m_buffer_bytes);
        const sc_time due = m_paste.due(end);
        if (due > sc_time_stamp()) wait(due - sc_time_stamp());
        if (m_avail == 0) {
            ++m_waits;
            while (m_avail == 0)
                wait(m_buffer_back);
        }
        --m_avail;
        m_used.push_back(t.substr(at, end - at));
        m_delivered += end - at;
        at = end;
        ++m_bursts;
        m_isr |= 1;
        set_irq(true);
    }
}

bool virtio_console_rx::access(std::uint32_t offset, bool write, std::uint32_t& v, bool debug) {
    switch (offset) {
    case ISR:
        v = m_isr;
        if (!debug) {
            m_isr = 0;
            set_irq(false);
        }
        return true;
    case USED:
        v = static_cast<std::uint32_t>(m_used.size());
        return true;
    case GET_BUF:
        if (m_have_taken || m_used.empty()) { // one buffer in the guest's hands at a time
            v = 0;
            return true;
        }
        v = static_cast<std::uint32_t>(m_used.front().size());
        if (!debug) {
            m_taken = std::move(m_used.front());
            m_used.pop_front();
            m_taken_pos = 0;
            m_have_taken = true;
        }
        return true;
    case DATA:
        v = 0;
        if (m_have_taken && m_taken_pos < m_taken.size()) {
            v = static_cast<unsigned char>(m_taken[m_taken_pos]);
            if (!debug) ++m_taken_pos;
        }
        return true;
    case ADD_BUF:
        if (!m_have_taken) return false; // no buffer to give back
        m_have_taken = false;
        m_taken.clear();
        ++m_avail;
        m_buffer_back.notify(SC_ZERO_TIME);
        return true;
    case AVAIL:
        v = m_avail;
        return true;
    case NUM:
        v = m_queue_size;
        return true;
    case OUT_DATA:
        m_output.push_back(static_cast<char>(v));
        return true;
    }
    return false;
}

void virtio_console_rx::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    if (delay != SC_ZERO_TIME) {
        wait(delay);
        delay = SC_ZERO_TIME;
    }
    tx.set_response_status(word_transport(*this, registers(), map_size(), tx, false));
}

unsigned virtio_console_rx::transport_dbg(tlm::tlm_generic_payload& tx) {
    const tlm::tlm_response_status s = word_transport(*this, registers(), map_size(), tx, true);
    tx.set_response_status(s);
    return s == tlm::TLM_OK_RESPONSE ? 4 : 0;
}

} // namespace uartvp
