// Asynchronous copies, mbarriers and warpgroup MMA (sm_80 / sm_90).
//
// Model (tests: tests/cpp/simt_interp/AsyncTest.cpp, WgmmaTest.cpp):
// - cp.async reads its source when issued (bounds-checked then, naming the lane) and
//   fills the destination with 0xff bytes; the copied bytes (zero-filled past the source
//   size) land when the issuing thread's cp.async.wait_group retires the group. So a
//   program that reads the destination before the matching wait (and, for other
//   threads, a barrier after it) sees NaN-like garbage here, as it may on a GPU. Copies
//   never committed, or still pending when the thread exits, are dropped.
// - An mbarrier's state lives in its 8 bytes of shared memory (this simulator's own
//   encoding): pending arrivals, the expected count, the signed transaction count and the
//   phase parity. A phase completes when its arrivals reach zero and the transaction count
//   is back at zero (PTX ISA): expect_tx adds bytes, a TMA copy's complete_tx (SimTma.cpp)
//   subtracts them, in either order. A failed try_wait.parity returns
//   false and yields the thread until some mbarrier phase completes, so spin loops do not
//   hang the warp-at-a-time scheduler; a wait that can never succeed is a deadlock.
// - wgmma computes when issued: warp w of a warpgroup (4 consecutive warps) computes rows
//   16 (w % 4) .. + 15 of D from A (its shared-memory descriptor or the warp's registers)
//   and B (descriptor), reading shared memory then. Products are exact; each D element
//   is rounded once (f32, or f16 for an f16 accumulator); s8 -> s32 wraps. On a GPU the
//   result lands later, so any other instruction touching a wgmma's D or A registers
//   before the wgmma.wait_group that retires its group is undefined (PTX ISA); here it is
//   an error naming the instruction (each warp tracks the registers of its uncommitted
//   wgmmas and of its committed groups). A later wgmma accumulating into the same D is
//   allowed, as on the GPU. fence and fence.proxy.async are no-ops.
#include <bit>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "interp/simt/SimFloat.h"
#include "interp/simt/SimInternal.h"
#include "simt/AsyncInstrs.h"
#include "support/FloatFormats.h"

namespace tilec::simt::sim {

struct AsyncCopy {
  uint64_t dst = 0; // .shared offset
  std::vector<uint8_t> bytes;
};

struct AsyncState {
  std::array<int64_t, 3> cta{};
  std::vector<std::vector<AsyncCopy>> open;                // per thread: not committed
  std::vector<std::deque<std::vector<AsyncCopy>>> pending; // per thread: committed groups
  // per warp: the D and A registers of wgmmas not committed, then of committed groups not
  // yet retired by a wait, and how many of those groups name each register
  std::vector<std::vector<uint32_t>> wgmma_open;
  std::vector<std::deque<std::vector<uint32_t>>> wgmma_pending;
  std::vector<std::unordered_map<uint32_t, int>> wgmma_regs;
};

namespace {

AsyncState &async_state(Machine &m, Cta &c) {
  if (!c.async || c.async->cta != c.id) {
    c.async = std::make_shared<AsyncState>();
    c.async->cta = c.id;
    c.async->open.resize(static_cast<size_t>(m.nthreads));
    c.async->pending.resize(static_cast<size_t>(m.nthreads));
    size_t warps = static_cast<size_t>(m.fn.num_warps);
    c.async->wgmma_open.resize(warps);
    c.async->wgmma_pending.resize(warps);
    c.async->wgmma_regs.resize(warps);
  }
  return *c.async;
}

void land(Cta &c, std::vector<AsyncCopy> &group) {
  for (AsyncCopy &cp : group)
    std::memcpy(c.shared.data() + cp.dst, cp.bytes.data(), cp.bytes.size());
}

} // namespace

void exec_CpAsync(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  AsyncState &st = async_state(m, c);
  const Instr &in = *d.in;
  uint64_t size = in.m.vec;
  InSpace global(d, Space::Global);
  for_lanes(act, warp, [&](int t) {
    uint64_t dst = m.address(c, d, t);
    uint8_t *dp = m.memory(c, d, t, dst, size, true);
    uint64_t src = m.reg(c, in.src[1].reg(), t) + static_cast<uint64_t>(in.src[1].value);
    uint64_t n = in.src.size() > 2 ? m.src(c, d, 2, t) : size;
    if (n > size)
      m.fault(c, d, t,
              "cp.async source size " + std::to_string(n) + " exceeds the copy size " +
                  std::to_string(size));
    if (src % size != 0)
      m.fault(c, d, t, "misaligned cp.async source (" + std::to_string(size) + "-byte copy)");
    AsyncCopy cp;
    cp.dst = dst;
    cp.bytes.assign(size, 0);
    for (uint64_t i = 0; i < n; ++i)
      cp.bytes[i] = *m.memory(c, global.d, t, src + i, 1, false);
    std::memset(dp, 0xff, size);
    st.open[static_cast<size_t>(t)].push_back(std::move(cp));
  });
}

void exec_CpAsyncCommit(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  AsyncState &st = async_state(m, c);
  for_lanes(act, warp, [&](int t) {
    auto &open = st.open[static_cast<size_t>(t)];
    st.pending[static_cast<size_t>(t)].push_back(std::move(open));
    open.clear();
  });
}

void exec_CpAsyncWait(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  AsyncState &st = async_state(m, c);
  size_t keep = d.imm.at(0);
  for_lanes(act, warp, [&](int t) {
    auto &groups = st.pending[static_cast<size_t>(t)];
    while (groups.size() > keep) {
      land(c, groups.front());
      groups.pop_front();
    }
  });
}

// ---- mbarrier -------------------------------------------------------------------------

namespace {

// Our encoding of the 64-bit mbarrier object.
struct MbarWord {
  uint32_t pending = 0, expected = 0; // arrivals still due in this phase; per phase
  int64_t tx = 0; // transaction bytes outstanding (< 0: completed before expected)
  bool phase = false, valid = false;

