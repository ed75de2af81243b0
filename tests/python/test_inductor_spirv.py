"""xpu_static_launcher.inductor_spirv: SPIR-V kernels launched statically by
the real Inductor code of torch 2.13.0 (installed, imported for real), 2.14.1
and 2.15.0 (their sources, fetched by `scripts/dev.sh setup`), with Windows'
kernel format ("spv") set where Inductor reads it.

For 2.14.1 and 2.15.0, the release's whole static_triton_launcher.py is
executed as that module (its relative imports resolve to the installed
torch's helpers), and its real ``StaticTritonCompileResult.
can_statically_launch`` is compiled into a stand-in triton_heuristics module
(the rest of that module needs the release's torch). Both stand in under
their real names in sys.modules for the test, which is what
``enable_spirv_launch`` imports. The shape-guard tests build such a stand-in
from an edited copy of each release's can_statically_launch (2.13.0's from
the installed file).
"""

from __future__ import annotations
import __future__

import ast
import importlib
import logging
import os
import pickle
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from test_inductor_format import (
    HEADERS,
    VERSIONS,
    _installed_torch_root,
    inductor_sources,
)
from xpu_static_launcher import inductor_format, inductor_spirv
from xpu_static_launcher.inductor_spirv import HEURISTICS, LAUNCHER, REFUSAL

SPIRV_BYTES = b"\x03\x02\x23\x07" + b"spirv-module" * 4
ZEBIN_BYTES = b"\x7fELF" + b"zebin" * 8
LARGE_GRF = "-cl-intel-256-GRF-per-thread"
KERNEL_NAME = "triton_poi_fused_add_0"
KERNEL_HASH = "c0ffee"


class FakeCompiledKernel:
    """What StaticallyLaunchedTritonKernel reads of Triton's CompiledKernel."""

    launch_enter_hook = None
    launch_exit_hook = None

    def __init__(self, asm: dict[str, bytes], build_flags: str | None = None) -> None:
        fn = types.SimpleNamespace(
            arg_names=["in_ptr0", "out_ptr0", "xnumel", "XBLOCK"],
            params=[types.SimpleNamespace(num=i, is_constexpr=i == 3) for i in range(4)],
        )
        fn.__name__ = KERNEL_NAME
        self.src = types.SimpleNamespace(
            fn=fn,
            constants={},
            signature={"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"},
        )
        self.hash = KERNEL_HASH
        self.asm = asm
        metadata: dict[str, Any] = {
            "num_warps": 4,
            "shared": 0,
            "num_ctas": 1,
            "global_scratch_size": 0,
            "profile_scratch_size": 0,
        }
        if build_flags is not None:
            metadata["build_flags"] = build_flags
        self.metadata = types.SimpleNamespace(**metadata)


