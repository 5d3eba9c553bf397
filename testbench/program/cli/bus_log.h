// SPDX-License-Identifier: Apache-2.0
#pragma once
// run --bus-log FILE: every device access the cores issue, one line each, as the bus monitor
// (<uartvp/bus_monitor.h>) tells it: "TIME_NS R|W ADDRESS SIZE VALUE", and the response where it is not
// OK. A polling loop that fast mode runs as one operation shows the transactions it issued, not the
// reads it stood for; reference mode shows every read.
#include <cstdio>
#include <memory>
#include <string>

#include <uartvp/bus_monitor.h>

namespace uartvp::program {

class bus_log {
public:
    explicit bus_log(const std::string& path); // an output written whole or not at all (outputs.h)
    ~bus_log();
    bus_log(const bus_log&) = delete;
    bus_log& operator=(const bus_log&) = delete;

    bus_monitor monitor; // between the cores and the bus
    // Flushes and closes the file; throws std::runtime_error naming it if a write failed.
    void close();

private:
    void write(const bus_monitor::access& a);
    std::string m_path;
    std::FILE* m_file = nullptr;
    bool m_failed = false;
};

} // namespace uartvp::program
