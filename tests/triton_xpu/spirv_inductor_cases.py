"""Inductor launches a real Triton-XPU SPIR-V kernel
statically through the package's SYCL backend, on the real SYCL runtime and
the Level Zero test driver (adapter v1), for torch 2.13.0 (installed) and
torch 2.15.0 (its static_triton_launcher.py and can_statically_launch run as
stand-in modules, as tests/python/test_inductor_spirv.py does).

Run by tests/python/test_triton_spirv_inductor.py with triton-xpu's Python
in a child process (the stand-in loader is first on the library path from
process start), with TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv (Windows' format,
read by torch itself), XSL_TEST_DRIVER_REJECT_FLAG and a private
XSL_KERNEL_CACHE_DIR. Not named test_*.py: pytest must not collect it in the
parent.

The kernels are triton.compile's own CompiledKernels holding SPIR-V, whose
<name>.spv is in Triton's own cache (TRITON_CACHE_DIR), where Inductor looks.
The launcher is put into torch by xpu_static_launcher.install() itself: the
served torch.xpu (torch_xpu_standin) says an XPU is available, the test
helpers module serves torch._C._xpu_getCurrentRawStream and has loaded the
libsycl the backend was built against.
"""

from __future__ import annotations

import copy
import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE))

if os.environ.get("XSL_TRITON_XPU_RUNTIME") != "1":
    pytest.skip("run through tests/python/test_triton_spirv_inductor.py", allow_module_level=True)

# Triton-XPU's launch path as launch_cases.py sets it up (served torch.xpu,
# the test helpers module, Triton's driver); its helpers are reused here.
pytest.register_assert_rewrite("launch_cases")
from triton.runtime.cache import get_cache_manager  # noqa: E402

import launch_cases as lc  # noqa: E402
import test_inductor_spirv as releases  # noqa: E402  (the 2.15.0 stand-in modules)
import triton_cache  # noqa: E402
import xpu_static_launcher  # noqa: E402
from xpu_static_launcher import _sycl_launcher, inductor_spirv  # noqa: E402
from xpu_static_launcher import compile as ocloc_compile  # noqa: E402
from xpu_static_launcher.inductor_spirv import HEURISTICS, LAUNCHER, REFUSAL  # noqa: E402

torch = lc.torch
glue = lc.glue

SPIRV_MAGIC = b"\x03\x02\x23\x07"
LARGE = lc.LARGE  # vector_add with grf_mode="large": non-empty build flags
KERNELS = ("vector_add", "softmax", LARGE)
REJECTED = os.environ["XSL_TEST_DRIVER_REJECT_FLAG"]
# Hostile inputs. "unknown-version-word" (the SPIR-V magic, then bytes whose
# version word no SPIR-V has) only when the parent asks for it: it runs in a
# process of its own, since IGC may end the process on it.
HOSTILE = ["spirv-header-then-garbage", "unknown-version-word", "empty", "rejected-build-flags"]
records = lc.records  # the test driver's launch records (a fixture)


@pytest.fixture(scope="module", autouse=True)
def raw_stream() -> Iterator[None]:
    """torch._C._xpu_getCurrentRawStream, as a torch XPU build has it
    (install() checks for it)."""
    torch._C._xpu_getCurrentRawStream = glue.current_raw_stream
    yield
    del torch._C._xpu_getCurrentRawStream


@pytest.fixture(scope="module")
def compiled() -> dict[str, Any]:
    """triton.compile's CompiledKernels, binary SPIR-V, in Triton's cache."""
    kernels = {name: triton_cache.compile_spirv(lc.source_of(name)) for name in KERNELS}
    for kernel in kernels.values():
        assert kernel.asm["spv"].startswith(SPIRV_MAGIC)
        assert triton_spirv_file(kernel).read_bytes() == kernel.asm["spv"]
    assert kernels["softmax"].metadata.shared > 0  # dynamic shared memory (SLM)
    assert kernels[LARGE].metadata.build_flags == triton_cache.LARGE_GRF_FLAG
    return kernels


