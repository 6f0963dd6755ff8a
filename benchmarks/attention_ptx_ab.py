"""The seed attention's PTX, variant by variant, through one runtime (tilec's), to measure
a change to its loop before a compiler pass makes it:

    python benchmarks/attention_ptx_ab.py [--reps 50] [--ns 1024,4096] [--stages 2]

Rows (D 64, Z 4, H 32, BLOCK 128 x 64, 4 warps; TFLOP/s by CUDA events, median):
  seed               the seed kernel through its wrapper's launch (tilec)
  PTX                its PTX (tilec.compile, the launch's signature, TILEC_EXP_EARLY_VOTE=0:
                     the vote after the subtraction) through _C.gpu_build; the rows below
                     edit it
  PTX, early vote (tilec)  its PTX as tilec now compiles it (the vote from the scores,
                     the exact path's own copy: lower/ExpVoteTail.h), the same way
  PTX, no 2nd bar    the barrier after q k^T's wait removed: the copies that follow write
                     the stage the previous iteration read, which every warp retired
                     before the loop's first barrier (no wgmma group is deferred here)
  PTX, early copies  that, and the next block's copies moved from after q k^T's wait to
                     right after the loop's first barrier (they then run under q k^T)
  PTX, exp mul in branches / exp sub+mul in branches
                     the exponential's multiply by log2(e) (and the subtraction before it)
                     moved into the exact and the ftz blocks, next to each ex2, the vote's
                     minimum taken over their inputs (monotonic rounding)
  PTX, exp tail dup  the body after the exponential's join copied into its ftz block
  PTX, exp vote trap  the vote kept, its exact path a trap (not taken by this data)
  PTX, exp early vote  the vote from the scores before the subtraction (rows' minima),
                     then straight-line ex2.ftz; its exact path a trap (not taken here)
  PTX, exp early vote, exact tail  that with a real exact path: a copy of the stretch
                     from the vote to p v's wgmma with ex2.approx.f32, rejoining there
  PTX, exp early vote, exact tail taken  the same, every warp sent down the exact path
  PTX, exp vote from s  the vote's minimum from the scores (as above), the branches kept
  PTX, exp ftz always  the vote's branch always taken (ex2.approx.ftz; not tl.exp's
                     numerics: the bound on what the vote costs)
  spec trap / keep s / rewgmma / rewgmma taken  (on tilec's early-vote PTX) the ftz ex2s
                     issued before the vote's minimum, in one block with it, the vote after
                     them: its exact path a trap; tilec's (from the scores, which then stay
                     live); or a CTA-wide vote (bar.red.or) whose exact path first redoes
                     q k^T's wgmmas (the K stage is still in place), so the scores die at the
                     minimum; "taken" sends every iteration down that path
  addr hoisted       (on tilec's early-vote PTX) K's and V's base plus column offset
                     computed before the loop (what tilec's licm stage does since 43bb440:
                     on its PTX now, "not applicable")
  exp2 form          benchmarks/attention_variants.py's exp2 copy of the seed (tl.math.exp2,
                     ex2.approx.ftz: what the exponential would cost without its vote)
  SDPA               torch's scaled_dot_product_attention (scale 1)
Each row is checked against SDPA, then timed as benchmarks/gpu_kernels.py times (its Timer:
rounds of every row in rotated order, the L2 flushed before each launch, no sync between
launches). Until 2026-11-30 each launch was followed by a sync, which counted the host's
dispatch before the kernel: SDPA then measured 393-416 TFLOP/s at N 4096 where ncu and
gpu_kernels.py give it 480 (the seed 0.84-0.91 x SDPA by that measure, 0.80 x by GPU time).
It reports; it never fails.

Measured on an H200 (2026-11-30, N 4096, TFLOP/s, rows of one run each; SDPA moved 394-450
between runs): PTX 345-351; no 2nd bar 347-356 and early copies 346-356 (within noise);
exp mul in branches 319 and sub+mul 337 (ptxas spills 160 / 64 bytes under the 3-CTA cap);
tail dup 325 (spills); vote trap 357-359; early vote 375; ftz always 422-429, the exp2 form
421-427. So tl.exp's exactness (Triton's ex2.approx.f32) costs the seed 18-22 %: the
vote's minimum (63 FMNMX a thread and K step) and the ex2s waiting for it; with the vote
in its cheapest place found (early vote) 12 %. tilec now compiles that form (lower/
ExpVoteTail.h): in one later run, N 1024 / 4096, PTX 298 / 354, early vote (tilec) 314 /
371 (+5 %), the seed's own launch 307 / 366, ftz always 354 / 433, SDPA 285 / 411. Later
(H200, same day, N 4096, --ptx rows): on the early-vote PTX, the second barrier removed
+0.3 %, the copies moved early +0.2 % (noise); its exact path replaced by a trap (exp early
vote) +3.5 % (ptxas lays the exact copy out inside the loop, so the common path takes a
branch over it every iteration); an in-thread max of four chains instead of one: no
change; alpha's 4-element exponential element by element instead of voted: -3 %. All of
these with the old sync-per-launch timing (SDPA deflated; ratios between PTX rows hold).
With the Timer (H200, 2026-11-30, `--only`, N 1024 / 4096, x SDPA): early vote (tilec)
0.824 / 0.797, spec trap 0.832 / 0.816, spec keep s 0.755 / 0.722 (ptxas spills 256 B),
spec rewgmma 0.746 / 0.705 (the barrier, descriptors moved to uniform registers), rewgmma
taken 0.424 / 0.375, ftz always 0.942 / 0.937. Issuing the ex2s ahead of the vote gains at
most 1-2.5 %: the vote's cost is its 63 FMNMX a thread and K step themselves (ALU pipe, two
issue cycles a warp), not their place before the ex2s. addr hoisted (same run kind, N 1024 /
4096): +1.9 / +3.2 % over early vote (tilec), 700 -> 680 SASS instructions a K step.
"""
import argparse
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_ahead import SIG, Case, build_meta  # noqa: E402
from attention_variants import exp2_kernel  # noqa: E402
from gpu_kernels import Timer, load_seeds  # noqa: E402


