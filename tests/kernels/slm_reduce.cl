// Work-group reduction through shared local memory (SLM) with barriers: one
// fixed 1 KiB SLM array plus a dynamically sized __local argument.
__kernel void slm_reduce(__global const float* in, __global float* out,
                         __local float* scratch) {
  __local float fixed_tile[256];
  size_t lid = get_local_id(0);
  fixed_tile[lid] = in[get_global_id(0)];
  scratch[lid] = fixed_tile[lid] * 2.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) {
      scratch[lid] += scratch[lid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    out[get_group_id(0)] = scratch[0];
  }
}