def triton_spirv_file(kernel: Any) -> Path:
    """Where Triton's own cache manager keeps the kernel's SPIR-V."""
    found = get_cache_manager(kernel.hash).get_file(f"{kernel.metadata.name}.spv")
    assert found is not None, kernel.metadata.name
    return Path(found)


class Inductor:
    """One release's StaticallyLaunchedXpuKernel and can_statically_launch."""

    def __init__(self, version: str, launcher: Any, heuristics: Any) -> None:
        self.version, self.launcher, self.heuristics = version, launcher, heuristics

    def can_launch(self, kernel: Any) -> Any:
        config = importlib.import_module("torch._inductor.config")
        hints = importlib.import_module("torch._inductor.runtime.hints")
        settings = {"use_static_triton_launcher": True, "strict_static_triton_launcher": True, "cpp_wrapper": False}
        with config.patch(settings):
            return self.heuristics.StaticTritonCompileResult.can_statically_launch(
                kernel, {}, {"device_type": "xpu", "device": 0}, hints.HeuristicType.POINTWISE
            )


@pytest.fixture(params=["2.13.0", "2.15.0"])
def inductor(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, compiled: dict[str, Any]
) -> Iterator[Inductor]:
    """The release's Inductor (2.15.0's as stand-in modules under the real
    names), then xpu_static_launcher.install() on it; uninstall() after."""
    version: str = request.param
    real = importlib.import_module(HEURISTICS)
    if version == "2.13.0":
        assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
        launcher, heuristics = importlib.import_module(LAUNCHER), real
    else:
        releases.inductor_sources(version)  # skips without the fetched sources
        launcher = releases._stand_in_launcher(version)
        heuristics = releases.stand_in_heuristics(version, launcher, real)
        heuristics.triton_cache_dir = real.triton_cache_dir  # TRITON_CACHE_DIR
        heuristics.triton_hash_to_path_key = real.triton_hash_to_path_key
        monkeypatch.setitem(sys.modules, LAUNCHER, launcher)
        monkeypatch.setitem(sys.modules, HEURISTICS, heuristics)
    assert heuristics.XPU_KERNEL_FORMAT == "spv"
    rt = Inductor(version, launcher, heuristics)
    with pytest.raises(real.CannotStaticallyLaunchKernel, match=f"^{REFUSAL}$"):
        rt.can_launch(compiled["vector_add"])  # the stock refusal
    assert getattr(torch._C, "_StaticXpuLauncher", None) is None
    result = xpu_static_launcher.install(verbose=False)
    try:
        assert result.spirv_launch and inductor_spirv.is_enabled(), result.message
        assert torch._C._StaticXpuLauncher.backend is _sycl_launcher._StaticXpuLauncher
        yield rt
    finally:
        xpu_static_launcher.uninstall(verbose=False)
    assert not inductor_spirv.is_enabled()


def kept_native_binaries() -> int:
    return _sycl_launcher._kernel_cache_info()["entries"]


@pytest.mark.parametrize("name", KERNELS)
def test_inductor_launches_tritons_spirv(
    name: str, inductor: Inductor, compiled: dict[str, Any], records: lc.Records
) -> None:
    kernel = compiled[name]
    static = inductor.can_launch(kernel)
    assert type(static) is inductor.launcher.StaticallyLaunchedXpuKernel
    assert static.cubin_path == str(triton_spirv_file(kernel))
    assert static.cubin_raw == kernel.asm["spv"]
    assert static.build_flags == kernel.metadata.build_flags
    _sycl_launcher._kernel_cache_clear()
    static.load_kernel(0)
    # The driver compiled the SPIR-V (with the kernel's flags): the package
    # kept the native binary it made.
    assert kept_native_binaries() == 1
    # Triton's own load_binary of the same SPIR-V and flags reports the same.
    kernel._init_handles()
    assert (static.n_regs, static.n_spills) == (kernel.n_regs, kernel.n_spills)
    assert static.n_regs == (256 if name == LARGE else 0)

    source = "vector_add" if name == LARGE else name
    every, runtime, expected = lc.arguments(source)
    grid = lc.GRIDS[source]
    records.clear()
    kernel[grid](*every)  # Triton's own launch, for comparison
    static.run(*grid, lc.driver.active.get_current_stream(0), *runtime)
    assert records.count() == 2
    triton_record, static_record = records.launch(0), records.launch(1)
    # Group count, group size num_warps * threads_per_warp, the argument
    # bytes, and for softmax the SLM as a trailing local argument.
    lc.check_launch(static_record, kernel, grid, expected)
    assert static_record == triton_record
    static.close()


