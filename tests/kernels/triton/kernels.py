"""The project's real Triton test kernels (needs triton-xpu 3.3.0b1).

Imported only by make_triton_spirv.py, which compiles them to SPIR-V; see
that script and README.md.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

import triton
import triton.language as tl

# The Triton scalar types, in the order of the `scalars` kernel's parameters.
SCALAR_TYPES = ["i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                "fp16", "bf16", "fp32", "fp64"]


class KernelSpec:
    """One kernel to compile: the JIT function, its signature (every
    parameter in order, 'constexpr' for constexprs), constexpr values and
    compile options."""

    def __init__(self, name: str, fn: Any, signature: Dict[str, str],
                 constants: Dict[str, Any], options: Dict[str, Any],
                 purpose: str) -> None:
        self.name = name
        self.fn = fn
        self.signature = signature
        self.constants = constants
        self.options = options
        self.purpose = purpose


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
            BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
           stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def scalars(out_ptr, v_i1, v_i8, v_i16, v_i32, v_i64, v_u8, v_u16, v_u32, v_u64,
            v_fp16, v_bf16, v_fp32, v_fp64):
    # Each value widened to 64 bits; floats as their own bits (no fp64
    # arithmetic, which dg2 lacks).
    tl.store(out_ptr + 0, v_i1.to(tl.int64))
    tl.store(out_ptr + 1, v_i8.to(tl.int64))
    tl.store(out_ptr + 2, v_i16.to(tl.int64))
    tl.store(out_ptr + 3, v_i32.to(tl.int64))
    tl.store(out_ptr + 4, v_i64)
    tl.store(out_ptr + 5, v_u8.to(tl.int64))
    tl.store(out_ptr + 6, v_u16.to(tl.int64))
    tl.store(out_ptr + 7, v_u32.to(tl.int64))
    tl.store(out_ptr + 8, v_u64.to(tl.int64, bitcast=True))
    tl.store(out_ptr + 9, v_fp16.to(tl.int16, bitcast=True).to(tl.int64))
    tl.store(out_ptr + 10, v_bf16.to(tl.int16, bitcast=True).to(tl.int64))
    tl.store(out_ptr + 11, v_fp32.to(tl.int32, bitcast=True).to(tl.int64))
    tl.store(out_ptr + 12, v_fp64.to(tl.int64, bitcast=True))


@triton.jit
def spill(in_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program holds a whole BLOCK_M x BLOCK_N tile in registers
    # across two reductions: far more than 128 GRF for one warp.
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    base = pid * BLOCK_M * BLOCK_N
    x = tl.load(in_ptr + base + rows * BLOCK_N + cols)
    y = x * tl.sum(x, axis=1)[:, None] + tl.max(x, axis=0)[None, :]
    tl.store(out_ptr + base + rows * BLOCK_N + cols, y)


@triton.jit
def constexpr_args(x_ptr, SCALE: tl.constexpr, out_ptr, n_elements,
                   BLOCK_SIZE: tl.constexpr, USE_RELU: tl.constexpr):
    # constexprs between, and after, the runtime arguments.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    y = tl.load(x_ptr + offsets, mask=mask) * SCALE
    if USE_RELU:
        y = tl.maximum(y, 0.0)
    tl.store(out_ptr + offsets, y, mask=mask)

def _sig(fn: Any, types: Sequence[str]) -> Dict[str, str]:
    return dict(zip(fn.arg_names, types))


KERNELS: List[KernelSpec] = [
    KernelSpec("vector_add", vector_add,
               _sig(vector_add, ["*fp32", "*fp32", "*fp32", "i32", "constexpr"]),
               {"BLOCK_SIZE": 1024}, {"num_warps": 4},
               "fp32 vector add, 1024 elements per program"),
    KernelSpec("softmax", softmax,
               _sig(softmax, ["*fp32", "*fp32", "i32", "i32", "i32", "constexpr"]),
               {"BLOCK_SIZE": 1024}, {"num_warps": 4},
               "row softmax, one row per program (cross-warp reductions "
               "through shared memory)"),
    KernelSpec("matmul", matmul,
               _sig(matmul, ["*fp16", "*fp16", "*fp32"] + ["i32"] * 9
                   + ["constexpr"] * 3),
               {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16},
               {"num_warps": 4, "threads_per_warp": 16},
               "tl.dot matmul, fp16 inputs, fp32 accumulator, sub-group 16"),
    KernelSpec("scalars", scalars,
               _sig(scalars, ["*i64"] + SCALAR_TYPES), {}, {"num_warps": 1},
               "one scalar of each Triton scalar type, each written to out_ptr"),
    KernelSpec("spill", spill,
               _sig(spill, ["*fp32", "*fp32", "constexpr", "constexpr"]),
               {"BLOCK_M": 32, "BLOCK_N": 128},
               {"num_warps": 1, "threads_per_warp": 16},
               "a 32x128 fp32 tile in one 16-wide warp: spills at 128 GRF"),
    KernelSpec("constexpr_args", constexpr_args,
               _sig(constexpr_args, ["*fp32", "constexpr", "*fp32", "i32",
                                    "constexpr", "constexpr"]),
               {"SCALE": 2.5, "BLOCK_SIZE": 256, "USE_RELU": True},
               {"num_warps": 2},
               "constexprs before, between and after runtime arguments"),
]


