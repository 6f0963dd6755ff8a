"""One seed kernel's code, variant by variant, through one runtime (tilec's), to tell
code generation apart from launching:

    python benchmarks/ptx_ab.py [--kernel softmax|layernorm] [--rows M] [--cols N]
                                [--reps N] [--no-flush] [--ptx-dir DIR] [--json PATH]

Rows, timed in interleaved rounds (order rotated each round, L2 flushed before each launch):
  tilec kernel[grid]      tilec's own launch of the seed kernel
  Triton kernel[grid]     Triton's launch (when Triton is importable)
  tilec PTX               tilec's PTX, built by _C.gpu_build and launched by GpuKernel.launch
  tilec PTX, <variant>    the same PTX after one textual edit (see VARIANTS): .maxntid
                          (what tilec printed before it printed Triton's .reqntid);
                          a second reduction's scratch apart from the first's (one
                          barrier fewer); loads after the first barrier hoisted next to
                          the first load, or prefetched to L1 from there; the first load
                          not allocating in L1; %tid.x masked as Triton does; L2
                          eviction hints (X evict_first, W/B evict_last); Y stored .cs; a
                          reduction's shared store by lane 0 only
  file <name> #1, #2      each DIR/KERNEL_BLOCK_<name>.ptx (--ptx-dir), loaded as two modules:
                          where the code lands moves timings by ~0.1 %, so a variant that
                          matters moves both copies
  Triton PTX              Triton's PTX (its two scratch pointers passed as 0) through the
                          same path, ptxas from this machine
  Triton cubin            Triton's own cubin (its bundled ptxas) through the same path
Each row prints the median and the mean of the middle half of its launches (the median is
quantised to the event timer's 32 ns); ratios use the latter. With 3000 launches a row,
equal code measured 0.02-0.2 % apart (identical launchers included): trust a difference
that repeats across runs and module copies. A benchmark for finding where a few tenths of
a percent go: it reports, it never fails. Not run by scripts/gpu_check.sh.
"""

import argparse
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def maxntid(ptx):
    return ptx.replace(".reqntid", ".maxntid")


def separate_reduce_scratch(ptx):
    """The second cross-warp reduction writes past the first one's partials, so the barrier
    that guards the first one's readers is not needed: drop it."""
    lines = ptx.split("\n")
    bars = [i for i, l in enumerate(lines) if l.strip() == "bar.sync 0;"]
    # pattern: bar (WAR) ; mov global_smem ; mad ; st.shared ; bar ; ld.shared [global_smem+k]
    for i in bars:
        window = lines[i + 1:i + 5]
        if any("st.shared" in l for l in window) and i > bars[0] + 1:
            del lines[i]
            break
    else:
        return None
    out, after = [], False
    for i, l in enumerate(lines):
        if i >= bars[1] - 1 and "mov.u32" in l and "global_smem;" in l and not after:
            l = l.replace("global_smem;", "global_smem+64;")
            after = True
        elif after:
            l = re.sub(r"\[global_smem\+(\d+)\]", lambda m: f"[global_smem+{int(m[1]) + 64}]", l)
            l = l.replace("[global_smem]", "[global_smem+64]")
        out.append(l)
    return "\n".join(out)


def hoist_late_loads(ptx):
    """Every global load after the first barrier, with the run of address arithmetic and
    default-value moves just before it, moved up to follow the first global load (these
    kernels' W and B, issued alongside X rather than after the reductions)."""
    lines = ptx.split("\n")
    first_bar = next((i for i, l in enumerate(lines) if l.strip() == "bar.sync 0;"), None)
    first_ld = next((i for i, l in enumerate(lines) if "ld.global" in l), None)
    if first_bar is None or first_ld is None or first_ld > first_bar:
        return None
    movable = re.compile(r"\s*(m(ul|ad)\.wide\.[su]32|add\.s64|mov\.b16|mov\.b32 %r\d+, \{|"
                         r"mov\.f32 %r\d+, (%r\d+|0f[0-9A-F]+);)")
    groups, i = [], first_bar
    while i < len(lines):
        if "ld.global" in lines[i]:
            j = i
            while j - 1 > first_bar and movable.match(lines[j - 1]):
                j -= 1
            groups.append((j, i))
        i += 1
    if not groups:
        return None
    moved = []
    for j, i in groups:
        moved += lines[j:i + 1]
    keep = [l for k, l in enumerate(lines) if not any(j <= k <= i for j, i in groups)]
    return "\n".join(keep[:first_ld + 1] + moved + keep[first_ld + 1:])


