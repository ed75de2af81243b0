// Requires sub-group size 16: the launcher's threads-per-warp must be 16.
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void subgroup16(__global const float* in, __global float* out) {
  size_t gid = get_global_id(0);
  out[gid] = sub_group_reduce_add(in[gid]);
}
