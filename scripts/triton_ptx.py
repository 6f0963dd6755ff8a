#!/usr/bin/env python3
"""Triton's own PTX for a kernel, compiled without a GPU, to compare with `tilec ptx`.

    python3 -m venv /tmp/tvenv && /tmp/tvenv/bin/pip install triton==3.6.0
    /tmp/tvenv/bin/python scripts/triton_ptx.py FILE.py:KERNEL --signature SIG \\
        [--constexpr NAME=VALUE ...] [--num-warps N] [--num-stages N] [--arch 90] [-o OUT]

SIG and the constexprs are written as for `tilec ptx` ("*fp16:16,i32:1,fp32"): ":16" marks
an argument divisible by 16, ":1" an integer equal to 1 (Triton specialises it away, as
tilec does). Constexpr values are Python literals, or `tl.<dtype>` names such as float32.
The kernel's file is imported when it can be; when it cannot (a tutorial importing torch
or asking the driver for a GPU at import), its top-level functions are taken from the
source alone, with `triton` and `tl` in scope. Triton is a tool here, never a dependency
of tilec: run this with the interpreter of a separate environment that has it.
"""

import argparse
import ast
import importlib.util
import sys
import time
import types


def parse_signature(sig):
    """'*fp16:16,i32:1,fp32' -> [(type, hint)]: type as Triton spells it ('*fp16', 'i32'),
    hint 16 (divisible by 16), 1 (equal to 1) or None."""
    out, depth, parts, cur = [], 0, [], ""
    for ch in sig:  # commas inside tensordesc<fp16[128,64]> do not split
        depth += {"<": 1, "[": 1, ">": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for entry in (e.strip() for e in parts if e.strip()):
        ty, _, hint = entry.partition(":")
        if hint not in ("", "16", "1"):
            raise ValueError(f"signature entry {entry!r}: the hint is :16 or :1")
        out.append((ty, int(hint) if hint else None))
    return out


def parse_constexpr(text, tl=None):
    """'NAME=VALUE' -> (name, value): a Python literal, else a tl dtype name."""
    name, _, value = text.partition("=")
    if not name or not value:
        raise ValueError(f"--constexpr {text!r}: write NAME=VALUE")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        if tl is not None and hasattr(tl, value.removeprefix("tl.")):
            return name, getattr(tl, value.removeprefix("tl."))
        return name, value  # a string constexpr ("ieee", "tf32")


def load_kernel(path, name):
    spec = importlib.util.spec_from_file_location("_triton_ptx_src", path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
        return getattr(mod, name)
    except Exception as e:  # torch or a GPU at import: rebuild from the source alone
        print(f"triton_ptx: importing {path} failed ({type(e).__name__}: {e}); "
              "taking its functions from the source", file=sys.stderr)
    src = open(path).read()
    tree = ast.parse(src)
    keep = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.Assign, ast.AnnAssign))]
    mod = types.ModuleType("_triton_ptx_funcs")
    mod.__file__ = path
    header = "import triton\nimport triton.language as tl\n"
    body = ast.Module(body=keep, type_ignores=[])
    code = compile(ast.parse(header), path, "exec")
    exec(code, mod.__dict__)
    for node in body.body:  # one at a time: an assignment needing torch is skipped
        if isinstance(node, ast.FunctionDef):  # @triton.jit only (autotune wants a GPU)
            node.decorator_list = [d for d in node.decorator_list
                                   if ast.unparse(d).split("(")[0] == "triton.jit"]
        try:
            exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), mod.__dict__)
        except Exception:
            pass
    return getattr(mod, name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernel", help="FILE.py:KERNEL")
    ap.add_argument("--signature", required=True)
    ap.add_argument("--constexpr", action="append", default=[])
    ap.add_argument("--num-warps", type=int, default=4)
    ap.add_argument("--num-stages", type=int, default=3)
    ap.add_argument("--arch", type=int, default=90, help="compute capability (90: sm_90a)")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)

    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    path, _, name = args.kernel.rpartition(":")
    fn = load_kernel(path, name)
    while not hasattr(fn, "arg_names") and hasattr(fn, "fn"):  # autotune / heuristics
        fn = fn.fn
    constexprs = dict(parse_constexpr(c, tl) for c in args.constexpr)
    params = [p for p in fn.arg_names if p not in constexprs]
    entries = parse_signature(args.signature)
    if len(entries) != len(params):
        raise SystemExit(f"triton_ptx: --signature has {len(entries)} entries for "
                         f"{len(params)} non-constexpr parameters ({', '.join(params)})")
    sig, attrs = {}, {}
    for p, (ty, hint) in zip(params, entries):
        if hint == 1:
            constexprs[p] = 1
        else:
            sig[p] = ty
            if hint == 16:
                attrs[(fn.arg_names.index(p),)] = [["tt.divisibility", 16]]
    for c in constexprs:
        sig[c] = "constexpr"
    src = ASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs)
    t0 = time.time()
    k = triton.compile(src, target=GPUTarget("cuda", args.arch, 32),
                       options=dict(num_warps=args.num_warps, num_stages=args.num_stages))
    print(f"triton_ptx: Triton {triton.__version__} compiled {name} in {time.time() - t0:.2f} s",
          file=sys.stderr)
    if args.output:
        with open(args.output, "w") as f:
            f.write(k.asm["ptx"])
    else:
        sys.stdout.write(k.asm["ptx"])


if __name__ == "__main__":
    main()
