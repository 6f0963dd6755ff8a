// Lowering tests: compile a kernel through the front end twice — for the tile interpreter
// (the reference) and down the GPU path to Thread IR and PTX — run both on the same
// inputs (the SIMT simulator for the Thread IR) and compare.
//
//   GpuKernelUnderTest k(kAddSrc, "add_kernel", {"*fp32:16", "*fp32:16", "*fp32:16", "i32",
//                                                "=1024"});
//   Inputs in;                     // buffers and run-time arguments, in parameter order
//   int x = in.buffer(std::vector<float>(n, 1.0f)); ...
//   in.args = {Arg::buf(x), Arg::buf(y), Arg::buf(out), Arg::integer(n)};
//   in.grid = {4, 1, 1};
//   k.expect_agree(in, Compare::exact());
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "interp/simt/Simulator.h"
#include "interp/tile/Interpreter.h"
#include "pipeline/GpuPipeline.h"
#include "runtime/PtxCompiler.h"
#include "aot/Signature.h"

namespace tilec::lower::test {

inline std::shared_ptr<sema::FunctionSource> kernel_source(const std::string &name,
                                                           const std::string &text) {
  auto f = std::make_shared<sema::FunctionSource>();
  f->name = name;
  f->file = "kernels.py";
  f->source = text;
  f->first_line = 1;
  f->globals = {{"tl", sema::Val::module("tilec.language")},
                {"triton", sema::Val::module("tilec")}};
  return f;
}

// "*fp32:16", "i32", ... (aot::parse_signature_entry) or "=VALUE" for a constexpr.
inline std::vector<sema::ArgSpec> specs(const std::vector<std::string> &sig) {
  std::vector<sema::ArgSpec> out;
  for (const std::string &s : sig) {
    if (!s.empty() && s[0] == '=') {
      sema::ArgSpec a;
      a.kind = sema::ArgSpec::Kind::Constexpr;
      a.value = aot::parse_constexpr_value(s.substr(1));
      out.push_back(a);
    } else {
      out.push_back(aot::parse_signature_entry(s));
    }
  }
  return out;
}

struct Arg {
  enum Kind { Buf, Int, Float } kind = Int;
  int buf = 0;
  int64_t i = 0;
  double f = 0;
  static Arg buffer(int b) { return {Buf, b, 0, 0}; }
  static Arg integer(int64_t v) { return {Int, 0, v, 0}; }
  static Arg floating(double v) { return {Float, 0, 0, v}; }
};

struct Inputs {
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<std::string> names;
  std::vector<Arg> args;
  std::array<int64_t, 3> grid{1, 1, 1};

  template <class T> int buffer(const std::vector<T> &v, const std::string &name = "") {
    std::vector<uint8_t> b(v.size() * sizeof(T));
    if (!v.empty())
      std::memcpy(b.data(), v.data(), b.size());
    bufs.push_back(std::move(b));
    names.push_back(name.empty() ? "buf" + std::to_string(bufs.size() - 1) : name);
    return static_cast<int>(bufs.size() - 1);
  }
};

struct Outcome {
  std::vector<std::vector<uint8_t>> bufs;
  std::string output;
};

// How to compare one buffer's elements.
struct Compare {
  enum Kind { Bytes, F32, F64, F16, BF16 } kind = Bytes;
  double rtol = 0, atol = 0;
  static Compare exact() { return {}; }
  static Compare f32(double rtol = 1e-6, double atol = 1e-6) { return {F32, rtol, atol}; }
  static Compare f64(double rtol = 1e-12, double atol = 1e-12) { return {F64, rtol, atol}; }
  static Compare f16(double rtol = 1e-3, double atol = 1e-3) { return {F16, rtol, atol}; }
};

class GpuKernelUnderTest {
public:
  GpuKernelUnderTest(const std::string &text, const std::string &name,
                     const std::vector<std::string> &sig, int num_warps = 4, int sm = 90,
                     int num_stages = 3)
      : GpuKernelUnderTest(kernel_source(name, text), sig, num_warps, sm, num_stages) {}

  GpuKernelUnderTest(const std::shared_ptr<sema::FunctionSource> &src,
                     const std::vector<std::string> &sig, int num_warps = 4, int sm = 90,
                     int num_stages = 3) {
    pipeline::PipelineOptions po;
    po.verify = true;
    po.compile.num_warps = num_warps;
    po.compile.num_stages = num_stages;
    tile_ = pipeline::compile_to_tile_ir(src, specs(sig), po, nullptr);
    pipeline::GpuCompileOptions go;
    go.pipeline = po;
    go.sm = sm;
    gpu_ = pipeline::compile_to_ptx(src, specs(sig), go, nullptr);
    // Every kernel a test lowers must also be accepted by ptxas (when there is one), for
    // the target it was built for and for sm_80.
    if (auto ptxas = runtime::find_ptxas()) {
      expect_ptxas(*ptxas, gpu_.ptx, sm);
      if (sm != 80) {
        go.sm = 80;
        try {
          expect_ptxas(*ptxas, pipeline::compile_to_ptx(src, specs(sig), go, nullptr).ptx, 80);
        } catch (const CompileError &e) { // fp8 and friends: a target limit, said clearly
          EXPECT_NE(e.message().find("needs sm_"), std::string::npos) << e.message();
        }
      }
    }
  }

  static void expect_ptxas(const std::string &ptxas, const std::string &ptx, int sm) {
    runtime::GpuTarget t;
    t.major = sm / 10;
    t.minor = sm % 10;
    try {
      runtime::compile_with_ptxas(ptxas, ptx, t, {}, "kernel");
    } catch (const CompileError &e) {
      ADD_FAILURE() << "ptxas rejects the PTX for sm_" << sm << ": " << e.message() << "\n" << ptx;
    }
  }

