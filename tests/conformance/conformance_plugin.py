"""pytest plugin of the conformance harness (scripts/conformance.sh loads it with `-p`).

It runs Triton's own test files against whichever `triton` the process imports: tilec
through the drop-in switch (TILEC_AS_TRITON=1, set by the script) or the real Triton for the
baseline. It does three things:

- makes Triton's test helpers importable under tilec: `triton._internal_testing` and
  `triton._filecheck` are test code of Triton's source tree, not part of its public
  surface, so they are loaded from the checkout ($TRITON_SRC/python/triton/), never copied;
- writes one JSON line per finished test to $CONFORMANCE_OUT/results.jsonl as soon as the
  test ends (the controller process writes under pytest-xdist), so a run cut short by a
  time cap keeps everything it finished;
- bounds each test (CONFORMANCE_TEST_TIMEOUT seconds, default 300): a test that hangs dumps
  its stack and ends its worker, which pytest-xdist reports as a failure and replaces.
"""

from __future__ import annotations

import faulthandler
import importlib.util
import json
import os
import sys
import time

_HELPERS = ("_internal_testing", "_filecheck")


def _load_triton_helpers():
    """Loads Triton's test-only modules from the checkout when the imported `triton` lacks
    them (tilec does)."""
    src = os.environ.get("TRITON_SRC")
    if not src:
        return
    import triton  # noqa: F401  (the switch, when on, makes this tilec)

    for name in _HELPERS:
        full = f"triton.{name}"
        if full in sys.modules:
            continue
        try:
            importlib.import_module(full)
            continue
        except ImportError:
            pass
        path = os.path.join(src, "python", "triton", name + ".py")
        if not os.path.exists(path):
            continue
        spec = importlib.util.spec_from_file_location(full, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[full] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:  # noqa: BLE001  (an import error of the helper is a result)
            del sys.modules[full]
            sys.stderr.write(f"conformance: cannot load {full} from {path}: {e!r}\n")


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config):
    _load_triton_helpers()
    config._conformance_out = None
    out = os.environ.get("CONFORMANCE_OUT")
    if out and not _is_worker(config):
        os.makedirs(out, exist_ok=True)
        config._conformance_out = open(os.path.join(out, "results.jsonl"), "a",
                                       buffering=1)
    config._conformance_state = {}


def pytest_unconfigure(config):
    f = getattr(config, "_conformance_out", None)
    if f is not None:
        f.close()


def _message(report) -> str:
    """The one-line reason of a failed or skipped report."""
    lr = report.longrepr
    if lr is None:
        return ""
    if isinstance(lr, tuple) and len(lr) == 3:  # skip: (file, line, reason)
        return str(lr[2])
    crash = getattr(lr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message
    text = str(lr)
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    return (lines[0][2:] if lines else text.strip().splitlines()[-1] if text.strip() else "")


def _write(config, rec):
    f = config._conformance_out
    if f is not None:
        f.write(json.dumps(rec) + "\n")


def pytest_runtest_logreport(report):
    config = _CONFIG.get("config")
    if config is None or config._conformance_out is None:
        return
    state = config._conformance_state
    rec = state.setdefault(report.nodeid, {"test": report.nodeid, "outcome": "passed",
                                            "message": "", "duration": 0.0})
    rec["duration"] += getattr(report, "duration", 0.0) or 0.0
    if report.when == "call" and hasattr(report, "wasxfail"):
        rec["outcome"] = "xpassed" if report.passed else "xfailed"
    elif report.skipped and rec["outcome"] == "passed":
        rec["outcome"] = "skipped"
        rec["message"] = _message(report)
    elif report.failed:
        if rec["outcome"] in ("passed", "skipped"):
            rec["outcome"] = "error" if report.when != "call" else "failed"
            rec["message"] = _message(report)
    if report.when == "teardown" or (report.failed and report.when == "call" and
                                     "crashed" in str(report.longrepr)):
        state.pop(report.nodeid, None)
        rec["duration"] = round(rec["duration"], 3)
        rec["time"] = time.time()
        _write(config, rec)


def pytest_collectreport(report):
    config = _CONFIG.get("config")
    if config is None or config._conformance_out is None or not report.failed:
        return
    _write(config, {"test": report.nodeid, "outcome": "collection-error",
                    "message": _message(report), "duration": 0.0, "time": time.time()})


def pytest_collection_finish(session):
    """Lists the selected tests in collected.txt (once: the only process, or the first
    xdist worker), so that tests a time cap cut off count as unfinished, not as absent."""
    out = os.environ.get("CONFORMANCE_OUT")
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if not out or worker not in (None, "gw0"):
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "collected.txt"), "a") as f:
        f.writelines(item.nodeid + "\n" for item in session.items)


_CONFIG = {}


def pytest_sessionstart(session):
    _CONFIG["config"] = session.config


def pytest_runtest_setup(item):
    limit = float(os.environ.get("CONFORMANCE_TEST_TIMEOUT", "300"))
    if limit > 0:
        faulthandler.dump_traceback_later(limit, exit=True)


def pytest_runtest_teardown(item, nextitem):
    faulthandler.cancel_dump_traceback_later()
