"""`tilec compile` and `tilec link` (ahead-of-time kernels for C/C++, no Python at run time).

The generated files are compiled (the header as C and C++), and linked against a fake
libcuda that records launches, so the dispatcher's choices, the grids and the packed
arguments are checked without a GPU. The CLI's argument errors exit 2 with clear messages.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "tests" / "data" / "seed_kernels.py"
ADD_SIG = "*fp32:16,*fp32:16,*fp32:16,i32,1024"


def find_tilec():
    """$TILEC_BIN, else build-test/tilec, else the newest build*/tilec that has `compile`."""
    if os.environ.get("TILEC_BIN"):
        return os.environ["TILEC_BIN"]
    built = [p for p in ROOT.glob("build*/tilec") if p.is_file() and os.access(p, os.X_OK)]
    built.sort(key=lambda p: (p.parent.name != "build-test", -p.stat().st_mtime))
    for p in built:
        out = subprocess.run([str(p), "--help"], capture_output=True, text=True).stdout
        if "compile FILE.py:KERNEL" in out:
            return str(p)
    return None


TILEC = find_tilec()
CC = shutil.which("cc") or shutil.which("gcc")
CXX = shutil.which("c++") or shutil.which("g++")
pytestmark = pytest.mark.skipif(TILEC is None, reason="no tilec binary with `compile` built")


def tilec(*args, cwd=None):
    return subprocess.run([TILEC, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def compile_add(out, sig=ADD_SIG, grid="cdiv(n_elements, 1024)", *extra):
    r = tilec("compile", f"{SEEDS}:add_kernel", "-s", sig, "-g", grid, "-w", "4", "-o", out, *extra)
    assert r.returncode == 0, r.stderr
    return r


def test_compile_writes_a_c_compatible_header_and_a_source(tmp_path):
    compile_add(tmp_path / "add")
    h = (tmp_path / "add.h").read_text()
    src = (tmp_path / "add.cpp").read_text()
    assert "int load_add(void);" in h and "int unload_add(void);" in h
    assert ("int add(struct CUstream_st *stream, unsigned long long x_ptr, unsigned long long "
            "y_ptr, unsigned long long output_ptr, int32_t n_elements);") in h
    assert "kCubinSize = 0" not in src or "ptxas was not found" in src
    assert ("int add_grid(struct CUstream_st *stream, int64_t grid_x, int64_t grid_y, int64_t "
            "grid_z, unsigned long long x_ptr,") in h
    assert '"add_kernel"' in src and "tilec_aot_cdiv(((int64_t)n_elements), INT64_C(1024))" in src
    if CC is None or CXX is None:
        pytest.skip("no C/C++ compiler")
    for lang, comp in (("c", CC), ("c++", CXX)):
        r = subprocess.run([comp, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-x", lang,
                            str(tmp_path / "add.h")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([CXX, "-std=c++11", "-c", "-Wall", "-Wextra", "-Werror", "-o",
                        str(tmp_path / "add.o"), str(tmp_path / "add.cpp")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


FAKE_CUDA = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
extern "C" {
int cuModuleLoadData(struct CUmod_st **m, const void *image) {
  printf("load %s\n", memcmp(image, "\x7f" "ELF", 4) == 0 ? "cubin" : "ptx");
  *m = (struct CUmod_st *)0x1;
  return 0;
}
int cuModuleGetFunction(struct CUfunc_st **f, struct CUmod_st *, const char *name) {
  *f = (struct CUfunc_st *)strdup(name);
  return 0;
}
int cuModuleUnload(struct CUmod_st *) { return 0; }
int cuFuncSetAttribute(struct CUfunc_st *, int, int) { return 0; }
int cuGetErrorString(int, const char **text) { *text = "fake CUDA error"; return 0; }
int cuLaunchKernel(struct CUfunc_st *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned, unsigned, unsigned shared, struct CUstream_st *, void **params,
                   void **) {
  printf("launch %s grid=%u,%u,%u block=%u shared=%u args=%llx,%llx,%llx,%lld\n",
         (const char *)f, gx, gy, gz, bx, shared,
         (unsigned long long)*(uint64_t *)params[0], (unsigned long long)*(uint64_t *)params[1],
         (unsigned long long)*(uint64_t *)params[2], (long long)*(int32_t *)params[3]);
  return 0;
}
}
"""

