"""pytest plugin for test_simt_lang.py: with TILEC_SIMT=1 every kernel a test launches on
host arrays is compiled down the GPU path (tilec._C.compile_simt) and run on the SIMT
simulator. With TILEC_SIMT_PTX_DIR set, this plugin also saves each kernel's PTX for
sm_90a and sm_80 there (one file per distinct text), so the caller can check that ptxas
accepts all of them."""

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

    def _compile_and_save(fs, specs, num_warps=4, num_stages=3, debug=False, arch="sm_90a"):
        kernel = _compile_simt(fs, specs, num_warps, num_stages, debug, arch)
        _save(kernel.ptx, "sm_90a")
        try:
            ptx80, _ = _C.compile_ptx(fs, specs, num_warps, num_stages, debug, "sm_80")
            _save(ptx80, "sm_80")
        except Exception as e:  # a target limit (fp8 needs sm_89) is a clear error: fine
            if "needs sm_" not in str(e):
                raise
        return kernel

    _C.compile_simt = _compile_and_save