def _loop_marks(lines):
    """(top barrier, q k^T's wait, the barrier after it, the copies' commit) line indices."""
    start = next(i for i, l in enumerate(lines) if l.startswith("$L__loop:"))
    top = next(i for i in range(start, len(lines)) if lines[i].strip() == "bar.sync 0;")
    wait = next(i for i in range(top, len(lines))
                if "wgmma.wait_group.sync.aligned 0" in lines[i])
    assert lines[wait + 1].strip() == "bar.sync 0;", lines[wait + 1]
    commit = next(i for i in range(wait, len(lines)) if "cp.async.commit_group" in lines[i])
    return top, wait, wait + 1, commit


def no_second_bar(ptx):
    lines = ptx.split("\n")
    _, _, bar, _ = _loop_marks(lines)
    del lines[bar]
    return "\n".join(lines)


def early_copies(ptx):
    lines = ptx.split("\n")
    top, _, bar, commit = _loop_marks(lines)
    moved = lines[bar + 1:commit + 1]
    rest = lines[:bar] + lines[commit + 1:]
    return "\n".join(rest[:top + 1] + moved + rest[top + 1:])


LOG2E = "0f3FB8AA3B"


def _exp_tile(lines):
    """The loop's big tl.exp tile: (first sub, last mul, min tree end = setp, exact label,
    ftz label, done label) indices, and the (x, s, m) of each sub and (t, x) of each mul."""
    start = next(i for i, l in enumerate(lines) if l.startswith("$L__exp_done:"))  # alpha's
    exact = next(i for i in range(start, len(lines)) if lines[i].startswith("$L__exp_exact_1:"))
    setp = max(i for i in range(start, exact) if lines[i].strip().startswith("setp.lt.f32"))
    mins = [i for i in range(start, setp) if lines[i].strip().startswith("min.f32")]
    muls = [i for i in range(start, mins[0]) if LOG2E in lines[i] and "mul.rn.f32" in lines[i]]
    subs = [i for i in range(start, muls[0]) if lines[i].strip().startswith("sub.f32")]
    subs = subs[-len(muls):]
    ftz = next(i for i in range(exact, len(lines)) if lines[i].startswith("$L__exp_ftz_1:"))
    done = next(i for i in range(ftz, len(lines)) if lines[i].startswith("$L__exp_done_1:"))
    regs = lambda i: re.findall(r"%\w+", lines[i])  # noqa: E731
    return subs, muls, mins, setp, exact, ftz, done, regs