def prefetch_late_loads(ptx):
    """hoist_late_loads' groups stay where they are; a copy of each one's address arithmetic
    and a prefetch.global.L1 of its address (under the load's predicate) go after the first
    global load: the late loads then hit L1, and no register stays live across the
    reductions."""
    lines = ptx.split("\n")
    first_bar = next((i for i, l in enumerate(lines) if l.strip() == "bar.sync 0;"), None)
    first_ld = next((i for i, l in enumerate(lines) if "ld.global" in l), None)
    if first_bar is None or first_ld is None or first_ld > first_bar:
        return None
    addr = re.compile(r"\s*(mul\.wide\.[su]32|mad\.wide\.[su]32|add\.s64)")
    load = re.compile(r"\s*(@%p\d+ )?ld\.global\S* \{?[^\[]*\[(%rd\d+)(\+\d+)?\];")
    extra = []
    for i in range(first_bar, len(lines)):
        m = load.match(lines[i])
        if not m:
            continue
        j = i
        while j - 1 > first_bar and (addr.match(lines[j - 1]) or
                                     re.match(r"\s*mov\.b(16|32)", lines[j - 1])):
            j -= 1
        extra += [l for l in lines[j:i] if addr.match(l)]
        extra.append(f"  {m[1] or ''}prefetch.global.L1 [{m[2]}{m[3] or ''}];")
    if not extra:
        return None
    return "\n".join(lines[:first_ld + 1] + extra + lines[first_ld + 1:])


def first_load_no_l1(ptx):
    """The first global load (the row of X) does not allocate in L1, leaving L1 to W and B."""
    return ptx.replace("ld.global.v4", "ld.global.L1::no_allocate.v4", 1)


def tid_masked(ptx):
    """%tid.x masked to the block's size, as Triton's index arithmetic does: ptxas then
    knows the column offsets are small (32-bit products, no IMAD.HI)."""
    m = re.search(r"\.reqntid (\d+), 1, 1", ptx)
    if not m:
        return None
    n = int(m[1])
    t = re.search(r"mov\.u32 (%r\d+), %tid\.x;", ptx)
    if not t:
        return None
    ptx = ptx.replace(t[0], f"{t[0]}\n  and.b32 {t[1]}, {t[1]}, {n - 1};", 1)
    # and each shift of it, which is what ptxas needs to see the product's range
    return re.sub(rf"(shl\.b32 (%r\d+), {t[1]}, (\d+);)",
                  lambda s: f"{s[1]}\n  and.b32 {s[2]}, {s[2]}, {(n - 1) << int(s[3])};", ptx)


def _with_policy(ptx, kind):
    """Declares %pol0 and creates an L2 policy of `kind` at the kernel's entry."""
    ptx = re.sub(r"(\.reg \.b64 %rd<\d+>;)", r"\1\n  .reg .b64 %pol<1>;", ptx, count=1)
    return ptx.replace("$L__entry:\n", "$L__entry:\n"
                       f"  createpolicy.fractional.L2::{kind}.b64 %pol0, 1.0;\n", 1)


def _hint_loads(ptx, first_only):
    lines = ptx.split("\n")
    first_bar = next((i for i, l in enumerate(lines) if l.strip() == "bar.sync 0;"), 0)
    load = re.compile(r"(\s*(?:@%p\d+ )?ld\.global)(\S*)( [^;]*);")
    done = False
    for i, l in enumerate(lines):
        m = load.match(l)
        if not m or (first_only and done) or (not first_only and i < first_bar):
            continue
        lines[i] = f"{m[1]}.L2::cache_hint{m[2]}{m[3]}, %pol0;"
        done = True
    return "\n".join(lines) if done else None


def x_evict_first(ptx):
    """The first global load (X, read once) marked L2 evict_first."""
    return _hint_loads(_with_policy(ptx, "evict_first"), True)


