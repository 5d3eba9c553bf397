// SPDX-License-Identifier: Apache-2.0
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn
#include <uartvp/vcd_writer.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace uartvp {

// What the simulation tells the writer (write_at, a watched signal's change, hold, release, withdraw),
// with the time it told it: applied in that order, at once or in the writer's own thread, they give
// the same file.
struct vcd_writer::op {
    enum kind_t : std::uint8_t { write, change, hold, release, withdraw };
    std::uint64_t now; // the simulation time (resolution units) when it was told
    std::uint64_t a;   // write, withdraw: the time; hold, release: the hold's handle
    std::uint64_t b;   // write, change: the value; hold: its tick
    std::uint32_t var;
    kind_t kind;
};

// The writer's thread: from start() on, what the simulation tells the writer is appended to a batch
// and applied there (ordered, grouped by time stamp, formatted and written), so that a run with waves
// pays little more than the appends; finish() waits for it. Formatting: the changes of a time stamp in
// place into blocks written to the file (a stream or string put per change costs more than the
// formatting).
class vcd_writer::formatter {
public:
    explicit formatter(vcd_writer& w)
        : m_w(w) {}
    ~formatter() { finish(); }
    formatter(const formatter&) = delete;
    formatter& operator=(const formatter&) = delete;

    // Starts the thread; without one (none could be started) everything is applied at once.
    void start() {
        try {
            m_batch = take_batch();
            m_thread = std::thread([this] { run(); });
        } catch (const std::system_error&) {
            m_batch.reset();
        }
    }
    // False when there is no thread: the caller applies `o` itself.
    bool queue(const op& o) {
        if (!m_batch) return false;
        m_batch->push_back(o);
        if (m_batch->size() == batch_size) hand_over();
        return true;
    }
    // Everything queued is applied; the writer is the caller's again.
    void finish() {
        if (!m_thread.joinable()) return;
        {
            std::lock_guard<std::mutex> lk(m_mu);
            if (!m_batch->empty()) m_full.push_back(std::move(m_batch));
            m_stop = true;
        }
        m_work.notify_one();
        m_thread.join();
        m_batch.reset();
    }
    // The changes of one time stamp are written together, in the order the variables were added (a
    // value given twice at one time keeps its order): a VCD says nothing by the order within a time
    // stamp, and the file then does not depend on the order in which SystemC ran the processes of one
    // instant (a line written from its sender's reports gives the same file as its pin).
    void format(std::uint64_t tick, std::size_t index, std::uint64_t value) {
        if (tick != m_group_tick && !m_group.empty()) write_group();
        m_group.push_back({index, value});
        m_group_tick = tick;
    }
    // The last time stamp's changes and the block into the file.
    void end() {
        if (!m_group.empty()) write_group();
        flush_buffer();
    }
    // An initial value, before the simulation starts (before start()).
    void initial(const var& v, std::uint64_t value) {
        write_value(v, value);
        if (m_len >= block) flush_buffer();
    }
    void flush_buffer() {
        if (m_len == 0) return;
        m_w.m_out.write(m_buf.get(), static_cast<std::streamsize>(m_len));
        m_len = 0;
    }

private:
    using batch = std::vector<op>;
    // A batch is about 300 characters of a console's waves; a few in flight bound the memory when the
    // file is slower than the run.
    static constexpr std::size_t batch_size = 8192, batches_max = 8;

