// TMA: cvta.param and cp.async.bulk.tensor (one box, global -> shared, completed on an
// mbarrier), reading the simulator's tensor map (simt/TensorMap.h), and the maps kernels
// build (tensormap.replace in shared memory, tensormap.cp_fenceproxy to global).
//
// Model (tests: tests/cpp/simt_interp/TmaTest.cpp, TmaStoreTest.cpp):
// - cvta.param gives kParamBase + the parameter's offset in the packed argument bytes: a
//   generic address that the TMA copy and plain generic ld read (stores through it fault).
//   A tensor map may also be in a global buffer.
// - cp.async.bulk.tensor reads the map and the box's global elements when issued
//   (bounds-checked then, naming the lane). Box element (i0, i1, ...) is global element
//   (c0 + i0, c1 + i1, ...); one with a coordinate outside [0, dims[d]) is not read and
//   lands as 0, or with nan_fill as a NaN of its width. The map has no float type, so the
//   NaN is one in every format of the width: 1 byte 0x7f (e4m3 and e5m2), 2 bytes 0x7fff
//   (f16 and bf16), 4 bytes 0x7fc00000, 8 bytes 0x7ff8000000000000. The box lands
//   row-major, innermost first, at dst + elem_bytes * (i0 + box0 * (i1 + ...)), with an
//   S-byte swizzle XORing bits [4, 4 + log2(S/16)) of that absolute address with bits
//   [7, ...). The map is checked as the driver checks a CUtensorMap's fields.
// - The copy lands as late as a GPU may land it: when no thread of the CTA can run (each
//   waits on a barrier or has exited; Simulator.cpp's scheduler calls land_bulk_copies).
//   Then its bytes appear and complete_tx of the box's byte count (out-of-bounds elements
//   included, as on the GPU) goes to its mbarrier, which may complete the phase and wake
//   the waiters. Until then any access to the destination's bytes (ld/st/atom, cp.async,
//   ldmatrix, wgmma, another TMA copy) is an error naming the access and the copy, so a
//   kernel that reads before waiting on the mbarrier phase (or waits on the wrong parity)
//   fails here instead of passing by luck. Copies in flight when every thread has exited
//   are dropped.
// - A TMA store (tests: TmaStoreTest.cpp) is checked when issued and done as late as the
//   hardware may read its source: at the cp.async.bulk.wait_group.read of its thread that
//   retires its (committed) group. Writing the source's bytes before then, or ending the
//   CTA with a store pending, is a fault. It writes whole 16-byte units of the inner dim:
//   an inner extent of other sizes is rounded up (so past the tensor), as an H200 does.
#include <algorithm>
#include <cstring>

#include "interp/simt/SimInternal.h"
#include "simt/TensorMap.h"

