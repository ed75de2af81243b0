"""Triton kernels with 8 and 24 runtime arguments, for the launch tests and
benchmark beside vector_add's 4 (tests/kernels/triton/kernels.py). Each adds
its inputs into the first pointer; the last runtime argument is the element
count. Needs triton."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _sum6(a1, a2, a3, a4, a5, a6, offsets, mask):
    acc = tl.load(a1 + offsets, mask=mask) + tl.load(a2 + offsets, mask=mask)
    acc += tl.load(a3 + offsets, mask=mask) + tl.load(a4 + offsets, mask=mask)
    return acc + tl.load(a5 + offsets, mask=mask) + tl.load(a6 + offsets, mask=mask)


@triton.jit
def add8(out_ptr, a1, a2, a3, a4, a5, a6, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, _sum6(a1, a2, a3, a4, a5, a6, offsets, mask), mask=mask)


@triton.jit
def add24(
    out_ptr,
    a1,
    a2,
    a3,
    a4,
    a5,
    a6,
    a7,
    a8,
    a9,
    a10,
    a11,
    a12,
    a13,
    a14,
    a15,
    a16,
    a17,
    a18,
    a19,
    a20,
    a21,
    a22,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    acc = _sum6(a1, a2, a3, a4, a5, a6, offsets, mask)
    acc += _sum6(a7, a8, a9, a10, a11, a12, offsets, mask)
    acc += _sum6(a13, a14, a15, a16, a17, a18, offsets, mask)
    acc += _sum6(a19, a20, a21, a22, a22, a22, offsets, mask)
    tl.store(out_ptr + offsets, acc, mask=mask)
