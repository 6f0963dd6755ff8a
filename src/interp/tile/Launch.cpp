// Launching a grid: argument checks, the thread pool over programs, output collection
// and error selection (the lowest failing program id wins; later programs stop early).
#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"
#include "support/Env.h"
#include "support/Interrupt.h"

namespace tilec::interp {

Executable::Executable(const ir::Function &fn) : plan_(build_plan(fn)) {}
Executable::~Executable() = default;
Executable::Executable(Executable &&) noexcept = default;
Executable &Executable::operator=(Executable &&) noexcept = default;

namespace {

// TILEC_SANITIZE: a comma-separated list of checks, "race" and "address" (always on); an
// unknown name is returned in `unknown`.
bool race_requested(std::string &unknown) {
  std::string list = env::get(env::Var::Sanitize);
  bool race = false;
  for (size_t at = 0; at <= list.size();) {
    size_t end = std::min(list.find(',', at), list.size());
    std::string item = list.substr(at, end - at);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item == "race")
      race = true;
    else if (!item.empty() && item != "address" && unknown.empty())
      unknown = item;
    at = end + 1;
  }
  return race;
}

std::string arg_name(const ir::Function &fn, size_t i) {
  return i < fn.arg_names.size() ? "'" + fn.arg_names[i] + "'" : "#" + std::to_string(i);
}

// Checks one argument against its parameter type; returns an error message or "".
std::string check_arg(const KernelArg &a, const ir::Type &t) {
  static const char *kinds[] = {"a pointer", "an integer", "a float", "a byte array"};
  std::string got = kinds[a.kind];
  if (a.kind == KernelArg::Bytes) // tensor maps exist for the SIMT simulator's TMA copies only
    return "is " + t.str() + " but got a byte array (which only the SIMT simulator takes)";
  if (t.is_ptr())
    return a.kind == KernelArg::Pointer ? "" : "is a pointer (" + t.str() + ") but got " + got;
  if (a.kind == KernelArg::Pointer)
    return "is a scalar (" + t.str() + ") but got a pointer";
  if (ir::is_float(t.elem))
    return "";
  if (a.kind == KernelArg::Float)
    return "is an integer (" + t.str() + ") but got a float";
  return dispatch_dtype(t.elem, [&](auto d) -> std::string {
    using D = decltype(d);
    using S = typename D::S;
    if constexpr (D::is_float || D::is_bool || std::is_same_v<S, uint64_t> ||
                  std::is_same_v<S, int64_t>) {
      return "";
    } else {
      if (a.i < static_cast<int64_t>(std::numeric_limits<S>::min()) ||
          a.i > static_cast<int64_t>(std::numeric_limits<S>::max()))
        return "is " + t.str() + " but its value " + std::to_string(a.i) + " does not fit";
      return "";
    }
  });
}

} // namespace

