// SPDX-License-Identifier: Apache-2.0
#include "workloads/bootlog.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <random>

namespace uartvp::sw {

namespace {

// Numbers straight from the engine's raw output: std::uniform_int_distribution differs between
// standard libraries, std::mt19937 does not.
class rng {
public:
    explicit rng(std::uint32_t seed)
        : m_engine(seed) {}
    // Uniform in [0, n), by rejection (no modulo bias).
    std::uint32_t below(std::uint32_t n) {
        if (n <= 1) return 0;
        const std::uint32_t limit = static_cast<std::uint32_t>(0x100000000ull - (0x100000000ull % n));
        for (;;) {
            const std::uint32_t x = static_cast<std::uint32_t>(m_engine());
            if (limit == 0 || x < limit) return x % n;
        }
    }
    std::uint32_t between(std::uint32_t lo, std::uint32_t hi) { return lo + below(hi - lo + 1); }
    bool percent(std::uint32_t p) { return below(100) < p; }
    template <typename T, std::size_t N> const T& pick(const T (&a)[N]) { return a[below(N)]; }

private:
    std::mt19937 m_engine;
};

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return std::string(buf, n < 0 ? 0 : std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
}

const char* const subsystems[] = {
    "pl011",
    "amba",
    "virtio_mmio",
    "virtio_blk",
    "virtio_net",
    "pl061_gpio",
    "i2c",
    "spi",
    "inet",
    "tcp_congestion",
    "crypto_algapi",
    "pl031_rtc",
    "gen_pci",
    "of_platform",
    "dma_bus",
    "regulator",
    "serial8250",
    "tty",
    "input",
    "hid",
    "usb",
    "ext4",
    "fuse",
    "proc_cmdline",
    "cpufreq",
    "watchdog",
    "rcu_spawn_gp",
    "kobject_uevent",
    "audit",
    "iommu",
    "arm_smmu_v3",
    "psci_checker",
    "gic",
    "arch_timer",
    "kswapd",
    "zswap",
    "calibrate_xor",
    "raid6_select",
    "bpf",
    "perf_event",
    "trace_events",
    "cryptomgr",
    "sha256_generic",
    "aes",
    "crc32c",
    "lzo",
    "zstd",
    "deflate",
    "net_dev",
    "netlink_proto",
    "packet",
    "af_unix",
    "inet6",
    "bridge",
    "vlan_proto",
    "dns_resolver",
    "jent_mod",
    "drbg",
    "ghash_ce",
    "sha2_ce",
    "chacha_simd",
    "poly1305",
    "blake2b",
    "nfs",
    "autofs",
    "configfs",
    "debugfs",
    "tracefs",
    "securityfs",
    "integrity_fs",
    "loop",
    "brd",
    "virtio_console",
    "virtio_rng",
    "hwrng_modinit",
    "smccc_soc",
    "sdei",
    "kvm_arm",
    "armv8_pmu",
    "cpuidle",
    "topology_sysfs",
    "cacheinfo_sysfs",
    "pm_sysrq",
    "fb_console",
    "chr_dev",
    "misc",
    "mem_devices",
    "alsa_timer",
    "mmc_blk",
    "sdhci_pltfm",
    "phy_core",
    "mdio_bus",
    "fixed_mdio_bus",
    "e1000",
    "xhci_hcd",
    "ehci_hcd",
    "typec",
    "edac",
    "ras",
    "thermal",
    "power_supply",
    "leds",
    "pwm_sysfs",
    "reset_simple",
    "pinctrl",
    "syscon",
    "gpiolib_sysfs",
    "of_fixed_clk",
    "clocksource_done_booting",
    "alarmtimer",
    "posix_cpu_timers",
    "futex",
    "io_uring",
    "eventpoll",
    "aio_setup",
    "inotify_user",
    "fsnotify",
    "dnotify",
    "filelock",
    "binfmt_elf",
    "binfmt_script",
    "mbcache",
    "jbd2_journal",
    "squashfs",
    "erofs_module",
    "ovl",
    "vfat",
    "nls_cp437",
    "isofs",
    "pstore",
    "ramoops",
    "workqueue_sysfs",
    "oom",
    "percpu_enable_async",
    "slab_sysfs",
    "vmstat",
    "kcompactd",
    "hugetlb",
    "ksm",
    "memory_tier",
    "cma_activate",
    "procswaps",
    "zs",
    "ipc_ns",
    "mqueue",
    "user_namespace",
    "pid_namespace",
    "cgroup_sysfs",
    "cgroup_freezer",
    "blkcg",
    "deadline",
    "bfq",
    "kyber",
    "genhd_device",
    "bsg",
    "scsi",
    "sd_mod",
    "ata",
    "ahci",
    "nvme_core",
    "nvme",
    "virtio_scsi",
    "virtio_pci",
    "virtio_balloon",
    "virtio_input",
    "drm_core",
    "simplefb",
    "efifb",
};
const char* const suffixes[] = {"_init",        "_init",      "_init",      "_init",       "_driver_init",
                                "_module_init", "_core_init", "_late_init", "_sysfs_init", "_register"};

const char* const families[] = {"INET", "INET6", "PACKET", "UNIX", "NETLINK", "KEY", "BRIDGE", "VSOCK"};
const char* const key_types[] = {"dns_resolver",         "asymmetric",  ".fscrypt",
                                 "fscrypt-provisioning", "id_resolver", "id_legacy"};
const char* const usb_drivers[] = {"usbfs", "hub", "usb-storage", "usbhid", "usbserial_generic"};
const char* const governors[] = {"step_wise", "power_allocator", "fair_share", "bang_bang", "user_space"};

class boot_log {
public:
    explicit boot_log(std::uint32_t seed)
        : m_rng(seed) {}

