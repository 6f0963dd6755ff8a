// The SIMT simulator's driver: argument binding, decoding, the per-CTA scheduler
// (lowest-pc reconvergence), barriers and error reporting.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>

#include "interp/simt/SimInternal.h"
#include "interp/tile/Interpreter.h"
#include "simt/Verifier.h"
#include "support/FloatFormats.h"
#include "support/Interrupt.h"

namespace tilec::simt {

namespace sim {

std::string cta_name(const Cta &c) {
  return "(" + std::to_string(c.id[0]) + ", " + std::to_string(c.id[1]) + ", " +
         std::to_string(c.id[2]) + ")";
}

Machine::Machine(const Function &f, const std::vector<SimArg> &args,
                 const std::vector<SimBuffer> &bufs, const SimOptions &o)
    : fn(f), opts(o), nthreads(f.num_threads()), buffers(bufs), rn_(f) {
  verify(fn);
  if (args.size() != fn.params.size())
    throw RuntimeError("simt: kernel '" + fn.name + "' takes " + std::to_string(fn.params.size()) +
                       " arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const Param &p = fn.params[i];
    const SimArg &a = args[i];
    int bits = ty_bits(p.ty);
    uint64_t v = 0;
    std::string decl =
        p.is_blob() ? ".b8[" + std::to_string(p.bytes) + "]" : std::string(".") + ty_name(p.ty);
    auto bad = [&](const std::string &why) {
      throw RuntimeError("simt: argument " + std::to_string(i) + " ('" + p.name + "', " + decl +
                         "): " + why);
    };
    if (p.is_blob() || a.kind == SimArg::Bytes) {
      if (!p.is_blob())
        bad("a byte array was passed for a scalar parameter");
      if (a.kind != SimArg::Bytes)
        bad("a byte-array parameter needs SimArg::blob (e.g. a SimTensorMap)");
      if (a.bytes.size() != p.bytes)
        bad("a byte array of " + std::to_string(a.bytes.size()) + " bytes was passed for " +
            std::to_string(p.bytes));
      uint32_t off = (static_cast<uint32_t>(params.size()) + p.align - 1) / p.align * p.align;
      params.resize(off + p.bytes);
      std::memcpy(params.data() + off, a.bytes.data(), p.bytes);
      param_offsets.push_back(off);
      continue;
    }
    if (a.kind == SimArg::Pointer) {
      if (bits != 64 || ty_is_float(p.ty))
        bad("a pointer needs a 64-bit integer parameter");
      v = a.ptr;
    } else if (a.kind == SimArg::Int) {
      if (ty_is_float(p.ty))
        bad("an integer was passed for a float parameter");
      if (bits < 64) {
        int64_t lo = ty_is_unsigned(p.ty) ? 0 : -(int64_t(1) << (bits - 1));
        int64_t hi = ty_is_signed(p.ty) ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
        if (a.i < lo || a.i > hi)
          bad("the value " + std::to_string(a.i) + " does not fit");
      }
      v = static_cast<uint64_t>(a.i);
    } else {
      if (!ty_is_float(p.ty))
        bad("a float was passed for an integer parameter");
      if (p.ty == Ty::F32) {
        float f = static_cast<float>(a.f);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        v = b;
      } else if (p.ty == Ty::F64) {
        std::memcpy(&v, &a.f, 8);
      } else if (p.ty == Ty::F16) {
        v = tilec::fp16_from_double(a.f);
      } else if (p.ty == Ty::BF16) {
        v = tilec::bf16_from_double(a.f);
      } else {
        bad("unsupported parameter type");
      }
    }
    uint32_t bytes = static_cast<uint32_t>(std::max(bits, 8) / 8);
    uint32_t off = (static_cast<uint32_t>(params.size()) + bytes - 1) / bytes * bytes;
    params.resize(off + bytes);
    std::memcpy(params.data() + off, &v, bytes);
    param_offsets.push_back(off);
  }
  uint64_t at = kStringBase;
  for (const std::string &s : fn.strings) {
    string_addr.push_back(at);
    string_data.push_back(s + '\0');
    at += (s.size() + 16) / 16 * 16;
  }
  for (const SimBuffer &b : buffers)
    if (b.size_bytes > 0 && b.base == 0)
      throw RuntimeError("simt: buffer '" + b.name + "' has a null base");
  decode();
}

void Machine::decode() {
  std::vector<uint32_t> block_pc;
  for (const Block &b : fn.blocks) {
    block_pc.push_back(static_cast<uint32_t>(code.size()));
    for (const Instr &in : b.instrs) {
      Decoded d;
      d.in = &in;
      code.push_back(std::move(d));
    }
  }
  for (Decoded &d : code) {
    const Instr &in = *d.in;
    for (size_t i = 0; i < in.src.size(); ++i) {
      Ty t = src_operand_ty(fn, in, i);
      d.src_ty.push_back(t);
      d.imm.push_back(in.src[i].is_imm() ? imm_bits(in.src[i], t) : 0);
    }
    if (in.op == Op::Bra)
      d.target = block_pc.at(in.src[0].index);
  }
}

uint64_t Machine::src(Cta &c, const Decoded &d, size_t i, int t) {
  const Operand &o = d.in->src[i];
  switch (o.kind) {
  case Operand::Kind::Reg:
    return reg(c, o.reg(), t);
  case Operand::Kind::Imm:
    return d.imm[i];
  case Operand::Kind::Sreg: {
    int lane = t % kWarp;
    switch (static_cast<Sreg>(o.index)) {
    case Sreg::TidX:
      return static_cast<uint64_t>(t);
    case Sreg::TidY:
    case Sreg::TidZ:
      return 0;
    case Sreg::NtidX:
      return static_cast<uint64_t>(nthreads);
    case Sreg::NtidY:
    case Sreg::NtidZ:
      return 1;
    case Sreg::CtaidX:
      return static_cast<uint64_t>(c.id[0]);
    case Sreg::CtaidY:
      return static_cast<uint64_t>(c.id[1]);
    case Sreg::CtaidZ:
      return static_cast<uint64_t>(c.id[2]);
    case Sreg::NctaidX:
      return static_cast<uint64_t>(opts.grid[0]);
    case Sreg::NctaidY:
      return static_cast<uint64_t>(opts.grid[1]);
    case Sreg::NctaidZ:
      return static_cast<uint64_t>(opts.grid[2]);
    case Sreg::LaneId:
      return static_cast<uint64_t>(lane);
    case Sreg::WarpId:
      return static_cast<uint64_t>(t / kWarp);
    case Sreg::NWarpId:
      return static_cast<uint64_t>(fn.num_warps);
    case Sreg::LanemaskLt:
      return (1ull << lane) - 1;
    case Sreg::LanemaskLe:
      return ((1ull << lane) << 1) - 1;
    case Sreg::LanemaskEq:
      return 1ull << lane;
    case Sreg::Clock:
      return c.steps & 0xffffffffu;
    case Sreg::Clock64:
      return c.steps;
    case Sreg::Globaltimer: // nanoseconds, as on the GPU
      return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now().time_since_epoch())
                                       .count());
    case Sreg::Smid: // one simulated SM runs every CTA
      return 0;
    }
    return 0;
  }
  case Operand::Kind::Shared:
    return static_cast<uint64_t>(o.value);
  case Operand::Kind::String:
    return string_addr.at(o.index) + static_cast<uint64_t>(o.value);
  default:
    fault(c, d, t, "operand cannot be read as a value");
  }
}

