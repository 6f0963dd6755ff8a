// Instruction handlers: pure per-lane instructions, moves of packed values, control flow,
// barriers and the debugging calls.
#include <bit>
#include <cstring>

#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

namespace {

void run_pure(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  size_t ns = d.in->src.size();
  for_lanes(act, warp, [&](int t) {
    uint64_t s[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < ns; ++i)
      s[i] = m.src(c, d, i, t);
    uint64_t v;
    try {
      v = eval_pure(d, s);
    } catch (const Fault &f) {
      m.fault(c, d, t, f.msg);
    }
    m.set_dst(c, d, 0, t, v);
  });
}

} // namespace

#define PURE(Id)                                                                                   \
  void exec_##Id(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {                  \
    run_pure(m, c, d, warp, mask);                                                                 \
  }
PURE(Mov)
PURE(Add)
PURE(Sub)
PURE(Mul)
PURE(Mad)
PURE(Fma)
PURE(Div)
PURE(Rem)
PURE(Abs)
PURE(Neg)
PURE(Min)
PURE(Max)
PURE(And)
PURE(Or)
PURE(Xor)
PURE(Not)
PURE(Shl)
PURE(Shr)
PURE(Popc)
PURE(Clz)
PURE(Brev)
PURE(Prmt)
PURE(Setp)
PURE(Selp)
PURE(Cvt)
PURE(Ex2)
PURE(Lg2)
PURE(Sqrt)
PURE(Rsqrt)
PURE(Rcp)
PURE(Sin)
PURE(Cos)
PURE(Tanh)
#undef PURE

// mov.b32 d, {a, b}: the first part is the least significant.
void exec_Pack(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  int w = ty_bits(d.in->ty) / static_cast<int>(d.in->src.size());
  for_lanes(act, warp, [&](int t) {
    uint64_t v = 0;
    for (size_t i = 0; i < d.in->src.size(); ++i)
      v |= (m.src(c, d, i, t) & ((1ull << w) - 1)) << (w * i);
    m.set_dst(c, d, 0, t, v);
  });
}

void exec_Unpack(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  int w = ty_bits(d.in->ty) / static_cast<int>(d.in->dst.size());
  for_lanes(act, warp, [&](int t) {
    uint64_t v = m.src(c, d, 0, t);
    for (size_t i = 0; i < d.in->dst.size(); ++i)
      m.set_dst(c, d, i, t, (v >> (w * i)) & ((1ull << w) - 1));
  });
}

void exec_Bra(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for_lanes(act, warp, [&](int t) { c.pc[t] = d.target; });
}

void exec_Ret(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for_lanes(act, warp, [&](int t) { c.state[t] = ThreadState::Exited; });
  if (act)
    m.maybe_release(c); // an exit can complete a barrier the others wait on
}

void exec_Exit(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  exec_Ret(m, c, d, warp, mask);
}

void exec_Trap(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (act)
    m.fault(c, d, warp * kWarp + std::countr_zero(act), "trap");
}

void exec_InlineAsm(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (act)
    m.fault(c, d, warp * kWarp + std::countr_zero(act),
            "tl.inline_asm_elementwise runs PTX, which the SIMT simulator cannot execute");
}

namespace {
void barrier(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask, bool wait) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  int t0 = warp * kWarp + std::countr_zero(act);
  uint64_t id = m.src(c, d, 0, t0);
  int64_t count = d.in->src.size() > 1 ? static_cast<int64_t>(m.src(c, d, 1, t0)) : 0;
  if (id > 15)
    m.fault(c, d, t0, "barrier id " + std::to_string(id) + " is not in 0..15");
  if (count < 0 || count % kWarp != 0 || count > m.nthreads)
    m.fault(c, d, t0,
            "barrier thread count " + std::to_string(count) +
                " must be a multiple of 32 no larger than the CTA");
  if (c.arrived[id] > 0 && c.expected[id] != count)
    m.fault(c, d, t0, "barrier " + std::to_string(id) + " used with different thread counts");
  if (wait)
    for_lanes(act, warp, [&](int t) {
      c.state[t] = ThreadState::Waiting;
      c.bar_id[t] = static_cast<uint8_t>(id);
    });
  m.arrive(c, static_cast<int>(id), count, std::popcount(act));
  m.maybe_release(c);
}
} // namespace

void exec_Bar(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  barrier(m, c, d, warp, mask, true);
}
void exec_BarArrive(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  barrier(m, c, d, warp, mask, false);
}

// Memory ordering is trivially sequential here: warps and CTAs run one at a time.
void exec_Membar(Machine &, Cta &, const Decoded &, int, uint32_t) {}
void exec_Fence(Machine &, Cta &, const Decoded &, int, uint32_t) {}
// A grid runs alone here: there is no earlier grid to wait for or later one to release.
void exec_GriddepWait(Machine &, Cta &, const Decoded &, int, uint32_t) {}
void exec_GriddepLaunch(Machine &, Cta &, const Decoded &, int, uint32_t) {}
// Registers are not modelled; .sync.aligned: every lane of the warp executes it.
void exec_SetmaxnregDec(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (act && act != 0xffffffffu)
    m.fault(c, d, warp * kWarp, "setmaxnreg is .aligned: every lane of the warp must execute it");
}
void exec_SetmaxnregInc(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  exec_SetmaxnregDec(m, c, d, warp, mask);
}

void exec_Vprintf(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Instr &in = *d.in;
  for_lanes(act, warp, [&](int t) {
    std::vector<uint8_t> buf;
    for (size_t i = 1; i < in.src.size(); ++i) {
      size_t bytes = static_cast<size_t>(ty_bits(d.src_ty[i]) / 8);
      size_t off = (buf.size() + bytes - 1) / bytes * bytes;
      buf.resize(off + bytes);
      uint64_t v = m.src(c, d, i, t);
      std::memcpy(buf.data() + off, &v, bytes);
    }
    try {
      format_printf(m.fn.strings.at(in.src[0].index), buf, m.output, m);
    } catch (const Fault &f) {
      m.fault(c, d, t, f.msg);
    }
  });
}

void exec_AssertFail(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  const Instr &in = *d.in;
  int t = warp * kWarp + std::countr_zero(act);
  const auto &s = m.fn.strings;
  std::string text = s.at(in.src[1].index) + ":" + std::to_string(in.src[2].value) + ": " +
                     s.at(in.src[3].index) + ": block: [" + std::to_string(c.id[0]) + "," +
                     std::to_string(c.id[1]) + "," + std::to_string(c.id[2]) + "], thread: [" +
                     std::to_string(t) + ",0,0] Assertion `" + s.at(in.src[0].index) +
                     "` failed.\n";
  m.output += text;
  m.fault(c, d, t, "device assertion failed: " + s.at(in.src[0].index));
}

// The GPU traps without printing (Instrs.def); the simulator reports it as __assertfail does.
void exec_AssertTrap(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  exec_AssertFail(m, c, d, warp, mask);
}

} // namespace tilec::simt::sim
