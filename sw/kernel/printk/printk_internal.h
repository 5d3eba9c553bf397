// SPDX-License-Identifier: Apache-2.0
#pragma once
// What printk.cpp and nbcon.cpp share: printk's global state (one printk per simulation, as the kernel
// has one) and the helpers both the legacy loop and the nbcon paths use. Internal to sw/.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <uartvp/cpu/core.h>

#include "kernel/printk/printk.h"

namespace uartvp::sw::printk_internal {

using namespace kapi;

struct printk_globals {
    printk_config cfg;
    printk_ringbuffer rb;
    std::vector<console*> consoles;
    bool have_legacy_console = false, have_nbcon_console = false, have_boot_console = false;
    bool kthreads_ready = false, kthreads_running = false, pending_start = false;
    bool legacy_allow_panic_sync = false;
    int panic_cpu = -1;
    std::vector<unsigned> emergency_nesting = std::vector<unsigned>(64, 0);
    std::vector<unsigned> deferred = std::vector<unsigned>(64, 0);
    // console_lock (console_sem), the spinning handover of console_trylock_spinning
    bool console_locked = false;
    int console_lock_owner = -1;
    bool console_may_schedule = false;
    int console_owner = -1; // the CPU emitting a legacy record with spinning enabled
    bool console_waiter = false;
    wait_queue_head console_sem_wq;
    std::uint64_t syslog_seq = 0;
    std::map<const console*, std::vector<printed_record>> printed;
    std::function<void(const printk_info&)> on_store;
    std::function<void(const console&, const printed_record&)> on_printed;
    std::vector<cpu::irq_work> deferred_work = std::vector<cpu::irq_work>(64);
    // The legacy loop's record and its formatted text (the kernel's static printk_buffers, used under
    // console_lock): not on the printing task's stack, which a console write that never returns keeps.
    printk_info pbuf_record;
    std::string pbuf_text;
    explicit printk_globals(const printk_config& c)
        : cfg(c)
        , rb(c.log_buf_len, c.record_max) {}
};

printk_globals& pk();
// State the CPUs share is looked at in SystemC time (the other cores' writes are there).
cpu::core& now();
unsigned this_cpu();
// Ownership, console_waiter and the lock change: spinning CPUs look again.
sc_core::sc_event& state_changed();
void notify_state();

bool console_is_usable(const console& con);
bool is_nbcon(const console& con);
void record_printed(console& con, const printk_info& r, const std::string& text, bool replayed,
                    std::uint64_t dropped);
// The next record at or after `seq` for `con`: false if none; the dropped count grows by the records
// overwritten before it could print them. `suppressed`: at or above console_loglevel (stored, not printed).
bool printk_get_next_message(console& con, std::uint64_t seq, printk_info& r, std::uint64_t& dropped,
                             bool& suppressed);
std::string con_name(const console& con);
void con_printk(int level, const console& con, const std::string& msg);

// The printer kthreads (nbcon.cpp): one made for `con`, false if it could not be; and the check that
// starts them once they may run (with `newcon`, the console being registered).
bool nbcon_kthread_create(console& con);
void printk_kthreads_check_locked(console* newcon = nullptr);

} // namespace uartvp::sw::printk_internal
