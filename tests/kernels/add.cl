// Element-wise add: the smallest useful kernel (three global pointers, one int).
__kernel void add(__global const float* a, __global const float* b,
                  __global float* out, int n) {
  int i = get_global_id(0);
  if (i < n) {
    out[i] = a[i] + b[i];
  }
}