    std::unique_ptr<batch> take_batch() {
        std::unique_lock<std::mutex> lk(m_mu);
        m_free_cv.wait(lk, [this] { return !m_free.empty() || m_batches < batches_max; });
        if (m_free.empty()) {
            ++m_batches;
            auto b = std::make_unique<batch>();
            b->reserve(batch_size);
            return b;
        }
        auto b = std::move(m_free.back());
        m_free.pop_back();
        return b;
    }
    void hand_over() {
        if (m_batch->empty()) return;
        {
            std::lock_guard<std::mutex> lk(m_mu);
            m_full.push_back(std::move(m_batch));
        }
        m_work.notify_one();
        m_batch = take_batch();
    }
    void run() {
        for (;;) {
            std::unique_ptr<batch> b;
            {
                std::unique_lock<std::mutex> lk(m_mu);
                m_work.wait(lk, [this] { return !m_full.empty() || m_stop; });
                if (m_full.empty()) return;
                b = std::move(m_full.front());
                m_full.pop_front();
            }
            for (const op& o : *b)
                m_w.apply(o);
            b->clear();
            {
                std::lock_guard<std::mutex> lk(m_mu);
                m_free.push_back(std::move(b));
            }
            m_free_cv.notify_one();
        }
    }
    void write_group() {
        // Insertion sort: a time stamp holds a few changes, mostly in order already.
        for (std::size_t i = 1; i < m_group.size(); ++i)
            for (std::size_t j = i; j > 0 && m_group[j - 1].first > m_group[j].first; --j)
                std::swap(m_group[j - 1], m_group[j]);
        write_stamp(m_group_tick);
        for (const auto& [index, value] : m_group) {
            write_value(*m_w.m_vars[index], value);
            if (m_len >= block) flush_buffer();
        }
        m_group.clear();
    }
    void write_stamp(std::uint64_t tick);
    void write_value(const var& v, std::uint64_t value);

    vcd_writer& m_w; // its variables do not change once the simulation starts
    static constexpr std::size_t block = std::size_t{1} << 16;
    std::unique_ptr<char[]> m_buf{new char[block + 256]}; // room for one more change past a block
    std::size_t m_len = 0;
    std::uint64_t m_ts_hi = 0; // a time stamp's digits above the last eight, formatted once
    char m_ts_hi_digits[20];
    unsigned m_ts_hi_len = 0;
    std::uint64_t m_stamp_tick = 0; // the last time stamp in the file
    // The changes of the time stamp being gathered (m_group_tick's: var index, value).
    std::vector<std::pair<std::size_t, std::uint64_t>> m_group;
    std::uint64_t m_group_tick = 0;
    // Batches: the one being filled (none: applied at once), those handed over, those applied.
    std::unique_ptr<batch> m_batch;
    std::thread m_thread;
    std::mutex m_mu;
    std::condition_variable m_work, m_free_cv;
    std::deque<std::unique_ptr<batch>> m_full;
    std::vector<std::unique_ptr<batch>> m_free;
    std::size_t m_batches = 0;
    bool m_stop = false;
};

vcd_writer::vcd_writer(const sc_core::sc_module_name& name, const std::string& path,
                       std::uint64_t timescale_ps)
    : sc_module(name)
    , m_path(path)
    , m_ts_ps(timescale_ps)
    , m_out(path) {
    std::uint64_t t = timescale_ps;
    while (t >= 1000 && t % 1000 == 0)
        t /= 1000;
    if (t != 1 && t != 10 && t != 100)
        throw std::invalid_argument("vcd_writer: a timescale is 1, 10 or 100 ps, ns, us, ms or s");
    if (!m_out) throw std::runtime_error("cannot write " + path);
    // Simulation time is counted in resolution units: units per ps as a fraction (1 ps -> 1/1, 1 fs ->
    // 1000/1).
    const std::uint64_t units_per_s = sc_core::sc_time(1, sc_core::SC_SEC).value();
    m_units_per_ps_num = units_per_s >= 1'000'000'000'000ull ? units_per_s / 1'000'000'000'000ull : 1;
    m_units_per_ps_den = units_per_s >= 1'000'000'000'000ull ? 1 : 1'000'000'000'000ull / units_per_s;
    m_fmt = std::make_unique<formatter>(*this);
}

vcd_writer::~vcd_writer() {
    close();
}

void vcd_writer::add(const sc_core::sc_signal_in_if<bool>& s, const std::string& name) {
    add_var(
        name, 1, &s.value_changed_event(), [&s] { return static_cast<std::uint64_t>(s.read()); },
        dynamic_cast<const signal_observers*>(&s));
}