class FakeLauncher:
    """A C_impl that records every _load_kernel call."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def _load_kernel(self, *args: Any) -> tuple[str, int, int]:
        self.calls.append(args)
        return f"capsule{len(self.calls)}", 0, 0

    def _launch_kernel(self, *args: Any) -> None:
        self.calls.append(("launch",) + args)


class Runtime(types.SimpleNamespace):
    version: str
    heuristics: types.ModuleType
    launcher: types.ModuleType
    cache: Path

    def kernel_class(self) -> Any:
        return self.launcher.StaticallyLaunchedXpuKernel

    def result_class(self) -> Any:
        return self.heuristics.StaticTritonCompileResult

    def targets(self) -> list[Any]:
        kernel, result = self.kernel_class(), self.result_class()
        return [kernel.__dict__["__init__"], kernel.__dict__["load_kernel"], result.__dict__["can_statically_launch"]]

    def set_format(self, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
        """Inductor's format where triton_heuristics reads it, as on Windows
        ("spv") or elsewhere ("zebin")."""
        monkeypatch.setattr(self.heuristics, "XPU_KERNEL_FORMAT", fmt)
        monkeypatch.setitem(self.heuristics.GPU_KERNEL_BIN_EXTS, "xpu", f".{fmt}")

    def write_binary(self, data: bytes) -> Path:
        ext = self.heuristics.GPU_KERNEL_BIN_EXTS["xpu"]
        path = self.cache / KERNEL_HASH / f"{KERNEL_NAME}{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def can_launch(
        self, kernel: FakeCompiledKernel, *, strict: bool = False, device_type: str = "xpu", cpp_wrapper: bool = False
    ) -> Any:
        config = importlib.import_module("torch._inductor.config")
        hints = importlib.import_module("torch._inductor.runtime.hints")
        settings = {
            "use_static_triton_launcher": True,
            "strict_static_triton_launcher": strict,
            "cpp_wrapper": cpp_wrapper,
        }
        with config.patch(settings):
            return self.result_class().can_statically_launch(
                kernel, {}, {"device_type": device_type, "device": 0}, hints.HeuristicType.POINTWISE
            )


def _installed_release() -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None


def runtime_file(version: str, name: str) -> Path:
    """A release's _inductor/runtime/<name>.py: the installed one for 2.13.0."""
    if version == "2.13.0":
        root = _installed_torch_root()
        if root is None:
            pytest.skip("torch 2.13.0 is not the installed torch")
        return root / "_inductor" / "runtime" / f"{name}.py"
    path = HEADERS / version / "_inductor" / "runtime" / f"{name}.py"
    if not path.is_file():
        pytest.skip(f"no {path}: run `bash scripts/dev.sh setup`")
    return path


def _stand_in_launcher(version: str) -> types.ModuleType:
    path = runtime_file(version, "static_triton_launcher")
    module = types.ModuleType(LAUNCHER)
    module.__package__ = "torch._inductor.runtime"
    module.__file__ = str(path)
    exec(
        compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True),  # noqa: S102
        module.__dict__,
    )
    return module


def _method_source(source: str, class_name: str, method: str) -> str:
    """The method's text (from its `def`, decorators left out) as in the file."""
    tree = ast.parse(source)
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    node = next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == method)
    segment = ast.get_source_segment(source, node)
    assert segment is not None
    return " " * node.col_offset + segment


def _not_set(*args: Any) -> Any:
    raise AssertionError("set by the runtime fixture")


def stand_in_heuristics(
    version: str, launcher: types.ModuleType, real: Any, edit: Callable[[str], str] = lambda text: text
) -> types.ModuleType:
    """A triton_heuristics holding the release's real can_statically_launch
    (after ``edit``), with the globals it reads."""
    path = runtime_file(version, "triton_heuristics")
    text = path.read_text(encoding="utf-8")
    method = edit(_method_source(text, "StaticTritonCompileResult", "can_statically_launch"))
    module = types.ModuleType(HEURISTICS)
    module.__dict__.update(
        torch=importlib.import_module("torch"),
        os=os,
        cast=typing.cast,
        log=logging.getLogger(HEURISTICS),
        CannotStaticallyLaunchKernel=real.CannotStaticallyLaunchKernel,
        HeuristicType=real.HeuristicType,
        XPU_KERNEL_FORMAT="spv",
        GPU_KERNEL_BIN_EXTS={"cuda": ".cubin", "hip": ".hsaco", "xpu": ".spv"},
        statically_launched_kernel_by_device=launcher.statically_launched_kernel_by_device,
        triton_cache_dir=_not_set,
        triton_hash_to_path_key=_not_set,
    )  # the fixture sets them
    source = f"class StaticTritonCompileResult:\n    @staticmethod\n{method}\n"
    # triton_heuristics has `from __future__ import annotations`.
    exec(
        compile(
            source,
            str(path),
            "exec",
            flags=__future__.annotations.compiler_flag,  # noqa: S102
            dont_inherit=True,
        ),
        module.__dict__,
    )
    return module


def _undo_all() -> None:
    while inductor_spirv.disable_spirv_launch() is not None:
        pass


