"""Real Triton kernels: tests/kernels/triton/*.spv, compiled from Triton by
triton-xpu 3.3.0b1 (make_triton_spirv.py) and built to zebins by ocloc in the
corpus (triton_manifest.json), through zebin-info, zebin-info --load with the
test driver, and torch 2.13's StaticallyLaunchedXpuKernel with the launcher.

The stand-in CompiledKernel is built from the metadata Triton wrote next to
each SPIR-V file (<kernel>.json), so the launch sees what Inductor would."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import launcher_support as support
from zebin_support import run_zebin_info

KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels" / "triton"
KERNELS: dict[str, dict[str, Any]] = {
    path.stem: json.loads(path.read_text()) for path in sorted(KERNEL_DIR.glob("*.json"))
}
TRITON_VERSION = "3.3.0b1"
TRITON_DEVICES = ["pvc", "dg2", "acm-g10"]

# Bytes of each Triton scalar type.
TYPE_SIZES = {
    "i1": 1,
    "i8": 1,
    "i16": 2,
    "i32": 4,
    "i64": 8,
    "u8": 1,
    "u16": 2,
    "u32": 4,
    "u64": 8,
    "fp16": 2,
    "bf16": 2,
    "fp32": 4,
    "fp64": 8,
}
# The parameter type names in real Triton zebins' kernels_misc_info. SPIR-V
# integers are signless, and Triton declares a bf16 parameter as half: the
# zebin cannot tell fp16 from bf16, nor i8 from u8.
TYPE_NAMES = {
    "i1": "bool;1",
    "i8": "char;1",
    "i16": "short;2",
    "i32": "int;4",
    "i64": "long;8",
    "u8": "char;1",
    "u16": "short;2",
    "u32": "int;4",
    "u64": "long;8",
    "fp16": "half;2",
    "bf16": "half;2",
    "fp32": "float;4",
    "fp64": "double;8",
}
# torch 2.13's StaticallyLaunchedTritonKernel.type_mappings for these types.
TORCH_CODES = {
    "i1": "i",
    "i8": "b",
    "i16": "h",
    "i32": "i",
    "i64": "l",
    "u8": "B",
    "u16": "H",
    "u32": "I",
    "u64": "K",
    "fp16": "f",
    "bf16": "f",
    "fp32": "f",
    "fp64": "d",
}


def runtime_types(meta: dict[str, Any]) -> list[str]:
    """The kernel's parameters without its constexprs, in order."""
    return [t for t in meta["signature"].values() if t != "constexpr"]


@pytest.fixture(scope="module")
def triton_files(zebin_corpus: Path) -> list[dict[str, Any]]:
    manifest = zebin_corpus / "triton_manifest.json"
    if not manifest.is_file():
        pytest.skip(f"no {manifest}: rebuild target xsl_zebin_corpus")
    return json.loads(manifest.read_text())["files"]


def builds_of(files: list[dict[str, Any]], kernel: str) -> list[dict[str, Any]]:
    found = [e for e in files if e["kernel"] == kernel]
    assert found, f"the corpus has no zebin of Triton kernel {kernel}"
    return found


def test_committed_spirv_matches_its_metadata() -> None:
    assert set(KERNELS) == {p.stem for p in KERNEL_DIR.glob("*.spv")}
    assert set(KERNELS) == {"vector_add", "softmax", "matmul", "scalars", "spill", "constexpr_args"}
    for name, meta in KERNELS.items():
        spirv = (KERNEL_DIR / f"{name}.spv").read_bytes()
        assert spirv[:4] == b"\x03\x02\x23\x07", name  # SPIR-V magic, little-endian
        assert hashlib.sha256(spirv).hexdigest() == meta["spv_sha256"], (
            f"{name}.spv differs from {name}.json: rerun make_triton_spirv.py"
        )
        assert len(spirv) < 64 * 1024, name
        assert meta["triton_version"] == TRITON_VERSION
        assert meta["name"] == name and meta["num_ctas"] == 1
        assert meta["build_flags"] == ""  # Triton's default GRF mode


