# The seed vector add, through the whole pipeline.
# CMD: tilec ir %s:add_kernel --signature "*fp32,*fp32,*fp32:16,i32" --constexpr BLOCK_SIZE=1024
# CHECK: module {num_stages = 3, num_warps = 4, tt.divisibility = [1, 1, 16, 1]}
# CHECK: tt.func @add_kernel(%x_ptr: ptr<fp32>, %y_ptr: ptr<fp32>, %output_ptr: ptr<fp32>, %n_elements: i32) {
# CHECK-NEXT: %0 = program_id {axis = 0} : i32
# CHECK-NEXT: %1 = constant {value = 1024} : i32
# CHECK-NEXT: %2 = mul %0, %1 : i32
# CHECK-NEXT: %3 = arange {end = 1024, start = 0} : tile<1024xi32>
# CHECK: %7 = cmp %5, %6 {pred = "lt"} : tile<1024xi32> -> tile<1024xi1>
# CHECK: load %{{[0-9]+}}, %7 : tile<1024xptr<fp32>>, tile<1024xi1> -> tile<1024xfp32>
# CHECK: load %{{[0-9]+}}, %7 : tile<1024xptr<fp32>>, tile<1024xi1> -> tile<1024xfp32>
# CHECK: add %{{[0-9]+}}, %{{[0-9]+}} : tile<1024xfp32>
# CHECK: store %{{[0-9]+}}, %{{[0-9]+}}, %7
# CHECK-NEXT: return
import tilec as triton
import tilec.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
