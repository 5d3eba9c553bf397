// SPDX-License-Identifier: Apache-2.0
#pragma once
// printk (kernel/printk/{printk.c,nbcon.c,internal.h}) as the kernel model runs it: the ring buffer of
// records, vprintk_emit's order, the legacy console_unlock loop, nbcon ownership with priorities and
// handover, the atomic flush, the printer kthread, and register_console with boot consoles. Behaviour
// follows the kernel; the code is the model's own. One printk per simulation (as the kernel has one):
// printk_init() makes it, every call acts on it. Code between register accesses costs nothing (only
// the console drivers' accesses and delays take time), and state shared by CPUs is read and written
// at the acting core's synchronised time.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <uartvp/cpu/kernel.h>

namespace uartvp::sw {

// Log levels (include/linux/kern_levels.h).
constexpr int LOGLEVEL_DEFAULT = -1, LOGLEVEL_EMERG = 0, LOGLEVEL_ALERT = 1, LOGLEVEL_CRIT = 2,
              LOGLEVEL_ERR = 3, LOGLEVEL_WARNING = 4, LOGLEVEL_NOTICE = 5, LOGLEVEL_INFO = 6,
              LOGLEVEL_DEBUG = 7, LOGLEVEL_SCHED = -2;
constexpr std::size_t PRINTKRB_RECORD_MAX = 1024; // bytes of text stored per record

// One record: sequence number, the time it was stored (local_clock at vprintk_store), level, the CPU
// that stored it (caller id), the text without its trailing newline.
struct printk_info {
    std::uint64_t seq = 0;
    std::uint64_t ts_nsec = 0;
    int level = LOGLEVEL_INFO;
    unsigned cpu = 0;
    std::string text;
};

// The ring buffer: records in sequence order; its data area holds log_buf_len bytes, each record
// taking its text plus a block header, and the oldest records are overwritten when it is full.
class printk_ringbuffer {
public:
    static constexpr std::size_t block_header = 16; // the data block's id and padding, as counted here
    explicit printk_ringbuffer(std::size_t log_buf_len, std::size_t record_max = PRINTKRB_RECORD_MAX)
        : m_len(log_buf_len)
        , m_record_max(record_max) {}
    // prb_reserve: the record gets its sequence number and its room (the oldest records make room) but
    // is not readable until committed. Returns its sequence number.
    std::uint64_t reserve(printk_info info);
    // prb_final_commit: the reserved record becomes readable.
    void commit(std::uint64_t seq);
    // Both at once: the new record's sequence number.
    std::uint64_t store(printk_info info) { return commit_and_return(reserve(std::move(info))); }
    // prb_read_valid: the first record with seq >= `seq` (seq itself unless overwritten); false if none,
    // or if that record is reserved and not yet committed (a reader stops there).
    bool read_valid(std::uint64_t seq, printk_info* out = nullptr) const;
    std::uint64_t first_seq() const { return m_first; }
    // prb_next_seq: after the last record readable in order (the first one reserved and not committed).
    std::uint64_t next_seq() const { return m_committed_to; }
    // prb_next_reserve_seq: after the last record reserved.
    std::uint64_t next_reserve_seq() const { return m_first + m_records.size(); }
    std::size_t log_buf_len() const { return m_len; }
    std::size_t bytes_used() const { return m_used; }
    std::uint64_t overwritten() const { return m_first; }

private:
    std::uint64_t commit_and_return(std::uint64_t seq) {
        commit(seq);
        return seq;
    }
    std::size_t m_len, m_record_max, m_used = 0;
    std::uint64_t m_first = 0, m_committed_to = 0;
    std::deque<printk_info> m_records;
    std::deque<bool> m_committed; // beside m_records
};

// The prefix (info_print_prefix without syslog level or caller id): "[%5lu.%06lu] " when time is on.
std::string print_time(std::uint64_t ts_nsec);
// record_print_text: the prefix before every line of the text, '\n' after each.
std::string record_print_text(const printk_info& r, bool time);
std::string dropped_marker(std::uint64_t n); // "** N printk messages dropped **\n"
extern const char* const replay_marker;      // "** replaying previous printk message **\n"

// Console flags (include/linux/console.h).
constexpr unsigned CON_PRINTBUFFER = 1, CON_CONSDEV = 2, CON_ENABLED = 4, CON_BOOT = 8, CON_NBCON = 0x100;

// nbcon priorities and the console's ownership state (struct nbcon_state, one atomic word).
enum class nbcon_prio { none = 0, normal, emergency, panic };
struct nbcon_state {
    nbcon_prio prio = nbcon_prio::none;
    int cpu = -1;
    nbcon_prio req_prio = nbcon_prio::none; // a waiter asking for a handover
    bool unsafe = false;
    bool unsafe_takeover = false;
};

struct console;
struct nbcon_context {
    console* con = nullptr;
    nbcon_prio prio = nbcon_prio::normal;
    unsigned spinwait_max_us = 0;
    bool allow_unsafe_takeover = false;
    bool backlog = false; // a record was there to print
};
struct nbcon_write_context {
    nbcon_context ctxt;
    std::string outbuf;
    bool unsafe_takeover = false;
};

struct console {
    std::string name; // "ttyAMA"
    int index = 0;
    unsigned flags = 0;
    // legacy: the whole formatted record
    std::function<void(console&, std::string_view)> write;
    // nbcon
    std::function<void(console&, nbcon_write_context&)> write_atomic, write_thread;
    std::function<void(console&, kapi::irqflags&)> device_lock;
    std::function<void(console&, kapi::irqflags)> device_unlock;
    std::function<int(console&)> setup;   // 0: ready
    void* data = nullptr;                 // the driver's port
    std::uint64_t seq = 0;                // legacy: next record to print
    std::uint64_t init_seq = 0;           // the first record register_console gave it (the model's)
    std::uint64_t nbcon_seq = 0;          // nbcon: next record to print
    std::uint64_t nbcon_prev_seq = ~0ull; // the record an owner started: a new owner replays it
    nbcon_state state;
    std::uint64_t dropped = 0;
    cpu::task* kthread = nullptr;
    kapi::wait_queue_head rcuwait;
    bool kthread_waiting = false;
    cpu::irq_work irq_work;
    bool registered = false;
    // The model's counters (the kernel has none): records written, replays, takeovers lost.
    std::uint64_t records_written = 0, replays = 0, ownership_lost = 0;
    std::string full_name() const { return name + std::to_string(index); }
};

struct console_flush_type {
    bool nbcon_atomic = false, nbcon_offload = false, legacy_direct = false, legacy_offload = false;
};

// Which register_console() the kernel has (sections 8 and 10 of the notes):
// v6_16: the first nbcon console gets its kthread only after "enabled" (the replay is atomic);
// pending_start: the RFC's printk_kthreads_pending_start (offload chosen while the kthread is pending);
// kthread_first: printk_kthreads_check_locked() before "enabled" (a window where have_nbcon_console is
// set and no kthread runs); merged: the kthread made in nbcon_alloc (cf5543870186).
enum class printk_variant { v6_16, pending_start, kthread_first, merged };

struct printk_config {
    std::size_t log_buf_len = 1u << 17;
    bool time = true;      // printk.time
    std::string preferred; // console= / SPCR: "ttyAMA0" (empty: the first console is enabled)
    bool keep_bootcon = false;
    printk_variant variant = printk_variant::merged;
    unsigned kthread_cpu = 0; // the printer kthread's core
    // Records at this level or above (less urgent) are stored, not printed (suppress_message_printing):
    // loglevel=N sets N, quiet 4 (CONSOLE_LOGLEVEL_QUIET), the kernel's default is 7; 15 prints all.
    int console_loglevel = 15;
    unsigned long store_ns = 0; // vprintk_store: formatting, reserve and commit, IRQs off (0: free)
    // The model's, for scenarios whose payload is the console's whole output: the longest record text
    // kept (the kernel's PRINTKRB_RECORD_MAX; SIZE_MAX: a console write of any length), whether
    // register/unregister print their "enabled"/"disabled" records, and whether printk_printed() keeps
    // every printed record (off: only the printk_on_printed callback sees them, memory stays flat).
    std::size_t record_max = PRINTKRB_RECORD_MAX;
    bool announce_consoles = true;
    bool keep_printed = true;
};

// suppress_message_printing: a record of this level is not printed on the consoles.
bool suppress_message_printing(int level);

// ---- The kernel's interface.
void printk_init(const printk_config& cfg);
const printk_config& printk_cfg();
printk_ringbuffer& printk_rb();

// printk(KERN_<level> fmt): the text (already formatted) at its level.
int vprintk_emit(int facility, int level, std::string_view text);
int printk(int level, std::string_view text);
inline int pr_info(std::string_view t) {
    return printk(LOGLEVEL_INFO, t);
}
inline int pr_warn(std::string_view t) {
    return printk(LOGLEVEL_WARNING, t);
}
inline int pr_err(std::string_view t) {
    return printk(LOGLEVEL_ERR, t);
}
int printk_deferred(int level, std::string_view text);

console_flush_type printk_get_console_flush_type();
nbcon_prio nbcon_get_default_prio();

// console_lock (a sleeping lock; the model spins in simulated time), the spinning trylock, unlock.
void console_lock();
bool console_trylock();
bool console_trylock_spinning();
void console_unlock();

// nbcon
bool nbcon_context_try_acquire(nbcon_context& ctxt);
void nbcon_context_release(nbcon_context& ctxt);
bool nbcon_can_proceed(nbcon_write_context& wctxt);
bool nbcon_enter_unsafe(nbcon_write_context& wctxt);
bool nbcon_exit_unsafe(nbcon_write_context& wctxt);
void nbcon_reacquire_nobuf(nbcon_write_context& wctxt);
bool nbcon_emit_next_record(nbcon_write_context& wctxt, bool use_atomic);
void nbcon_atomic_flush_pending();
void nbcon_kthreads_wake();
void nbcon_cpu_emergency_enter();
void nbcon_cpu_emergency_exit();
void printk_set_panic_cpu(int cpu); // this CPU is in panic (-1: none): PANIC priority, panic rules

// The kthreads are "ready" from the early_initcall printk_set_kthreads_ready.
void printk_set_kthreads_ready();
bool printk_kthreads_running();
bool printk_kthreads_pending_start();

void register_console(console& newcon);
int unregister_console(console& con);
const std::vector<console*>& console_list();

// Everything stored has been printed by every enabled console (or they gave up), and no CPU is in
// a flush: what the run waits for at the end.
bool printk_all_printed();
// The records a console printed, in order, for the scoreboard (seq and the text as written).
struct printed_record {
    std::uint64_t seq;
    std::string text;
    bool replayed;
    std::uint64_t dropped_before;
};
const std::vector<printed_record>& printk_printed(const console& con);
// Called whenever a record was stored (the scenario's waves and results).
void printk_on_store(std::function<void(const printk_info&)> fn);
// Called on the printing CPU whenever a console finished a record (waves).
void printk_on_printed(std::function<void(const console&, const printed_record&)> fn);

} // namespace uartvp::sw