class _Fresh:
    """New PTX registers %<prefix>1, %<prefix>2, ... (declared by the caller: .n of them)."""

    def __init__(self, prefix):
        self.prefix, self.n = prefix, 0

    def new(self):
        self.n += 1
        return f"{self.prefix}{self.n}"


def _min_tree(leaves, regs, out):
    """Appends a min.f32 tree over `leaves` to `out`; returns the register of its root."""
    while len(leaves) > 1:
        nxt = []
        for a, b in zip(leaves[0::2], leaves[1::2]):
            r = regs.new()
            out.append(f"  min.f32 {r}, {a}, {b};")
            nxt.append(r)
        if len(leaves) % 2:
            nxt.append(leaves[-1])
        leaves = nxt
    return leaves[0]


def exp_mul_in_branches(ptx, with_sub=False):
    """The exponential's multiply by log2(e) (and with_sub, the subtraction before it) done
    inside the exact and ftz blocks, next to each ex2, the vote's minimum taken over the
    inputs (monotonic: the minimum of the rounded products is the rounded product of the
    minimum; with_sub: per subtrahend, over the minuends)."""
    lines = ptx.split("\n")
    subs, muls, mins, setp, exact, ftz, done, regs = _exp_tile(lines)
    mul_of = {regs(i)[0]: regs(i)[1] for i in muls}          # t -> x
    sub_of = {regs(i)[0]: (regs(i)[1], regs(i)[2]) for i in subs}  # x -> (s, m)
    if with_sub:
        assert all(x in sub_of for x in mul_of.values())
    new_regs = _Fresh("%ab")
    fresh = new_regs.new

    def tree(leaves):
        out = []
        return out, _min_tree(leaves, new_regs, out)

    code = []
    if with_sub:
        groups = {}
        for t, x in mul_of.items():
            s_, m_ = sub_of[x]
            groups.setdefault(m_, []).append(s_)
        lows = []
        for m_, ss in groups.items():
            c, lo = tree(ss)
            code += c
            r = fresh()
            code.append(f"  sub.f32 {r}, {lo}, {m_};")
            lows.append(r)
        c, lo = tree(lows)
    else:
        c, lo = tree(list(mul_of.values()))
    code += c
    tmin = fresh()
    code.append(f"  mul.rn.f32 {tmin}, {lo}, {LOG2E};")
    setp_line = re.sub(r"(setp\.lt\.f32 %\w+, )%\w+", lambda m: m.group(1) + tmin, lines[setp])
    code.append(setp_line)

    def branch(lo_, hi_):
        body = []
        for i in range(lo_, hi_):
            l = lines[i]
            if "ex2.approx" in l:
                t = regs(i)[1]
                x = mul_of[t]
                if with_sub:
                    s_, m_ = sub_of[x]
                    body.append(f"  sub.f32 {x}, {s_}, {m_};")
                body.append(f"  mul.rn.f32 {t}, {x}, {LOG2E};")
            body.append(l)
        return body

    drop = set(muls) | set(mins) | {setp} | (set(subs) if with_sub else set())
    head = [l for i, l in enumerate(lines[:setp + 1]) if i not in drop]
    out = head + code + lines[setp + 1:exact + 1] + branch(exact + 1, ftz) + [lines[ftz]] + \
        branch(ftz + 1, done) + lines[done:]
    decl = next(i for i, l in enumerate(out) if l.strip().startswith(".reg "))
    out.insert(decl, f"  .reg .b32 %ab<{new_regs.n + 1}>;")
    return "\n".join(out)


def exp_tail_dup(ptx):
    """The loop body after the exponential's join copied into its ftz block: the common
    path is then one block from the vote to the back edge (ptxas schedules the ex2s
    among the sum, the conversions and p v's issue), the exact path keeps the original."""
    lines = ptx.split("\n")
    subs, muls, mins, setp, exact, ftz, done, regs = _exp_tile(lines)
    back = next(i for i in range(done, len(lines)) if lines[i].strip() == "bra.uni $L__loop;")
    assert not any(l.startswith("$L") for l in lines[done + 1:back])
    return "\n".join(lines[:done] + lines[done + 1:back + 1] + lines[done:])