@pytest.fixture(params=VERSIONS)
def runtime(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Inductor's runtime modules of one release, with a private Triton cache
    folder, on Windows' kernel format."""
    version: str = request.param
    real_heuristics = importlib.import_module(HEURISTICS)
    if version == "2.13.0":
        if _installed_release() != "2.13.0":
            pytest.skip(f"the installed torch is {_installed_release()}, not 2.13.0")
        heuristics, launcher = real_heuristics, importlib.import_module(LAUNCHER)
    else:
        inductor_sources(version)  # skips without the fetched sources
        launcher = _stand_in_launcher(version)
        heuristics = stand_in_heuristics(version, launcher, real_heuristics)
        monkeypatch.setitem(sys.modules, LAUNCHER, launcher)
        monkeypatch.setitem(sys.modules, HEURISTICS, heuristics)
    monkeypatch.setattr(heuristics, "triton_cache_dir", lambda device: str(tmp_path))
    monkeypatch.setattr(heuristics, "triton_hash_to_path_key", lambda key: key)
    rt = Runtime(version=version, heuristics=heuristics, launcher=launcher, cache=tmp_path)
    rt.set_format(monkeypatch, "spv")
    assert not inductor_spirv.is_enabled()
    yield rt
    _undo_all()
    assert not inductor_spirv.is_enabled()


def test_the_refusal_is_lifted_only_while_enabled_and_the_format_stays(runtime: Runtime):
    runtime.write_binary(SPIRV_BYTES)
    kernel = FakeCompiledKernel({"spv": SPIRV_BYTES}, LARGE_GRF)
    readers_before = inductor_format.readers()
    with pytest.raises(runtime.heuristics.CannotStaticallyLaunchKernel, match=f"^{REFUSAL}$"):
        runtime.can_launch(kernel, strict=True)
    assert runtime.can_launch(kernel) is None
    stock = runtime.targets()

    change = inductor_spirv.enable_spirv_launch()
    assert change.enabled and change.changed, change.reason
    assert inductor_spirv.is_enabled()
    assert isinstance(runtime.result_class().__dict__["can_statically_launch"], staticmethod)
    static = runtime.can_launch(kernel, strict=True)
    assert type(static) is runtime.kernel_class()
    assert static.cubin_raw == SPIRV_BYTES and static.build_flags == LARGE_GRF
    assert static.cubin_path == str(runtime.cache / KERNEL_HASH / f"{KERNEL_NAME}.spv")
    # The format is untouched everywhere: it decides what Triton-XPU compiles.
    assert runtime.heuristics.XPU_KERNEL_FORMAT == "spv"
    assert runtime.heuristics.GPU_KERNEL_BIN_EXTS["xpu"] == ".spv"
    assert inductor_format.readers() == readers_before
    # Only the SPIR-V refusal went: the other checks of that release still refuse.
    with pytest.raises(runtime.heuristics.CannotStaticallyLaunchKernel, match="^Non-cuda/XPU/ROCm device$"):
        runtime.can_launch(kernel, strict=True, device_type="mps")
    with pytest.raises(runtime.heuristics.CannotStaticallyLaunchKernel, match="^Cpp wrapper enabled$"):
        runtime.can_launch(kernel, strict=True, cpp_wrapper=True)
    (runtime.cache / KERNEL_HASH / f"{KERNEL_NAME}.spv").unlink()
    with pytest.raises(runtime.heuristics.CannotStaticallyLaunchKernel, match="^Cubin path not found: "):
        runtime.can_launch(kernel, strict=True)
    runtime.write_binary(SPIRV_BYTES)

    change.undo()
    assert runtime.targets() == stock and all(a is b for a, b in zip(runtime.targets(), stock))
    assert not inductor_spirv.is_enabled()
    with pytest.raises(runtime.heuristics.CannotStaticallyLaunchKernel, match=f"^{REFUSAL}$"):
        runtime.can_launch(kernel, strict=True)
    assert inductor_spirv.disable_spirv_launch() is None  # undone already
    assert runtime.heuristics.XPU_KERNEL_FORMAT == "spv" and inductor_format.readers() == readers_before


def _static_kernel(runtime: Runtime, asm: dict[str, bytes], flags: str | None, wrap: bool = True) -> Any:
    """A statically launched kernel whose C_impl (a cached_property) is a
    recording launcher: as install() puts it into torch (``wrap``), or bare."""
    kernel = runtime.can_launch(FakeCompiledKernel(asm, flags), strict=True)
    launcher = FakeLauncher()
    kernel.__dict__["C_impl"] = inductor_spirv.launcher_with_build_flags(launcher) if wrap else launcher
    return kernel, launcher


def test_spirv_kernel_loads_with_its_build_flags_on_the_normal_path(runtime: Runtime):
    path = runtime.write_binary(SPIRV_BYTES)
    inductor_spirv.enable_spirv_launch()
    kernel, launcher = _static_kernel(runtime, {"spv": SPIRV_BYTES}, LARGE_GRF)
    kernel.load_kernel(0)
    assert launcher.calls == [(str(path), KERNEL_NAME, 0, 0, LARGE_GRF)]
    assert kernel.function == "capsule1" and kernel.cubin_path is None and kernel.cubin_raw is None
    kernel.load_kernel(0)  # loaded already: the release returns early
    assert len(launcher.calls) == 1


def test_spirv_kernel_loads_with_its_build_flags_on_the_device_agnostic_path(runtime: Runtime):
    if runtime.version == "2.13.0":
        pytest.skip("2.13.0 has no device-agnostic kernels")
    path = runtime.write_binary(SPIRV_BYTES)
    inductor_spirv.enable_spirv_launch()
    kernel, launcher = _static_kernel(runtime, {"spv": SPIRV_BYTES}, LARGE_GRF)
    kernel.device_agnostic = True
    kernel.load_kernel(1)
    kernel.load_kernel(0)
    kernel.load_kernel(1)  # loaded for device 1 already
    assert launcher.calls == [(str(path), KERNEL_NAME, 0, 1, LARGE_GRF), (str(path), KERNEL_NAME, 0, 0, LARGE_GRF)]
    assert kernel.functions == {1: "capsule1", 0: "capsule2"}
    # The device-agnostic path keeps the binary for further devices.
    assert kernel.cubin_path == str(path) and kernel.cubin_raw == SPIRV_BYTES


def test_the_build_flags_survive_pickling_to_the_parent(runtime: Runtime):
    path = runtime.write_binary(SPIRV_BYTES)
    inductor_spirv.enable_spirv_launch()
    kernel = runtime.can_launch(FakeCompiledKernel({"spv": SPIRV_BYTES}, " " + LARGE_GRF), strict=True)
    # Inductor's compile workers pickle the kernel to the parent, which drops
    # cubin_path and reloads the binary from cubin_raw when the file is gone.
    clone = pickle.loads(pickle.dumps(kernel))
    assert clone.build_flags == " " + LARGE_GRF and clone.cubin_raw == SPIRV_BYTES and clone.cubin_path is None
    path.unlink()
    assert clone.reload_cubin_from_raw(str(path)) == str(path) and path.read_bytes() == SPIRV_BYTES
    launcher = FakeLauncher()
    clone.__dict__["C_impl"] = inductor_spirv.launcher_with_build_flags(launcher)
    clone.load_kernel(0)
    assert launcher.calls == [(str(path), KERNEL_NAME, 0, 0, " " + LARGE_GRF)]


def test_zebin_kernels_still_work(runtime: Runtime, monkeypatch: pytest.MonkeyPatch):
    runtime.set_format(monkeypatch, "zebin")  # Linux, or the zebin opt-in on Windows
    path = runtime.write_binary(ZEBIN_BYTES)
    asm = {"zebin": ZEBIN_BYTES, "spv": SPIRV_BYTES}
    stock, stock_launcher = _static_kernel(runtime, asm, LARGE_GRF, wrap=False)
    assert stock.cubin_raw == ZEBIN_BYTES and not hasattr(stock, "build_flags")
    stock.load_kernel(0)
    assert stock_launcher.calls == [(str(path), KERNEL_NAME, 0, 0)]  # the release passes four
    inductor_spirv.enable_spirv_launch()
    kernel, launcher = _static_kernel(runtime, asm, LARGE_GRF)
    assert kernel.cubin_raw == ZEBIN_BYTES  # zebin first, when Triton made one
    kernel.load_kernel(0)
    assert launcher.calls == [(str(path), KERNEL_NAME, 0, 0, LARGE_GRF)]
    assert runtime.heuristics.XPU_KERNEL_FORMAT == "zebin"
    # A kernel without build flags (an older Triton) passes "".
    bare, bare_launcher = _static_kernel(runtime, {"zebin": ZEBIN_BYTES}, None)
    bare.load_kernel(0)
    assert bare.build_flags == "" and bare_launcher.calls == [(str(path), KERNEL_NAME, 0, 0, "")]


def test_enable_is_idempotent_and_each_undo_only_undoes_its_own(runtime: Runtime):
    stock = runtime.targets()
    first = inductor_spirv.enable_spirv_launch()
    changed = runtime.targets()
    second = inductor_spirv.enable_spirv_launch()
    assert second.enabled and not second.changed and "already" in second.reason
    assert all(a is b for a, b in zip(runtime.targets(), changed))
    second.undo()
    assert inductor_spirv.is_enabled()
    assert inductor_spirv.spirv_launch_support() == (True, "enabled already")
    first.undo()
    first.undo()  # once only
    assert all(a is b for a, b in zip(runtime.targets(), stock))
    ok, why = inductor_spirv.spirv_launch_support()
    assert ok and why.endswith("(3 changes)")
    assert all(a is b for a, b in zip(runtime.targets(), stock))  # the probe changed nothing


def test_undo_leaves_an_attribute_replaced_since_alone(runtime: Runtime):
    stock = runtime.targets()
    change = inductor_spirv.enable_spirv_launch()
    result_class = runtime.result_class()
    other = staticmethod(lambda *args: "someone else's")
    try:
        result_class.can_statically_launch = other  # type: ignore[attr-defined]
        change.undo()
        assert result_class.__dict__["can_statically_launch"] is other
        assert change.left_alone == ["StaticTritonCompileResult.can_statically_launch"]
        assert runtime.targets()[:2] == stock[:2]
    finally:
        result_class.can_statically_launch = stock[2]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "edit, why",
    [
        (lambda t: t.replace(REFUSAL, "Static XPU launch does not support SPIR-V."), "does not hold the refusal"),
        (lambda t: t.replace('XPU_KERNEL_FORMAT == "spv"', 'XPU_KERNEL_FORMAT in ("spv",)'), "has 0 'spv' constants"),
        (
            lambda t: t.replace('XPU_KERNEL_FORMAT == "spv"', '"spv" == XPU_KERNEL_FORMAT'),
            "does not use 'spv' as XPU_KERNEL_FORMAT == 'spv'",
        ),
        (
            lambda t: t.replace('XPU_KERNEL_FORMAT == "spv"', 'XPU_KERNEL_FORMAT == "spv" != kernel.hash'),
            "does not use 'spv' as",
        ),
        (
            lambda t: t.replace('XPU_KERNEL_FORMAT == "spv"', 'XPU_KERNEL_FORMAT == "spv" and kernel.hash != "spv"'),
            "uses 'spv' 2 times, not once",
        ),
        (
            lambda t: t.replace("def check_can_launch()", "def check_launch()").replace(
                "result = check_can_launch()", "result = check_launch()"
            ),
            "has 0 nested check_can_launch functions",
        ),
    ],
)
def test_a_refusal_of_another_shape_changes_nothing(runtime: Runtime, monkeypatch: pytest.MonkeyPatch, edit, why):
    real = importlib.import_module("torch._inductor.runtime.hints")
    heuristics = stand_in_heuristics(
        runtime.version,
        runtime.launcher,
        types.SimpleNamespace(
            CannotStaticallyLaunchKernel=runtime.heuristics.CannotStaticallyLaunchKernel,
            HeuristicType=real.HeuristicType,
        ),
        edit,
    )
    assert (
        heuristics.StaticTritonCompileResult.__dict__["can_statically_launch"].__func__.__code__
        != runtime.result_class().__dict__["can_statically_launch"].__func__.__code__
    )
    monkeypatch.setitem(sys.modules, HEURISTICS, heuristics)
    runtime.heuristics = heuristics
    stock = runtime.targets()
    change = inductor_spirv.enable_spirv_launch()
    assert not change.enabled and not change.changed
    assert why in change.reason and change.reason.endswith("nothing changed, so Inductor still refuses SPIR-V kernels")
    assert all(a is b for a, b in zip(runtime.targets(), stock))  # __init__ and load_kernel as well
    assert not inductor_spirv.spirv_launch_support()[0]


