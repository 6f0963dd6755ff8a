"""Text tests in tests/lit: a kernel (.py) or Tile IR (.tir) in, checked lines out.

Each file holds, in comments (`#` in .py, `//` in .tir):
  CMD: tilec <args>       the command to run; %s is this file's path (one per file)
  EXIT: <n>               the expected exit code (default: 0, or 1 with CHECK-ERROR lines)
  CHECK: <pattern>        a later stdout line contains the pattern
  CHECK-NEXT: <pattern>   the line right after the previous match contains it
  CHECK-NOT: <pattern>    no stdout line between the previous and the next match has it
  CHECK-ERROR: <pattern>  like CHECK, on stderr (with its own position)
Patterns are literal text, except that {{regex}} matches a Python regex; runs of
spaces match any run of spaces. The `tilec` binary is $TILEC_BIN, else build-test/tilec,
else the newest build*/tilec, else the installed package's `python -m tilec._cli`.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIT_DIR = ROOT / "tests" / "lit"
DIRECTIVE = re.compile(r"^\s*(?:#|//)\s*(CMD|EXIT|CHECK|CHECK-NEXT|CHECK-NOT|CHECK-ERROR):\s?(.*?)\s*$")


def find_tilec():
    if os.environ.get("TILEC_BIN"):
        return [os.environ["TILEC_BIN"]]
    built = [p for p in ROOT.glob("build*/tilec") if p.is_file() and os.access(p, os.X_OK)]
    built.sort(key=lambda p: (p.parent.name != "build-test", -p.stat().st_mtime))
    if built:
        return [str(built[0])]
    try:
        import tilec._C  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "tilec._cli"]


def to_regex(pattern):
    parts = re.split(r"\{\{(.*?)\}\}", pattern)
    out = ""
    for i, part in enumerate(parts):
        if i % 2:
            out += "(?:" + part + ")"
        else:
            out += " +".join(re.escape(w) for w in re.split(r"[ \t]+", part))
    return re.compile(out)


def squeeze(line):
    return re.sub(r"[ \t]+", " ", line)


def parse_directives(path):
    cmd, exit_code, checks = None, None, []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        kind, text = m.groups()
        if kind == "CMD":
            assert cmd is None, f"{path.name}:{lineno}: a second CMD line"
            cmd = text
        elif kind == "EXIT":
            exit_code = int(text)
        else:
            checks.append((kind, text, lineno))
    assert cmd, f"{path.name}: no CMD line"
    if exit_code is None:
        exit_code = 1 if any(k == "CHECK-ERROR" for k, _, _ in checks) else 0
    return cmd, exit_code, checks


def run_checks(name, checks, stdout, stderr):
    streams = {"out": stdout.splitlines(), "err": stderr.splitlines()}
    pos = {"out": 0, "err": 0}   # first line a CHECK may match
    last = {"out": -1, "err": -1}  # line of the previous match
    pending_not = []             # CHECK-NOT patterns awaiting the next match

    def fail(lineno, kind, pattern, stream, start, why):
        lines = streams[stream]
        shown = "\n".join(f"  {i + 1:4}: {lines[i]}" for i in range(max(0, start - 2), min(len(lines), start + 8)))
        pytest.fail(f"{name}:{lineno}: {kind}: {pattern!r} {why}\n"
                    f"std{stream} from line {start + 1}:\n{shown}\n"
                    f"--- full stdout ---\n{stdout}\n--- full stderr ---\n{stderr}")

    def check_nots(stream, upto):
        for lineno, pattern in pending_not:
            rx = to_regex(pattern)
            for i in range(last[stream] + 1, upto):
                if rx.search(squeeze(streams[stream][i])):
                    fail(lineno, "CHECK-NOT", pattern, stream, i, f"found on line {i + 1}")
        pending_not.clear()

    for kind, pattern, lineno in checks:
        stream = "err" if kind == "CHECK-ERROR" else "out"
        lines = streams[stream]
        rx = to_regex(pattern)
        if kind == "CHECK-NOT":
            pending_not.append((lineno, pattern))
            continue
        if kind == "CHECK-NEXT":
            i = last[stream] + 1
            if i >= len(lines) or not rx.search(squeeze(lines[i])):
                fail(lineno, kind, pattern, stream, i, "is not on the next line")
        else:
            i = next((j for j in range(pos[stream], len(lines)) if rx.search(squeeze(lines[j]))), None)
            if i is None:
                fail(lineno, kind, pattern, stream, pos[stream], "not found")
        if stream == "out":
            check_nots("out", i)
        last[stream] = i
        pos[stream] = i + 1
    check_nots("out", len(streams["out"]))


LIT_FILES = sorted(p for p in LIT_DIR.glob("*") if p.suffix in (".py", ".tir"))


@pytest.mark.parametrize("path", LIT_FILES, ids=[p.name for p in LIT_FILES])
def test_lit(path):
    tilec = find_tilec()
    if tilec is None:
        pytest.skip("no tilec binary: build it (ninja -C build-test tilec) or set TILEC_BIN")
    cmd, expected_exit, checks = parse_directives(path)
    argv = shlex.split(cmd.replace("%s", shlex.quote(str(path))))
    assert argv[0] == "tilec", f"{path.name}: CMD must start with 'tilec'"
    env = dict(os.environ)
    for var in ("TILEC_DUMP", "TILEC_TIME", "TILEC_VERIFY"):
        env.pop(var, None)
    proc = subprocess.run(tilec + argv[1:], capture_output=True, text=True, timeout=120, env=env,
                          cwd=str(LIT_DIR))
    if proc.returncode != expected_exit:
        pytest.fail(f"{path.name}: exit code {proc.returncode}, expected {expected_exit}\n"
                    f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}")
    run_checks(path.name, checks, proc.stdout, proc.stderr)


def test_checker_catches_mismatches():
    """The checker itself: each directive can fail."""
    out = "a = 1\nb = 2\nc = 3\n"
    run_checks("t", [("CHECK", "a = {{[0-9]}}", 1), ("CHECK-NEXT", "b", 2), ("CHECK-NOT", "x", 3),
                     ("CHECK", "c", 4)], out, "")
    for checks in ([("CHECK", "d", 1)],
                   [("CHECK", "a", 1), ("CHECK-NEXT", "c", 2)],
                   [("CHECK", "a", 1), ("CHECK-NOT", "b", 2), ("CHECK", "c", 3)],
                   [("CHECK", "c", 1), ("CHECK", "a", 2)],
                   [("CHECK-ERROR", "a", 1)]):
        with pytest.raises(pytest.fail.Exception):
            run_checks("t", checks, out, "")


def test_env_doc_lists_every_variable():
    """docs/ENV.md names every variable `tilec env` knows (both come from Env.def)."""
    tilec = find_tilec()
    if tilec is None:
        pytest.skip("no tilec binary")
    out = subprocess.run(tilec + ["env"], capture_output=True, text=True, timeout=60).stdout
    names = re.findall(r"^(TILEC_[A-Z0-9_]+) ", out, re.M)
    assert len(names) >= 8, out
    doc = (ROOT / "docs" / "ENV.md").read_text()
    missing = [n for n in names if f"`{n}`" not in doc]
    assert not missing, f"docs/ENV.md does not describe {missing}"
    # and says which of them are part of the cache key, as Env.def's codegen column does
    keyed = set(re.findall(r"^(TILEC_[A-Z0-9_]+) \(.*; part of the cache key\)$", out, re.M))
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(TILEC_\w+)` \|(.*)$", doc, re.M)}
    assert keyed and keyed == {n for n, r in rows.items() if "Part of the cache key." in r}


def test_env_doc_lists_every_pipeline_stage():
    """docs/ENV.md's stage tables name every stage of the one pipeline list, in order."""
    from tilec import _C

    stages = list(_C.stage_names()) + list(_C.gpu_stage_names())
    doc = (ROOT / "docs" / "ENV.md").read_text()
    at = [doc.find(f"| `{s}` |") for s in stages]
    assert -1 not in at, [s for s, i in zip(stages, at) if i < 0]
    assert at == sorted(at), "docs/ENV.md lists the stages out of order"