void vcd_writer::add(const sc_core::sc_port_base& port, const std::string& name) {
    m_ports.emplace_back(&port, name);
}

void vcd_writer::end_of_elaboration() {
    for (const auto& [port, name] : m_ports) {
        // A bool port's interface is a signal of bool (sc_signal_inout_if derives from the in_if).
        const sc_core::sc_interface* i = port->get_interface();
        if (auto* s = dynamic_cast<const sc_core::sc_signal_in_if<bool>*>(i))
            add(*s, name);
        else if (i)
            throw std::invalid_argument("vcd_writer: " + name + " is not a port of a bool signal");
    }
    m_ports.clear();
}

std::size_t vcd_writer::new_var(const std::string& name, unsigned width) {
    auto v = std::make_unique<var>();
    v->name = name;
    v->width = width;
    // Identifiers: printable characters from '!' in base 94.
    for (std::size_t n = m_vars.size();; n /= 94) {
        v->id += static_cast<char>('!' + n % 94);
        if (n < 94) break;
    }
    if (v->id.size() + 1 > sizeof v->id_line)
        throw std::length_error("vcd_writer: more variables than identifiers of seven characters");
    std::memcpy(v->id_line, v->id.data(), v->id.size());
    v->id_line[v->id.size()] = '\n';
    v->index = m_vars.size();
    m_vars.push_back(std::move(v));
    return m_vars.size() - 1;
}

void vcd_writer::add_var(const std::string& name, unsigned width, const sc_core::sc_event* changed,
                         std::function<std::uint64_t()> read, const signal_observers* observed) {
    var* raw = m_vars[new_var(name, width)].get();
    raw->read = std::move(read);
    if (observed) {
        observed->on_change([this, raw] { change(*raw); });
        return;
    }
    sc_core::sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(changed);
    opt.dont_initialize();
    sc_core::sc_spawn([this, raw] { change(*raw); }, sc_core::sc_gen_unique_name("watch"), &opt);
}

std::size_t vcd_writer::add_deferred(const std::string& name, unsigned width, std::uint64_t initial) {
    const std::size_t i = new_var(name, width);
    m_vars[i]->initial = initial;
    return i;
}

std::size_t vcd_writer::add_ahead(const std::string& name, unsigned width, std::uint64_t initial) {
    const std::size_t i = add_deferred(name, width, initial);
    m_vars[i]->ahead = true;
    return i;
}

inline void vcd_writer::submit(const op& o) {
    if (!m_fmt->queue(o)) apply(o);
}

void vcd_writer::apply(const op& o) {
    switch (o.kind) {
    case op::write: {
        const std::uint64_t tick = tick_of(o.a);
        // A time before the last one written is written at that one, after what is there.
        if (tick < m_last_tick || (tick == m_last_tick && o.a < m_last_at))
            add_change(m_last_tick, m_last_at, *m_vars[o.var], o.b, o.now);
        else
            add_change(tick, o.a, *m_vars[o.var], o.b, o.now);
        break;
    }
    case op::change:
        add_change(tick_of(o.now), o.now, *m_vars[o.var], o.b, o.now);
        break;
    case op::hold:
        m_holds[o.a] = o.b;
        m_hold_min = std::min(m_hold_min, o.b);
        break;
    case op::release:
        m_holds.erase(o.a);
        m_hold_min = std::numeric_limits<std::uint64_t>::max();
        for (const auto& [id, tick] : m_holds)
            m_hold_min = std::min(m_hold_min, tick);
        flush_held(false, o.now);
        break;
    case op::withdraw: {
        const var* v = m_vars[o.var].get();
        // The changes still ahead are at the back: a character's worth, or a polling span's.
        auto& q = m_held.q;
        for (std::size_t i = q.size(); i > m_held.head;) {
            --i;
            if (q[i].v == v && q[i].at >= o.a) q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
        }
        if (m_held.empty()) {
            q.clear();
            m_held.head = 0;
        }
        break;
    }
    }
}