  const pipeline::CompiledGpuKernel &gpu() const { return gpu_; }
  const std::string &ptx() const { return gpu_.ptx; }
  const std::string &thread_ir() const { return gpu_.thread_ir_text; }

  Outcome run_interp(const Inputs &in) const {
    Outcome o;
    o.bufs = in.bufs;
    std::vector<interp::KernelArg> args;
    std::vector<interp::Buffer> bufs;
    for (size_t i = 0; i < o.bufs.size(); ++i)
      bufs.push_back({reinterpret_cast<uint64_t>(o.bufs[i].data()), o.bufs[i].size(), in.names[i]});
    for (const Arg &a : in.args) {
      if (a.kind == Arg::Buf)
        args.push_back(interp::KernelArg::pointer(o.bufs[static_cast<size_t>(a.buf)].data()));
      else if (a.kind == Arg::Int)
        args.push_back(interp::KernelArg::integer(a.i));
      else
        args.push_back(interp::KernelArg::floating(a.f));
    }
    interp::LaunchOptions lo;
    lo.grid = in.grid;
    lo.num_threads = 1;
    o.output = interp::run(*tile_.module->functions.front(), args, bufs, lo, *tile_.sources).output;
    return o;
  }

  Outcome run_sim(const Inputs &in) const {
    Outcome o;
    o.bufs = in.bufs;
    std::vector<simt::SimArg> args;
    std::vector<simt::SimBuffer> bufs;
    for (size_t i = 0; i < o.bufs.size(); ++i)
      bufs.push_back({reinterpret_cast<uint64_t>(o.bufs[i].data()), o.bufs[i].size(), in.names[i]});
    for (const Arg &a : in.args) {
      if (a.kind == Arg::Buf)
        args.push_back(simt::SimArg::pointer(o.bufs[static_cast<size_t>(a.buf)].data()));
      else if (a.kind == Arg::Int)
        args.push_back(simt::SimArg::integer(a.i));
      else
        args.push_back(simt::SimArg::floating(a.f));
    }
    simt::SimOptions so;
    so.grid = in.grid;
    so.sources = gpu_.tile.sources.get();
    o.output = simt::run(*gpu_.thread_ir, args, bufs, so).output;
    return o;
  }

  // Runs both and compares every buffer (cmp[i] for buffer i; missing: exact) and the
  // printed lines (as sorted sets: the GPU prints in its own order).
  void expect_agree(const Inputs &in, const std::vector<Compare> &cmp = {}) const {
    Outcome ref = run_interp(in);
    Outcome got = run_sim(in);
    for (size_t i = 0; i < ref.bufs.size(); ++i) {
      Compare c = i < cmp.size() ? cmp[i] : Compare::exact();
      expect_close(ref.bufs[i], got.bufs[i], c, in.names[i]);
    }
    EXPECT_EQ(sorted_lines(ref.output), sorted_lines(got.output));
  }

  static std::vector<std::string> sorted_lines(const std::string &s) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < s.size()) {
      size_t nl = s.find('\n', start);
      if (nl == std::string::npos)
        nl = s.size();
      lines.push_back(s.substr(start, nl - start));
      start = nl + 1;
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  static double f16_value(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0    ? std::ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : std::ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
  }

  static void expect_close(const std::vector<uint8_t> &ref, const std::vector<uint8_t> &got,
                           const Compare &c, const std::string &name) {
    ASSERT_EQ(ref.size(), got.size());
    int es = c.kind == Compare::F32                                ? 4
             : c.kind == Compare::F64                              ? 8
             : (c.kind == Compare::F16 || c.kind == Compare::BF16) ? 2
                                                                   : 1;
    int bad = 0;
    for (size_t i = 0; i + static_cast<size_t>(es) <= ref.size(); i += static_cast<size_t>(es)) {
      double a = 0, b = 0;
      if (c.kind == Compare::Bytes) {
        if (ref[i] != got[i] && bad++ < 8)
          ADD_FAILURE() << name << ": byte " << i << " differs: " << int(ref[i]) << " vs "
                        << int(got[i]);
        continue;
      }
      if (c.kind == Compare::F32) {
        float x, y;
        std::memcpy(&x, &ref[i], 4);
        std::memcpy(&y, &got[i], 4);
        a = x;
        b = y;
      } else if (c.kind == Compare::F64) {
        std::memcpy(&a, &ref[i], 8);
        std::memcpy(&b, &got[i], 8);
      } else {
        uint16_t x, y;
        std::memcpy(&x, &ref[i], 2);
        std::memcpy(&y, &got[i], 2);
        if (c.kind == Compare::F16) {
          a = f16_value(x);
          b = f16_value(y);
        } else {
          uint32_t xa = uint32_t(x) << 16, ya = uint32_t(y) << 16;
          float fx, fy;
          std::memcpy(&fx, &xa, 4);
          std::memcpy(&fy, &ya, 4);
          a = fx;
          b = fy;
        }
      }
      bool ok = (std::isnan(a) && std::isnan(b)) || a == b ||
                std::fabs(a - b) <= c.atol + c.rtol * std::fabs(a);
      if (!ok && bad++ < 8)
        ADD_FAILURE() << name << ": element " << i / static_cast<size_t>(es) << ": interpreter "
                      << a << ", simulator " << b;
    }
  }

private:
  pipeline::CompiledTileKernel tile_;
  pipeline::CompiledGpuKernel gpu_;
};

// How many instructions of `f` are `op` (the Thread IR peephole tests).
inline size_t count_op(const simt::Function &f, simt::Op op) {
  size_t n = 0;
  for (const simt::Block &b : f.blocks)
    for (const simt::Instr &in : b.instrs)
      n += in.op == op;
  return n;
}

} // namespace tilec::lower::test
