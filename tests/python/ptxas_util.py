"""ptxas on a kernel's PTX text, for tests that read its report (registers, spills, the
C7510 note that wgmmas were serialised): skips the test where no ptxas is found (the one
tilec's runtime would use: TILEC_PTXAS, PATH, the CUDA toolkit)."""

import os
import subprocess
import tempfile

import pytest

import tilec._C as _C


def find_ptxas():
    """The ptxas tilec's runtime would run, or None."""
    return _C.gpu_find_ptxas()


def ptxas_report(ptx, arch="sm_90a"):
    """ptxas -v's stderr for `ptx`; fails the test when ptxas rejects it."""
    ptxas = find_ptxas()
    if not ptxas:
        pytest.skip("no ptxas on this machine")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kernel.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        r = subprocess.run([ptxas, f"-arch={arch}", "-v", path, "-o", os.path.join(d, "o")],
                           capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stderr