MAIN_C = r"""
#include <stdio.h>
#include "add_all.h"
int main(void) {
  printf("rc=%d\n", load_add_all());
  printf("rc=%d\n", add_all(0, 0x1000, 0x2000, 0x3000, 4096));   /* all aligned */
  printf("rc=%d\n", add_all(0, 0x1004, 0x2000, 0x3000, 4096));   /* x misaligned */
  printf("rc=%d\n", add_all(0, 0x1000, 0x2000, 0x3000, 1000));   /* n % 16 != 0 */
  printf("rc=%d\n", add_all(0, 0x1000, 0x2000, 0x3000, 0));      /* empty grid */
  printf("rc=%d\n", add_all_grid(0, 2, 3, 1, 0x1000, 0x2000, 0x3000, 16)); /* explicit grid */
  printf("msg=%s\n", add_all_error_string(TILEC_AOT_ERROR_NO_SPECIALISATION));
  return 0;
}
"""


def build_and_run(tmp_path, headers):
    r = tilec("link", *headers, "-o", tmp_path / "add_all")
    assert r.returncode == 0, r.stderr
    (tmp_path / "fake_cuda.cpp").write_text(FAKE_CUDA)
    (tmp_path / "main.c").write_text(MAIN_C)
    objs = []
    for src in ["main.c", "fake_cuda.cpp", "add_all.cpp"] + [Path(h).stem + ".cpp" for h in headers]:
        obj = tmp_path / (src + ".o")
        comp = CC if src.endswith(".c") else CXX
        r = subprocess.run([comp, "-c", "-Wall", "-Werror", "-I", str(tmp_path), "-o", str(obj),
                            str(tmp_path / src)], capture_output=True, text=True)
        assert r.returncode == 0, src + ": " + r.stderr
        objs.append(str(obj))
    exe = tmp_path / "main"
    r = subprocess.run([CXX, "-o", str(exe), *objs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.skipif(CC is None or CXX is None, reason="no C/C++ compiler")
def test_link_dispatches_by_alignment_and_divisibility(tmp_path):
    compile_add(tmp_path / "add_any", "*fp32,*fp32,*fp32,i32,1024")
    compile_add(tmp_path / "add_aligned", "*fp32:16,*fp32:16,*fp32:16,i32:16,1024", "n_elements // 512")
    out = build_and_run(tmp_path, [tmp_path / "add_any.h", tmp_path / "add_aligned.h"])
    loads = [l for l in out if l.startswith("load ")]
    assert len(loads) == 2 and all(l in ("load cubin", "load ptx") for l in loads)
    launches = [l for l in out if l.startswith(("launch", "rc=", "msg="))]
    assert launches == [
        "rc=0",
        "launch add_kernel grid=8,1,1 block=128 shared=0 args=1000,2000,3000,4096",  # aligned: n//512
        "rc=0",
        "launch add_kernel grid=4,1,1 block=128 shared=0 args=1004,2000,3000,4096",  # general: cdiv
        "rc=0",
        "launch add_kernel grid=1,1,1 block=128 shared=0 args=1000,2000,3000,1000",
        "rc=0",
        "rc=0",  # an empty grid launches nothing
        "launch add_kernel grid=2,3,1 block=128 shared=0 args=1000,2000,3000,16",
        "rc=0",
        "msg=add_all: the arguments fit none of the specialisations of add_kernel "
        "(x_ptr=*fp32:16 y_ptr=*fp32:16 output_ptr=*fp32:16 n_elements=i32:16 | "
        "x_ptr=*fp32 y_ptr=*fp32 output_ptr=*fp32 n_elements=i32)",
    ]


@pytest.mark.skipif(CC is None or CXX is None, reason="no C/C++ compiler")
def test_link_fails_clearly_when_no_specialisation_fits(tmp_path):
    compile_add(tmp_path / "add_aligned", "*fp32:16,*fp32:16,*fp32:16,i32:16,1024")
    out = build_and_run(tmp_path, [tmp_path / "add_aligned.h"])
    rcs = [l for l in out if l.startswith("rc=")]
    assert rcs == ["rc=0", "rc=0", "rc=-1", "rc=-1", "rc=0", "rc=0"]


@pytest.mark.parametrize("args, message", [
    (["-s", "*fp33,*fp32,*fp32,i32,1024"], "bad --signature entry '*fp33': unknown dtype 'fp33'"),
    (["-s", "*fp32,*fp32,*fp32,i32"],
     "the signature has 4 entries, but 'add_kernel' has 5 parameters (x_ptr, y_ptr, output_ptr, "
     "n_elements, BLOCK_SIZE)"),
    (["-s", "*fp32,*fp32,*fp32,i32,i32"],
     "constexpr parameter 'BLOCK_SIZE' of 'add_kernel' needs a value in the signature, got the "
     "type 'i32'"),
    (["-s", "*fp32,,*fp32,i32,1024"], "empty entry"),
    (["-s", ADD_SIG, "-g", "cdiv(n, 1024)"],
     "'n' is not an integer parameter of the kernel (integer parameters: n_elements, BLOCK_SIZE)"),
    (["-s", ADD_SIG, "-g", "cdiv(n_elements 1024)"], "cdiv takes two arguments"),
    (["-s", ADD_SIG, "-g", "1,2,3,4"], "at most 3 dimensions"),
    (["-s", ADD_SIG, "-w", "3"], "num_warps must be a power of 2"),
    (["-s", ADD_SIG, "--arch", "sm_1"], "expected a target such as sm_90a"),
    (["-s", ADD_SIG, "-o", "out/add-1"], "'add-1' is not a C identifier"),
    (["-s", ADD_SIG, "-x"], "unknown option -x"),
])
def test_compile_argument_errors_exit_2(tmp_path, args, message):
    full = ["compile", f"{SEEDS}:add_kernel", "-g", "cdiv(n_elements,1024)", "-o", tmp_path / "k"]
    r = tilec(*full, *args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr, r.stderr
    assert not (tmp_path / "k.h").exists()


def test_compile_without_a_grid_writes_only_the_explicit_grid_launch(tmp_path):
    r = tilec("compile", f"{SEEDS}:softmax_kernel", "-s", "*fp32:16,*fp32:16,i32,i32,i32,1024",
              "-o", tmp_path / "softmax")
    assert r.returncode == 0, r.stderr
    h = (tmp_path / "softmax.h").read_text()
    assert "int softmax_grid(struct CUstream_st *stream, int64_t grid_x," in h
    assert "int softmax(" not in h
    r = tilec("compile", f"{SEEDS}:softmax_kernel", "-s", "*fp32:16,*fp32:16,i32,i32,i32,1024",
              "-g", " ", "-o", tmp_path / "softmax")
    assert r.returncode == 2 and "-g needs grid expressions" in r.stderr


def test_compile_unknown_kernel_and_missing_file_exit_2(tmp_path):
    r = tilec("compile", f"{SEEDS}:nope", "-s", "i32", "-g", "1", "-o", tmp_path / "k")
    assert r.returncode == 2
    assert "unknown kernel 'nope'" in r.stderr and "'add_kernel'" in r.stderr
    r = tilec("compile", f"{tmp_path}/missing.py:k", "-s", "i32", "-g", "1", "-o", tmp_path / "k")
    assert r.returncode == 2 and "no such file" in r.stderr
    r = tilec("compile", f"{SEEDS}:add_kernel", "-g", "1", "-o", tmp_path / "k")
    assert r.returncode == 2 and "missing -s SIGNATURE" in r.stderr


def test_compile_kernel_errors_exit_1_with_the_diagnostic(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import tilec as triton\nimport tilec.language as tl\n\n@triton.jit\n"
                   "def k(out, n):\n    tl.store(out, undefined_name)\n")
    r = tilec("compile", f"{src}:k", "-s", "*fp32,i32", "-g", "1", "-o", tmp_path / "k")
    assert r.returncode == 1
    assert "bad.py:6:" in r.stderr and "undefined_name" in r.stderr and "^" in r.stderr


def test_link_argument_errors_exit_2(tmp_path):
    compile_add(tmp_path / "a", "*fp32,*fp32,*fp32,i32,1024")
    compile_add(tmp_path / "b", "*fp32,*fp32,*fp32,i32,512")
    r = tilec("link", tmp_path / "a.h", tmp_path / "b.h", "-o", tmp_path / "all")
    assert r.returncode == 2 and "have the same hints" in r.stderr
    r = tilec("compile", f"{SEEDS}:triton_gelu_kernel", "-s", "*fp32,*fp32,i32,1024", "-g", "1",
              "-o", tmp_path / "g")
    assert r.returncode == 0, r.stderr
    r = tilec("link", tmp_path / "a.h", tmp_path / "g.h", "-o", tmp_path / "all")
    assert r.returncode == 2 and "link specialisations of one kernel" in r.stderr
    (tmp_path / "x.h").write_text("int x;\n")
    r = tilec("link", tmp_path / "x.h", "-o", tmp_path / "all")
    assert r.returncode == 2 and "is not a header written by `tilec compile`" in r.stderr


ATTN_SIG = ("*fp16:16,*fp16:16,*fp16:16,*fp16:16," + "i32:16,i32:16,i32:16,i32:1," * 4 +
            "i32,i32,i32:16,128,64,64")


@pytest.mark.skipif(shutil.which("ptxas") is None and not os.path.exists(
    "/usr/local/cuda/bin/ptxas"), reason="no ptxas")
def test_cubin_built_for_one_more_cta_per_sm_when_registers_allow(tmp_path):
    """The seed attention (4 warps) takes ~200 registers with ptxas's defaults: two CTAs an
    SM. The cubin is built again with .minnctapersm 3 (168 registers, a small spill;
    runtime/OccupancyCap.h); the source names the compiler that built it."""
    r = tilec("compile", f"{SEEDS}:fused_attention_kernel", "-s", ATTN_SIG, "-w", "4", "-ns", "2",
              "--arch", "sm_90a", "-o", tmp_path / "attn")
    assert r.returncode == 0, r.stderr
    src = (tmp_path / "attn.cpp").read_text()
    assert ".minnctapersm 3" in src
    # the add kernel (few registers) is built once, as it was
    compile_add(tmp_path / "add", ADD_SIG, "cdiv(n_elements, 1024)", "--arch", "sm_90a")
    assert ".minnctapersm" not in (tmp_path / "add.cpp").read_text()


# --- Tensor descriptor parameters ---------------------------------------------------------

DESCS = ROOT / "tests" / "data" / "tensordesc_kernels.py"
SCALE_SIG = "tensordesc<fp32[32, 64]>, tensordesc<fp32[32, 64]>, fp32, 32, 64"
SCALE_GRID = "cdiv(src.shape[0], 32), cdiv(src.shape[1], 64)"

# A fake libcuda whose launch prints every .param slot (g_nparams of them, set by main).
FAKE_CUDA_SLOTS = FAKE_CUDA.split("int cuLaunchKernel")[0] + r"""
extern int g_nparams;
int cuLaunchKernel(struct CUfunc_st *f, unsigned gx, unsigned gy, unsigned gz, unsigned,
                   unsigned, unsigned, unsigned, struct CUstream_st *, void **params, void **) {
  printf("launch %s grid=%u,%u,%u slots=", (const char *)f, gx, gy, gz);
  for (int i = 0; i < g_nparams; ++i)
    printf("%s%llx", i ? "," : "", (unsigned long long)*(uint64_t *)params[i]);
  printf("\n");
  return 0;
}
}
"""

DESC_MAIN_C = r"""
#include <stdio.h>
#include "%(header)s"
int g_nparams = %(nparams)d;
static void show(int rc) { printf("rc=%%d %%s\n", rc, rc ? %(name)s_error_string(rc) : ""); }
int main(void) {
%(body)s
  return 0;
}
"""


def build_desc_program(tmp_path, header, name, nparams, body, extra_sources=()):
    (tmp_path / "fake_cuda.cpp").write_text(FAKE_CUDA_SLOTS)
    (tmp_path / "main.c").write_text(DESC_MAIN_C % dict(header=header, name=name,
                                                        nparams=nparams, body=body))
    objs = []
    for src in ["main.c", "fake_cuda.cpp", *extra_sources]:
        obj = tmp_path / (src + ".o")
        comp = CC if src.endswith(".c") else CXX
        r = subprocess.run([comp, "-c", "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path), "-o",
                            str(obj), str(tmp_path / src)], capture_output=True, text=True)
        assert r.returncode == 0, src + ": " + r.stderr
        objs.append(str(obj))
    r = subprocess.run([CXX, "-o", str(tmp_path / "main"), *objs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True)
    return [l for l in out.stdout.splitlines() if l.startswith(("launch", "rc="))]


@pytest.mark.skipif(CC is None or CXX is None, reason="no C/C++ compiler")
def test_descriptor_launcher_checks_and_packs_the_parts(tmp_path):
    """The generated launcher takes tilec_tensordesc_2d structs, returns a clear code for
    each of Triton's rules a descriptor breaks, and packs base, shapes and the first stride
    of each descriptor, then alpha, in the kernel's .param order (one 8-byte slot each)."""
    r = tilec("compile", f"{DESCS}:desc_scale", "-s", SCALE_SIG, "-g", SCALE_GRID, "-o",
              tmp_path / "scale")
    assert r.returncode == 0, r.stderr
    body = r"""
  tilec_tensordesc_2d x = {0x1000, {100, 200}, {208, 1}};
  tilec_tensordesc_2d y = {0x9000, {100, 200}, {200, 1}};
  show(scale(0, x, y, 2.0f));                        /* grid cdiv(100,32) x cdiv(200,64) */
  show(scale_grid(0, 1, 1, 1, x, y, 0.5f));
  x.base = 0x1008; show(scale(0, x, y, 1.0f)); x.base = 0x1000;
  y.shape[1] = 0; show(scale(0, x, y, 1.0f)); y.shape[1] = 200;
  x.strides[1] = 2; show(scale(0, x, y, 1.0f)); x.strides[1] = 1;
  y.strides[0] = 202; show(scale(0, x, y, 1.0f)); y.strides[0] = 200;
  show(scale(0, x, y, 3.0f));
"""
    out = build_desc_program(tmp_path, "scale.h", "scale", 9, body, ["scale.cpp"])
    assert out == [
        "launch desc_scale grid=4,4,1 slots=1000,64,c8,d0,9000,64,c8,c8,40000000",
        "rc=0 ",
        "launch desc_scale grid=1,1,1 slots=1000,64,c8,d0,9000,64,c8,c8,3f000000",
        "rc=0 ",
        "rc=-2 desc_scale: tensor descriptor src or dst: the base is not 16-byte aligned",
        "rc=-3 desc_scale: tensor descriptor src or dst: a shape entry is below 1",
        "rc=-4 desc_scale: tensor descriptor src or dst: the last stride is not 1, or another "
        "stride is not a whole multiple of 16 bytes",
        "rc=-4 desc_scale: tensor descriptor src or dst: the last stride is not 1, or another "
        "stride is not a whole multiple of 16 bytes",
        "launch desc_scale grid=4,4,1 slots=1000,64,c8,d0,9000,64,c8,c8,40400000",
        "rc=0 ",
    ]


MATMUL_SIG = ("tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 64]>, tensordesc<fp16[64, 64]>, "
              "{k}, 64, 64, 32")
MATMUL_GRID = "cdiv(c_desc.shape[0], 64), cdiv(c_desc.shape[1], 64)"


@pytest.mark.skipif(CC is None or CXX is None, reason="no C/C++ compiler")
def test_link_dispatches_descriptor_kernels_by_their_hints(tmp_path):
    """`tensordesc<..>:16` (shapes and strides multiples of 16) is a hint like `i32:16`; the
    grids' z (1, 2, 3) tells which specialisation ran."""
    specs = (("mm_any", "", "i32", 1), ("mm_k16", "", "i32:16", 2), ("mm_all16", ":16", "i32:16", 3))
    for name, d, k, z in specs:
        sig = MATMUL_SIG.replace(">,", ">" + d + ",").format(k=k)
        r = tilec("compile", f"{DESCS}:desc_matmul", "-s", sig, "-g", f"{MATMUL_GRID}, {z}",
                  "--no-cubin", "-o", tmp_path / name)
        assert r.returncode == 0, r.stderr
    r = tilec("link", *(tmp_path / (s[0] + ".h") for s in specs), "-o", tmp_path / "mm")
    assert r.returncode == 0, r.stderr
    assert "tilec_tensordesc_2d a_desc" in (tmp_path / "mm.h").read_text()
    body = r"""
  tilec_tensordesc_2d a = {0x1000, {128, 96}, {96, 1}};
  tilec_tensordesc_2d b = {0x2000, {96, 64}, {64, 1}};
  tilec_tensordesc_2d c = {0x3000, {128, 64}, {64, 1}};
  show(mm(0, a, b, c, 96));  /* everything a multiple of 16: mm_all16 */
  show(mm(0, a, b, c, 90));  /* the general one */
  a.shape[0] = 120; c.shape[0] = 120;
  show(mm(0, a, b, c, 96));  /* K % 16 == 0 only: mm_k16 */
  a.strides[0] = 90; show(mm(0, a, b, c, 96));  /* mm_k16 refuses the descriptor */
"""
    out = build_desc_program(tmp_path, "mm.h", "mm", 13, body,
                             ["mm.cpp", *(s[0] + ".cpp" for s in specs)])
    assert out == [
        "launch desc_matmul grid=2,1,3 slots=1000,80,60,60,2000,60,40,40,3000,80,40,40,60",
        "rc=0 ",
        "launch desc_matmul grid=2,1,1 slots=1000,80,60,60,2000,60,40,40,3000,80,40,40,5a",
        "rc=0 ",
        "launch desc_matmul grid=2,1,2 slots=1000,78,60,60,2000,60,40,40,3000,78,40,40,60",
        "rc=0 ",
        "rc=-4 desc_matmul: tensor descriptor a_desc, b_desc or c_desc: the last stride is not "
        "1, or another stride is not a whole multiple of 16 bytes",
    ]


def test_link_refuses_descriptors_of_different_block_shapes(tmp_path):
    other = "tensordesc<fp32[16, 64]>, tensordesc<fp32[16, 64]>, fp32, 16, 64"
    for name, s in (("a", SCALE_SIG), ("b", other)):
        r = tilec("compile", f"{DESCS}:desc_scale", "-s", s, "--no-cubin", "-o", tmp_path / name)
        assert r.returncode == 0, r.stderr
    r = tilec("link", tmp_path / "a.h", tmp_path / "b.h", "-o", tmp_path / "ab")
    assert r.returncode == 2 and "take different arguments" in r.stderr, r.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cli_refuses_a_fifo(tmp_path):
    # opening a FIFO for reading blocks until a writer comes: the CLI must not try
    fifo = tmp_path / "k.py"
    os.mkfifo(fifo)
    r = subprocess.run([TILEC, "ir", f"{fifo}:k", "--signature", "*fp32"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    assert "it is not a regular file (a device, FIFO or socket)" in r.stderr
