// 40 arguments of mixed types and sizes (pointers 8 bytes, values 1-8 bytes),
// all used so none is optimised away.
__kernel void many_args(__global float* a0,
                        int a1,
                        float a2,
                        long a3,
                        char a4,
                        short a5,
                        __constant float* a6,
                        uchar a7,
                        __global int* a8,
                        ulong a9,
                        __global float* a10,
                        int a11,
                        float a12,
                        long a13,
                        char a14,
                        short a15,
                        __constant float* a16,
                        uchar a17,
                        __global int* a18,
                        ulong a19,
                        __global float* a20,
                        int a21,
                        float a22,
                        long a23,
                        char a24,
                        short a25,
                        __constant float* a26,
                        uchar a27,
                        __global int* a28,
                        ulong a29,
                        __global float* a30,
                        int a31,
                        float a32,
                        long a33,
                        char a34,
                        short a35,
                        __constant float* a36,
                        uchar a37,
                        __global int* a38,
                        ulong a39) {
  float acc = 0.0f;
  acc += (float)a0[0];
  acc += (float)a1;
  acc += (float)a2;
  acc += (float)a3;
  acc += (float)a4;
  acc += (float)a5;
  acc += (float)a6[0];
  acc += (float)a7;
  acc += (float)a8[0];
  acc += (float)a9;
  acc += (float)a10[0];
  acc += (float)a11;
  acc += (float)a12;
  acc += (float)a13;
  acc += (float)a14;
  acc += (float)a15;
  acc += (float)a16[0];
  acc += (float)a17;
  acc += (float)a18[0];
  acc += (float)a19;
  acc += (float)a20[0];
  acc += (float)a21;
  acc += (float)a22;
  acc += (float)a23;
  acc += (float)a24;
  acc += (float)a25;
  acc += (float)a26[0];
  acc += (float)a27;
  acc += (float)a28[0];
  acc += (float)a29;
  acc += (float)a30[0];
  acc += (float)a31;
  acc += (float)a32;
  acc += (float)a33;
  acc += (float)a34;
  acc += (float)a35;
  acc += (float)a36[0];
  acc += (float)a37;
  acc += (float)a38[0];
  acc += (float)a39;
  a0[get_global_id(0)] = acc;
}
