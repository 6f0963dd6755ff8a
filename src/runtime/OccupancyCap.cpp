#include "runtime/OccupancyCap.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>

#include "runtime/PtxCompiler.h"

namespace tilec::runtime {

namespace {

constexpr int kRegistersPerSm = 65536;
constexpr int kFewWarps = 16;

struct SmLimits {
  int shared_bytes; // usable by CTAs
  int threads;
  int ctas;
};

SmLimits sm_limits(const GpuTarget &t) {
  switch (t.cc()) {
  case 80:
    return {167936, 2048, 32};
  case 86:
    return {102400, 1536, 16};
  case 87:
    return {167936, 1536, 16};
  case 89:
    return {102400, 1536, 24};
  case 90:
    return {233472, 2048, 32};
  default:
    return {0, 0, 0}; // unknown: never asks
  }
}

// The number just before / after `key` in `log` (the first occurrence); -1 when absent.
// Plain string search: std::regex crashed in the Python extension on the GPU machine
// (its locale facets, with torch loaded).
int number_before(const std::string &log, const std::string &key) {
  size_t k = log.find(key);
  if (k == std::string::npos)
    return -1;
  size_t b = k;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(log[b - 1])))
    --b;
  return b == k ? -1 : std::stoi(log.substr(b, k - b));
}

int number_after(const std::string &log, const std::string &key) {
  size_t k = log.find(key);
  if (k == std::string::npos)
    return -1;
  size_t b = k + key.size(), e = b;
  while (e < log.size() && std::isdigit(static_cast<unsigned char>(log[e])))
    ++e;
  return e == b ? -1 : std::stoi(log.substr(b, e - b));
}

} // namespace

int occupancy_min_ctas(const GpuTarget &t, int regs, int threads, int shared_bytes) {
  SmLimits l = sm_limits(t);
  if (l.ctas == 0 || regs <= 0 || threads <= 0 || threads % 32 != 0)
    return 0;
  int per_thread = (regs + 7) / 8 * 8; // allocated per warp in units of 256
  int by_regs = kRegistersPerSm / (per_thread * threads);
  int by_others =
      std::min({l.threads / threads, l.ctas, l.shared_bytes / (std::max(shared_bytes, 0) + 1024)});
  // only where few warps hide latency: under a quarter of the SM's 64 (sm_80/90)
  if (by_regs < 1 || by_regs >= by_others || by_regs * threads / 32 >= kFewWarps)
    return 0;
  int k = by_regs + 1;
  int cap = std::min(255, kRegistersPerSm / (k * threads) / 8 * 8);
  return 5 * cap >= 4 * regs ? k : 0;
}

std::string with_min_ctas(const std::string &ptx, int n) {
  if (ptx.find(".maxnreg") != std::string::npos || ptx.find(".minnctapersm") != std::string::npos)
    return "";
  std::string out;
  size_t pos = 0;
  bool found = false;
  while (pos < ptx.size()) {
    size_t end = ptx.find('\n', pos);
    end = end == std::string::npos ? ptx.size() : end + 1;
    std::string line = ptx.substr(pos, end - pos);
    out += line;
    if (line.rfind(".reqntid", 0) == 0 || line.rfind(".maxntid", 0) == 0) {
      if (out.back() != '\n')
        out += '\n';
      out += ".minnctapersm " + std::to_string(n) + "\n";
      found = true;
    }
    pos = end;
  }
  return found ? out : "";
}

namespace {
constexpr const char *kDec = "setmaxnreg.dec.sync.aligned.u32 ";
constexpr const char *kInc = "setmaxnreg.inc.sync.aligned.u32 ";
} // namespace

bool setmaxnreg_fits(const std::string &ptx, int regs) {
  int dec = number_after(ptx, kDec), inc = number_after(ptx, kInc);
  if (dec < 0 && inc < 0)
    return true;
  int threads = number_after(ptx, ".reqntid ");
  int give = number_after(ptx, "setmaxnreg.dec by "); // tilec's header comment
  give = give > 0 ? give : 128;
  int entry = (regs + 7) / 8 * 8;
  if (regs <= 0 || threads <= give || dec < 0 || inc < 0 || dec > entry || inc < entry)
    return false;
  return int64_t{give} * dec + int64_t{threads - give} * inc <= int64_t{entry} * threads;
}

std::string without_setmaxnreg(const std::string &ptx) {
  std::string out;
  for (size_t pos = 0; pos < ptx.size();) {
    size_t end = ptx.find('\n', pos);
    end = end == std::string::npos ? ptx.size() : end + 1;
    std::string_view line(ptx.data() + pos, end - pos);
    if (line.find("setmaxnreg.") == std::string_view::npos)
      out.append(line);
    pos = end;
  }
  return out;
}

int log_registers(const std::string &log) { return number_after(log, "Used "); }

int log_spill_bytes(const std::string &log) { return number_before(log, " bytes spill stores"); }

} // namespace tilec::runtime