void Machine::set_dst(Cta &c, const Decoded &d, size_t i, int t, uint64_t bits) {
  Reg r = d.in->dst[i].reg();
  int w = ty_reg_bits(fn.reg_ty(r));
  if (w < 64)
    bits &= (1ull << w) - 1;
  reg(c, r, t) = bits;
}

uint32_t Machine::guarded(Cta &c, const Decoded &d, int warp, uint32_t mask) {
  const Guard &g = d.in->guard;
  if (!g.active())
    return mask;
  uint32_t out = 0;
  for (int l = 0; l < kWarp; ++l)
    if (mask >> l & 1) {
      bool p = reg(c, g.pred, warp * kWarp + l) != 0;
      if (p != g.negate)
        out |= 1u << l;
    }
  return out;
}

void Machine::fault(const Cta &c, const Decoded &d, int t, const std::string &what) {
  std::string msg = "simt: " + what + " (kernel '" + fn.name + "', CTA " + cta_name(c) +
                    ", thread " + std::to_string(t) + ": warp " + std::to_string(t / kWarp) +
                    ", lane " + std::to_string(t % kWarp) + ")\n  in `" +
                    format_instr(fn, rn_, *d.in) + "`";
  if (d.in->loc.valid() && opts.sources)
    msg = render_diagnostic(*opts.sources, d.in->loc, "error", msg);
  throw Fault{msg};
}

