"""A profiling session's data: a tree of frames (scopes, launch-metadata ops, kernels) with
summed metrics, written in Proton's hatchet format (a list: the ROOT frame, then the
devices), or as a Chrome trace of every launch."""

from __future__ import annotations

import json
import os

TIME = "time (ns)"


class Frame:
    __slots__ = ("name", "metrics", "children")

    def __init__(self, name: str):
        self.name = name
        self.metrics: dict = {}
        self.children: dict = {}

    def child(self, name: str) -> "Frame":
        f = self.children.get(name)
        if f is None:
            f = self.children[name] = Frame(name)
        return f

    def add(self, metrics: dict) -> None:
        for k, v in metrics.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                self.metrics[k] = v  # labels (device_type, device_id) are set, not summed
            else:
                self.metrics[k] = self.metrics.get(k, 0) + v

    def to_literal(self) -> dict:
        return {"frame": {"name": self.name, "type": "function"},
                "metrics": dict(self.metrics),
                "children": [c.to_literal() for c in self.children.values()]}


class SessionData:
    def __init__(self, path: str, data: str, hook: str | None):
        self.path = path
        self.data = data  # "tree" or "trace"
        self.hook = hook
        self.active = True
        self.root = Frame("ROOT")
        self.events: list = []  # chrome trace: (frame path, start ns, duration ns, metrics)
        self.devices: dict = {}  # device type -> {index: properties}

    def frame_at(self, path) -> Frame:
        f = self.root
        for name in path:
            f = f.child(name)
        return f

    def write(self, output_format: str) -> str:
        fmt = output_format or ("chrome_trace" if self.data == "trace" else "hatchet")
        if fmt not in ("hatchet", "chrome_trace"):
            raise ValueError(f"output_format must be 'hatchet' or 'chrome_trace', got {fmt!r}")
        ext = "." + fmt
        path = self.path if self.path.endswith(ext) else self.path + ext
        path = os.path.expanduser(path)
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        if fmt == "hatchet":
            body = [self.root.to_literal(), self.devices]
        else:
            body = {"traceEvents": [
                {"name": p[-1], "cat": "/".join(p[:-1]), "ph": "X", "ts": start / 1e3,
                 "dur": dur / 1e3, "pid": 0, "tid": 0, "args": metrics}
                for p, start, dur, metrics in self.events], "displayTimeUnit": "ns"}
        with open(path, "w") as f:
            json.dump(body, f, indent=1)
        return path