RunResult Executable::run(const std::vector<KernelArg> &args, const std::vector<Buffer> &buffers,
                          const LaunchOptions &opts, const SourceManager &sm) const {
  const Plan &plan = *plan_;
  const ir::Function &fn = *plan.fn;
  auto launch_error = [&](const std::string &msg) {
    throw RuntimeError(
        render_diagnostic(sm, fn.loc, "error", "launching '" + fn.name + "': " + msg));
  };
  int64_t total = 1;
  for (int64_t g : opts.grid) {
    if (g < 0 || g > std::numeric_limits<int32_t>::max())
      launch_error("grid dimension " + std::to_string(g) + " is out of range");
    total *= g;
    if (total > (int64_t(1) << 40))
      launch_error("the grid has too many programs");
  }
  const BlockPlan &entry = plan.entry;
  if (args.size() != entry.args.size())
    launch_error("the kernel takes " + std::to_string(entry.args.size()) +
                 " run-time arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    std::string err = check_arg(args[i], *plan.slots[static_cast<size_t>(entry.args[i])].type);
    if (!err.empty())
      launch_error("argument " + arg_name(fn, i) + " " + err);
  }
  if (total == 0)
    return {};

  std::vector<BufferRange> ranges;
  for (const Buffer &b : buffers)
    ranges.push_back({b.base, b.size_bytes, &b.name, b.writable,
                      static_cast<uint32_t>(ranges.size())});

  long threads = opts.num_threads > 0 ? opts.num_threads : env::get_int(env::Var::NumThreads);
  long max_steps = opts.max_loop_steps >= 0 ? opts.max_loop_steps
                                            : env::get_int(env::Var::InterpMaxSteps);
  std::string unknown;
  bool race = opts.race_check >= 0 ? opts.race_check != 0 : race_requested(unknown);
  if (!unknown.empty())
    launch_error("TILEC_SANITIZE names an unknown check '" + unknown + "' (known: race, address)");
  std::unique_ptr<RaceShadow> shadow = race ? std::make_unique<RaceShadow>() : nullptr;
  if (race || opts.access_log || opts.debug_hook)
    threads = 1; // the shadow memory, the log and the debugger are not shared by threads
  if (threads <= 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<long>(threads, total);
  // Small chunks keep heavy grids balanced; larger ones cut contention on tiny programs.
  int64_t chunk = std::clamp<int64_t>(total / (threads * 16), 1, 64);

  std::vector<std::string> outputs(plan.has_print ? static_cast<size_t>(total) : 0);
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> err_at{std::numeric_limits<int64_t>::max()};
  std::mutex err_mu;
  std::exception_ptr err;
  auto record = [&](int64_t p, std::exception_ptr e) {
    std::lock_guard<std::mutex> g(err_mu);
    if (p < err_at.load()) {
      err_at.store(p);
      err = std::move(e);
    }
  };
  std::array<int64_t, 3> grid = opts.grid;
  auto worker = [&] {
    int64_t current = 0;
    try {
      Exec ex(plan, sm, ranges, grid);
      ex.max_loop_steps = max_steps > 0 ? max_steps : INT64_MAX;
      ex.race = shadow.get();
      ex.log = opts.access_log;
      ex.debug = opts.debug_hook;
      ex.set_args(args);
      for (;;) {
        int64_t start = next.fetch_add(chunk);
        if (start >= total || start > err_at.load(std::memory_order_relaxed))
          return;
        for (int64_t p = start; p < std::min(start + chunk, total); ++p) {
          if (p > err_at.load(std::memory_order_relaxed))
            return;
          if (interrupted())
            throw KernelError("interrupted (KeyboardInterrupt)", "");
          current = p;
          std::array<int64_t, 3> pid{p % grid[0], (p / grid[0]) % grid[1], p / (grid[0] * grid[1])};
          ex.run_program(pid, plan.has_print ? &outputs[static_cast<size_t>(p)] : nullptr);
        }
      }
    } catch (...) {
      record(current, std::current_exception());
    }
  };
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (long t = 0; t < threads; ++t)
      pool.emplace_back(worker);
    for (std::thread &t : pool)
      t.join();
  }

  RunResult res;
  int64_t upto = err ? err_at.load() + 1 : total;
  if (plan.has_print) {
    size_t bytes = 0;
    for (int64_t p = 0; p < upto; ++p)
      bytes += outputs[static_cast<size_t>(p)].size();
    res.output.reserve(bytes);
    for (int64_t p = 0; p < upto; ++p)
      res.output += outputs[static_cast<size_t>(p)];
  }
  if (err) {
    try {
      std::rethrow_exception(err);
    } catch (const RuntimeError &e) {
      throw KernelError(e.what(), std::move(res.output));
    }
  }
  return res;
}

RunResult run(const ir::Function &fn, const std::vector<KernelArg> &args,
              const std::vector<Buffer> &buffers, const LaunchOptions &opts,
              const SourceManager &sm) {
  return Executable(fn).run(args, buffers, opts, sm);
}

} // namespace tilec::interp
