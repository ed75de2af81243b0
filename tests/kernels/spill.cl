// Many values live at once (a fully unrolled register tile, SIMD32): with
// 128 GRF the register allocator runs out and spills to scratch; with 256
// GRF there is room.
#define N 40
__attribute__((intel_reqd_sub_group_size(32)))
__kernel void spill(__global const float4* in, __global float4* out) {
  size_t gid = get_global_id(0);
  float4 v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    v[i] = in[gid * N + i];
  }
  float4 acc = (float4)(0.0f);
#pragma unroll
  for (int i = 0; i < N; ++i) {
    acc = acc * v[i] + v[N - 1 - i];
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    out[gid * N + i] = v[i] * acc;
  }
}
