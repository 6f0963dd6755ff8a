# fp8e4b15 (Triton's software fp8, support/FloatFormats.h) converts with integer operations:
# upcast: its sign and its other 7 bits moved into an fp16's (<< 8, << 7), then cvt to f32;
# downcast from f32: toward zero to fp16, the magnitude clamped to 1.75 (0x3f00 = 16128),
# doubled plus 0x80 and the top byte kept, with the source's sign (bit 31).
# CMD: tilec ptx %s:k --signature "*fp8e4b15,*fp32,*fp32,*fp8e4b15" --arch sm_90a
# CHECK: ld.global.u8 %rs{{[0-9]+}}
# CHECK: and.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 128;
# CHECK-NEXT: shl.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 8;
# CHECK-NEXT: and.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 127;
# CHECK-NEXT: shl.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 7;
# CHECK-NEXT: or.b16
# CHECK-NEXT: cvt.f32.f16
# CHECK: shr.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16;
# CHECK: cvt.rz.f16.f32
# CHECK-NEXT: and.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 32767;
# CHECK-NEXT: min.u16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 16128;
# CHECK-NEXT: shl.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 1;
# CHECK-NEXT: add.u16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 128;
# CHECK-NEXT: or.b16
# CHECK-NEXT: shr.b16 %rs{{[0-9]+}}, %rs{{[0-9]+}}, 8;
# CHECK-NEXT: st.global.b8
import tilec as triton
import tilec.language as tl


@triton.jit
def k(X, Y, Z, W):
    o = tl.arange(0, 128)
    tl.store(Y + o, tl.load(X + o).to(tl.float32))
    tl.store(W + o, tl.load(Z + o).to(tl.float8e4b15))