namespace tilec::simt::sim {

namespace {

std::string hex(uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

// What is wrong with `t` for an n-dimensional copy ("" if nothing).
std::string map_error(const SimTensorMap &t, int n) {
  if (t.magic != SimTensorMap::kMagic)
    return "bad magic " + hex(t.magic) + " (not a simulator tensor map)";
  if (t.rank < 1 || t.rank > kTensorMapMaxRank)
    return "rank " + std::to_string(t.rank) + " is not 1..5";
  if (t.rank != n)
    return "a rank-" + std::to_string(t.rank) + " map used by a " + std::to_string(n) + "d copy";
  int eb = t.elem_bytes, s = t.swizzle_bytes;
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8)
    return "element size " + std::to_string(eb) + " is not 1, 2, 4 or 8 bytes";
  if (s != 0 && s != 32 && s != 64 && s != 128)
    return "swizzle " + std::to_string(s) + " is not 0, 32, 64 or 128 bytes";
  if (t.base % 16 != 0)
    return "the global base " + hex(t.base) + " is not 16-byte aligned";
  if (t.strides[0] != static_cast<uint64_t>(eb))
    return "strides[0] must be the element size";
  for (int d = 0; d < n; ++d) {
    std::string dim = "[" + std::to_string(d) + "]";
    if (t.dims[d] < 1 || t.dims[d] > (1ull << 32))
      return "dims" + dim + " = " + std::to_string(t.dims[d]) + " is not 1..2^32";
    if (t.box[d] < 1 || t.box[d] > 256)
      return "box" + dim + " = " + std::to_string(t.box[d]) + " is not 1..256";
    if (d > 0 && (t.strides[d] % 16 != 0 || t.strides[d] == 0 || t.strides[d] >= (1ull << 40)))
      return "strides" + dim + " = " + std::to_string(t.strides[d]) +
             " is not a multiple of 16 below 2^40";
  }
  uint64_t inner = uint64_t{t.box[0]} * static_cast<uint64_t>(eb);
  if (inner % 16 != 0)
    return "box[0] * elem_bytes = " + std::to_string(inner) + " is not a multiple of 16 bytes";
  if (s != 0 && inner > static_cast<uint64_t>(s))
    return "box[0] * elem_bytes = " + std::to_string(inner) + " exceeds the " + std::to_string(s) +
           "-byte swizzle span";
  return "";
}

uint64_t nan_bits(int elem_bytes) {
  switch (elem_bytes) {
  case 1:
    return 0x7f;
  case 2:
    return 0x7fff;
  case 4:
    return 0x7fc00000;
  default:
    return 0x7ff8000000000000ull;
  }
}

// The tensor map at the generic address in register src[i] of thread t, checked for an
// n-dimensional copy (its two aligned 64-byte reads, as the hardware's).
SimTensorMap read_map(Machine &m, Cta &c, const Decoded &d, int t, size_t i) {
  InSpace global(d, Space::Global);
  uint64_t at = m.reg(c, d.in->src[i].reg(), t);
  if (at % kTensorMapAlign != 0)
    m.fault(c, d, t, "the tensor map's address " + hex(at) + " is not 64-byte aligned");
  SimTensorMap map;
  for (uint64_t half = 0; half < 2; ++half)
    std::memcpy(reinterpret_cast<uint8_t *>(&map) + 64 * half,
                m.memory(c, global.d, t, at + 64 * half, 64, false), 64);
  if (std::string e = map_error(map, d.in->m.vec); !e.empty())
    m.fault(c, d, t, "bad tensor map at " + hex(at) + ": " + e);
  return map;
}

// The box's element count, and the shared alignment its S-byte swizzle needs of the box's
// start (8 rows of S bytes; 128 without a swizzle).
uint64_t box_count(const SimTensorMap &map) {
  uint64_t count = 1;
  for (int k = 0; k < map.rank; ++k)
    count *= map.box[k];
  return count;
}

uint64_t box_alignment(const SimTensorMap &map) {
  return map.swizzle_bytes != 0 ? 8u * map.swizzle_bytes : 128;
}

// Calls f(shared offset from the start, inside, global address) for each element of the
// box at `coord` (read_coords: src[first..] of thread t, innermost first): the element's place in
// the box is row-major, innermost first, with the S-byte swizzle XORing the 16-byte chunk within an
// S-byte row with the row (address bits 7..) -- a function of absolute shared addresses, so `start`
// is the box's.
void read_coords(Machine &m, Cta &c, const Decoded &d, int t, size_t first, int n, int64_t *coord) {
  for (int k = 0; k < n; ++k)
    coord[k] = static_cast<int32_t>(static_cast<uint32_t>(m.src(c, d, first + k, t)));
}

template <typename F>
void for_box(const SimTensorMap &map, const int64_t *coord, uint64_t start, F f,
             bool store = false) {
  int n = map.rank, eb = map.elem_bytes;
  uint64_t s = map.swizzle_bytes, count = box_count(map);
  uint64_t dims[kTensorMapMaxRank] = {};
  std::copy(map.dims, map.dims + n, dims);
  if (store) // a store writes whole 16-byte units of the inner dim (as measured on an H200)
    dims[0] = (dims[0] * static_cast<uint64_t>(eb) + 15) / 16 * 16 / static_cast<uint64_t>(eb);
  uint32_t idx[kTensorMapMaxRank] = {};
  for (uint64_t e = 0; e < count; ++e) {
    bool inside = true;
    uint64_t ga = map.base;
    for (int k = 0; k < n; ++k) {
      int64_t g = coord[k] + idx[k];
      inside = inside && g >= 0 && static_cast<uint64_t>(g) < dims[k];
      ga += static_cast<uint64_t>(g) * map.strides[k];
    }
    uint64_t a = start + e * static_cast<uint64_t>(eb);
    if (s != 0)
      a ^= (a >> 3) & (s - 16);
    f(a - start, inside, ga);
    for (int k = 0; k < n && ++idx[k] == map.box[k]; ++k)
      idx[k] = 0;
  }
}

} // namespace

void exec_CvtaParam(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Operand &o = d.in->src[0];
  uint64_t a = kParamBase + m.param_offsets.at(o.index) + static_cast<uint64_t>(o.value);
  for_lanes(act, warp, [&](int t) { m.set_dst(c, d, 0, t, a); });
}

void exec_CpAsyncBulkTensor(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  InSpace global(d, Space::Global);
  for_lanes(act, warp, [&](int t) {
    uint64_t dst = m.address(c, d, t, 0), bar = m.address(c, d, t, 1);
    SimTensorMap map = read_map(m, c, d, t, 2);
    int eb = map.elem_bytes;
    uint64_t s = map.swizzle_bytes, bytes = box_count(map) * static_cast<uint64_t>(eb);
    uint64_t align = box_alignment(map), span = s != 0 ? (bytes + s - 1) / s * s : bytes;
    if (dst % align != 0)
      m.fault(c, d, t,
              "the destination (shared offset " + std::to_string(dst) + ") must be " +
                  std::to_string(align) + "-byte aligned" +
                  (s != 0 ? " for a " + std::to_string(s) + "-byte swizzle" : ""));
    if (dst + span > c.shared.size())
      m.fault(c, d, t,
              "the box (" + std::to_string(span) + " bytes at shared offset " +
                  std::to_string(dst) + ") does not fit in the kernel's " +
                  std::to_string(c.shared.size()) + " bytes of shared memory");
    m.memory(c, d, t, bar, 8, false); // in bounds and aligned; initialised when it lands
    for (const BulkCopy &b : c.bulk)
      if (dst < b.hi && dst + span > b.lo)
        m.fault(c, d, t,
                "the destination overlaps shared bytes [" + std::to_string(b.lo) + ", " +
                    std::to_string(b.hi) + ") that an earlier cp.async.bulk.tensor (thread " +
                    std::to_string(b.thread) + ") is still writing");
    BulkCopy cp;
    cp.lo = dst;
    cp.hi = dst + span;
    cp.bar = bar;
    cp.tx_bytes = bytes;
    cp.d = &d;
    cp.thread = t;
    cp.image.assign(c.shared.begin() + static_cast<std::ptrdiff_t>(dst),
                    c.shared.begin() + static_cast<std::ptrdiff_t>(dst + span));
    uint64_t fill = map.nan_fill ? nan_bits(eb) : 0;
    int64_t coord[kTensorMapMaxRank] = {};
    read_coords(m, c, d, t, 3, map.rank, coord);
    check_store_sources(m, c, d, t, dst, span);
    for_box(map, coord, dst, [&](uint64_t off, bool inside, uint64_t ga) {
      uint64_t v = fill;
      if (inside) {
        v = 0;
        std::memcpy(&v, m.memory(c, global.d, t, ga, static_cast<uint64_t>(eb), false),
                    static_cast<size_t>(eb));
      }
      std::memcpy(cp.image.data() + off, &v, static_cast<size_t>(eb));
    });
    c.bulk.push_back(std::move(cp));
  });
}

// A TMA store: checked when issued, done when a cp.async.bulk.wait_group.read of its
// thread retires its group (as late as the hardware may read the source), then box element
// (i0, i1, ..) goes from the swizzled shared placement to global element (c0 + i0, ..)
// when inside the tensor (its inner extent rounded up to 16 bytes). Until then a write of its source bytes is a fault, and so is a CTA
// that ends without waiting.
void exec_CpAsyncBulkTensorStore(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for_lanes(act, warp, [&](int t) {
    BulkStore st;
    st.lo = m.address(c, d, t, 0);
    st.map = read_map(m, c, d, t, 1);
    uint64_t align = box_alignment(st.map), s = st.map.swizzle_bytes;
    uint64_t bytes = box_count(st.map) * st.map.elem_bytes;
    st.hi = st.lo + (s != 0 ? (bytes + s - 1) / s * s : bytes);
    if (st.lo % align != 0)
      m.fault(c, d, t,
              "the source (shared offset " + std::to_string(st.lo) + ") must be " +
                  std::to_string(align) + "-byte aligned");
    m.memory(c, d, t, st.lo, 1, false); // in bounds
    if (st.hi > c.shared.size())
      m.fault(c, d, t, "the box's source passes the end of shared memory");
    read_coords(m, c, d, t, 2, st.map.rank, st.coord);
    st.d = &d;
    st.thread = t;
    c.stores.push_back(st);
  });
}

void exec_CpAsyncBulkCommit(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for_lanes(act, warp, [&](int t) {
    int64_t g = ++c.bulk_groups[static_cast<size_t>(t)];
    for (BulkStore &st : c.stores)
      if (st.thread == t && st.group < 0)
        st.group = g;
  });
}

void exec_CpAsyncBulkWaitRead(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  InSpace global(d, Space::Global);
  for_lanes(act, warp, [&](int t) {
    int64_t keep = static_cast<int64_t>(m.src(c, d, 0, t));
    int64_t last = c.bulk_groups[static_cast<size_t>(t)] - keep; // groups up to it retire
    std::vector<BulkStore> left;
    for (BulkStore &st : c.stores) {
      if (st.thread != t || st.group < 0 || st.group > last) {
        left.push_back(st);
        continue;
      }
      uint64_t eb = st.map.elem_bytes;
      for_box(
          st.map, st.coord, st.lo,
          [&](uint64_t off, bool inside, uint64_t ga) {
            if (inside) // clipped at the tensor's edges (the inner one rounded up)
              std::memcpy(m.memory(c, global.d, t, ga, eb, true),
                          c.shared.data() + st.lo + off, static_cast<size_t>(eb));
          },
          true);
    }
    c.stores = std::move(left);
  });
}

void check_store_sources(Machine &m, Cta &c, const Decoded &d, int t, uint64_t addr,
                         uint64_t bytes) {
  for (const BulkStore &st : c.stores)
    if (addr < st.hi && addr + bytes > st.lo)
      m.fault(c, d, t,
              "write to shared memory at offset " + std::to_string(addr) +
                  " while a TMA store (thread " + std::to_string(st.thread) +
                  ") may still read bytes [" + std::to_string(st.lo) + ", " +
                  std::to_string(st.hi) + "): wait with cp.async.bulk.wait_group.read first");
}

void check_stores_done(Machine &m, Cta &c) {
  if (c.stores.empty())
    return;
  const BulkStore &st = c.stores.front();
  m.fault(c, *st.d, st.thread,
          "the CTA ended with a TMA store whose source the hardware may still read: wait with "
          "cp.async.bulk.wait_group.read 0 before exiting");
}

// tensormap.replace on a map in shared memory, kept in the simulator's format: each field
// goes where the simulator's copy reads it, and any write marks the map as one (its magic).
// global_stride is in bytes (Instrs.def); element strides other than 1 and
// interleaved layouts are refused (tilec writes neither).
void exec_TensormapReplace(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Instr &in = *d.in;
  InSpace shared(d, Space::Shared);
  bool has_ord = tmap_field_has_ord(in.m.tmap);
  for_lanes(act, warp, [&](int t) {
    uint64_t at = m.address(c, d, t, 0);
    if (at % 128 != 0)
      m.fault(c, d, t,
              "the tensor map (shared offset " + std::to_string(at) + ") is not 128-byte aligned");
    uint8_t *p = m.memory(c, shared.d, t, at, kTensorMapBytes, true);
    SimTensorMap map;
    std::memcpy(&map, p, sizeof map);
    uint64_t v = m.src(c, d, has_ord ? 2 : 1, t);
    uint64_t k = has_ord ? m.src(c, d, 1, t) : 0;
    if (k >= kTensorMapMaxRank || (in.m.tmap == TmapField::GlobalStride && k + 1 >= 5))
      m.fault(c, d, t, "tensormap.replace: dim " + std::to_string(k) + " is out of range");
    auto bad = [&](const char *what) {
      m.fault(c, d, t, std::string("tensormap.replace: ") + what + " " + std::to_string(v));
    };
    switch (in.m.tmap) {
    case TmapField::GlobalAddress:
      map.base = v;
      break;
    case TmapField::Rank:
      map.rank = static_cast<uint8_t>(v + 1);
      break;
    case TmapField::BoxDim:
      map.box[k] = static_cast<uint32_t>(v);
      break;
    case TmapField::GlobalDim:
      map.dims[k] = static_cast<uint32_t>(v);
      break;
    case TmapField::GlobalStride:
      map.strides[k + 1] = v;
      break;
    case TmapField::ElementStride:
      if (static_cast<uint32_t>(v) != 1)
        bad("element stride (the simulator copies whole boxes only):");
      break;
    case TmapField::ElemType: {
      static const uint8_t bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4};
      if (v >= sizeof bytes)
        bad("elemtype");
      map.elem_bytes = bytes[v];
      map.strides[0] = bytes[v];
      break;
    }
    case TmapField::InterleaveLayout:
      if (v != 0)
        bad("interleave layout (not simulated):");
      break;
    case TmapField::SwizzleMode:
      if (v > 3)
        bad("swizzle mode");
      map.swizzle_bytes = static_cast<uint8_t>(v ? 16 << v : 0);
      break;
    case TmapField::FillMode:
      map.nan_fill = v != 0;
      break;
    default:
      m.fault(c, d, t, "tensormap.replace without a field");
    }
    map.magic = SimTensorMap::kMagic;
    std::memcpy(p, &map, sizeof map);
  });
}

