// SPDX-License-Identifier: Apache-2.0
#include <uartvp/trace_event_writer.h>

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace uartvp {

using namespace sc_core;

trace_event_writer::trace_event_writer(const std::string& path, const std::string& process_name) {
    m_out = std::fopen(path.c_str(), "w");
    if (!m_out) throw std::runtime_error("cannot write " + path);
    m_units_per_us = sc_time(1, SC_US).value();
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", m_out);
    event("\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":" +
          json_string(process_name) + "}");
}

trace_event_writer::~trace_event_writer() {
    if (m_out) std::fclose(m_out);
}

std::string trace_event_writer::json_string(std::string_view s) {
    return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::uint64_t trace_event_writer::steps(const sc_time& t) const {
    using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((u128(t.value()) * (u128(1) << 20) + m_units_per_us / 2) /
                                      m_units_per_us);
}

std::string trace_event_writer::time(std::uint64_t q) const {
    using u128 = unsigned __int128;
    std::string frac;
    u128 f = u128(q & ((1u << 20) - 1)) * 95'367'431'640'625ull; // x 5^20: the fraction in 10^-20
    for (int i = 0; i < 20; ++i, f /= 10)
        frac.insert(frac.begin(), static_cast<char>('0' + static_cast<int>(f % 10)));
    while (!frac.empty() && frac.back() == '0')
        frac.pop_back();
    return std::to_string(q >> 20) + (frac.empty() ? "" : "." + frac);
}

std::string trace_event_writer::time(const sc_time& t) const {
    return time(steps(t));
}

void trace_event_writer::event(const std::string& body) {
    if (!m_out) return;
    if (std::fputs(m_first ? "{" : ",\n{", m_out) < 0 || std::fputs(body.c_str(), m_out) < 0 ||
        std::fputc('}', m_out) < 0)
        m_ok = false;
    m_first = false;
}

void trace_event_writer::thread(unsigned tid, const std::string& name, unsigned sort_index) {
    const std::string t = std::to_string(tid);
    event("\"ph\":\"M\",\"pid\":1,\"tid\":" + t +
          ",\"name\":\"thread_name\",\"args\":{\"name\":" + json_string(name) + "}");
    event("\"ph\":\"M\",\"pid\":1,\"tid\":" + t +
          ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(sort_index) + "}");
}

void trace_event_writer::complete(unsigned tid, std::string_view name, std::string_view cat,
                                  const sc_time& start, const sc_time& end, const std::string& args) {
    // Both ends rounded to the file's units, so that spans that touch in time touch in the file.
    const std::uint64_t a = steps(start), b = std::max(a, steps(end));
    event("\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(tid) + ",\"name\":" + json_string(name) +
          ",\"cat\":\"" + std::string(cat) + "\",\"ts\":" + time(a) + ",\"dur\":" + time(b - a) +
          (args.empty() ? "" : ",\"args\":" + args));
}

void trace_event_writer::counter(std::string_view name, const sc_time& at, const std::string& args) {
    event("\"ph\":\"C\",\"pid\":1,\"name\":" + json_string(name) + ",\"ts\":" + time(at) +
          ",\"args\":" + args);
}

void trace_event_writer::instant(char scope, unsigned tid, std::string_view name, std::string_view cat,
                                 const sc_time& at, const std::string& args) {
    event(std::string("\"ph\":\"i\",\"s\":\"") + scope + "\",\"pid\":1,\"tid\":" + std::to_string(tid) +
          ",\"name\":" + json_string(name) + ",\"cat\":\"" + std::string(cat) + "\",\"ts\":" + time(at) +
          ",\"args\":" + args);
}

bool trace_event_writer::close() {
    if (!m_out) return m_ok;
    if (std::fputs("\n]}\n", m_out) < 0) m_ok = false;
    const bool closed = std::fclose(m_out) == 0;
    m_out = nullptr;
    return m_ok && closed;
}

} // namespace uartvp