def exp_vote_trap(ptx):
    """The vote and its minimum kept, p's exact path a trap (never taken by this
    data; alpha's is, in the first iteration):
    what the vote costs without its branches."""
    lines = ptx.split("\n")
    out = []
    for l in lines:
        m = re.match(r"\s*@!(%p\d+) bra\.uni \$L__exp_ftz_1;", l)  # p's (alpha's is hit)
        out.append(f"  @{m.group(1)} trap;\n  bra.uni $L__exp_ftz_1;" if m else l)
    return "\n".join(out)


def exp_early_vote(ptx, keep_branch=False):
    """The vote taken from the scores before the subtraction (per row, the minimum of s
    minus the row's m, rounded as each element is: the rounding is monotonic), its exact
    path a trap (not taken by this data), the exponentials straight-line ex2.ftz: what a
    version of the body for each outcome of an early vote would run."""
    lines = ptx.split("\n")
    subs, muls, mins, setp, exact, ftz, done, regs = _exp_tile(lines)
    groups = {}
    for i in subs:
        x, a, b = regs(i)[:3]
        groups.setdefault(b, []).append(a)
    new_regs = _Fresh("%ev")
    fresh = new_regs.new

    def tree(leaves, out):
        return _min_tree(leaves, new_regs, out)

    code, lows = [], []
    for b, ss in groups.items():
        r = fresh()
        code.append(f"  sub.f32 {r}, {tree(ss, code)}, {b};")
        lows.append(r)
    t = fresh()
    code.append(f"  mul.rn.f32 {t}, {tree(lows, code)}, {LOG2E};")
    if keep_branch:  # the original vote and branch, fed by this minimum
        code.append(re.sub(r"(setp\.lt\.f32 %\w+, )%\w+", lambda m: m.group(1) + t,
                           lines[setp]))
        drop = set(mins) | {setp}
        out = [l for i, l in enumerate(lines[:subs[0]]) if i not in drop] + code + \
            [l for i, l in enumerate(lines[subs[0]:], subs[0]) if i not in drop]
        decl = next(i for i, l in enumerate(out) if l.strip().startswith(".reg "))
        out.insert(decl, f"  .reg .b32 %ev<{new_regs.n + 1}>;")
        return "\n".join(out)
    code += ["  .reg .pred %evp<2>;", f"  setp.lt.f32 %evp0, {t}, 0fC2FC0000;",
             "  vote.sync.any.pred %evp1, %evp0, 4294967295;", "  @%evp1 trap;"]
    drop = set(mins) | {setp}
    out = [l for i, l in enumerate(lines[:subs[0]]) if i not in drop] + code + \
        [l for i, l in enumerate(lines[subs[0]:exact], subs[0]) if i not in drop]
    out = [l for l in out if "vote.sync.any.pred" not in l or "%evp" in l]
    out = [re.sub(r"@!%p\d+ (bra\.uni \$L__exp_ftz_1)", r"\1", l) for l in out]
    out += lines[exact:]
    decl = next(i for i, l in enumerate(out) if l.strip().startswith(".reg "))
    out.insert(decl, f"  .reg .b32 %ev<{new_regs.n + 1}>;")
    return "\n".join(out)