def test_every_kernel_is_built_for_each_device_and_grf_mode(
    triton_files: list[dict[str, Any]], zebin_corpus: Path
) -> None:
    devices = [d for d in TRITON_DEVICES if d in json.loads((zebin_corpus / "manifest.json").read_text())["devices"]]
    assert "pvc" in devices
    built = {(e["kernel"], e["device"], e["grf_mode"]) for e in triton_files}
    for name, meta in KERNELS.items():
        for device in devices:
            if meta["needs_fp64"] and device != "pvc":
                assert (name, device, 128) not in built  # dg2 has no fp64
                continue
            assert {(name, device, 128), (name, device, 256)} <= built, (name, device)
    for entry in triton_files:
        assert (zebin_corpus / entry["file"]).is_file()
        large = entry["grf_mode"] == 256
        assert ("-cl-intel-256-GRF-per-thread" in entry["options"]) == large


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_zebin_info_reads_what_triton_compiled(
    name: str, exe: Path, zebin_corpus: Path, triton_files: list[dict[str, Any]]
) -> None:
    meta = KERNELS[name]
    types = runtime_types(meta)
    for entry in builds_of(triton_files, name):
        result = run_zebin_info(exe, "--json", str(zebin_corpus / entry["file"]))
        assert result.returncode == 0, result.stderr
        doc = json.loads(result.stdout)
        assert doc["warnings"] == [], entry["file"]
        (kernel,) = doc["kernels"]
        where = f"{entry['file']}: {kernel}"
        assert kernel["name"] == meta["name"], where
        assert kernel["grf_count"] == entry["grf_mode"], where
        # Triton fixes the sub-group size to threads_per_warp.
        assert kernel["simd_size"] == meta["threads_per_warp"], where
        assert kernel["required_sub_group_size"] == meta["threads_per_warp"], where
        assert kernel["threads_per_warp"] == meta["threads_per_warp"], where
        # Triton's shared memory is all dynamic: a trailing local pointer
        # argument sized at launch, nothing static.
        assert kernel["slm_size"] == 0, where
        args = kernel["args"]
        assert len(args) == len(types) + (1 if meta["shared"] > 0 else 0), where
        if meta["shared"] > 0:
            assert args[-1]["kind"] == "local_pointer", where
        assert (kernel["barrier_count"] > 0) == (meta["shared"] > 0), where
        for arg, ty in zip(args, types):
            if ty.startswith("*"):
                assert (arg["kind"], arg["size"]) == ("global_pointer", 8), (where, arg)
            else:
                assert arg["kind"] == "by_value", (where, arg)
                assert arg["type_size"] == TYPE_SIZES[ty], (where, arg)
                assert arg["type_name"] == TYPE_NAMES[ty], (where, arg)
            assert arg["name"] == "", (where, arg)  # Triton's SPIR-V names none
        if name == "spill" and entry["grf_mode"] == 128:
            assert kernel["spill_size"] > 0, where
        if name in ("vector_add", "scalars", "constexpr_args"):
            assert kernel["spill_size"] == 0 and kernel["private_size"] == 0, where