    void line(const std::string& msg) {
        m_lines.push_back(format("[%5" PRIu64 ".%06" PRIu64 "] ", m_us / 1000000, m_us % 1000000) + msg +
                          "\n");
        m_size += m_lines.back().size();
    }
    void advance(std::uint64_t us) { m_us += us; }
    std::size_t size() const { return m_size; }
    rng& random() { return m_rng; }
    std::vector<std::string>& lines() { return m_lines; }

    void header();
    void event();
    void tail();

private:
    std::string initcall_name();
    std::string probe_message();
    std::uint32_t initcall_usecs();

    rng m_rng;
    std::uint64_t m_us = 0;
    std::size_t m_size = 0;
    std::vector<std::string> m_lines;
};

void boot_log::header() {
    rng& r = m_rng;
    const char* const at_zero[] = {
        "Booting Linux on physical CPU 0x0000000000 [0x410fd083]",
        "Linux version 6.6.0 (builder@uartvp) (aarch64-linux-gnu-gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU "
        "Binutils for Debian) 2.40) #1 SMP PREEMPT Tue Jan  9 12:00:00 UTC 2024",
        "KASLR disabled due to lack of seed",
        "Machine model: linux,dummy-virt",
        "efi: UEFI not found.",
        "earlycon: pl11 at MMIO 0x0000000009000000 (options '')",
        "printk: legacy bootconsole [pl11] enabled",
        "NUMA: No NUMA configuration found",
        "NUMA: Faking a node at [mem 0x0000000040000000-0x000000005fffffff]",
    };
    for (const char* s : at_zero)
        line(s);
    line(format("NUMA: NODE_DATA [mem 0x5fdf%04x-0x5fdf%04x]", 0x0a00 + 0x40 * r.below(16),
                0x2fff - 0x100 * r.below(4)));
    const char* const zones[] = {
        "Zone ranges:",
        "  DMA      [mem 0x0000000040000000-0x000000005fffffff]",
        "  DMA32    empty",
        "  Normal   empty",
        "Movable zone start for each node",
        "Early memory node ranges",
        "  node   0: [mem 0x0000000040000000-0x000000005fffffff]",
        "Initmem setup node 0 [mem 0x0000000040000000-0x000000005fffffff]",
        "psci: probing for conduit method from DT.",
        "psci: PSCIv1.1 detected in firmware.",
        "psci: Using standard PSCI v0.2 function IDs",
        "psci: Trusted OS migration not required",
        "psci: SMC Calling Convention v1.0",
    };
    for (const char* s : zones)
        line(s);
    const unsigned pages = r.between(28, 34);
    const unsigned s_size = 80000 + 8 * r.below(2000);
    line(format("percpu: Embedded %u pages/cpu s%u r8192 d%u u%u", pages, s_size, 28000 + 8 * r.below(1000),
                pages * 4096));
    line("Detected PIPT I-cache on CPU0");
    line("CPU features: detected: Spectre-v4");
    line("CPU features: detected: Spectre-BHB");
    line("alternatives: applying boot alternatives");
    line("Kernel command line: console=ttyAMA0 earlycon=pl011,0x9000000 ignore_loglevel initcall_debug "
         "printk.time=1");
    line("Dentry cache hash table entries: 65536 (order: 7, 524288 bytes, linear)");
    line("Inode-cache hash table entries: 32768 (order: 6, 262144 bytes, linear)");
    line("Built 1 zonelists, mobility grouping on.  Total pages: 129024");
    line("mem auto-init: stack:all(zero), heap alloc:off, heap free:off");
    const unsigned code = 15000 + r.below(4000), rwdata = 3000 + r.below(1500), rodata = 6000 + r.below(2500);
    const unsigned init = 5000 + r.below(2000), bss = 500 + r.below(400);
    const unsigned reserved = code + rwdata + rodata + init + bss + 20000 + r.below(4000);
    line(format(
        "Memory: %uK/524288K available (%uK kernel code, %uK rwdata, %uK rodata, %uK init, %uK bss, %uK "
        "reserved, 0K cma-reserved)",
        524288 - reserved, code, rwdata, rodata, init, bss, reserved));
    line("SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=1, Nodes=1");
    line("rcu: Preemptible hierarchical RCU implementation.");
    line("rcu: \tRCU event tracing is enabled.");
    line("rcu: RCU calculated value of scheduler-enlistment delay is 25 jiffies.");
    line("NR_IRQS: 64, nr_irqs: 64, preallocated irqs: 0");
    line("Root IRQ handler: gic_handle_irq");
    line("GICv3: 256 SPIs implemented");
    line("GICv3: 0 Extended SPIs implemented");
    line("GICv3: GICv3 features: 16 PPIs");
    line("GICv3: CPU0: found redistributor 0 region 0:0x00000000080a0000");
    line("arch_timer: cp15 timer(s) running at 62.50MHz (virt).");
    line("clocksource: arch_sys_counter: mask: 0x1ffffffffffffff max_cycles: 0x1cd42e208c, max_idle_ns: "
         "881590405314 ns");
    // The clock runs from here on.
    advance(r.between(1, 4));
    line("sched_clock: 57 bits at 63MHz, resolution 16ns, wraps every 4398046511096ns");
    advance(r.between(100, 300));
    line("Console: colour dummy device 80x25");
    advance(r.between(50, 200));
    line("Calibrating delay loop (skipped), value calculated using timer frequency.. 125.00 BogoMIPS "
         "(lpj=250000)");
    advance(r.between(5, 30));
    line("pid_max: default: 32768 minimum: 301");
    advance(r.between(20, 80));
    line("LSM: initializing lsm=capability,integrity");
    advance(r.between(20, 80));
    line("Mount-cache hash table entries: 1024 (order: 1, 8192 bytes, linear)");
    advance(r.between(5, 30));
    line("Mountpoint-cache hash table entries: 1024 (order: 1, 8192 bytes, linear)");
}

std::string boot_log::initcall_name() {
    return std::string(m_rng.pick(subsystems)) + m_rng.pick(suffixes) +
           format("+0x0/0x%x", 4 * m_rng.between(5, 160));
}

std::uint32_t boot_log::initcall_usecs() {
    // Most initcalls are quick; a few probe hardware or allocate for milliseconds.
    const std::uint32_t p = m_rng.below(100);
    if (p < 70) return m_rng.below(31);
    if (p < 90) return m_rng.between(31, 500);
    if (p < 98) return m_rng.between(501, 5000);
    return m_rng.between(5001, 50000);
}

std::string boot_log::probe_message() {
    rng& r = m_rng;
    switch (r.below(24)) {
    case 0:
        return format("NET: Registered PF_%s protocol family", r.pick(families));
    case 1:
        return format("virtio_blk virtio%u: 1/0/0 default/read/poll queues", r.below(4));
    case 2:
        return format("9000000.pl011: ttyAMA0 at MMIO 0x9000000 (irq = %u, base_baud = 0) is a PL011 rev1",
                      r.between(12, 16));
    case 3:
        return "printk: console [ttyAMA0] enabled";
    case 4:
        return "Serial: AMBA PL011 UART driver";
    case 5:
        return "audit: initializing netlink subsys (disabled)";
    case 6:
        return "clocksource: Switched to clocksource arch_sys_counter";
    case 7:
        return "pci-host-generic 4010000000.pcie: host bridge /pcie@10000000 ranges:";
    case 8:
        return "rtc-pl031 9010000.pl031: registered as rtc0";
    case 9:
        return format("io scheduler %s registered", r.below(2) ? "mq-deadline" : "kyber");
    case 10:
        return format("Key type %s registered", r.pick(key_types));
    case 11:
        return format("hw perfevents: enabled with armv8_pmuv3_0 PMU driver, %u counters available",
                      r.between(5, 7));
    case 12:
        return "workingset: timestamp_bits=42 max_order=17 bucket_order=0";
    case 13:
        return format("Block layer SCSI generic (bsg) driver version 0.4 loaded (major %u)",
                      r.between(240, 250));
    case 14:
        return "loop: module loaded";
    case 15:
        return format("TCP: Hash tables configured (established %u bind %u)", 4096u << r.below(3), 4096u);
    case 16:
        return format("DMA: preallocated %u KiB GFP_KERNEL pool for atomic allocations", 128u << r.below(3));
    case 17:
        return format("usbcore: registered new interface driver %s", r.pick(usb_drivers));
    case 18:
        return format("thermal_sys: Registered thermal governor '%s'", r.pick(governors));
    case 19:
        return "HugeTLB: registered 2.00 MiB page size, pre-allocated 0 pages";
    case 20:
        return "iommu: Default domain type: Translated";
    case 21:
        return "SCSI subsystem initialized";
    case 22:
        return format("virtio-mmio a00%04x.virtio_mmio: Virtio MMIO device %u", 0x200 * r.below(32),
                      r.between(1, 5));
    default:
        return format("rtc-pl031 9010000.pl031: setting system clock to 2024-01-09T12:00:%02uUTC (%u)",
                      r.below(60), 1704801600u + r.below(60));
    }
}

void boot_log::event() {
    rng& r = m_rng;
    if (r.percent(20)) { // a message outside any traced initcall
        advance(r.between(5, 120));
        line(probe_message());
        return;
    }
    const std::string name = initcall_name();
    const std::uint32_t usecs = initcall_usecs();
    advance(r.between(2, 40));
    line("calling  " + name + " @ 1");
    if (r.percent(25)) { // the initcall prints while it runs
        advance(usecs / 2);
        line(probe_message());
        advance(usecs - usecs / 2 + r.between(1, 15));
    } else {
        advance(usecs + r.between(1, 15));
    }
    line(format("initcall %s returned 0 after %u usecs", name.c_str(), usecs));
}

void boot_log::tail() {
    rng& r = m_rng;
    const char* const msgs[] = {
        "/dev/root: Can't open blockdev",
        "VFS: Cannot open root device \"\" or unknown-block(0,0): error -6",
        "Please append a correct \"root=\" boot option; here are the available partitions:",
        "List of all bdev filesystems:",
        " ext3",
        " ext2",
        " ext4",
        " squashfs",
        " vfat",
        "",
        "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
        "CPU: 0 PID: 1 Comm: swapper/0 Not tainted 6.6.0 #1",
        "Hardware name: linux,dummy-virt (DT)",
        "Call trace:",
        " dump_backtrace+0x98/0xf8",
        " show_stack+0x20/0x38",
        " dump_stack_lvl+0x48/0x60",
        " dump_stack+0x18/0x28",
        " panic+0x35c/0x3c0",
        " mount_root_generic+0x270/0x318",
        " mount_root+0x94/0xb0",
        " prepare_namespace+0x7c/0x2a0",
        " kernel_init_freeable+0x298/0x2f0",
        " kernel_init+0x24/0x1e0",
        " ret_from_fork+0x10/0x20",
        "Kernel Offset: disabled",
        "CPU features: 0x0,00000000,00000000,0000400b",
        "Memory Limit: none",
        "---[ end Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0) ]---",
    };
    advance(r.between(100, 2000));
    for (const char* s : msgs) {
        line(s);
        advance(r.between(1, 8));
    }
}

// Size of the tail in bytes: its timestamps have a fixed width.
std::size_t tail_size() {
    boot_log probe(0);
    probe.tail();
    return probe.size();
}

} // namespace

// The generator keeps only the lines of the current event (a few) between next() calls.
struct boot_log_stream::impl {
    impl(std::size_t bytes, std::uint32_t seed)
        : log(seed)
        , total(bytes)
        , tail(tail_size()) {}
    boot_log log;
    std::size_t total, tail;
    std::size_t handed = 0; // bytes returned so far
    std::size_t taken = 0;  // lines of log.lines() returned so far
    enum { header, events, done } phase = header;
};

boot_log_stream::boot_log_stream(std::size_t bytes, std::uint32_t seed)
    : m(std::make_unique<impl>(bytes, seed)) {}
boot_log_stream::~boot_log_stream() = default;

bool boot_log_stream::next(std::string& line) {
    if (m->handed >= m->total) return false;
    std::vector<std::string>& lines = m->log.lines();
    if (m->taken == lines.size()) {
        // The same decisions as generating the whole log: header, events while the tail still fits
        // before `bytes`, then the tail.
        lines.clear();
        m->taken = 0;
        if (m->phase == impl::header) {
            m->log.header();
            m->phase = impl::events;
        } else if (m->phase == impl::events && m->log.size() + m->tail < m->total) {
            m->log.event();
        } else if (m->phase == impl::events) {
            m->log.tail();
            m->phase = impl::done;
        } else {
            return false; // not reached: the tail ends at or beyond `bytes`
        }
    }
    line = std::move(lines[m->taken++]);
    // Cut to exactly `bytes`: the overshoot is less than one event, taken from the end of the tail.
    if (m->handed + line.size() >= m->total) {
        line.resize(m->total - m->handed);
        line.back() = '\n';
    }
    m->handed += line.size();
    return true;
}

std::vector<std::string> generate_boot_log(std::size_t bytes, std::uint32_t seed) {
    std::vector<std::string> lines;
    boot_log_stream s(bytes, seed);
    for (std::string l; s.next(l);)
        lines.push_back(std::move(l));
    return lines;
}

std::vector<std::string> split_log_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t begin = 0;
    while (begin < text.size()) {
        const std::size_t nl = text.find('\n', begin);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
        lines.emplace_back(text.substr(begin, end - begin));
        begin = end;
    }
    return lines;
}

} // namespace uartvp::sw
