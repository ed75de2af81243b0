"""The real torch 2.13 Inductor class drives this module unchanged:
StaticallyLaunchedXpuKernel is built from a stand-in CompiledKernel whose
asm["zebin"] is a real ocloc-built zebin; it writes, loads and runs it
through torch._C._StaticXpuLauncher, and the test driver sees the launch."""

from __future__ import annotations

import pickle

import pytest

import launcher_support as support

pytestmark = support.launcher_tests()
torch = pytest.importorskip("torch")

if support.missing_prerequisites() is None:
    from torch._inductor.runtime import static_triton_launcher as stl
    from xpu_static_launcher._launcher import StaticXpuLauncher

KERNEL = support.TRITON_ADD_KERNEL
NUM_WARPS = support.NUM_WARPS
THREADS_PER_WARP = support.THREADS_PER_WARP
StandInCompiledKernel = support.StandInCompiledKernel


@pytest.fixture(scope="module")
def zebin_bytes() -> bytes:
    # Like Triton-XPU's zebins, this one carries kernels_misc_info.
    data = support.compile_opencl(support.TRITON_ADD_SOURCE).read_bytes()
    assert b"kernels_misc_info" in data
    return data


@pytest.fixture()
def device_buffers():
    yield from support.device_buffers(2)


@pytest.mark.parametrize("with_scratch_fields", [True, False])
def test_inductor_writes_loads_and_runs_the_kernel(
    installed, zebin_bytes, device_buffers, tmp_path, with_scratch_fields
):
    compiled = StandInCompiledKernel(zebin_bytes, with_scratch_fields)
    kernel = stl.statically_launched_kernel_by_device(compiled, "xpu")
    assert type(kernel) is stl.StaticallyLaunchedXpuKernel
    assert kernel.C_impl is StaticXpuLauncher
    assert kernel.arg_tys == "OOi"  # XBLOCK (constexpr) filtered by Inductor
    assert kernel.has_global_scratch is with_scratch_fields
    assert kernel.has_profile_scratch is with_scratch_fields

    path = kernel.reload_cubin_from_raw(str(tmp_path / "cache" / f"{KERNEL}.zebin"))
    assert open(path, "rb").read() == zebin_bytes
    # Before load the object is what FX graph / autotune caches pickle.
    restored = pickle.loads(pickle.dumps(kernel))
    assert restored.function is None and restored.cubin_raw == zebin_bytes

    kernel.load_kernel(0)
    assert kernel.n_regs == 0  # default GRF mode, as Triton-XPU reports it
    assert kernel.n_spills == 0
    assert kernel.cubin_path is None and kernel.cubin_raw is None

    src, dst = device_buffers
    records = support.DriverRecords()
    records.clear()
    grid_x = 5
    kernel.run(grid_x, 1, 1, 0, support.FakeTensor(src), support.FakeTensor(dst), 1000)
    assert records.count() == 1
    launch = records.launch(0)
    assert launch["kernel_name"] == KERNEL
    assert launch["group_count"] == (grid_x, 1, 1)
    assert launch["group_size"] == (NUM_WARPS * THREADS_PER_WARP, 1, 1)
    assert [a["size"] for a in launch["args"]] == [8, 8, 4, 8, 8]
    assert [a["bytes"] for a in launch["args"]] == [
        support.le_bytes(src, 8),
        support.le_bytes(dst, 8),
        support.le_bytes(1000, 4),
        bytes(8),
        bytes(8),
    ]

    kernel.close()
    assert kernel.function is None


def test_cpu_tensor_is_rejected_before_the_launch(installed, zebin_bytes, tmp_path):
    compiled = StandInCompiledKernel(zebin_bytes, True)
    kernel = stl.StaticallyLaunchedXpuKernel(compiled)
    kernel.reload_cubin_from_raw(str(tmp_path / f"{KERNEL}.zebin"))
    kernel.load_kernel(0)
    records = support.DriverRecords()
    records.clear()
    cpu = torch.zeros(16)
    with pytest.raises(ValueError, match="argument 0 .*not device memory"):
        kernel.run(1, 1, 1, 0, cpu, cpu, 16)
    assert records.count() == 0


# Triton declares fp16 and bf16 parameters `half`; the zebin's
# kernels_misc_info says 'half;2' for both.
HALF_SCALAR_SOURCE = r"""
__kernel void triton_scale(__global float* out_ptr0, half scale,
                           __global void* global_scratch,
                           __global void* profile_scratch) {
  out_ptr0[get_global_id(0)] = (float)scale;
}
"""


@pytest.fixture(scope="module")
def half_scalar_zebin() -> bytes:
    data = support.compile_opencl(HALF_SCALAR_SOURCE).read_bytes()
    assert b"'half;2'" in data
    return data


def _load_half_kernel(zebin: bytes, tmp_path, triton_type: str):
    signature = {"out_ptr0": "*fp32", "scale": triton_type}
    compiled = StandInCompiledKernel(zebin, True, "triton_scale", signature)
    kernel = stl.StaticallyLaunchedXpuKernel(compiled)
    kernel.reload_cubin_from_raw(str(tmp_path / "triton_scale.zebin"))
    kernel.load_kernel(0)
    return kernel


@pytest.mark.parametrize("triton_type", ["fp16", "bf16"])
def test_torch_2_13_half_scalar_is_refused_not_guessed(
    installed, half_scalar_zebin, device_buffers, tmp_path, triton_type
):
    # torch 2.13 maps fp16 and bf16 (and fp32) to 'f': the launcher cannot
    # know which bits the kernel wants, so it refuses instead of guessing.
    kernel = _load_half_kernel(half_scalar_zebin, tmp_path, triton_type)
    assert kernel.arg_tys == "Of"
    records = support.DriverRecords()
    records.clear()
    with pytest.raises(ValueError) as error:
        kernel.run(1, 1, 1, 0, support.FakeTensor(device_buffers[0]), 3.140625)
    message = str(error.value)
    assert "kernel 'triton_scale': argument 1 ('f', float32)" in message
    assert "'half;2'" in message and "'e' (float16) or 'y' (bfloat16)" in message
    assert records.count() == 0


@pytest.mark.parametrize("triton_type, bits", [("fp16", 0x4248), ("bf16", 0x4049)])
def test_torch_2_15_codes_give_the_right_half_bits(
    installed, half_scalar_zebin, device_buffers, tmp_path, monkeypatch, triton_type, bits
):
    # torch >= 2.15 maps fp16 -> 'e' and bf16 -> 'y' (its
    # static_triton_launcher.py type_mappings); the rest of its table is 2.13's.
    table = dict(stl.StaticallyLaunchedTritonKernel.type_mappings())
    table.update({"fp16": "e", "bf16": "y"})
    monkeypatch.setattr(stl.StaticallyLaunchedTritonKernel, "type_mappings", staticmethod(lambda: table))
    kernel = _load_half_kernel(half_scalar_zebin, tmp_path, triton_type)
    assert kernel.arg_tys == "O" + table[triton_type]
    records = support.DriverRecords()
    records.clear()
    kernel.run(1, 1, 1, 0, support.FakeTensor(device_buffers[0]), 3.140625)
    scale = records.launch(0)["args"][1]
    # 3.140625 is 0x4248 as fp16 and 0x4049 as bf16; a bf16 kernel reading
    # the fp16 bits 0x4248 sees 50.0, the bug this guards against.
    assert scale["bytes"][:2] == bits.to_bytes(2, "little")