def _load(exe: Path, zebin: Path, device: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("XSL_LEVEL_ZERO_LOADER", None)
    env.update(ZE_ENABLE_ALT_DRIVERS=str(support.DRIVER_PATH), XSL_TEST_DRIVER_PRODUCT=device)
    return subprocess.run(
        [str(exe), "--load", "--json", str(zebin)], capture_output=True, text=True, env=env, timeout=60, check=False
    )


@pytest.mark.skipif(sys.platform != "linux", reason="Linux test driver")
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_zebin_info_load_into_the_test_driver(
    name: str, exe: Path, zebin_corpus: Path, triton_files: list[dict[str, Any]]
) -> None:
    if not support.DRIVER_PATH.is_file():
        pytest.skip(f"test driver not built: {support.DRIVER_PATH}")
    for entry in builds_of(triton_files, name):
        result = _load(exe, zebin_corpus / entry["file"], entry["device"])
        assert result.returncode == 0, (entry["file"], result.stdout, result.stderr)
        metadata, load = [json.loads(line) for line in result.stdout.splitlines()]
        assert load["loaded"] is True, entry["file"]
        (kernel,) = load["kernels"]
        assert kernel["name"] == name and kernel["agree"] is True, (entry["file"], kernel)
        props = {p["property"]: p["driver"] for p in kernel["properties"]}
        assert props["numKernelArgs"] == len(metadata["kernels"][0]["args"])
        assert props["requiredSubgroupSize"] == KERNELS[name]["threads_per_warp"]


# --- torch 2.13's StaticallyLaunchedXpuKernel into the launcher -----------

launcher_only = support.launcher_tests()
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


class TritonCompiledKernel:
    """What StaticallyLaunchedXpuKernel reads from triton's CompiledKernel,
    from the metadata triton-xpu 3.3.0b1 wrote for the kernel. Triton 3.3
    keys constants by (index,) tuples and has no scratch sizes."""

    # triton.knobs is absent without triton: the class hooks are read.
    launch_enter_hook = None
    launch_exit_hook = None

    def __init__(self, meta: dict[str, Any], zebin: bytes) -> None:
        names = list(meta["signature"])
        params = [
            SimpleNamespace(num=i, is_constexpr=(meta["signature"][n] == "constexpr")) for i, n in enumerate(names)
        ]
        fn = SimpleNamespace(__name__=meta["name"], arg_names=names, params=params)
        constants = {(names.index(k),): v for k, v in meta["constants"].items()}
        self.src = SimpleNamespace(fn=fn, signature=dict(meta["signature"]), constants=constants)
        self.asm = {"zebin": zebin}
        self.hash = meta["spv_sha256"]
        self._cubin_path = None
        assert not meta["scratch_sizes_in_metadata"]
        self.metadata = SimpleNamespace(
            name=meta["name"],
            num_warps=meta["num_warps"],
            num_ctas=meta["num_ctas"],
            shared=meta["shared"],
            threads_per_warp=meta["threads_per_warp"],
            build_flags=meta["build_flags"],
            triton_version=meta["triton_version"],
        )


@pytest.fixture()
def device_buffers() -> Iterator[list[int]]:
    """Device allocations a test adds to the list, freed afterwards."""
    yield from support.device_buffers(0)


def load_static_kernel(name: str, zebin: Path, tmp_path: Path) -> Any:
    from torch._inductor.runtime import static_triton_launcher as stl

    compiled = TritonCompiledKernel(KERNELS[name], zebin.read_bytes())
    kernel = stl.statically_launched_kernel_by_device(compiled, "xpu")
    assert type(kernel) is stl.StaticallyLaunchedXpuKernel
    assert not kernel.has_global_scratch and not kernel.has_profile_scratch
    kernel.reload_cubin_from_raw(str(tmp_path / f"{name}.zebin"))
    kernel.load_kernel(0)
    return kernel


@pytest.fixture
def pvc_zebin(zebin_corpus: Path, triton_files: list[dict[str, Any]]) -> Callable[[str, int], Path]:
    """The corpus's pvc zebin of a Triton kernel, by kernel name and GRF mode."""

    def find(name: str, grf: int) -> Path:
        for entry in triton_files:
            if (entry["kernel"], entry["device"], entry["grf_mode"]) == (name, "pvc", grf):
                return zebin_corpus / entry["file"]
        raise AssertionError(f"no pvc grf{grf} zebin of {name}")

    return find


def launch_values(types: list[str], buffers: list[int]) -> tuple[list[Any], list[bytes]]:
    """A value for each runtime parameter of the non-scalar kernels and the
    bytes the kernel must receive for it."""
    from xpu_static_launcher import launcher

    values: list[Any] = []
    expected: list[bytes] = []
    for i, ty in enumerate(types):
        if ty.startswith("*"):
            buffers.append(launcher.device_alloc(0, 4096))
            values.append(support.FakeTensor(buffers[-1]))
            expected.append(support.le_bytes(buffers[-1], 8))
        else:
            assert ty == "i32", ty
            values.append(1000 + 17 * i)
            expected.append(support.le_bytes(1000 + 17 * i, 4))
    return values, expected


GRIDS = {
    "vector_add": (7, 1, 1),
    "softmax": (33, 1, 1),
    "matmul": (3, 5, 1),
    "spill": (4, 1, 1),
    "constexpr_args": (2, 1, 1),
}


@launcher_only
@needs_torch
@pytest.mark.parametrize("grf", [128, 256])
@pytest.mark.parametrize("name", sorted(GRIDS))
def test_inductor_launches_the_real_kernel(
    name: str,
    grf: int,
    installed,
    records,
    device_buffers: list[int],
    pvc_zebin: Callable[[str, int], Path],
    tmp_path: Path,
) -> None:
    from xpu_static_launcher import launcher

    meta = KERNELS[name]
    types = runtime_types(meta)
    kernel = load_static_kernel(name, pvc_zebin(name, grf), tmp_path)
    assert kernel.arg_tys == "".join("O" if t.startswith("*") else TORCH_CODES[t] for t in types)
    if name == "constexpr_args":
        assert kernel.arg_tys == "OOi"  # SCALE, BLOCK_SIZE, USE_RELU filtered out
    assert kernel.shared == meta["shared"] and kernel.num_warps == meta["num_warps"]
    info = launcher.kernel_info(kernel.function)
    assert info["threads_per_warp"] == meta["threads_per_warp"]
    assert kernel.n_spills == info["spill_bytes"]
    if grf == 256:
        assert kernel.n_regs == 256
    if name == "spill" and grf == 128:
        assert kernel.n_spills > 0

    values, expected = launch_values(types, device_buffers)
    grid = GRIDS[name]
    records.clear()
    kernel.run(*grid, 0, *values)
    assert records.count() == 1
    launch = records.launch(0)
    assert launch["kernel_name"] == name
    assert launch["group_count"] == grid
    assert launch["group_size"] == (meta["num_warps"] * meta["threads_per_warp"], 1, 1)
    args = launch["args"]
    assert all(a["is_set"] for a in args)
    assert [a["bytes"] for a in args[: len(types)]] == expected
    if meta["shared"] > 0:
        assert len(args) == len(types) + 1
        assert args[-1]["is_null"] and args[-1]["size"] == meta["shared"]
    else:
        assert len(args) == len(types)
    kernel.close()


# The scalars kernel: (out_ptr, one scalar of each Triton type). Kernel
# argument i + 1 is scalar i.
SCALAR_VALUES = {
    "i1": True,
    "i8": -3,
    "i16": -300,
    "i32": -70000,
    "i64": -(2**40),
    "u8": 200,
    "u16": 60000,
    "u32": 2**31 + 5,
    "u64": 2**63 + 7,
    "fp16": 1.5,
    "bf16": 3.140625,
    "fp32": 2.5,
    "fp64": 0.1,
}
BF16_ARG = 1 + list(SCALAR_VALUES).index("bf16")


@launcher_only
@needs_torch
def test_half_scalar_from_torch_2_13_is_refused_not_guessed(
    installed,
    records,
    device_buffers: list[int],
    pvc_zebin: Callable[[str, int], Path],
    tmp_path: Path,
) -> None:
    """torch 2.13 sends fp16, bf16 and fp32 scalars all as 'f'; the zebin
    declares both fp16 and bf16 parameters as `half;2`. Packing either would
    be a guess (bf16 3.140625 as fp16 bits reads as 50.0), so it is refused."""
    from xpu_static_launcher import launcher

    meta = KERNELS["scalars"]
    assert runtime_types(meta) == ["*i64"] + list(SCALAR_VALUES)
    kernel = load_static_kernel("scalars", pvc_zebin("scalars", 128), tmp_path)
    assert kernel.arg_tys == "OibhilBHIKfffd"
    device_buffers.append(launcher.device_alloc(0, 4096))
    records.clear()
    with pytest.raises(ValueError, match=r"argument 10 .*'half;2'.*pass 'e' \(float16\) or 'y'"):
        kernel.run(1, 1, 1, 0, support.FakeTensor(device_buffers[0]), *SCALAR_VALUES.values())
    assert records.count() == 0
    kernel.close()


def launch_scalars_directly(
    zebin: Path,
    records: Any,
    device_buffers: list[int],
    codes: str,
    bf16_value: float,
) -> list[dict[str, Any]]:
    from xpu_static_launcher._launcher import StaticXpuLauncher

    from xpu_static_launcher import launcher

    function, _, _ = StaticXpuLauncher._load_kernel(str(zebin), "scalars", 0, 0)
    device_buffers.append(launcher.device_alloc(0, 4096))
    values = dict(SCALAR_VALUES, bf16=bf16_value)
    records.clear()
    StaticXpuLauncher._launch_kernel(function, 1, 1, 1, 1, 0, codes, (device_buffers[0], *values.values()), 0)
    return records.launch(0)["args"]


# torch >= 2.15's codes: 'e' for fp16, 'y' for bf16.
TORCH_2_15_CODES = "OibhilBHIKeyfd"


@launcher_only
def test_scalar_of_each_triton_type(records, device_buffers: list[int], pvc_zebin: Callable[[str, int], Path]) -> None:
    args = launch_scalars_directly(
        pvc_zebin("scalars", 128), records, device_buffers, TORCH_2_15_CODES, SCALAR_VALUES["bf16"]
    )
    assert args[0]["bytes"] == support.le_bytes(device_buffers[0], 8)
    # IGC pads 1- and 2-byte parameters to 4-byte payloads: the value arrives
    # sign/zero-extended (by the type code) to the payload size.
    expected = {
        1: support.le_bytes(1, 4),
        2: support.le_bytes(-3, 4, signed=True),
        3: support.le_bytes(-300, 4, signed=True),
        4: support.le_bytes(-70000, 4, signed=True),
        5: support.le_bytes(-(2**40), 8, signed=True),
        6: support.le_bytes(200, 4),
        7: support.le_bytes(60000, 4),
        8: support.le_bytes(2**31 + 5, 4),
        9: support.le_bytes(2**63 + 7, 8),
        10: struct.pack("<e", 1.5) + bytes(2),
        11: struct.pack("<H", 0x4049) + bytes(2),  # bf16 3.140625, not fp16 0x4248
        12: struct.pack("<f", 2.5),
        13: struct.pack("<d", 0.1),
    }
    assert len(args) == 14
    assert {i: args[i]["bytes"] for i in expected} == expected


# Triton makes a bf16 scalar from the top 16 bits of the fp32 value
# (truncation): 0.1 (fp32 0x3dcccccd) arrives as 0x3dcc, not rounded 0x3dcd.
@launcher_only
def test_bf16_scalar_is_truncated_like_triton(
    records, device_buffers: list[int], pvc_zebin: Callable[[str, int], Path]
) -> None:
    args = launch_scalars_directly(pvc_zebin("scalars", 128), records, device_buffers, TORCH_2_15_CODES, 0.1)
    assert args[BF16_ARG]["bytes"] == struct.pack("<H", 0x3DCC) + bytes(2)