void vcd_writer::withdraw(std::size_t var, const sc_core::sc_time& from) {
    m_vars.at(var); // std::out_of_range for a variable never added: here, not in the writer's thread
    submit(
        {simcontext()->time_stamp().value(), from.value(), 0, static_cast<std::uint32_t>(var), op::withdraw});
}

std::uint64_t vcd_writer::tick_of(std::uint64_t units) const {
    if (m_units_per_ps_den == 1 && m_units_per_ps_num == 1 && m_ts_ps == 1) return units; // 1 ps
    const std::uint64_t ps = units * m_units_per_ps_den / m_units_per_ps_num;
    return (ps + m_ts_ps / 2) / m_ts_ps;
}

std::uint64_t vcd_writer::hold(const sc_core::sc_time& from) {
    const sc_core::sc_time& now = simcontext()->time_stamp();
    submit({now.value(), m_next_hold, tick_of(std::max(from, now).value()), 0, op::hold});
    return m_next_hold++;
}

void vcd_writer::write_at(std::size_t var, const sc_core::sc_time& at, std::uint64_t value) {
    m_vars.at(var); // as in withdraw()
    submit(
        {simcontext()->time_stamp().value(), at.value(), value, static_cast<std::uint32_t>(var), op::write});
}

void vcd_writer::release(std::uint64_t h) {
    submit({simcontext()->time_stamp().value(), h, 0, 0, op::release});
}

void vcd_writer::change(const var& v) {
    submit(
        {simcontext()->time_stamp().value(), 0, v.read(), static_cast<std::uint32_t>(v.index), op::change});
}

// A change is written at once where it would be the first held one and due (most are): the same as
// holding it and writing what is due, without the queue.
void vcd_writer::add_change(std::uint64_t tick, std::uint64_t at, const var& v, std::uint64_t value,
                            std::uint64_t now) {
    if ((m_held.empty() || m_held.front().tick > tick ||
         (m_held.front().tick == tick && m_held.front().at > at)) &&
        (at < now || (at == now && !v.ahead))) {
        if (tick < m_hold_min) { // before every open hold
            put(tick, at, v, value);
            if (!m_held.empty()) flush_held(false, now);
            return;
        }
    }
    insert_held(tick, at, v, value);
    flush_held(false, now);
}

// In time order (the exact time within a tick), after the held changes of the same time: of two
// changes at one time, the one given last wins.
void vcd_writer::insert_held(std::uint64_t tick, std::uint64_t at, const var& v, std::uint64_t value) {
    auto& q = m_held.q;
    std::size_t i = q.size();
    while (i > m_held.head && (q[i - 1].tick > tick || (q[i - 1].tick == tick && q[i - 1].at > at)))
        --i;
    if (i == m_held.head && i > 0)
        q[--m_held.head] = held{tick, at, &v, value}; // before the others, in the room written ones left
    else
        q.insert(q.begin() + static_cast<std::ptrdiff_t>(i), held{tick, at, &v, value});
}

// Writes the held changes that nothing can precede any more: up to the present (`now_at`), before
// every open hold (all of them at the end, but for changes given ahead of a time the run did not
// reach).
void vcd_writer::flush_held(bool all, std::uint64_t now_at) {
    if (m_held.empty()) return;
    // Due: a change before the present, or at it but for one given ahead, which a report at this
    // instant may still withdraw (a level given twice at one time: the last is the line's).
    const auto due = [now_at](const held& h) { return h.at < now_at || (h.at == now_at && !h.v->ahead); };
    if (!all && !due(m_held.front())) return; // the usual case: nothing due yet
    // A change up to the present is due unless a hold before it is open (its tick is at most the
    // present's, as its time is).
    const std::uint64_t limit = all ? std::numeric_limits<std::uint64_t>::max() : m_hold_min;
    while (!m_held.empty()) {
        const held& h = m_held.front();
        if (!due(h)) {
            if (!all) break;
            if (h.at > now_at && h.v->ahead) {
                m_held.pop_front();
                continue;
            }
        } else if (!all && h.tick >= limit)
            break;
        put(h.tick, h.at, *h.v, h.value);
        m_held.pop_front();
    }
}

