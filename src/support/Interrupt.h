// Ctrl-C while a kernel runs on the CPU. The host installs the signal handler (the Python
// binding does, around a launch, since Python owns SIGINT) and calls request_interrupt() from
// it; the tile interpreter and the SIMT simulator poll interrupted() at every loop iteration,
// branch or program, and stop with an error. The flag is a lock-free atomic: safe to set from a
// signal handler.
#pragma once

#include <atomic>

namespace tilec {

inline std::atomic<bool> g_interrupt{false};

inline void request_interrupt() noexcept { g_interrupt.store(true, std::memory_order_relaxed); }
inline void clear_interrupt() noexcept { g_interrupt.store(false, std::memory_order_relaxed); }
inline bool interrupted() noexcept { return g_interrupt.load(std::memory_order_relaxed); }

} // namespace tilec