Space Machine::space_of(const Decoded &d) const {
  Space s = d.in->m.space;
  return s == Space::None ? Space::Global : s; // generic addresses are global here
}

uint64_t Machine::address(Cta &c, const Decoded &d, int t, size_t i) {
  const Operand &o = d.in->src[i];
  switch (o.kind) {
  case Operand::Kind::Reg:
    return reg(c, o.reg(), t) + static_cast<uint64_t>(o.value);
  case Operand::Kind::Param:
    return param_offsets.at(o.index) + static_cast<uint64_t>(o.value);
  case Operand::Kind::Shared:
    return static_cast<uint64_t>(o.value);
  case Operand::Kind::String:
    return string_addr.at(o.index) + static_cast<uint64_t>(o.value);
  default:
    fault(c, d, t, "bad address operand");
  }
}

namespace {
std::string hexaddr(uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}
} // namespace

uint8_t *Machine::memory(Cta &c, const Decoded &d, int t, uint64_t addr, uint64_t bytes,
                         bool write) {
  Space s = space_of(d);
  const char *what = write ? "store to" : "load from";
  if (addr % bytes != 0)
    fault(c, d, t,
          std::string("misaligned ") + what + " ." + space_name(s) + " address " + hexaddr(addr) +
              " (an access of " + std::to_string(bytes) + " bytes)");
  if (s == Space::Shared) {
    if (addr + bytes > c.shared.size() || addr + bytes < addr)
      fault(c, d, t,
            std::string("out-of-bounds ") + what + " shared memory at offset " +
                std::to_string(addr) + " (" + std::to_string(bytes) + " bytes; the kernel has " +
                std::to_string(c.shared.size()) + " bytes of shared memory)");
    if (!c.bulk.empty())
      check_bulk_access(*this, c, d, t, addr, bytes, write);
    if (write && !c.stores.empty())
      check_store_sources(*this, c, d, t, addr, bytes);
    return c.shared.data() + addr;
  }
  if (s == Space::Param) {
    if (write || addr + bytes > params.size())
      fault(c, d, t, "bad .param access");
    return params.data() + addr;
  }
  if (s != Space::Global)
    fault(c, d, t, std::string("the simulator has no .") + space_name(s) + " memory");
  for (size_t i = 0; i < string_addr.size(); ++i)
    if (addr >= string_addr[i] && addr + bytes <= string_addr[i] + string_data[i].size()) {
      if (write)
        fault(c, d, t, "store to a constant string");
      return reinterpret_cast<uint8_t *>(string_data[i].data()) + (addr - string_addr[i]);
    }
  // cvta.param addresses: the parameters are readable, as the GPU's .param space is
  if (addr >= kParamBase && addr - kParamBase < params.size()) {
    if (write || addr + bytes - kParamBase > params.size())
      fault(c, d, t, std::string("bad ") + what + " a kernel parameter's generic address");
    return params.data() + (addr - kParamBase);
  }
  if (addr == 0)
    fault(c, d, t, std::string(what) + " a null global address");
  const SimBuffer *near = nullptr;
  for (const SimBuffer &b : buffers) {
    if (addr >= b.base && addr - b.base < b.size_bytes) {
      if (addr + bytes - b.base > b.size_bytes)
        fault(c, d, t,
              std::string("out-of-bounds ") + what + " buffer '" + b.name + "': bytes [" +
                  std::to_string(addr - b.base) + ", " + std::to_string(addr - b.base + bytes) +
                  ") of " + std::to_string(b.size_bytes));
      return reinterpret_cast<uint8_t *>(addr);
    }
    if (!near || (addr >= b.base && b.base > near->base))
      near = &b;
  }
  std::string where = "global address " + hexaddr(addr) + " is in no buffer";
  if (near && addr >= near->base)
    where += " (" + std::to_string(addr - near->base - near->size_bytes) +
             " bytes past the end of '" + near->name + "', " + std::to_string(near->size_bytes) +
             " bytes)";
  fault(c, d, t, std::string("out-of-bounds ") + what + " global memory: " + where);
}

