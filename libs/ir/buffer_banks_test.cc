// buffer_banks: the banks of the double buffers of golden designs, and the accesses one port a
// bank cannot serve.
#include "libs/ir/buffer_banks.h"

#include <gtest/gtest.h>

#include <functional>

#include "libs/testing/golden.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

// The realize of `func` in kernel `kernel` of `p` (the outermost statement of its body).
StmtPtr& realize_slot(Program& p, const std::string& kernel, const std::string& func) {
  for (Kernel& k : p.kernels)
    if (k.name == kernel)
      for (StmtPtr& s : k.body)
        if (const Realize* r = s->as<Realize>(); r && r->func == func) return s;
  throw std::runtime_error("no realize of " + func + " in " + kernel);
}

// T2SP's A10 feeder: aLoader [kk 2, ii 3, iii 2, kkk 4 lanes, half 2], each PE iii reading its
// own vector under `jjj == 0`: words of the 4 lanes, one bank per PE.
TEST(BufferBanksTest, FeederOfTheA10GemmHasABankPerPeOfVectorWords) {
  Program p = testing::load_golden_ir("gemm_a10_stensor", "gathered");
  const BufferBanks b = buffer_banks(*realize_slot(p, "aFeeder", "aLoader")->as<Realize>());
  ASSERT_TRUE(b.banked) << b.why_not;
  EXPECT_EQ(b.lane_dim, 3);
  EXPECT_EQ(b.pe_dims, (std::vector<size_t>{2}));
  EXPECT_EQ(b.layout, (std::vector<size_t>{3, 2, 0, 1, 4}));
  EXPECT_EQ(b.extents, (std::vector<int64_t>{2, 3, 2, 4, 2}));
  EXPECT_EQ(b.banks, 2);
  EXPECT_EQ(b.word_lanes, 4);
  EXPECT_EQ(b.elements(), 96);
}

// A feeder no transform reorders reads one scalar a cycle: one bank, one-element words.
TEST(BufferBanksTest, SerialFeederHasOneBank) {
  Program p = testing::load_golden_ir("gemm_buffer", "gathered");
  const BufferBanks b = buffer_banks(*realize_slot(p, "AFeeder", "ALoader")->as<Realize>());
  ASSERT_TRUE(b.banked) << b.why_not;
  EXPECT_EQ(b.lane_dim, -1);
  EXPECT_TRUE(b.pe_dims.empty());
  EXPECT_EQ(b.banks, 1);
  EXPECT_EQ(b.word_lanes, 1);
}

// The PEs along jjj all read the word of their iii when the read loses its `jjj == 0`
// condition: JJJ reads of one bank a cycle, which one read port cannot serve.
TEST(BufferBanksTest, PesThatShareAWordAreNotBanked) {
  Program p = testing::load_golden_ir("gemm_a10_stensor", "gathered");
  StmtPtr& slot = realize_slot(p, "aFeeder", "aLoader");
  // Replace every `if (jjj == 0)` inside the realize by its then-branch.
  std::function<void(StmtList&)> unguard = [&](StmtList& list) {
    for (StmtPtr& s : list) {
      if (const IfThenElse* i = s->as<IfThenElse>(); i && i->condition->kind == ExprKind::kBinary &&
                                                     i->condition->operands[0]->name == "jjj" &&
                                                     i->then_body.size() == 1) {
        s = i->then_body[0];
        continue;
      }
      for (StmtList* child : testing::edit(s).children()) unguard(*child);
    }
  };
  unguard(testing::edit_as<Realize>(slot)->body);
  const BufferBanks b = buffer_banks(*slot->as<Realize>());
  EXPECT_FALSE(b.banked);
  EXPECT_EQ(b.why_not, "the PEs along 'jjj' read the same word in one cycle");
  EXPECT_EQ(b.layout, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(b.elements(), 96);
}

// Odd sizes are padded: 3 PEs and 3 lanes become 4 banks of 4-lane words.
TEST(BufferBanksTest, BanksAndLanesArePaddedToPowersOfTwo) {
  Program p = testing::load_golden_ir("gemm_a10_stensor", "gathered");
  StmtPtr& slot = realize_slot(p, "aFeeder", "aLoader");
  Realize& r = *testing::edit_as<Realize>(slot);
  r.extents[2] = make_int(Type::Int(32), 3);
  const BufferBanks b = buffer_banks(r);
  ASSERT_TRUE(b.banked) << b.why_not;
  EXPECT_EQ(b.extents, (std::vector<int64_t>{2, 3, 4, 4, 2}));
  EXPECT_EQ(b.banks, 4);
  EXPECT_EQ(b.elements(), 192);
}

}  // namespace
}  // namespace t2s