@pytest.mark.parametrize(
    "method, edit, why",
    [
        (
            "load_kernel",
            lambda t: t.replace("C_impl._load_kernel", "C_impl._load"),
            "does not call C_impl._load_kernel",
        ),
        (
            "__init__",
            lambda t: t.replace("self.cubin_raw =", "self.binary ="),
            "does not read kernel.asm into cubin_raw",
        ),
    ],
)
def test_launcher_methods_of_another_shape_change_nothing(runtime: Runtime, method, edit, why):
    kernel_class = runtime.kernel_class()
    assert runtime.launcher.__file__ is not None
    text = _method_source(Path(runtime.launcher.__file__).read_text(encoding="utf-8"), kernel_class.__name__, method)
    edited = edit(text)
    assert edited != text
    base = kernel_class.__bases__[0]
    namespace: dict[str, Any] = {}
    source = f"class {kernel_class.__name__}({base.__name__}):\n{edited}\n"
    exec(
        compile(source, "<edited>", "exec", dont_inherit=True),  # noqa: S102
        {base.__name__: base, "CompiledKernel": object},
        namespace,
    )
    replacement = namespace[kernel_class.__name__].__dict__[method]
    saved = kernel_class.__dict__[method]
    try:
        setattr(kernel_class, method, replacement)
        stock = runtime.targets()
        change = inductor_spirv.enable_spirv_launch()
        assert not change.enabled and not change.changed
        assert f"StaticallyLaunchedXpuKernel.{method} {why}" in change.reason
        assert all(a is b for a, b in zip(runtime.targets(), stock))
    finally:
        setattr(kernel_class, method, saved)


