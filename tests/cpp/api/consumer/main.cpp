// Compiles a kernel through the installed public API: `consumer KERNELS.py` prints the
// kernel's name, its .params and the size of its PTX; exit 1 on any tilec::Error.
#include <cstdio>

#include <tilec/tilec.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer seed_kernels.py\n");
    return 2;
  }
  try {
    tilec::CompileOptions o;
    o.kernel = "add_kernel";
    o.signature = "*fp32:16,*fp32:16,*fp32:16,i32,1024";
    tilec::CompiledKernel k = tilec::compile_file(argv[1], o);
    std::printf("%s: %zu params, %zu bytes of PTX, %s\n", k.name().c_str(), k.params().size(),
                k.ptx().size(), k.cubin().empty() ? "no cubin" : "cubin");
    o.signature = "*fp32:16";
    tilec::compile_file(argv[1], o);
  } catch (const tilec::InvalidArgument &e) {
    std::printf("InvalidArgument: %s\n", e.what()); // the expected end
    return 0;
  } catch (const tilec::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "a bad signature was accepted\n");
  return 1;
}