def exp_early_vote_exact_tail(ptx):
    """exp early vote with a real exact path: the common path straight-line from the vote
    to p v's wgmma, the exact path a copy of that stretch with ex2.approx.f32 (rows whose
    vote fails), rejoining at p v's wgmma (warps may take different paths; the wgmma, a
    warpgroup instruction, is one instruction for all of them)."""
    lines = exp_early_vote(ptx).split("\n")
    v = next(i for i, l in enumerate(lines) if l.strip() == "@%evp1 trap;")
    lines[v] = "  @%evp1 bra.uni $L__xtail;"
    ex = next(i for i in range(v, len(lines)) if lines[i].startswith("$L__exp_exact_1:"))
    ex_end = next(i for i in range(ex, len(lines)) if "bra.uni $L__exp_done_1;" in lines[i])
    drop = set(range(ex, ex_end + 1))
    drop |= {i for i in range(v, len(lines)) if lines[i].strip() in (
        "bra.uni $L__exp_ftz_1;", "$L__exp_ftz_1:", "$L__exp_done_1:")}
    lines = [l for i, l in enumerate(lines) if i not in drop]
    fence = next(i for i in range(v + 1, len(lines))
                 if "wgmma.fence.sync.aligned" in lines[i])
    tail = lines[v + 1:fence]
    assert not any(l.startswith("$L") or "bra" in l for l in tail), "control flow in the tail"
    copy = ["$L__xtail:"] + [l.replace("ex2.approx.ftz.f32", "ex2.approx.f32") for l in tail]
    copy.append("  bra.uni $L__pvjoin;")
    lines = lines[:fence] + ["$L__pvjoin:"] + lines[fence:]
    end = next(i for i, l in enumerate(lines) if l.startswith("$L__endloop:"))
    return "\n".join(lines[:end] + copy + lines[end:])


def _spec_parts(lines):
    """tilec's early-vote PTX: (alpha's join, the vote line, the ftz label, the end of the
    ftz block's exponentials, the exact label) indices."""
    join = next(i for i, l in enumerate(lines) if l.startswith("$L__exp_done:"))
    ftz = next(i for i in range(join, len(lines)) if lines[i].startswith("$L__exp_vote_ftz:"))
    vote = ftz - 2
    assert "vote.sync.any.pred" in lines[vote] and "bra.uni $L__exp_vote_exact" in lines[ftz - 1]
    done = next(i for i in range(ftz, len(lines)) if lines[i].startswith("$L__exp_vote_done:"))
    last_ex2 = max(i for i in range(ftz, done) if "ex2.approx.ftz.f32" in lines[i])
    exact = next(i for i, l in enumerate(lines) if l.startswith("$L__exp_vote_exact:"))
    return join, vote, ftz, last_ex2, exact


def exp_speculative(ptx, mode):
    """The ftz exponentials issued before the vote's minimum (one block: ptxas interleaves
    the min tree with the ex2s), the vote after them. mode "trap": the exact path a trap
    (what the vote costs off the ex2s' path); "keep s": the exact path as tilec has it,
    recomputing from the scores, which then stay live across the ex2s; "rewgmma": the vote
    CTA-wide (bar.red.or), the exact path first recomputing the scores with q k^T's wgmmas
    (the K stage is still in place), so the scores die at the minimum; "rewgmma taken":
    that with every iteration sent down the exact path (its cost)."""
    lines = ptx.split("\n")
    join, vote, ftz, last_ex2, exact = _spec_parts(lines)
    pv, pin = re.findall(r"%p\d+", lines[vote])[:2]
    exps = lines[ftz + 1:last_ex2 + 1]
    tree = lines[join + 1:vote]
    if mode == "trap":
        tail = [f"  @{pv} trap;"]
        vote_lines = [lines[vote]]
    elif mode == "keep s":
        tail = [lines[ftz - 1]]
        vote_lines = [lines[vote]]
    else:
        if mode == "rewgmma taken":
            setp = max(i for i, l in enumerate(tree) if "setp.lt.f32" in l)
            tree[setp] = re.sub(r"0fC2FC0000;", "0f7F800000;", tree[setp])
        vote_lines = [f"  bar.red.or.pred {pv}, 1, 128, {pin};"]
        tail = [lines[ftz - 1]]
    out = lines[:join + 1] + exps + tree + vote_lines + tail + [lines[ftz]] + \
        lines[last_ex2 + 1:]
    if mode.startswith("rewgmma"):
        loop = next(i for i, l in enumerate(out) if l.startswith("$L__loop:"))
        f0 = next(i for i in range(loop, len(out)) if "wgmma.fence.sync.aligned" in out[i])
        w0 = next(i for i in range(f0, len(out)) if "wgmma.wait_group.sync.aligned 0" in out[i])
        x = next(i for i, l in enumerate(out) if l.startswith("$L__exp_vote_exact:"))
        out = out[:x + 1] + out[f0:w0 + 1] + out[x + 1:]
    return "\n".join(out)