void Machine::arrive(Cta &c, int id, int64_t count, int64_t n) {
  c.arrived[id] += n;
  c.expected[id] = count;
}

void Machine::maybe_release(Cta &c) {
  int64_t live = 0;
  for (ThreadState s : c.state)
    live += s != ThreadState::Exited;
  for (int id = 0; id < 16; ++id) {
    if (c.arrived[id] == 0)
      continue;
    int64_t want = c.expected[id] > 0 ? c.expected[id] : live;
    if (c.arrived[id] < want)
      continue;
    c.arrived[id] = 0;
    c.expected[id] = 0;
    for (int t = 0; t < nthreads; ++t)
      if (c.state[t] == ThreadState::Waiting && c.bar_id[t] == id)
        c.state[t] = ThreadState::Running;
  }
}

void Machine::step(Cta &c, int warp, uint32_t pc, uint32_t mask) {
  const Decoded &d = code[pc];
  for (int l = 0; l < kWarp; ++l)
    if (mask >> l & 1)
      ++c.pc[warp * kWarp + l];
  if (c.async && wgmma_in_flight(c, warp))
    check_wgmma_hazard(*this, c, d, warp, mask);
  switch (d.in->op) {
#define INSTR(Id, Mn, Nd, Ns)                                                                      \
  case Op::Id:                                                                                     \
    exec_##Id(*this, c, d, warp, mask);                                                            \
    break;
#include "simt/Instrs.def"
#undef INSTR
  }
}

