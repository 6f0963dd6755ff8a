# A constexpr parameter with a default needs no --constexpr; --locations prints each
# op's source position (the user's file and absolute line).
# CMD: tilec ir %s:k --signature "*fp16:16,i32:16" --locations
# CHECK: module {num_stages = 3, num_warps = 4, tt.divisibility = [16, 16]}
# CHECK: tt.func @k(%out: ptr<fp16>, %n: i32) loc("{{.*}}kernel-defaults-and-locations.py":15:1)
# CHECK: arange {end = 32, start = 0} : tile<32xi32> loc("{{.*}}kernel-defaults-and-locations.py":17:12)
# CHECK: store {{.*}} loc("{{.*}}kernel-defaults-and-locations.py":18:5)
import tilec as triton
import tilec.language as tl

SCALE = 0.5


@triton.jit
def k(out, n, BLOCK: tl.constexpr = 32):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK) + pid * BLOCK
    tl.store(out + offs, (offs * SCALE).to(tl.float16), mask=offs < n)