def addr_hoisted(ptx):
    """K's and V's row addresses: (start + off_j) * stride as start * stride + off_j * stride
    (the same 32-bit value: wrapping products distribute), off_j * stride and the base plus
    the column offset computed before the loop; in it one product a tensor, then an add and
    a mad.wide a row (instead of a product, a mad.wide and a column add a row)."""
    lines = ptx.split("\n")
    loop = next(i for i, l in enumerate(lines) if l.startswith("$L__loop:"))
    end = next(i for i, l in enumerate(lines) if l.startswith("$L__endloop:"))
    rows = {}  # row register -> (start register, offset register)
    for i in range(loop, end):
        m = re.match(r"\s*add\.s32 (%r\d+), (%r\d+), (%r\d+);", lines[i])
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    hoist, fresh, out, xs, prods, wides = [], _Fresh("%ah"), list(lines), {}, {}, {}
    for i in range(loop, end):
        m = re.match(r"\s*mul\.lo\.s32 (%r\d+), (%r\d+), (%r\d+);", lines[i])
        if not m or m.group(2) not in rows:
            continue
        dst, row, stride = m.groups()
        start, off = rows[row]
        inv = fresh.new()
        hoist.append(f"  mul.lo.s32 {inv}, {off}, {stride};")
        if (start, stride) not in xs:
            xs[(start, stride)] = x = fresh.new()
            out[i] = f"  mul.lo.s32 {x}, {start}, {stride};\n  add.s32 {dst}, {x}, {inv};"
        else:
            out[i] = f"  add.s32 {dst}, {xs[(start, stride)]}, {inv};"
        prods[dst] = True
    for i in range(loop, end):
        m = re.match(r"\s*mad\.wide\.s32 (%rd\d+), (%r\d+), 2, (%rd\d+);", lines[i])
        if m and m.group(2) in prods:
            wides[m.group(1)] = (i, m.group(3))
    bases = {}
    for i in range(loop, end):
        m = re.match(r"\s*mad\.wide\.u32 (%rd\d+), (%r\d+), 2, (%rd\d+);", lines[i])
        if m and m.group(3) in wides:
            j, base = wides[m.group(3)]
            key = (m.group(2), base)
            if key not in bases:
                bases[key] = b = "%ahd" + str(len(bases))
                hoist.append(f"  mad.wide.u32 {b}, {m.group(2)}, 2, {base};")
            out[j] = out[j].replace(f", 2, {base};", f", 2, {bases[key]};")
            out[i] = f"  mov.b64 {m.group(1)}, {m.group(3)};"
    assert xs and bases, "no row addresses found"
    out = out[:loop] + hoist + out[loop:]
    decl = next(i for i, l in enumerate(out) if l.strip().startswith(".reg "))
    out.insert(decl, f"  .reg .b32 %ah<{fresh.n + 1}>;\n  .reg .b64 %ahd<{len(bases)}>;")
    return "\n".join(out)


SPEC_VARIANTS = {f"spec {m}": (lambda m: lambda p: exp_speculative(p, m))(m)
                 for m in ("trap", "keep s", "rewgmma", "rewgmma taken")}
SPEC_VARIANTS["addr hoisted"] = addr_hoisted