void Machine::run_cta(Cta &c) {
  uint64_t limit = opts.max_steps ? opts.max_steps : 1'000'000'000ull;
  int nwarps = fn.num_warps;
  for (;;) {
    bool progress = false;
    for (int w = 0; w < nwarps; ++w) {
      for (;;) {
        uint32_t pc = UINT32_MAX, mask = 0;
        for (int l = 0; l < kWarp; ++l) {
          int t = w * kWarp + l;
          if (c.state[t] != ThreadState::Running)
            continue;
          if (c.pc[t] < pc) {
            pc = c.pc[t];
            mask = 0;
          }
          if (c.pc[t] == pc)
            mask |= 1u << l;
        }
        if (!mask)
          break;
        if (pc >= code.size()) {
          Decoded end;
          Instr ret;
          ret.op = Op::Ret;
          end.in = &ret;
          fault(c, end, w * kWarp + std::countr_zero(mask),
                "ran past the end of the function (a block needs ret or exit)");
        }
        progress = true;
        step(c, w, pc, mask);
        if (++c.steps > limit)
          fault(c, code[pc], w * kWarp + std::countr_zero(mask),
                "no end after " + std::to_string(limit) + " steps (a hang?)");
        if ((c.steps & 0xffff) == 0 && interrupted())
          fault(c, code[pc], w * kWarp + std::countr_zero(mask), "interrupted (KeyboardInterrupt)");
      }
    }
    bool any_live = false, any_waiting = false;
    for (ThreadState s : c.state) {
      any_live |= s != ThreadState::Exited;
      any_waiting |= s == ThreadState::Waiting;
    }
    if (!any_live)
      break;
    maybe_release(c);
    auto running = [&] {
      return std::any_of(c.state.begin(), c.state.end(),
                         [](ThreadState s) { return s == ThreadState::Running; });
    };
    bool released = running();
    // TMA copies land as late as they may: when no thread can run without them.
    if (!released && land_bulk_copies(*this, c))
      released = running();
    if (!progress && !released && any_waiting) {
      std::string who;
      for (int t = 0; t < nthreads; t += kWarp)
        who +=
            " warp " + std::to_string(t / kWarp) + ":" +
            (c.state[t] != ThreadState::Waiting
                 ? c.state[t] == ThreadState::Exited ? " exited" : " running"
             : c.bar_id[t] == kMbarrierWait ? std::string(" waits on an mbarrier")
                                            : " waits on barrier " + std::to_string(c.bar_id[t]));
      throw Fault{"simt: deadlock in CTA " + cta_name(c) + " of kernel '" + fn.name +
                  "': a barrier never completes (" + who + " )"};
    }
  }
  check_stores_done(*this, c);
  total_steps += c.steps;
}

RunResult Machine::run() {
  for (int64_t g : opts.grid)
    if (g < 1 || g > (int64_t(1) << 31))
      throw RuntimeError("simt: grid dimensions must be in [1, 2^31)");
  Cta c;
  size_t nregs = fn.regs.size();
  // Registers start as NaN-like poison, so a value read before it is written shows up
  // in results instead of passing as a plausible 0.
  std::vector<uint64_t> poison(nregs);
  for (size_t r = 0; r < nregs; ++r) {
    switch (ty_reg_bits(fn.regs[r].ty)) {
    case 1:
      poison[r] = 0;
      break;
    case 16:
      poison[r] = 0x7fff;
      break;
    case 32:
      poison[r] = 0x7fffdead;
      break;
    default:
      poison[r] = 0x7ff8dead7ff8deadull;
      break;
    }
  }
  try {
    for (int64_t z = 0; z < opts.grid[2]; ++z)
      for (int64_t y = 0; y < opts.grid[1]; ++y)
        for (int64_t x = 0; x < opts.grid[0]; ++x) {
          c.id = {x, y, z};
          c.regs.resize(nregs * nthreads);
          for (size_t r = 0; r < nregs; ++r)
            std::fill_n(c.regs.begin() + static_cast<std::ptrdiff_t>(r * nthreads), nthreads,
                        poison[r]);
          c.pc.assign(nthreads, 0);
          c.state.assign(nthreads, ThreadState::Running);
          c.bar_id.assign(nthreads, 0);
          c.shared.assign(fn.shared_bytes, 0);
          c.arrived.fill(0);
          c.expected.fill(0);
          c.bulk.clear();
          c.stores.clear();
          c.bulk_groups.assign(nthreads, 0);
          c.steps = 0;
          run_cta(c);
        }
  } catch (const Fault &f) {
    throw SimError(f.msg, output);
  }
  RunResult r;
  r.output = std::move(output);
  r.steps = total_steps;
  return r;
}

} // namespace sim

RunResult run(const Function &fn, const std::vector<SimArg> &args,
              const std::vector<SimBuffer> &buffers, const SimOptions &opts) {
  sim::Machine m(fn, args, buffers, opts);
  return m.run();
}

} // namespace tilec::simt
