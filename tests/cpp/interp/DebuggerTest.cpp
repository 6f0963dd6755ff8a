// The kernel debugger's stops (`breakpoint` ops): which ones stop for each answer of the
// hook, and the values handed over.
#include "TestUtil.h"

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

// A stop before a statement (kind 0) or breakpoint() (kind 1) at `line`, `depth` inlined
// calls deep, holding `vals`.
void stop(KB &kb, int line, int64_t kind, int depth, std::vector<Value *> vals,
          const std::string &names) {
  kb.line = line;
  std::string frames;
  for (int d = 0; d <= depth; ++d)
    frames += std::string(d ? "callee" : "kernel") + "\tk.py\t" + std::to_string(line) + "\t" +
              (d == depth ? names : "") + "\n";
  kb.make(OpKind::Breakpoint, std::move(vals), {}, {{"kind", kind}, {"frames", frames}});
}

struct Seen {
  int line;
  std::array<int64_t, 3> pid;
  bool breakpoint;
};

// Lines 1-2 in the kernel, 3-4 in a callee (depth 1), 5 back in the kernel; breakpoint()
// on lines 2 and 5 (each after its own statement's stop). The program id is handed over.
RunResult run_with(KB &kb, std::vector<DebugAction> answers, std::vector<Seen> &seen,
                   std::array<int64_t, 3> grid = {2, 1, 1}) {
  auto *pid = kb.pid(0);
  stop(kb, 1, 0, 0, {pid}, "pid");
  stop(kb, 2, 0, 0, {pid}, "pid");
  stop(kb, 2, 1, 0, {pid}, "pid");
  stop(kb, 3, 0, 1, {}, "");
  stop(kb, 4, 0, 1, {}, "");
  stop(kb, 5, 0, 0, {pid}, "pid");
  stop(kb, 5, 1, 0, {pid}, "pid");
  kb.ret();
  size_t next = 0;
  DebugHook hook = [&](const DebugStop &s) {
    seen.push_back(
        {s.frames.empty() ? 0 : std::stoi(s.frames.substr(s.frames.rfind("\tk.py\t") + 6)), s.pid,
         s.breakpoint});
    if (!s.values.empty()) { // the program id, as the i32 it is
      EXPECT_EQ(s.values[0].dtype, DType::I32);
      EXPECT_EQ(*static_cast<const int32_t *>(s.values[0].data), s.pid[0]);
    }
    return next < answers.size() ? answers[next++] : DebugAction::Continue;
  };
  LaunchOptions o;
  o.grid = grid;
  o.num_threads = 4; // the debugger runs the programs on one thread regardless
  o.debug_hook = &hook;
  return tilec::interp::run(kb.fn, {}, {}, o, kb.sm);
}

std::vector<int> lines(const std::vector<Seen> &seen) {
  std::vector<int> out;
  for (const Seen &s : seen)
    out.push_back(s.line);
  return out;
}

} // namespace

TEST(Debugger, ContinueStopsOnlyAtBreakpointInEveryProgramInOrder) {
  KB kb;
  std::vector<Seen> seen;
  run_with(kb, {}, seen);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].pid[0], 0);
  EXPECT_EQ(seen[2].pid[0], 1);
  for (const Seen &s : seen)
    EXPECT_TRUE(s.breakpoint);
  EXPECT_EQ(lines(seen), (std::vector<int>{2, 5, 2, 5}));
}

TEST(Debugger, NextSkipsCalleesStepEntersThemReturnLeaves) {
  KB kb;
  std::vector<Seen> seen;
  using A = DebugAction;
  // program 0: at breakpoint (2) -> next: 5 (over the callee) -> continue (the
  // breakpoint() of line 5 right after does not stop again)
  // program 1: at breakpoint (2) -> step: 3 -> return: 5 -> continue
  run_with(kb, {A::Next, A::Continue, A::Step, A::Return, A::Continue}, seen);
  EXPECT_EQ(lines(seen), (std::vector<int>{2, 5, 2, 3, 5}));
}

TEST(Debugger, BreakpointRightAfterItsStatementStopDoesNotStopTwice) {
  KB kb;
  std::vector<Seen> seen;
  using A = DebugAction;
  // breakpoint() (line 2), then step through the callee to line 5, whose breakpoint()
  // does not stop a second time
  run_with(kb, {A::Step, A::Step, A::Step, A::Continue}, seen, {1, 1, 1});
  EXPECT_EQ(lines(seen), (std::vector<int>{2, 3, 4, 5}));
}

TEST(Debugger, QuitEndsTheLaunchWithAKernelError) {
  KB kb;
  std::vector<Seen> seen;
  EXPECT_THROW(run_with(kb, {DebugAction::Quit}, seen), KernelError);
  EXPECT_EQ(seen.size(), 1u);
}

TEST(Debugger, WithoutAHookBreakpointsDoNothing) {
  KB kb;
  auto *pid = kb.pid(0);
  stop(kb, 1, 1, 0, {pid}, "pid");
  EXPECT_NO_THROW(kb.run({}, {}, {3, 1, 1}, 2));
}