  static constexpr int64_t kTxLimit = (1 << 20) - 1; // PTX: tx-count in [-(2^20-1), 2^20-1]

  static MbarWord load(uint64_t w) {
    MbarWord b;
    b.pending = static_cast<uint32_t>(w & 0xfffff);
    b.expected = static_cast<uint32_t>((w >> 20) & 0xfffff);
    b.tx = static_cast<int64_t>((w >> 40) & 0x1fffff);
    if (b.tx > kTxLimit) // 21-bit two's complement
      b.tx -= 1 << 21;
    b.valid = (w >> 62) & 1;
    b.phase = (w >> 63) & 1;
    return b;
  }
  uint64_t store() const {
    return static_cast<uint64_t>(pending) | static_cast<uint64_t>(expected) << 20 |
           (static_cast<uint64_t>(tx) & 0x1fffff) << 40 | static_cast<uint64_t>(valid) << 62 |
           static_cast<uint64_t>(phase) << 63;
  }
};

void wake_mbarrier_waiters(Machine &m, Cta &c) {
  for (int t = 0; t < m.nthreads; ++t)
    if (c.state[static_cast<size_t>(t)] == ThreadState::Waiting &&
        c.bar_id[static_cast<size_t>(t)] == kMbarrierWait)
      c.state[static_cast<size_t>(t)] = ThreadState::Running;
}

// Ends the phase once no arrivals and no transaction bytes are outstanding.
void maybe_complete_phase(Machine &m, Cta &c, MbarWord &b) {
  if (b.pending != 0 || b.tx != 0)
    return;
  b.phase = !b.phase;
  b.pending = b.expected;
  wake_mbarrier_waiters(m, c);
}

// The mbarrier at .shared `addr`, for instruction d (which need not be an mbarrier).
uint8_t *mbarrier_word(Machine &m, Cta &c, const Decoded &d, int t, uint64_t addr, MbarWord &b,
                       bool init) {
  uint8_t *p = d.in->m.space == Space::Shared
                   ? m.memory(c, d, t, addr, 8, true)
                   : m.memory(c, InSpace(d, Space::Shared).d, t, addr, 8, true);
  uint64_t word;
  std::memcpy(&word, p, 8);
  b = MbarWord::load(word);
  if (!init && !b.valid)
    m.fault(c, d, t, "mbarrier at shared offset " + std::to_string(addr) + " is not initialised");
  return p;
}

void add_tx(Machine &m, Cta &c, const Decoded &d, int t, MbarWord &b, int64_t bytes) {
  b.tx += bytes;
  if (b.tx < -MbarWord::kTxLimit || b.tx > MbarWord::kTxLimit)
    m.fault(c, d, t,
            "mbarrier transaction count " + std::to_string(b.tx) + " is out of range (+-(2^20-1))");
}

} // namespace

void mbarrier_complete_tx(Machine &m, Cta &c, const Decoded &d, int t, uint64_t bar,
                          uint64_t bytes) {
  MbarWord b;
  uint8_t *p = mbarrier_word(m, c, d, t, bar, b, false);
  add_tx(m, c, d, t, b, -static_cast<int64_t>(bytes));
  maybe_complete_phase(m, c, b);
  uint64_t word = b.store();
  std::memcpy(p, &word, 8);
}

// Lands every copy of the thread, committed or not, then arrives once (.noinc: the count
// the barrier was made with includes this arrival).
void exec_CpAsyncMbarrierArrive(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  AsyncState &st = async_state(m, c);
  for_lanes(act, warp, [&](int t) {
    auto &groups = st.pending[static_cast<size_t>(t)];
    for (; !groups.empty(); groups.pop_front())
      land(c, groups.front());
    land(c, st.open[static_cast<size_t>(t)]);
    st.open[static_cast<size_t>(t)].clear();
    MbarWord b;
    uint8_t *p = mbarrier_word(m, c, d, t, m.address(c, d, t), b, false);
    if (b.pending == 0)
      m.fault(c, d, t, "mbarrier arrival with no arrivals pending in this phase");
    b.pending -= 1;
    maybe_complete_phase(m, c, b);
    uint64_t word = b.store();
    std::memcpy(p, &word, 8);
  });
}

void exec_Mbarrier(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Instr &in = *d.in;
  for_lanes(act, warp, [&](int t) {
    uint64_t addr = m.address(c, d, t);
    MbarWord b;
    uint8_t *p = mbarrier_word(m, c, d, t, addr, b, in.m.mbar == MbarOp::Init);
    uint64_t word;
    std::memcpy(&word, p, 8);
    auto arrive = [&](uint64_t count) {
      m.set_dst(c, d, 0, t, word); // the state before the arrival (opaque)
      if (count > b.pending)
        m.fault(c, d, t,
                "mbarrier arrival count exceeds the arrivals pending in this phase (" +
                    std::to_string(b.pending) + ")");
      b.pending -= static_cast<uint32_t>(count);
      maybe_complete_phase(m, c, b);
    };
    switch (in.m.mbar) {
    case MbarOp::Init: {
      uint64_t count = m.src(c, d, 1, t);
      if (count < 1 || count >= (1u << 20))
        m.fault(c, d, t, "mbarrier count must be 1 .. 2^20 - 1, got " + std::to_string(count));
      b = MbarWord{};
      b.pending = b.expected = static_cast<uint32_t>(count);
      b.valid = true;
      break;
    }
    case MbarOp::Arrive:
      arrive(in.src.size() > 1 ? m.src(c, d, 1, t) : 1);
      break;
    case MbarOp::ArriveExpectTx:
      add_tx(m, c, d, t, b, static_cast<int64_t>(m.src(c, d, 1, t) & 0xffffffffu));
      arrive(1);
      break;
    case MbarOp::TryWaitParity: {
      bool done = b.phase != ((m.src(c, d, 1, t) & 1) != 0);
      m.set_dst(c, d, 0, t, done ? 1 : 0);
      if (!done) {
        c.state[static_cast<size_t>(t)] = ThreadState::Waiting;
        c.bar_id[static_cast<size_t>(t)] = kMbarrierWait;
      }
      break;
    }
    case MbarOp::Inval:
      b = MbarWord{};
      break;
    default:
      m.fault(c, d, t, "mbarrier without an operation");
    }
    word = b.store();
    std::memcpy(p, &word, 8);
  });
}

// ---- wgmma ----------------------------------------------------------------------------

namespace {

double elem_value(uint64_t bits, Ty t) {
  switch (t) {
  case Ty::TF32: // the tensor core reads the top 19 bits
    return f32_from_bits(bits & 0xffffe000u);
  case Ty::S8:
    return static_cast<int8_t>(bits & 0xff);
  case Ty::E4M3x2: // one fp8 element
    return tilec::fp8e4nv_to_float(static_cast<uint8_t>(bits));
  case Ty::E5M2x2:
    return tilec::fp8e5_to_float(static_cast<uint8_t>(bits));
  default:
    return float_value(bits, t);
  }
}

} // namespace

void exec_Wgmma(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  const Instr &in = *d.in;
  int t0 = warp * kWarp + std::countr_zero(act);
  if (act != 0xffffffffu)
    m.fault(c, d, t0, "wgmma is .aligned: every lane of the warp must execute it");
  // the executing warp's warpgroup must be whole (a warp-specialised kernel's producer
  // warps after them may make a partial one, which issues no wgmma)
  if ((warp / 4 + 1) * 4 > m.fn.num_warps)
    m.fault(c, d, t0, "wgmma needs whole warpgroups (num_warps a multiple of 4)");
  WgmmaShape s{in.m.mma.n, in.ty, in.src_ty, in.m.b_ty};
  int K = s.k(), N = s.n, eb = in.src_ty == Ty::TF32 ? 4 : K == 32 ? 1 : 2;
  int row0 = 16 * (warp % 4);
  size_t na = in.m.a_regs ? 4 : 1;
  InSpace shared(d, Space::Shared);
  auto uniform = [&](size_t i) {
    uint64_t v = m.src(c, d, i, t0);
    for_lanes(act, warp, [&](int t) {
      if (m.src(c, d, i, t) != v)
        m.fault(c, d, t, "wgmma descriptor operands must be the same in every lane");
    });
    return MatrixDesc::decode(v);
  };
  auto read = [&](const MatrixDesc &desc, bool mn_major, int mn, int k, Ty ty) {
    if (desc.base_offset != 0)
      m.fault(c, d, t0, "wgmma descriptors with a nonzero base offset are not simulated");
    uint64_t a = desc_element_addr(desc, mn_major, eb, mn, k);
    uint64_t v = 0;
    std::memcpy(&v, m.memory(c, shared.d, t0, a, static_cast<uint64_t>(eb), false),
                static_cast<size_t>(eb));
    return elem_value(v, ty);
  };
  // A: this warp's 16 rows; B: all N columns (as (n, k)).
  std::vector<double> A(static_cast<size_t>(16 * K)), B(static_cast<size_t>(N * K));
  if (!in.m.a_regs) {
    MatrixDesc ad = uniform(0);
    for (int r = 0; r < 16; ++r)
      for (int k = 0; k < K; ++k)
        A[static_cast<size_t>(r * K + k)] = read(ad, in.m.trans_a, row0 + r, k, s.input);
  } else {
    // The mma.m16n8kK A fragment: regs 0..3 = (g, lo k), (g+8, lo k), (g, hi k), (g+8, hi k)
    // with g = lane / 4; per register, 32 / eb-bit elements at k = (lane % 4) * per + j.
    int per = 4 / eb;
    for (int l = 0; l < kWarp; ++l)
      for (int r = 0; r < 4; ++r) {
        uint64_t v = m.src(c, d, static_cast<size_t>(r), warp * kWarp + l);
        for (int j = 0; j < per; ++j) {
          int row = l / 4 + 8 * (r % 2), k = (l % 4) * per + j + (r / 2) * (K / 2);
          uint64_t bits =
              (v >> (j * eb * 8)) & ((eb == 4) ? 0xffffffffull : (1ull << (eb * 8)) - 1);
          A[static_cast<size_t>(row * K + k)] = elem_value(bits, in.src_ty);
        }
      }
  }
  MatrixDesc bd = uniform(na);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      B[static_cast<size_t>(n * K + k)] = read(bd, in.m.trans_b, n, k, s.b());
  size_t sd = na + 1;
  for (int l = 0; l < kWarp; ++l) {
    int t = warp * kWarp + l;
    bool scale_d = m.src(c, d, sd, t) != 0;
    int nelem = N / 2; // D elements per thread
    std::vector<uint64_t> out(in.dst.size(), 0);
    for (int i = 0; i < nelem; ++i) {
      int r = l / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (l % 4) + (i % 2);
      double sum = 0;
      int64_t isum = 0;
      for (int k = 0; k < K; ++k) {
        double p = A[static_cast<size_t>(r * K + k)] * B[static_cast<size_t>(col * K + k)];
        sum += p;
        if (in.ty == Ty::S32) // integer products of s8 values: exact as doubles
          isum += static_cast<int64_t>(p);
      }
      size_t reg = in.ty == Ty::F16 ? static_cast<size_t>(i / 2) : static_cast<size_t>(i);
      uint64_t old = m.reg(c, in.dst[reg].reg(), t);
      if (in.ty == Ty::F16) {
        int sh = (i % 2) * 16;
        double prev = scale_d ? float_value((old >> sh) & 0xffff, Ty::F16) : 0.0;
        out[reg] |= static_cast<uint64_t>(round_f16(exact_add(prev, sum), Rnd::Rn)) << sh;
      } else if (in.ty == Ty::S32) {
        uint32_t prev = scale_d ? static_cast<uint32_t>(old) : 0u;
        out[reg] = static_cast<uint32_t>(prev + static_cast<uint32_t>(isum));
      } else {
        double prev = scale_d ? f32_from_bits(old) : 0.0;
        out[reg] = round_f32(exact_add(prev, sum), Rnd::Rn);
      }
    }
    for (size_t i = 0; i < out.size(); ++i)
      m.set_dst(c, d, i, t, out[i]);
  }
  AsyncState &st = async_state(m, c);
  auto &open = st.wgmma_open[static_cast<size_t>(warp)];
  auto &count = st.wgmma_regs[static_cast<size_t>(warp)];
  auto hold = [&](uint32_t r) {
    open.push_back(r);
    ++count[r];
  };
  for (const Operand &o : in.dst)
    hold(o.reg().id);
  for (size_t i = 0; i < na && in.m.a_regs; ++i)
    hold(in.src[i].reg().id);
}

void exec_WgmmaFence(Machine &, Cta &, const Decoded &, int, uint32_t) {}

void exec_WgmmaCommit(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  if (!m.guarded(c, d, warp, mask))
    return;
  AsyncState &st = async_state(m, c);
  auto &open = st.wgmma_open[static_cast<size_t>(warp)];
  st.wgmma_pending[static_cast<size_t>(warp)].push_back(std::move(open));
  open.clear();
}

void exec_WgmmaWait(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  if (!m.guarded(c, d, warp, mask))
    return;
  AsyncState &st = async_state(m, c);
  auto &groups = st.wgmma_pending[static_cast<size_t>(warp)];
  auto &count = st.wgmma_regs[static_cast<size_t>(warp)];
  size_t keep = d.imm.at(0);
  while (groups.size() > keep) {
    for (uint32_t r : groups.front())
      if (--count[r] == 0)
        count.erase(r);
    groups.pop_front();
  }
}

bool wgmma_in_flight(const Cta &c, int warp) {
  return c.async && !c.async->wgmma_regs.empty() &&
         !c.async->wgmma_regs[static_cast<size_t>(warp)].empty();
}

void check_wgmma_hazard(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  const Instr &in = *d.in;
  if (is_wgmma(in.op))
    return;
  thread_local std::vector<uint32_t> reads, writes;
  instr_regs(in, reads, writes);
  const auto &count = c.async->wgmma_regs[static_cast<size_t>(warp)];
  auto busy = [&](const std::vector<uint32_t> &regs) {
    for (uint32_t r : regs)
      if (count.count(r))
        return true;
    return false;
  };
  bool r = busy(reads), w = busy(writes);
  if (r || w)
    m.fault(c, d, warp * kWarp + std::countr_zero(mask),
            std::string(r ? "reads" : "writes") +
                " a register of a wgmma still in flight (its D or register A): on a GPU the "
                "result is undefined until a wgmma.wait_group retires the wgmma's group");
}
void exec_FenceProxyAsync(Machine &, Cta &, const Decoded &, int, uint32_t) {}

} // namespace tilec::simt::sim