// The warp's copy of a map from shared to global memory (every lane runs it with the same
// operands: it happens once).
void exec_TensormapCpFenceproxy(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (act == 0)
    return;
  int t = warp * 32 + __builtin_ctz(act);
  if (act != 0xffffffffu)
    m.fault(c, d, t, "tensormap.cp_fenceproxy is .sync.aligned: every lane of the warp runs it");
  InSpace global(d, Space::Global), shared(d, Space::Shared);
  uint64_t g = m.address(c, d, t, 0), s = m.address(c, d, t, 1);
  if (g % kTensorMapAlign != 0)
    m.fault(c, d, t, "the tensor map's global address " + hex(g) + " is not 64-byte aligned");
  const uint8_t *from = m.memory(c, shared.d, t, s, kTensorMapBytes, false);
  std::memcpy(m.memory(c, global.d, t, g, kTensorMapBytes, true), from, kTensorMapBytes);
}

// Proxy fences and the warp barrier order nothing more here: every write above is seen by
// the simulator's later reads.
void exec_FenceProxyTensormap(Machine &, Cta &, const Decoded &, int, uint32_t) {}
void exec_BarWarpSync(Machine &, Cta &, const Decoded &, int, uint32_t) {}

void check_bulk_access(Machine &m, Cta &c, const Decoded &d, int t, uint64_t addr, uint64_t bytes,
                       bool write) {
  for (const BulkCopy &b : c.bulk)
    if (addr < b.hi && addr + bytes > b.lo)
      m.fault(c, d, t,
              std::string(write ? "store to" : "load from") + " shared memory at offset " +
                  std::to_string(addr) + " while a cp.async.bulk.tensor (thread " +
                  std::to_string(b.thread) + ") is still writing bytes [" + std::to_string(b.lo) +
                  ", " + std::to_string(b.hi) +
                  "): wait on its mbarrier's phase before touching the destination");
}

bool land_bulk_copies(Machine &m, Cta &c) {
  if (c.bulk.empty())
    return false;
  std::vector<BulkCopy> copies = std::move(c.bulk);
  c.bulk.clear();
  for (const BulkCopy &b : copies) {
    std::memcpy(c.shared.data() + b.lo, b.image.data(), b.image.size());
    mbarrier_complete_tx(m, c, *b.d, b.thread, b.bar, b.tx_bytes);
  }
  return true;
}

} // namespace tilec::simt::sim
