// A private array written and read at run-time indices: it cannot live in
// registers, so the compiler puts it in private (scratch) memory.
__kernel void private_array(__global const int* idx, __global int* out) {
  int table[512];
  size_t gid = get_global_id(0);
  for (int i = 0; i < 512; ++i) {
    table[(i * idx[i]) & 511] = idx[i + gid];
  }
  out[gid] = table[idx[gid] & 511];
}
