"""pytest plugin for test_simt_lang.py: with TILEC_SIMT=1 every kernel a test launches on
host arrays is compiled down the GPU path (tilec._C.compile_simt) and run on the SIMT
simulator. With TILEC_SIMT_PTX_DIR set, this plugin also saves each kernel's PTX for
sm_90a and sm_80 there (one file per distinct text), so the caller can check that ptxas
accepts all of them.

For CI time, tests parametrised over a pair of dtypes (xn, yn) run on the simulator for a
representative subset: every dtype with itself, and every dtype with int32 and with float32
(the lowering of each op per dtype and of the casts into the common types); the tile
interpreter runs every pair. TILEC_SIMT_ALL_PAIRS=1 runs them all here too."""

import hashlib
import os

import tilec._C as _C

_DIR = os.environ.get("TILEC_SIMT_PTX_DIR")


def _save(ptx: str, arch: str) -> None:
    name = hashlib.sha1(ptx.encode()).hexdigest()[:20] + "_" + arch + ".ptx"
    path = os.path.join(_DIR, name)
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(ptx)


if _DIR:
    _compile_simt = _C.compile_simt

    def _compile_and_save(fs, specs, num_warps=4, num_stages=3, debug=False, arch="sm_90a",
                          **options):  # enable_fp_fusion, maxnreg: passed on as given
        kernel = _compile_simt(fs, specs, num_warps, num_stages, debug, arch, **options)
        _save(kernel.ptx, "sm_90a")
        try:
            ptx80, _ = _C.compile_ptx(fs, specs, num_warps, num_stages, debug, "sm_80", **options)
            _save(ptx80, "sm_80")
        except Exception as e:  # a target limit (fp8 needs sm_89) is a clear error: fine
            if "needs sm_" not in str(e):
                raise
        return kernel

    _C.compile_simt = _compile_and_save


_PAIR_PARTNERS = ("int32", "float32")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TILEC_SIMT_ALL_PAIRS", "0") not in ("", "0"):
        return
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        xn, yn = params.get("xn"), params.get("yn")
        if xn is None or yn is None or xn == yn or xn in _PAIR_PARTNERS or \
                yn in _PAIR_PARTNERS:
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
