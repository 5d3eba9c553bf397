// SPDX-License-Identifier: Apache-2.0
#include "cli/progress.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/core.h>
#include <systemc>

namespace uartvp::program::progress {

namespace {

setting g_setting = setting::automatic;
bool g_shown = false; // a status line is on the terminal
std::mutex g_out;     // the status line and what print() writes around it

std::atomic<std::uint64_t> g_bytes_read{0};
std::uint64_t g_total_bytes = 0;
std::function<double()> g_share;

bool stderr_is_terminal() {
    static const bool tty = isatty(STDERR_FILENO) == 1;
    return tty;
}

void clear_locked() {
    if (!g_shown) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    g_shown = false;
}

class counting_reader final : public payload_reader {
public:
    explicit counting_reader(std::shared_ptr<payload_reader> inner)
        : m_inner(std::move(inner)) {}
    bool next(std::string& line) override {
        const bool ok = m_inner->next(line);
        if (ok) g_bytes_read.fetch_add(line.size(), std::memory_order_relaxed);
        return ok;
    }
    std::string error() const override { return m_inner->error(); }

private:
    std::shared_ptr<payload_reader> m_inner;
};

// Its update() runs in the simulation's thread: sc_time_stamp() and the scenario's share are read there.
class progress_channel final : public sc_core::sc_prim_channel {
public:
    progress_channel()
        : sc_core::sc_prim_channel("uartvp_progress") {}
    void request() { async_request_update(); }
    std::chrono::steady_clock::time_point wall0;

private:
    void update() override {
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        double share = -1;
        if (g_share)
            share = g_share();
        else if (g_total_bytes)
            share = static_cast<double>(g_bytes_read.load()) / static_cast<double>(g_total_bytes);
        std::string text =
            fmt::format("run: {:.3f} ms simulated", sc_core::sc_time_stamp().to_seconds() * 1e3);
        if (share >= 0) {
            share = std::min(share, 1.0);
            text += fmt::format(", {:.1f} % of the payload", share * 100);
        }
        text += fmt::format(", {:.1f} s wall", wall);
        if (share > 0.001 && share < 1)
            text += fmt::format(", about {:.0f} s left", wall * (1 - share) / share);
        status(text);
    }
};

progress_channel* g_channel = nullptr;
std::thread g_ticker;
std::mutex g_tick_lock;
std::condition_variable g_tick_cv;
bool g_tick_stop = false;

} // namespace

void configure(setting s) {
    g_setting = s;
}

bool enabled() {
    return g_setting == setting::forced || (g_setting == setting::automatic && stderr_is_terminal());
}

void status(const std::string& text) {
    if (!enabled()) return;
    std::lock_guard<std::mutex> l(g_out);
    if (stderr_is_terminal()) {
        std::fprintf(stderr, "\r\033[K%s", text.c_str());
        g_shown = true;
    } else {
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
}

void clear() {
    std::lock_guard<std::mutex> l(g_out);
    clear_locked();
}

void print(std::FILE* f, const std::string& text) {
    std::lock_guard<std::mutex> l(g_out);
    clear_locked();
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
}

std::shared_ptr<payload_reader> counted(std::shared_ptr<payload_reader> inner, std::uint64_t total_bytes) {
    g_total_bytes = total_bytes;
    g_bytes_read = 0;
    return std::make_shared<counting_reader>(std::move(inner));
}

void set_share(std::function<double()> share) {
    g_share = std::move(share);
}

void simulation_starting() {
    if (!enabled()) return;
    // Created once, during elaboration (a primitive channel belongs to it); kept: the kernel holds it.
    if (!g_channel) g_channel = new progress_channel;
    g_channel->wall0 = std::chrono::steady_clock::now();
    g_tick_stop = false;
    g_ticker = std::thread([] {
        std::unique_lock<std::mutex> l(g_tick_lock);
        while (!g_tick_cv.wait_for(l, std::chrono::milliseconds(250), [] { return g_tick_stop; }))
            g_channel->request();
    });
}

void simulation_ended() {
    if (g_ticker.joinable()) {
        {
            std::lock_guard<std::mutex> l(g_tick_lock);
            g_tick_stop = true;
        }
        g_tick_cv.notify_all();
        g_ticker.join();
    }
    g_share = nullptr;
    clear();
}

} // namespace uartvp::program::progress
