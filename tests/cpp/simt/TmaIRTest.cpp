// Thread IR of TMA loads: byte-array params, cvta.param and cp.async.bulk.tensor in the
// dump, and the verifier's refusals of their malformed forms.
#include <gtest/gtest.h>

#include "TmaPrograms.h"
#include "simt/Format.h"
#include "simt/Verifier.h"

using namespace tilec;
using namespace tilec::simt;

namespace {

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// The verifier's message for `fn` ("" if it passes).
std::string verify_error(const Function &fn) {
  try {
    verify(fn);
  } catch (const InternalError &e) {
    return e.what();
  }
  return "";
}

struct Tma {
  Function fn;
  uint32_t desc;
  Builder b{fn};
  Reg tmap;
  Tma() {
    fn.name = "k";
    fn.shared_bytes = 2048;
    desc = fn.add_blob_param("desc", kTensorMapBytes, kTensorMapAlign);
    b.set_block(b.new_block("entry"));
    tmap = cvta_param(b, desc);
    Reg dst = b.shared_addr(1024), y = b.mov(Ty::S32, imm(7));
    cp_async_bulk_tensor(b, Operand::addr(dst), Operand::shared(0), tmap, {imm(-4), y});
    b.ret();
  }
  Instr &copy() {
    for (Instr &in : fn.blocks[0].instrs)
      if (in.op == Op::CpAsyncBulkTensor)
        return in;
    throw std::logic_error("no copy");
  }
};

} // namespace

TEST(TmaIR, DumpShowsTheBlobParamAndTheInstructions) {
  Tma t;
  EXPECT_EQ(verify_error(t.fn), "");
  std::string d = dump(t.fn);
  EXPECT_TRUE(contains(d, "func k(desc: b8[128] align 64)")) << d;
  EXPECT_TRUE(contains(d, "  cvta.param.u64 %rd1, k_param_0;\n")) << d;
  EXPECT_TRUE(contains(d, "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                          "complete_tx::bytes [%r1], [%rd1, {-4, %r2}], [global_smem];\n"))
      << d;
  EXPECT_TRUE(t.fn.params[0].is_blob());
  EXPECT_EQ(t.fn.params[0].bytes, 128u);
  EXPECT_EQ(t.fn.params[0].align, 64u);
}

TEST(TmaIR, VerifierRefusesMalformedCopies) {
  {
    Tma t;
    t.copy().m.vec = 3; // two coordinates
    EXPECT_TRUE(contains(verify_error(t.fn), "1..5 coordinates")) << verify_error(t.fn);
  }
  {
    Tma t;
    t.copy().src[2] = t.b.reg(Ty::U32);
    EXPECT_TRUE(contains(verify_error(t.fn), "64-bit generic address register"))
        << verify_error(t.fn);
  }
  {
    Tma t;
    t.copy().src[3] = imm(int64_t(1) << 33);
    EXPECT_TRUE(contains(verify_error(t.fn), "coordinate must fit in s32")) << verify_error(t.fn);
  }
  {
    Tma t;
    t.copy().src[1] = Operand::string(t.fn.add_string("x"));
    EXPECT_TRUE(contains(verify_error(t.fn), "destination and mbarrier are .shared addresses"))
        << verify_error(t.fn);
  }
  {
    Tma t;
    t.copy().m.space = Space::Global;
    EXPECT_FALSE(verify_error(t.fn).empty());
  }
}

TEST(TmaIR, VerifierRefusesBadParamUses) {
  {
    Tma t;
    t.fn.params[0].align = 48;
    EXPECT_TRUE(contains(verify_error(t.fn), "needs a power-of-two alignment"))
        << verify_error(t.fn);
  }
  {
    Tma t; // cvta.param of something else than a parameter
    t.fn.blocks[0].instrs[0].src[0] = imm(0);
    EXPECT_TRUE(contains(verify_error(t.fn), "cvta.param takes a kernel parameter"))
        << verify_error(t.fn);
  }
  {
    Tma t; // a parameter as a plain operand of anything else
    Reg r = t.fn.new_reg(Ty::U64);
    Instr add;
    add.op = Op::Add;
    add.ty = Ty::U64;
    add.dst = {r};
    add.src = {Operand::param(0), imm(1)};
    t.fn.blocks[0].instrs.insert(t.fn.blocks[0].instrs.begin(), add);
    EXPECT_TRUE(contains(verify_error(t.fn), "a parameter is read with ld.param"))
        << verify_error(t.fn);
  }
}
