// GELU (tanh approximation, through exp, as the seed's Triton kernel writes it) in CUDA
// C++: the hand-written reference of issue 22's GELU row (benchmarks/gpu_gelu_cuda.py builds
// it with nvcc and times it beside tilec's kernel and torch's). Four elements a thread
// through 16-byte loads and stores; n must be a multiple of 4.
extern "C" __global__ void gelu_f32x4(const float4 *__restrict__ x, float4 *__restrict__ y,
                                      long long n4) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n4)
    return;
  float4 v = x[i];
  float *e = reinterpret_cast<float *>(&v);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float t = e[k];
    float a = 0.79788456f * (t + 0.044715f * t * t * t);
    float ex = expf(2.0f * a);
    e[k] = 0.5f * t * (1.0f + (ex - 1.0f) / (ex + 1.0f));
  }
  y[i] = v;
}