def in_hostile_cache(monkeypatch: pytest.MonkeyPatch, cache: Path, kernel: Any, data: bytes) -> Path:
    """The kernel's <name>.spv, holding `data`, where Triton's cache manager
    keeps it in another Triton cache (TRITON_CACHE_DIR, which Inductor reads
    too)."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    path = Path(get_cache_manager(kernel.hash)._make_path(f"{kernel.metadata.name}.spv"))
    assert path.parent.parent == cache
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_spirv_gives_one_clear_error(
    case: str, inductor: Inductor, compiled: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kernel = copy.copy(compiled["vector_add"])  # the module's kernel stays as it is
    garbage = bytes(range(256)) * 4
    if case == "spirv-header-then-garbage":  # Triton's own 5-word header
        path = in_hostile_cache(monkeypatch, tmp_path, kernel, kernel.asm["spv"][:20] + garbage)
        says = ["not a valid SPIR-V module", "not OpCapability"]
    elif case == "unknown-version-word":  # 0x03020100: IGC would end the process
        path = in_hostile_cache(monkeypatch, tmp_path, kernel, SPIRV_MAGIC + garbage)
        says = ["not a valid SPIR-V module", "version word 0x03020100 is not a SPIR-V version"]
    elif case == "empty":
        path = in_hostile_cache(monkeypatch, tmp_path, kernel, b"")
        says = ["is empty (0 bytes)"]
    else:
        flags = f"{triton_cache.LARGE_GRF_FLAG} {REJECTED}"
        kernel.metadata = kernel.metadata._replace(build_flags=flags)
        path = triton_spirv_file(kernel)  # Triton's real SPIR-V
        says = [f"build flags '{flags}'", f"unsupported build option {REJECTED}"]
    static = inductor.can_launch(kernel)
    assert static.cubin_path == str(path)
    with pytest.raises(RuntimeError) as raised:
        static.load_kernel(0)
    message = str(raised.value)
    assert type(raised.value) is RuntimeError and raised.value.__cause__ is None
    assert str(path) in message, message
    assert all(text in message for text in says), message
    assert static.function is None


def test_a_zebin_named_spv_loads_as_a_zebin(
    inductor: Inductor, compiled: dict[str, Any], records: lc.Records, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kernel = compiled["vector_add"]
    built = ocloc_compile.compile_spirv(
        kernel.asm["spv"], triton_cache.ZEBIN_DEVICE, "", backend="ocloc", retry_large_grf=False
    )
    assert built["zebin"].startswith(b"\x7fELF")
    path = in_hostile_cache(monkeypatch, tmp_path, kernel, built["zebin"])
    static = inductor.can_launch(copy.copy(kernel))
    assert static.cubin_path == str(path)
    _sycl_launcher._kernel_cache_clear()
    static.load_kernel(0)
    assert kept_native_binaries() == 0  # loaded as it is: nothing for the driver to compile
    _, runtime, expected = lc.arguments("vector_add")
    records.clear()
    static.run(*lc.GRIDS["vector_add"], lc.driver.active.get_current_stream(0), *runtime)
    assert records.count() == 1
    lc.check_launch(records.launch(0), kernel, lc.GRIDS["vector_add"], expected)
    static.close()