def late_evict_last(ptx):
    """Global loads after the first barrier (W and B, read by every row) marked L2
    evict_last."""
    return _hint_loads(_with_policy(ptx, "evict_last"), False)


def streaming_store(ptx):
    """The vector stores (Y, written once) as st.global.cs."""
    return re.sub(r"st\.global\.v", "st.global.cs.v", ptx)


def lane0_smem_store(ptx):
    """Unpredicated st.shared (every lane of a warp writing its partial) under lane == 0."""
    t = re.search(r"mov\.u32 (%r\d+), %tid\.x;", ptx)
    if not t or not re.search(r"^\s*st\.shared", ptx, re.M):
        return None
    ptx = re.sub(r"(\.reg \.pred %p<\d+>;)", r"\1\n  .reg .pred %lane0;\n  .reg .b32 %lane;",
                 ptx, count=1)
    ptx = ptx.replace(t[0], f"{t[0]}\n  and.b32 %lane, {t[1]}, 31;\n"
                      "  setp.eq.u32 %lane0, %lane, 0;", 1)
    return re.sub(r"^(\s*)(st\.shared)", r"\1@%lane0 \2", ptx, flags=re.M)


VARIANTS = {"maxntid": maxntid, "lane-0 smem store": lane0_smem_store, "tid masked": tid_masked, "X L2 evict_first": x_evict_first,
            "W/B L2 evict_last": late_evict_last, "Y st.cs": streaming_store,
            "separate scratch": separate_reduce_scratch,
            "hoist late loads": hoist_late_loads, "X no L1": first_load_no_l1,
            "prefetch late loads": prefetch_late_loads,
            "hoist + X no L1": lambda p: hoist_late_loads(first_load_no_l1(p))}


