// SPDX-License-Identifier: Apache-2.0
#include "scenarios/payload_printk.h"

#include <uartvp/cpu/core.h>
#include <uartvp/scoreboard.h>

#include "cli/payload.h"
#include "cli/timeline.h"

namespace uartvp::program {

sw::console& payload_console(const std::string& name, int index, bool boot) {
    sw::printk_init(payload_printk_config());
    static sw::console con;
    con = sw::console{};
    con.name = name;
    con.index = index;
    con.flags = sw::CON_PRINTBUFFER | (boot ? sw::CON_BOOT : 0);
    return con;
}

void payload_boot::run(sw::console& con, payload_reader& payload, scoreboard& sb, cpu::core& cpu,
                       timeline* tl, const std::function<bool()>& stopped) {
    sw::register_console(con);
    for (; !stopped() && payload.next(m_line); ++m_lines) {
        // printk ends every record with a newline (record_print_text): a last line without one gets it.
        if (m_line.empty() || m_line.back() != '\n') m_line += '\n';
        // What the routine hands to the UART: the record, with '\r' before each '\n'.
        m_out.clear();
        append_console_bytes(m_out, m_line);
        sb.expect(m_out);
        m_bytes_written += m_out.size();
        const sc_core::sc_time t0 = cpu.local_time();
        sw::printk(sw::LOGLEVEL_INFO, m_line);
        if (tl) tl->console_write(cpu, t0, cpu.local_time(), m_line);
    }
}

} // namespace uartvp::program