void vcd_writer::put(std::uint64_t tick, std::uint64_t at, const var& v, std::uint64_t value) {
    m_fmt->format(tick, v.index, value);
    m_last_tick = tick;
    m_last_at = at;
}

void vcd_writer::formatter::write_stamp(std::uint64_t tick) {
    if (tick != m_stamp_tick) {
        char* p = m_buf.get() + m_len;
        *p++ = '#';
        if (tick < 100'000'000) {
            p = std::to_chars(p, p + 20, tick).ptr;
        } else {
            // Digits above the last eight change about once per 100 us at 1 ps: kept, and the last
            // eight written in pairs (a division per pair of a 13-digit number costs here).
            const std::uint64_t hi = tick / 100'000'000;
            auto lo = static_cast<std::uint32_t>(tick % 100'000'000);
            if (hi != m_ts_hi || m_ts_hi_len == 0) {
                m_ts_hi = hi;
                m_ts_hi_len = static_cast<unsigned>(
                    std::to_chars(m_ts_hi_digits, m_ts_hi_digits + 20, hi).ptr - m_ts_hi_digits);
            }
            std::memcpy(p, m_ts_hi_digits, sizeof m_ts_hi_digits); // fixed size: no call; room past the end
            p += m_ts_hi_len;
            static constexpr char pairs[] =
                "00010203040506070809101112131415161718192021222324252627282930313233343536"
                "37383940414243444546474849505152535455565758596061626364656667686970717273"
                "7475767778798081828384858687888990919293949596979899";
            for (int k = 3; k >= 0; --k) {
                std::memcpy(p + 2 * k, pairs + 2 * (lo % 100), 2);
                lo /= 100;
            }
            p += 8;
        }
        *p++ = '\n';
        m_len = static_cast<std::size_t>(p - m_buf.get());
        m_stamp_tick = tick;
    }
}

void vcd_writer::start_of_simulation() {
    // Scopes from the dotted names, in the order the variables were added.
    struct scope {
        std::vector<std::pair<std::string, scope>> subs;
        std::vector<const var*> vars;
        scope& sub(const std::string& n) {
            for (auto& [name, s] : subs)
                if (name == n) return s;
            subs.emplace_back(n, scope());
            return subs.back().second;
        }
    } top;
    for (const auto& v : m_vars) {
        scope* s = &top;
        std::size_t from = 0, dot;
        while ((dot = v->name.find('.', from)) != std::string::npos) {
            s = &s->sub(v->name.substr(from, dot - from));
            from = dot + 1;
        }
        s->vars.push_back(v.get());
    }
    const char* units[] = {"ps", "ns", "us", "ms", "s"};
    std::uint64_t ts = m_ts_ps;
    int u = 0;
    while (ts >= 1000 && u < 4) {
        ts /= 1000;
        ++u;
    }
    m_out << "$timescale " << ts << " " << units[u] << " $end\n";
    std::function<void(const scope&)> emit = [&](const scope& s) {
        for (const var* v : s.vars) {
            const std::string leaf =
                v->name.substr(v->name.rfind('.') == std::string::npos ? 0 : v->name.rfind('.') + 1);
            m_out << "$var wire " << v->width << " " << v->id << " " << leaf;
            if (v->width > 1) m_out << " [" << v->width - 1 << ":0]";
            m_out << " $end\n";
        }
        for (const auto& [name, sub] : s.subs) {
            m_out << "$scope module " << name << " $end\n";
            emit(sub);
            m_out << "$upscope $end\n";
        }
    };
    emit(top);
    m_out << "$enddefinitions $end\n#0\n";
    if (!m_plain_init) m_out << "$dumpvars\n";
    for (const auto& v : m_vars)
        m_fmt->initial(*v, v->read ? v->read() : v->initial);
    m_fmt->flush_buffer();
    if (!m_plain_init) m_out << "$end\n";
    m_last_tick = 0;
    m_last_at = 0;
    if (m_background) m_fmt->start();
}