def trimmed_mean(v):
    v = sorted(v)
    q = len(v) // 4
    mid = v[q:len(v) - q] or v
    return sum(mid) / len(mid)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--kernel", default="softmax", choices=["softmax", "layernorm"])
    ap.add_argument("--rows", type=int, default=1024)
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--no-flush", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--ptx-dir", default="",
                    help="also time every PTX file there named KERNEL_BLOCK_*.ptx")
    args = ap.parse_args()
    import torch
    import tilec
    from tilec import _C
    from gpu_kernels import Timer, load_seeds

    dev = torch.cuda.current_device()
    arch = _C.gpu_device_arch(dev)
    m, n = args.rows, args.cols
    sk = load_seeds("tilec")
    try:
        tk = load_seeds("triton")
    except Exception as e:  # noqa: BLE001
        print(f"Triton not importable: {e}")
        tk = None
    block = 1 << (n - 1).bit_length()
    if args.kernel == "softmax":
        nw = 4 if block <= 2048 else (8 if block <= 8192 else 16)
        x = torch.randn((m, n), device="cuda")
        y = torch.empty_like(x)
        names = ["input_ptr", "output_ptr", "input_row_stride", "output_row_stride", "n_cols"]
        kinds = ["ptr", "ptr", "i32", "i32", "i32"]
        values = [x, y, x.stride(0), y.stride(0), n]
        sig = "*fp32:16,*fp32:16,i32:16,i32:16,i32:16"
        fn_name = "softmax_kernel"
        nbytes = 2 * 4 * m * n
        ref = lambda: torch.softmax(x, dim=1)  # noqa: E731
    else:
        nw = min(max(block // 256, 1), 8)
        x = torch.randn((m, n), device="cuda", dtype=torch.float16)
        w = torch.randn(n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        mean = torch.empty(m, device="cuda")
        rstd = torch.empty(m, device="cuda")
        names = ["X", "Y", "W", "B", "Mean", "Rstd", "stride", "N", "eps"]
        kinds = ["ptr"] * 6 + ["i32", "i32", "fp32"]
        values = [x, y, w, b, mean, rstd, x.stride(0), n, 1e-5]
        sig = "*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32"
        fn_name = "layernorm_kernel"
        nbytes = 2 * 2 * m * n
        ref = lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)  # noqa: E731
    kfn = getattr(sk, fn_name)
    consts = {"BLOCK_SIZE": block}
    ck = tilec.compile(kfn, signature=sig, constexprs=consts, num_warps=nw, target=arch)
    ptx = ck.asm["ptx"]
    shared = ck.metadata.get("shared", 0) if isinstance(ck.metadata, dict) else getattr(
        ck.metadata, "shared", 0)
    meta = {"name": fn_name, "params": list(zip(names, kinds)), "num_warps": nw,
            "shared": max(int(shared), 256)}
    grid = (m, 1, 1)
    fns = {}

    def built(k, vals, nm):
        return lambda: k.launch(grid, None, nm, vals, dev)

    fns["tilec kernel[grid]"] = lambda: kfn[(m,)](*values, BLOCK_SIZE=block, num_warps=nw)
    fns["tilec PTX"] = built(_C.gpu_build(ptx, meta, arch, dev), values, names)
    for vname, edit in VARIANTS.items():
        vptx = edit(ptx)
        if vptx is None or vptx == ptx:
            print(f"variant '{vname}' does not apply")
            continue
        try:
            fns[f"tilec PTX, {vname}"] = built(_C.gpu_build(vptx, meta, arch, dev), values, names)
        except Exception as e:  # noqa: BLE001
            print(f"variant '{vname}': {type(e).__name__}: {e}")
    if args.ptx_dir:
        prefix = f"{fn_name}_{block}_"
        for fname in sorted(os.listdir(args.ptx_dir)):
            if fname.startswith(prefix) and fname.endswith(".ptx"):
                with open(os.path.join(args.ptx_dir, fname)) as f:
                    text = f.read()
                for copy in (1, 2):  # two modules: where the code lands moves timings too
                    k = _C.gpu_build(text, meta, arch, dev)
                    fns[f"file {fname[len(prefix):-4]} #{copy}"] = built(k, values, names)
    if tk is not None:
        tfn = getattr(tk, fn_name)
        tfns = lambda: tfn[(m,)](*values, BLOCK_SIZE=block, num_warps=nw)  # noqa: E731
        tfns()
        fns["Triton kernel[grid]"] = tfns
        try:
            c = tfn.warmup(*values, BLOCK_SIZE=block, num_warps=nw, grid=(m,))
            tptx, tcubin = c.asm["ptx"], c.asm["cubin"]
            tnames = names + ["_scratch", "_profile"]
            tmeta = dict(meta, params=list(zip(tnames, kinds + ["u64", "u64"])))
            tmeta["shared"] = max(int(c.metadata.shared), 256)
            tvals = values + [0, 0]
            fns["Triton PTX"] = built(_C.gpu_build(tptx, tmeta, arch, dev), tvals, tnames)
            fns["Triton cubin"] = built(_C.GpuKernel(tptx, tcubin, tmeta), tvals, tnames)
        except Exception as e:  # noqa: BLE001
            print(f"Triton's PTX not built: {type(e).__name__}: {e}")
    want = ref()
    for name, f in fns.items():
        y.zero_()
        f()
        torch.cuda.synchronize()
        err = (y.float() - want.float()).abs().max().item()
        print(f"  check {name:36} max |err| {err:.3g}")
    fns["tilec PTX (again)"] = fns["tilec PTX"]
    samples = Timer(torch, args.reps, not args.no_flush).interleaved_samples(fns)
    stats = {k: (statistics.median(v), trimmed_mean(v)) for k, v in samples.items()}
    base = stats["tilec PTX"]
    print(f"{args.kernel} {m}x{n}, {nw} warps, {args.reps} launches each, L2 "
          f"{'not ' if args.no_flush else ''}flushed; median and mean of the middle half:")
    for name, (med, mean) in sorted(stats.items(), key=lambda kv: kv[1][1]):
        print(f"  {name:36} {med * 1e3:8.2f} us {mean * 1e3:8.3f} us "
              f"{nbytes / (mean * 1e-3) / 1e9:8.0f} GB/s {base[1] / mean:6.4f}x tilec PTX")
    ms = {k: v[1] for k, v in stats.items()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: v * 1e3 for k, v in ms.items()}, f, indent=2)


if __name__ == "__main__":
    main()
