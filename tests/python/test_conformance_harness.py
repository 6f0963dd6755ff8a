"""The conformance harness's own pieces (tests/conformance/): the pytest plugin records each
finished test and the selection, and the summary counts a test Triton passed that a time cap
cut off as unfinished, never as absent from the denominator."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONF = os.path.join(ROOT, "tests", "conformance")
sys.path.insert(0, CONF)
import summarize  # noqa: E402


def _run_plugin(tmp_path, out):
    test = tmp_path / "test_sample.py"
    test.write_text("import pytest\n"
                    "def test_ok():\n    pass\n"
                    "def test_bad():\n    assert 1 == 2, 'one is not two'\n"
                    "@pytest.mark.skip(reason='not here')\ndef test_skip():\n    pass\n")
    env = dict(os.environ, CONFORMANCE_OUT=str(out), PYTHONPATH=CONF)
    env.pop("TRITON_SRC", None)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conformance_plugin",
                    "-p", "no:cacheprovider", str(test)], cwd=tmp_path, env=env,
                   capture_output=True, text=True, timeout=120)
    return test


def test_plugin_records_results_and_selection(tmp_path):
    out = tmp_path / "run"
    _run_plugin(tmp_path, out)
    recs = summarize.load(str(out))
    outcomes = {k.split("::")[1]: v["outcome"] for k, v in recs.items()}
    assert outcomes == {"test_ok": "passed", "test_bad": "failed", "test_skip": "skipped"}
    assert "one is not two" in recs["test_sample.py::test_bad"]["message"]
    assert summarize.load_collected(str(out)) == set(recs)


def _write_run(folder, outcomes, collected=None):
    folder.mkdir()
    with open(folder / "results.jsonl", "w") as f:
        for test, outcome in outcomes.items():
            f.write(json.dumps({"test": test, "outcome": outcome, "message": "m"}) + "\n")
    if collected is not None:
        (folder / "collected.txt").write_text("".join(t + "\n" for t in collected))


def test_unfinished_tests_count_against_tilec(tmp_path, capsys):
    t = "test_a.py::test_"
    _write_run(tmp_path / "triton", {t + "1": "passed", t + "2": "passed", t + "3": "passed",
                                     t + "4": "passed", t + "5": "skipped"})
    # tilec: 1 passed, 2 failed, 3 cut off by the cap; 4 was not selected (-k).
    _write_run(tmp_path / "tilec", {t + "1": "passed", t + "2": "failed"},
               collected=[t + "1", t + "2", t + "3", t + "5"])
    js = tmp_path / "sum.json"
    assert summarize.main(["--tilec", str(tmp_path / "tilec"), "--triton",
                           str(tmp_path / "triton"), "--json", str(js)]) == 0
    total = json.load(open(js))["total"]
    assert (total["both_passed"], total["base_passed"], total["unfinished"]) == (1, 3, 1)
    assert json.load(open(js))["failing"][t + "3"].startswith("unfinished")
    assert "| 1/3 | **33.3 %** |" in capsys.readouterr().out