def test_torch_with_its_own_launcher_is_left_alone(runtime: Runtime, monkeypatch: pytest.MonkeyPatch):
    torch_c = importlib.import_module("torch._C")
    monkeypatch.setattr(torch_c, "_StaticXpuLauncher", FakeLauncher(), raising=False)
    stock = runtime.targets()
    change = inductor_spirv.enable_spirv_launch()
    assert not change.enabled and "torch has its own torch._C._StaticXpuLauncher" in change.reason
    assert all(a is b for a, b in zip(runtime.targets(), stock))
    assert inductor_spirv.spirv_launch_support() == (False, "torch has its own torch._C._StaticXpuLauncher")


def test_without_torchs_inductor_nothing_changes(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, LAUNCHER, None)  # import fails
    change = inductor_spirv.enable_spirv_launch()
    assert not change.enabled and not change.changed
    assert change.reason.startswith("torch's Inductor cannot be imported (")
    assert change.reason.endswith("nothing changed")
    assert inductor_spirv.spirv_launch_support()[0] is False
    assert inductor_spirv.disable_spirv_launch() is None


# ---------------------------------------------------------------- the guard itself

XPU_KERNEL_FORMAT = "spv"


class Refused(Exception):
    pass


def launch_check(device_type: str) -> str:
    def check_can_launch() -> str:
        if device_type == "xpu" and XPU_KERNEL_FORMAT == "spv":
            raise Refused("Static XPU Triton kernel launch does not support SPIR-V kernel.")
        return "static"

    return check_can_launch()


