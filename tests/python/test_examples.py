"""The runnable examples and the CPU benchmark keep working (smoke tests)."""

import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_vector_add_example_runs_and_says_where():
    env = dict(os.environ, TILEC_INTERPRET="1")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "vector_add.py")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "running on the CPU (tile interpreter)" in r.stdout
    assert "OK: the kernel's output matches numpy" in r.stdout


def test_cpu_benchmark_cases_run():
    path = os.path.join(ROOT, "benchmarks", "cpu_interpreter.py")
    spec = importlib.util.spec_from_file_location("tilec_cpu_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for fn in (bench.bench_vector_add, bench.bench_softmax, bench.bench_launch_overhead):
        median, best = fn(1)
        assert 0 < best <= median
