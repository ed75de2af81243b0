// Two kernels in one program: one zebin, two entries in .ze_info, two
// .text.* sections, one symbol each.
__kernel void scale(__global float* data, float factor) {
  size_t i = get_global_id(0);
  data[i] *= factor;
}

__kernel void offset_by(__global int* data, long delta, __local int* tile) {
  size_t lid = get_local_id(0);
  tile[lid] = data[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  data[get_global_id(0)] = tile[(lid + 1) % get_local_size(0)] + (int)delta;
}