def twice(device_type: str) -> str:
    def check_can_launch() -> str:
        if device_type == "xpu" and XPU_KERNEL_FORMAT == "spv":
            raise Refused("Static XPU Triton kernel launch does not support SPIR-V kernel.")
        if XPU_KERNEL_FORMAT == "spv":
            return "spv"
        return "static"

    return check_can_launch()


def other_message(device_type: str) -> str:
    def check_can_launch() -> str:
        if device_type == "xpu" and XPU_KERNEL_FORMAT == "spv":
            raise Refused("SPIR-V is not supported.")
        return "static"

    return check_can_launch()


def format_from_a_local(device_type: str, fmt: str = "zebin") -> str:
    def check_can_launch() -> str:
        if device_type == "xpu" and fmt == "spv":
            raise Refused("Static XPU Triton kernel launch does not support SPIR-V kernel.")
        return "static"

    return check_can_launch()


def test_lift_refusal_replaces_only_the_compared_constant():
    with pytest.raises(Refused):
        launch_check("xpu")
    lifted = inductor_spirv.lift_refusal(launch_check)
    assert lifted("xpu") == "static" and lifted("cuda") == "static"
    assert lifted.__name__ == launch_check.__name__ and lifted.__qualname__ == launch_check.__qualname__
    assert lifted.__globals__ is launch_check.__globals__ and lifted.__wrapped__ is launch_check
    nested = [c for c in lifted.__code__.co_consts if isinstance(c, types.CodeType)]
    assert inductor_spirv.NOT_A_FORMAT in nested[0].co_consts and "spv" not in nested[0].co_consts
    assert REFUSAL in nested[0].co_consts
    with pytest.raises(Refused):  # the original is untouched
        launch_check("xpu")