void vcd_writer::formatter::write_value(const var& v, std::uint64_t value) {
    char* p = m_buf.get() + m_len;
    if (v.width == 1) {
        *p++ = value ? '1' : '0';
    } else {
        if (v.width < 64)
            value &= (std::uint64_t(1) << v.width) - 1; // a negative int as its two's complement
        // Binary without leading zeros (at least one digit): the bits above a multiple of four one by
        // one, then four at a time.
        const int n = value ? 64 - __builtin_clzll(value) : 1;
        *p++ = 'b';
        int i = n;
        for (; i % 4; --i)
            *p++ = static_cast<char>('0' + ((value >> (i - 1)) & 1));
        static constexpr char nibbles[] = "0000000100100011010001010110011110001001101010111100110111101111";
        for (; i > 0; i -= 4, p += 4)
            std::memcpy(p, nibbles + 4 * ((value >> (i - 4)) & 0xF), 4);
        *p++ = ' ';
    }
    // The identifier and the newline, copied as eight bytes whatever their length (the block has
    // room past its end).
    std::memcpy(p, v.id_line, sizeof v.id_line);
    m_len = static_cast<std::size_t>(p + v.id.size() + 1 - m_buf.get());
}

bool vcd_writer::close() {
    if (!m_out.is_open()) return m_ok;
    m_fmt->finish(); // the thread's work done: the rest here
    flush_held(true, sc_core::sc_time_stamp().value());
    m_fmt->end();
    // A last time stamp, so that a viewer or decoder sees the final values last.
    const std::uint64_t ps = sc_core::sc_time_stamp().value() * m_units_per_ps_den / m_units_per_ps_num;
    const std::uint64_t end = (ps + m_ts_ps - 1) / m_ts_ps + 1;
    if (end > m_last_tick) m_out << '#' << end << '\n';
    m_out.close();
    m_ok = !m_out.fail();
    return m_ok;
}

void vcd_line_reader::add_to(vcd_writer& w, const std::string& name) {
    m_to.emplace_back(&w, w.add_ahead(name, 1, m_initial ? 1 : 0));
}

void vcd_line_reader::line_char(const serial_char& c) {
    forget_past();
    for (unsigned k = 0; k < c.bits; ++k)
        edge(c.edge[k], c.level(k));
    // After its last bit the line is back at its level between characters (a stop bit sent low, a
    // framing error on purpose, rises there).
    edge(c.end(), m_between);
}

void vcd_line_reader::line_level(const sc_core::sc_time& t, bool level) {
    forget_past();
    m_between = level;
    // Inside a character reported before, or before one reported ahead: its changes from t on never
    // reach the line.
    if (!m_edges.empty() && m_edges.back().first >= t) {
        while (!m_edges.empty() && m_edges.back().first >= t)
            m_edges.pop_back();
        for (const auto& [w, var] : m_to)
            w->withdraw(var, t);
    }
    edge(t, level);
}

// Changes before the present are written: only the level they leave matters.
void vcd_line_reader::forget_past() {
    const sc_core::sc_time& now = sc_core::sc_time_stamp();
    while (!m_edges.empty() && m_edges.front().first < now) {
        m_base = m_edges.front().second;
        m_edges.pop_front();
    }
}

void vcd_line_reader::edge(const sc_core::sc_time& t, bool level) {
    // A level for the instant of the last change replaces it (a break ending where a start bit
    // begins: the pin never rises).
    if (!m_edges.empty() && m_edges.back().first == t) {
        m_edges.pop_back();
        for (const auto& [w, var] : m_to)
            w->withdraw(var, t);
    }
    if (level == (m_edges.empty() ? m_base : m_edges.back().second)) return; // the pin shows changes only
    m_edges.emplace_back(t, level);
    for (const auto& [w, var] : m_to)
        w->write_at(var, t, level ? 1 : 0);
}

} // namespace uartvp