VARIANTS = {"no 2nd bar": no_second_bar, "early copies": early_copies,
            "exp mul in branches": exp_mul_in_branches,
            "exp sub+mul in branches": lambda p: exp_mul_in_branches(p, True),
            "exp tail dup": exp_tail_dup, "exp vote trap": exp_vote_trap,
            "exp early vote": exp_early_vote,
            "exp early vote, exact tail": exp_early_vote_exact_tail,
            "exp early vote, exact tail taken": lambda p: exp_early_vote_exact_tail(p).replace(
                ", 0fC2FC0000;\n  vote.sync.any.pred %evp1", ", 0f7F800000;\n  vote.sync.any.pred %evp1"),
            "exp vote from s": lambda p: exp_early_vote(p, keep_branch=True),
            "exp ftz always": lambda p: re.sub(r"@!%p\d+ (bra\.uni \$L__exp_ftz)", r"\1", p)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--ns", default="1024,4096")
    ap.add_argument("--stages", type=int, default=2)
    ap.add_argument("--dump", help="write each variant's PTX into this directory")
    ap.add_argument("--ptx", action="append", default=[], metavar="NAME=PATH",
                    help="also a PTX file of the kernel (same parameters), as row NAME")
    ap.add_argument("--only", help="';'-separated PTX rows to keep (e.g. 'PTX, early vote "
                    "(tilec);spec trap')")
    args = ap.parse_args()
    import torch
    import tilec
    from tilec import _C

    dev = torch.cuda.current_device()
    arch = _C.gpu_device_arch(dev)
    seed = load_seeds("tilec").fused_attention_kernel
    exp2 = exp2_kernel()
    consts = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}

    def compile_seed(early_vote):
        old = os.environ.get("TILEC_EXP_EARLY_VOTE")
        os.environ["TILEC_EXP_EARLY_VOTE"] = "1" if early_vote else "0"
        try:
            return tilec.compile(seed, signature=SIG, constexprs=consts, num_warps=4,
                                 num_stages=args.stages, target=arch)
        finally:
            os.environ.pop("TILEC_EXP_EARLY_VOTE")
            if old is not None:
                os.environ["TILEC_EXP_EARLY_VOTE"] = old

    ck = compile_seed(False)  # the variants below edit this form
    ptx = ck.asm["ptx"]
    names, meta = build_meta(ck, "fused_attention_kernel")
    texts = {"PTX": ptx}
    for k, f in VARIANTS.items():
        try:
            texts[f"PTX, {k}"] = f(ptx)
        except (StopIteration, AssertionError, ValueError) as e:  # the PTX has moved on
            print(f"PTX, {k}: not applicable ({type(e).__name__})")
    texts["PTX, early vote (tilec)"] = ev = compile_seed(True).asm["ptx"]
    for k, f in SPEC_VARIANTS.items():
        try:
            texts[k] = f(ev)
        except (StopIteration, AssertionError, ValueError) as e:
            print(f"{k}: not applicable ({type(e).__name__})")
    if args.only:
        keep = set(args.only.split(";"))
        texts = {k: v for k, v in texts.items() if k in keep}
    for spec in args.ptx:
        name, path = spec.split("=", 1)
        with open(path) as f:
            texts[name] = f.read()
    built = {}
    for name, text in texts.items():
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            with open(os.path.join(args.dump, name.replace(", ", "_").replace(" ", "_") +
                                   ".ptx"), "w") as f:
                f.write(text)
        built[name] = _C.gpu_build(text, meta, arch, dev)
    for n_ctx in map(int, args.ns.split(",")):
        c = Case(torch, n_ctx)
        q, k, v, o, ref, flops, grid, values = (c.q, c.k, c.v, c.o, c.ref, c.flops, c.grid,
                                                c.values)
        rows = {
            "seed": lambda: seed[grid](*c.args(), num_warps=4, num_stages=args.stages,
                                       **consts),
            "exp2 form": lambda: exp2[grid](*c.args(), num_warps=4, num_stages=args.stages,
                                            FMA=False, **consts),
            "SDPA": lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0),
        }
        for name, kern in built.items():
            rows[name] = (lambda kern: lambda: kern.launch((grid[0], grid[1], 1), None, names,
                                                           values, dev))(kern)
        for name, run in rows.items():  # check
            o.zero_()
            run()
            torch.cuda.synchronize()
            err = 0.0 if name == "SDPA" else (o.float() - ref).abs().max().item()
            if err > 1e-2:
                print(f"{name}: max err {err:.2e}")
        # Interleaved rounds (clocks drift alike for every row), no sync between launches:
        # the host's time before a kernel starts stays out of the numbers (a sync after each
        # launch counted SDPA's dispatch, ~15 % of its time at N 4096 on an H200).
        times = Timer(torch, args.reps, flush=True).interleaved_samples(rows)
        sdpa = flops / statistics.median(times["SDPA"]) / 1e9
        for name, ts in times.items():
            tf = flops / statistics.median(ts) / 1e9
            print(f"{name:>20} N{n_ctx}  {tf:7.1f} TFLOP/s  {tf / sdpa:5.3f} x SDPA", flush=True)


if __name__ == "__main__":
    main()