@pytest.mark.parametrize(
    "function, why",
    [
        (twice, "uses 'spv' 3 times"),
        (other_message, "does not hold the refusal"),
        (format_from_a_local, "does not use 'spv' as XPU_KERNEL_FORMAT == 'spv'"),
        (lambda device_type: device_type, "has 0 nested check_can_launch functions"),
    ],
)
def test_lift_refusal_refuses_code_of_another_shape(function, why):
    with pytest.raises(inductor_spirv.ShapeMismatch, match=why.replace("(", r"\(")):
        inductor_spirv.lift_refusal(function)


def test_threads_loading_at_once_each_pass_their_own_flags(runtime: Runtime):
    """The build flags reach the launcher through a ContextVar set for the
    load: threads loading different kernels at once never see each other's."""
    import threading

    runtime.write_binary(SPIRV_BYTES)
    inductor_spirv.enable_spirv_launch()
    seen: dict[str, list[Any]] = {}
    barrier = threading.Barrier(4)

    class SlowLauncher(FakeLauncher):
        def _load_kernel(self, *args: Any) -> tuple[str, int, int]:
            barrier.wait(timeout=10)  # every thread is inside a load now
            return super()._load_kernel(*args)

    def load(flags: str) -> None:
        kernel = runtime.can_launch(FakeCompiledKernel({"spv": SPIRV_BYTES}, flags), strict=True)
        launcher = SlowLauncher()
        kernel.__dict__["C_impl"] = inductor_spirv.launcher_with_build_flags(launcher)
        kernel.load_kernel(0)
        seen[flags] = [call[4] for call in launcher.calls]

    threads = [threading.Thread(target=load, args=(f"-flag{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {f"-flag{i}": [f"-flag{i}"] for i in range(4)}


def test_the_installed_launcher_launches_with_the_backends_own_function():
    launcher = FakeLauncher()
    wrapped = inductor_spirv.launcher_with_build_flags(launcher)
    assert wrapped._launch_kernel == launcher._launch_kernel  # nothing in between on the hot path
    # Outside Inductor's load_kernel, and when given, the flags are the caller's.
    wrapped._load_kernel("k.spv", "k", 0, 0)
    wrapped._load_kernel("k.spv", "k", 0, 0, "-given")
    assert launcher.calls == [("k.spv", "k", 0, 0, None), ("k.spv", "k", 0, 0, "-given")]
