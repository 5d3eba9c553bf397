// SPDX-License-Identifier: Apache-2.0
#include "cli/bus_log.h"

#include <stdexcept>

#include "cli/outputs.h"

namespace uartvp::program {

bus_log::bus_log(const std::string& path)
    : monitor("bus_log", [this](const bus_monitor::access& a) { write(a); })
    , m_path(path) {
    m_file = std::fopen(outputs::temporary(path).c_str(), "w");
    if (!m_file) throw std::runtime_error("--bus-log " + path + ": cannot write it");
}

bus_log::~bus_log() {
    if (m_file) std::fclose(m_file);
}

void bus_log::write(const bus_monitor::access& a) {
    const double ns = a.issued.to_seconds() * 1e9;
    int n;
    if (a.status == tlm::TLM_OK_RESPONSE)
        n = std::fprintf(m_file, "%.3f %c 0x%08llx %u 0x%llx\n", ns, a.write ? 'W' : 'R',
                         static_cast<unsigned long long>(a.addr), a.size,
                         static_cast<unsigned long long>(a.value));
    else
        n = std::fprintf(m_file, "%.3f %c 0x%08llx %u error %d\n", ns, a.write ? 'W' : 'R',
                         static_cast<unsigned long long>(a.addr), a.size, static_cast<int>(a.status));
    m_failed = m_failed || n < 0;
}

void bus_log::close() {
    if (!m_file) return;
    const bool bad = std::fclose(m_file) != 0 || m_failed;
    m_file = nullptr;
    if (bad) throw std::runtime_error("--bus-log " + m_path + ": write failed");
}

} // namespace uartvp::program
