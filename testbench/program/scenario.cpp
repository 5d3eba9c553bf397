#include "scenario.h"

namespace uartvp::program {

scenario_def earlycon_pl011_scenario();
scenario_def console_8250_scenario();

const std::vector<scenario_def>& scenarios() {
    static const std::vector<scenario_def> all{earlycon_pl011_scenario(), console_8250_scenario()};
    return all;
}

const scenario_def* find_scenario(const std::string& name) {
    for (const scenario_def& s : scenarios())
        if (s.name == name) return &s;
    return nullptr;
}

nlohmann::json run_result::to_json() const {
    nlohmann::json j = {{"schema_version", json_schema_version},
                        {"scenario", scenario},
                        {"variant", variant},
                        {"profile", profile},
                        {"params", params},
                        {"payload", payload_source},
                        {"payload_lines", payload_lines},
                        {"sim_time_ns", sim_time_ns},
                        {"line_idle_ns", line_idle_ns},
                        {"wall_s", wall_s},
                        {"bytes_written", bytes_written},
                        {"bytes_on_line", bytes_on_line},
                        {"lost_bytes", lost_bytes},
                        {"corrupted_bytes", corrupted_bytes},
                        {"duplicated_bytes", duplicated_bytes},
                        {"extra_bytes", extra_bytes},
                        {"framing_errors", framing_errors},
                        {"parity_errors", parity_errors},
                        {"first_difference", first_difference},
                        {"mmio_reads", mmio_reads},
                        {"mmio_writes", mmio_writes},
                        {"polls", polls},
                        {"irq_off_max_ns", irq_off_max_ns},
                        {"irq_off_total_ns", irq_off_total_ns},
                        {"tx_fifo_max", tx_fifo_max},
                        {"rtl_cycles", rtl_cycles},
                        {"rtl_edges_evaluated", rtl_edges_evaluated},
                        {"transactions", transactions},
                        {"rtl_eval_s", rtl_eval_s},
                        {"expect_loss", expect_loss},
                        {"outcome", clean()       ? "clean"
                                    : expect_loss ? "expected-loss"
                                                  : "difference"},
                        {"throughput_kbps", throughput_kbps()}};
    if (seed_kbps >= 0) j["seed_kbps"] = seed_kbps;
    if (!line_text_head.empty()) j["line_text_head"] = line_text_head;
    return j;
}

} // namespace uartvp::program
