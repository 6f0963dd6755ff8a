#include "runtime/LaunchProfile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>

namespace tilec::runtime::profile {

namespace {

std::atomic<bool> g_on{false};
std::atomic<int64_t> g_context{0};
std::atomic<uint64_t> g_count{0};

// Samples are timed when the profiler drains, off the launch path (reading an event pair
// costs about what recording it does). Only a session that keeps this many samples in
// flight times the finished ones on the way, so it holds a bounded number of events.
constexpr size_t kReapAbove = size_t{1} << 15;
constexpr size_t kReapRetry = 1024; // launches between two tries when none had finished

struct InFlight {
  Sample sample;
  CUcontext ctx;
  CUevent start, end;
};

struct State {
  std::mutex mu;
  std::deque<InFlight> in_flight;
  std::vector<Sample> timed;
  std::vector<std::pair<CUcontext, CUevent>> free; // recorded and read: reusable
  size_t reap_at = kReapAbove;                     // in-flight count of the next try
};

State &state() {
  static State *s = new State; // leaked: a launch may come during interpreter shutdown
  return *s;
}

// An event of `ctx` (current): from the pool, else a new one. Called with the lock held.
CUevent take(State &st, CUcontext ctx) {
  for (size_t i = st.free.size(); i-- > 0;)
    if (st.free[i].first == ctx) {
      CUevent e = st.free[i].second;
      st.free[i] = st.free.back();
      st.free.pop_back();
      return e;
    }
  CUevent e = nullptr;
  return driver().cuEventCreate(&e, 0) == CUDA_SUCCESS ? e : nullptr;
}

void give_back(State &st, CUcontext ctx, CUevent e) {
  if (e)
    st.free.emplace_back(ctx, e);
}

// Times the samples in flight, oldest first: all of them (`wait`), or those whose kernels
// have ended (cuEventElapsedTime answers NOT_READY for the first that has not). Called with
// the lock held.
void reap(State &st, bool wait) {
  while (!st.in_flight.empty()) {
    InFlight &f = st.in_flight.front();
    if (f.start && f.end) { // (host-timed samples have no events: no driver needed)
      const DriverApi &d = driver();
      CUresult r = wait ? d.cuEventSynchronize(f.end) : CUDA_SUCCESS;
      float ms = 0;
      if (r == CUDA_SUCCESS)
        r = d.cuEventElapsedTime(&ms, f.start, f.end);
      if (!wait && r == CUDA_ERROR_NOT_READY)
        return;
      if (r == CUDA_SUCCESS)
        f.sample.ns = static_cast<int64_t>(static_cast<double>(ms) * 1e6 + 0.5);
    }
    give_back(st, f.ctx, f.start);
    give_back(st, f.ctx, f.end);
    st.timed.push_back(f.sample);
    st.in_flight.pop_front();
  }
}

} // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool on() { return g_on.load(std::memory_order_relaxed); }
void enable(bool v) { g_on.store(v, std::memory_order_relaxed); }
void set_context(int64_t id) { g_context.store(id, std::memory_order_relaxed); }
uint64_t count() { return g_count.load(std::memory_order_relaxed); }

Bracket::Bracket(CUcontext ctx, CUstream stream) : ctx_(ctx), stream_(stream) {
  State &st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    start_ = take(st, ctx);
    end_ = start_ ? take(st, ctx) : nullptr;
  }
  if (start_ && driver().cuEventRecord(start_, stream) != CUDA_SUCCESS) {
    std::lock_guard<std::mutex> lock(st.mu);
    give_back(st, ctx, start_);
    give_back(st, ctx, end_);
    start_ = end_ = nullptr;
  }
  start_ns_ = now_ns();
}

void Bracket::done(CUresult r, const std::string *kernel, int device) {
  State &st = state();
  if (r == CUDA_SUCCESS && end_ && driver().cuEventRecord(end_, stream_) != CUDA_SUCCESS) {
    std::lock_guard<std::mutex> lock(st.mu);
    give_back(st, ctx_, end_);
    end_ = nullptr;
  }
  std::lock_guard<std::mutex> lock(st.mu);
  if (r != CUDA_SUCCESS) { // nothing ran: no sample
    give_back(st, ctx_, start_);
    give_back(st, ctx_, end_);
    return;
  }
  if (st.in_flight.size() >= st.reap_at) {
    reap(st, false);
    st.reap_at = std::max(kReapAbove, st.in_flight.size() + kReapRetry);
  }
  int64_t ctx_id = g_context.load(std::memory_order_relaxed);
  st.in_flight.push_back({{kernel, device, ctx_id, start_ns_, -1}, ctx_, start_, end_});
  g_count.fetch_add(1, std::memory_order_relaxed);
}

void record_host(const std::string *kernel, int device, int64_t start_ns, int64_t ns) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  int64_t ctx_id = g_context.load(std::memory_order_relaxed);
  st.in_flight.push_back({{kernel, device, ctx_id, start_ns, ns}, nullptr, nullptr, nullptr});
  g_count.fetch_add(1, std::memory_order_relaxed);
}

std::vector<Sample> drain() {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (!st.in_flight.empty())
    reap(st, true);
  std::vector<Sample> out;
  out.swap(st.timed);
  return out;
}

} // namespace tilec::runtime::profile
