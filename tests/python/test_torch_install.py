"""xpu_static_launcher.install()/uninstall() with a stand-in torch and a
stand-in SYCL backend: every branch, and the libsycl probes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import xpu_static_launcher
from xpu_static_launcher import inductor_format, inductor_spirv, torch_install

BACKEND = "xpu_static_launcher._sycl_launcher"


class _Launcher:
    @staticmethod
    def _load_kernel(path, name, shared, device):  # pragma: no cover - never called
        return None, 0, 0

    @staticmethod
    def _launch_kernel(*args):  # pragma: no cover - never called
        return None


def fake_torch(
    monkeypatch, *, xpu_build: bool = True, available: bool = True, launcher: object | None = None
) -> types.ModuleType:
    torch = types.ModuleType("torch")
    torch.__version__ = "2.15.0+xpu" if xpu_build else "2.15.0+cpu"
    torch_c = types.ModuleType("torch._C")
    if xpu_build:
        torch_c._xpu_getCurrentRawStream = lambda device: 0
    if launcher is not None:
        torch_c._StaticXpuLauncher = launcher
    torch._C = torch_c
    torch.xpu = types.SimpleNamespace(is_available=lambda: available)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch._C", torch_c)
    return torch


def fake_backend(monkeypatch, major: int | None = 9, with_class: bool = True) -> types.ModuleType:
    backend = types.ModuleType(BACKEND)
    if major is not None:
        backend.SYCL_MAJOR = major
    if with_class:
        backend.StaticXpuLauncher = _Launcher
    monkeypatch.setitem(sys.modules, BACKEND, backend)
    return backend


def libsycl(major: int):
    return lambda: ["libc.so.6", f"libsycl.so.{major}", "libze_loader.so.1"]


@pytest.fixture(autouse=True)
def clean_state(monkeypatch):
    monkeypatch.setattr(torch_install, "_installed", None)
    monkeypatch.delenv(inductor_format.ENV_VAR, raising=False)
    yield
    while inductor_format.disable_zebin() is not None:
        pass
    while inductor_spirv.disable_spirv_launch() is not None:
        pass


def test_no_torch(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)
    result = xpu_static_launcher.install()
    assert result.status == "no-torch" and not result.installed
    assert capsys.readouterr().err.startswith("xpu_static_launcher: nothing installed: torch cannot be imported (")


def test_cpu_only_torch_is_left_alone(monkeypatch):
    torch = fake_torch(monkeypatch, xpu_build=False)
    result = xpu_static_launcher.install(verbose=False, libraries=libsycl(9))
    assert result.status == "not-xpu"
    assert result.message == (
        "nothing installed: torch 2.15.0+cpu is not an XPU build (no "
        "torch._C._xpu_getCurrentRawStream); install a PyTorch XPU wheel"
    )
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_xpu_build_without_a_device_is_left_alone(monkeypatch):
    torch = fake_torch(monkeypatch, available=False)
    fake_backend(monkeypatch)
    result = xpu_static_launcher.install(verbose=False, libraries=libsycl(9))
    assert result.status == "not-xpu" and "torch.xpu.is_available() is False" in result.message
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_torch_with_its_own_launcher_is_left_alone(monkeypatch):
    own = object()
    torch = fake_torch(monkeypatch, launcher=own)
    fake_backend(monkeypatch)
    result = xpu_static_launcher.install(verbose=False, libraries=libsycl(9))
    assert result.status == "present"
    assert result.message == "torch._C._StaticXpuLauncher is present (torch has its own, left alone)"
    assert torch._C._StaticXpuLauncher is own
    assert xpu_static_launcher.uninstall(verbose=False).status == "not-installed"
    assert torch._C._StaticXpuLauncher is own


def test_backend_missing_says_why(monkeypatch):
    torch = fake_torch(monkeypatch)
    monkeypatch.setitem(sys.modules, BACKEND, None)  # import fails
    result = xpu_static_launcher.install(verbose=False, libraries=libsycl(9))
    assert result.status == "no-backend"
    assert result.message.startswith(f"nothing installed: the SYCL backend {BACKEND} cannot be used (")
    assert result.message.endswith("); rebuild the package in this environment with intel-sycl-rt installed")
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_backend_without_torchs_abi_is_not_installed(monkeypatch):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch, with_class=False)
    result = xpu_static_launcher.install(verbose=False, libraries=libsycl(9))
    assert result.status == "no-backend"
    assert f"({BACKEND} lacks _load_kernel, _launch_kernel)" in result.message
    assert not hasattr(torch._C, "_StaticXpuLauncher")


@pytest.mark.parametrize("built, loaded", [(8, 9), (9, 8), (None, 9)])
def test_libsycl_major_mismatch_is_refused_in_one_line(monkeypatch, capsys, built, loaded):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch, major=built)
    result = xpu_static_launcher.install(libraries=libsycl(loaded))
    assert result.status == "sycl-mismatch"
    line = (
        f"refused: {BACKEND} was built against libsycl major {built} but this process loaded libsycl "
        f"major {loaded}; rebuild the package (pip install --no-build-isolation .) in the environment "
        "torch runs in"
    )
    assert result.message == line
    assert capsys.readouterr().err == f"xpu_static_launcher: {line}\n"
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_no_libsycl_loaded_is_refused(monkeypatch):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    result = xpu_static_launcher.install(verbose=False, libraries=lambda: ["libc.so.6"])
    assert result.status == "sycl-unknown" and "built for libsycl major 9" in result.message
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_success_then_present_then_undo(monkeypatch, capsys):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch, major=8)
    monkeypatch.setattr(sys, "platform", "linux")
    result = xpu_static_launcher.install(libraries=lambda: ["/opt/x/libsycl.so.8.0.1"])
    assert result.status == "installed" and result.installed and result.zebin is None
    assert torch._C._StaticXpuLauncher is _Launcher
    assert capsys.readouterr().err == (
        "xpu_static_launcher: installed the SYCL backend (libsycl 8) as torch._C._StaticXpuLauncher\n"
    )
    again = xpu_static_launcher.install(verbose=False, libraries=libsycl(8))
    assert again.status == "present" and "installed by xpu_static_launcher already" in again.message
    undone = xpu_static_launcher.uninstall(verbose=False)
    assert undone.status == "uninstalled" and undone.message == "removed torch._C._StaticXpuLauncher"
    assert not hasattr(torch._C, "_StaticXpuLauncher")
    assert xpu_static_launcher.uninstall(verbose=False).status == "not-installed"


def test_module_backend_with_the_abi_functions_is_installed_as_is(monkeypatch):
    torch = fake_torch(monkeypatch)
    backend = fake_backend(monkeypatch, with_class=False)
    backend._load_kernel = _Launcher._load_kernel
    backend._launch_kernel = _Launcher._launch_kernel
    assert xpu_static_launcher.install(verbose=False, zebin=False, libraries=libsycl(9)).installed
    assert torch._C._StaticXpuLauncher is backend


def test_uninstall_leaves_a_launcher_set_by_someone_else(monkeypatch):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    assert xpu_static_launcher.install(verbose=False, zebin=False, libraries=libsycl(9)).installed
    other = object()
    torch._C._StaticXpuLauncher = other
    result = xpu_static_launcher.uninstall(verbose=False)
    assert "left torch._C._StaticXpuLauncher alone" in result.message
    assert torch._C._StaticXpuLauncher is other


def _fake_inductor(monkeypatch, value: str = "spv") -> types.ModuleType:
    utils = types.ModuleType("torch._inductor.utils")
    utils.XPU_KERNEL_FORMAT = value
    utils.GPU_KERNEL_BIN_EXTS = {"cuda": ".cubin", "xpu": f".{value}"}
    monkeypatch.setitem(sys.modules, "torch._inductor", types.ModuleType("torch._inductor"))
    monkeypatch.setitem(sys.modules, utils.__name__, utils)
    return utils


@pytest.mark.parametrize(
    "platform, ocloc, zebin, expected",
    [
        ("win32", "C:\\ocloc", None, "zebin"),  # default on Windows with an ocloc
        ("win32", None, None, "spv"),  # no ocloc: default off
        ("win32", "C:\\ocloc", False, "spv"),  # turned off
        ("linux", None, None, "spv"),  # default off elsewhere (stand-in starts at spv)
    ],
)
def test_zebin_switch_follows_the_default_and_is_undone(monkeypatch, platform, ocloc, zebin, expected):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    utils = _fake_inductor(monkeypatch)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setenv("PATH", "C:\\ocloc" if platform == "win32" else "/usr/bin")
    result = torch_install.install(
        zebin, verbose=False, libraries=libsycl(9), find_ocloc=lambda: (ocloc, f"ocloc in {ocloc}")
    )
    assert result.installed and torch._C._StaticXpuLauncher is _Launcher
    assert utils.XPU_KERNEL_FORMAT == expected and utils.GPU_KERNEL_BIN_EXTS["xpu"] == f".{expected}"
    if expected == "zebin":
        assert result.message.endswith(
            "; Inductor XPU kernel format: zebin (zebin: Triton-XPU makes it with ocloc in C:\\ocloc)"
        )
    undone = xpu_static_launcher.uninstall(verbose=False)
    assert utils.XPU_KERNEL_FORMAT == "spv" and utils.GPU_KERNEL_BIN_EXTS["xpu"] == ".spv"
    assert ("back to spv" in undone.message) is (expected == "zebin")


def test_zebin_forced_on_off_windows(monkeypatch):
    fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    utils = _fake_inductor(monkeypatch)
    monkeypatch.setattr(sys, "platform", "linux")
    result = xpu_static_launcher.install(True, verbose=False, libraries=libsycl(9))
    assert result.zebin is not None and utils.XPU_KERNEL_FORMAT == "zebin"
    xpu_static_launcher.uninstall(verbose=False)
    assert utils.XPU_KERNEL_FORMAT == "spv"


@pytest.mark.parametrize(
    "names, majors",
    [
        (["libsycl.so.9"], {9}),
        (["/usr/lib/libsycl.so.8.0.0"], {8}),
        (["C:\\env\\Library\\bin\\sycl8.dll"], {8}),
        (["SYCL7D.DLL"], {7}),
        (["libsycl-preview.so.9", "sycl9-preview.dll", "libsycl.so", "libsycl-jit.so.23.1", "mysycl8.dll"], set()),
        (["libsycl.so.8", "sycl9.dll"], {8, 9}),
    ],
)
def test_sycl_majors_from_library_names(names: list[str], majors):
    assert torch_install.sycl_majors(names) == majors


def test_linux_maps_parser(tmp_path: Path):
    maps = tmp_path / "maps"
    maps.write_text(
        textwrap.dedent("""\
        7f00-7f01 r-xp 00000000 08:01 123 /env/lib/libsycl.so.9.0.0
        7f01-7f02 r--p 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/libc.so.6
        7f02-7f03 rw-p 00000000 00:00 0
        7ffd-7ffe rw-p 00000000 00:00 0 [stack]
        """)
    )
    assert torch_install.linux_loaded_libraries(str(maps)) == ["libc.so.6", "libsycl.so.9.0.0"]
    assert torch_install.linux_loaded_libraries(str(tmp_path / "absent")) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/maps")
def test_real_process_probe_sees_the_environments_libsycl():
    libs = sorted(
        p
        for p in (Path(sys.prefix) / "lib").glob("libsycl.so.*")
        if torch_install.sycl_majors([p.name]) and p.name.count(".") == 2
    )
    if not libs:
        pytest.skip("intel-sycl-rt is not installed in this environment")
    lib = libs[0]
    code = (
        "import ctypes, sys; from xpu_static_launcher import torch_install as t; "
        "before = t.sycl_majors(t.loaded_libraries()); ctypes.CDLL(sys.argv[1]); "
        "print(sorted(before), sorted(t.sycl_majors(t.loaded_libraries())))"
    )
    env_path = str(Path(xpu_static_launcher.__file__).parents[1])
    proc = subprocess.run(
        [sys.executable, "-c", code, str(lib)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    major = int(lib.name.split(".")[2])
    assert proc.stdout.split() == ["[]", f"[{major}]"]


def test_bad_format_variable_still_installs_and_says_so(monkeypatch):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    utils = _fake_inductor(monkeypatch)
    monkeypatch.setenv(inductor_format.ENV_VAR, "ptx")
    result = xpu_static_launcher.install(True, verbose=False, libraries=libsycl(9))
    assert result.installed and result.zebin is None
    # The stand-in Inductor stays at spv: the launcher is set, nothing launches statically.
    assert result.status == "installed-spirv" and not result.static
    assert result.message.endswith(
        "; Inductor XPU kernel format unchanged: TORCHINDUCTOR_XPU_KERNEL_FORMAT='ptx' "
        "is not a kernel format Inductor knows; set it to 'zebin' or 'spv', or unset it; "
        "so Inductor launches no kernel statically"
    )
    assert utils.XPU_KERNEL_FORMAT == "spv"
    assert xpu_static_launcher.uninstall(verbose=False).status == "uninstalled"
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_windows_without_a_zebin_compiler_is_installed_spirv_with_the_fix(monkeypatch, capsys):
    torch = fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    utils = _fake_inductor(monkeypatch)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(
        inductor_format, "find_driver_compiler", lambda: (False, "this Triton-XPU cannot compile with the GPU driver")
    )
    result = torch_install.install(libraries=libsycl(9), find_ocloc=lambda: (None, "ocloc was not found"))
    assert result.status == "installed-spirv" and result.installed and not result.static
    assert torch._C._StaticXpuLauncher is _Launcher and utils.XPU_KERNEL_FORMAT == "spv"
    line = (
        "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; but kernels stay SPIR-V, so "
        "Inductor launches none of them statically: kept SPIR-V (.spv), which cannot be launched statically: "
        "ocloc was not found; this Triton-XPU cannot compile with the GPU driver; install the intel_ocloc "
        "wheel (scripts/ocloc_wheel.py) or oneAPI's ocloc, so that Triton-XPU can make zebins"
    )
    assert result.message == line
    assert capsys.readouterr().err == f"xpu_static_launcher: {line}\n"
    assert xpu_static_launcher.uninstall(verbose=False).status == "uninstalled"
    assert not hasattr(torch._C, "_StaticXpuLauncher")


@pytest.mark.parametrize(
    "zebin, why",
    [
        (False, "the zebin switch is off (zebin=False or check --no-zebin); leave it on"),
        (
            None,
            "torch._inductor.utils.XPU_KERNEL_FORMAT is 'spv' although zebin is the default off Windows; "
            "call xpu_static_launcher.enable_zebin() or install(zebin=True)",
        ),
    ],
)
def test_spirv_after_install_names_the_reason(monkeypatch, zebin, why):
    fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    _fake_inductor(monkeypatch)
    monkeypatch.setattr(sys, "platform", "linux")
    result = xpu_static_launcher.install(zebin, verbose=False, libraries=libsycl(9))
    assert result.status == "installed-spirv"
    assert result.message.endswith("; but kernels stay SPIR-V, so Inductor launches none of them statically: " + why)


def test_zebin_after_install_is_installed_and_static(monkeypatch):
    fake_torch(monkeypatch)
    fake_backend(monkeypatch)
    _fake_inductor(monkeypatch, "zebin")
    monkeypatch.setattr(sys, "platform", "linux")
    result = xpu_static_launcher.install(verbose=False, libraries=libsycl(9))
    assert result.status == "installed" and result.static


# ------------------------------------------------ a backend that loads SPIR-V

# Inductor's runtime as far as enable_spirv_launch reads it: a
# StaticallyLaunchedXpuKernel that reads asm into cubin_raw and loads through
# C_impl._load_kernel, and a can_statically_launch with the SPIR-V refusal.
# test_inductor_spirv.py runs the releases' own.
_RUNTIME_LAUNCHER = textwrap.dedent("""\
    class StaticallyLaunchedTritonKernel:
        def __init__(self, kernel):
            self.name, self.cubin_path, self.shared, self.function = kernel.name, kernel.path, 0, None
    class StaticallyLaunchedXpuKernel(StaticallyLaunchedTritonKernel):
        def __init__(self, kernel):
            self.cubin_raw = kernel.asm.get("zebin", None)
            super().__init__(kernel)
        def load_kernel(self, device):
            if self.function is None:
                self.function, self.n_regs, self.n_spills = self.C_impl._load_kernel(
                    self.cubin_path, self.name, self.shared, device)
    """)
_RUNTIME_HEURISTICS = textwrap.dedent("""\
    XPU_KERNEL_FORMAT = "spv"
    class CannotStaticallyLaunchKernel(Exception):
        pass
    class StaticTritonCompileResult:
        @staticmethod
        def can_statically_launch(kernel, inductor_meta, triton_meta, heuristic_type):
            def check_can_launch():
                if triton_meta.get("device_type") == "xpu" and XPU_KERNEL_FORMAT == "spv":
                    raise CannotStaticallyLaunchKernel("Static XPU Triton kernel launch does not support SPIR-V kernel.")
                return "static"
            try:
                return check_can_launch()
            except CannotStaticallyLaunchKernel:
                return None
    """)  # noqa: E501 - upstream's line, as Inductor has it


def _fake_runtime(monkeypatch) -> types.SimpleNamespace:
    launcher = types.ModuleType(inductor_spirv.LAUNCHER)
    launcher.__dict__["CompiledKernel"] = object
    exec(_RUNTIME_LAUNCHER, launcher.__dict__)  # noqa: S102
    heuristics = types.ModuleType(inductor_spirv.HEURISTICS)
    exec(_RUNTIME_HEURISTICS, heuristics.__dict__)  # noqa: S102
    monkeypatch.setitem(sys.modules, launcher.__name__, launcher)
    monkeypatch.setitem(sys.modules, heuristics.__name__, heuristics)
    result = heuristics.StaticTritonCompileResult
    kernel = launcher.StaticallyLaunchedXpuKernel
    return types.SimpleNamespace(
        heuristics=heuristics,
        launcher=launcher,
        refuses=lambda: result.can_statically_launch(None, {}, {"device_type": "xpu"}, None) is None,
        targets=lambda: [
            kernel.__dict__["__init__"],
            kernel.__dict__["load_kernel"],
            result.__dict__["can_statically_launch"],
        ],
    )


SPIRV_LINE = (
    "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; Inductor's XPU kernels stay "
    "SPIR-V and are launched statically as SPIR-V (compiled by the GPU driver at first load, kept "
    "afterwards)"
)


@pytest.fixture
def spirv_backend(monkeypatch):
    """A stand-in torch and Inductor on Windows, and a backend that loads
    SPIR-V (LOADS_SPIRV = 1, as the compiled module sets it)."""
    torch = fake_torch(monkeypatch)
    backend = fake_backend(monkeypatch)
    backend.LOADS_SPIRV = 1
    utils = _fake_inductor(monkeypatch)
    runtime = _fake_runtime(monkeypatch)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(inductor_format, "find_driver_compiler", lambda: (False, "no driver compiler"))
    monkeypatch.setenv("PATH", "C:\\ocloc")
    yield types.SimpleNamespace(torch=torch, backend=backend, utils=utils, runtime=runtime)
    while inductor_spirv.disable_spirv_launch() is not None:
        pass


@pytest.mark.parametrize("ocloc", ["C:\\ocloc", None])
def test_spirv_backend_launches_spirv_statically_and_leaves_the_format(spirv_backend, capsys, ocloc):
    env = spirv_backend
    assert env.runtime.refuses()
    stock = env.runtime.targets()
    result = torch_install.install(libraries=libsycl(9), find_ocloc=lambda: (ocloc, f"ocloc in {ocloc}"))
    assert result.status == "installed" and result.static and result.spirv_launch
    assert result.message == SPIRV_LINE
    assert capsys.readouterr().err == f"xpu_static_launcher: {SPIRV_LINE}\n"
    assert result.zebin is None  # no zebin switch by default, ocloc or not
    assert env.utils.XPU_KERNEL_FORMAT == "spv" and env.utils.GPU_KERNEL_BIN_EXTS["xpu"] == ".spv"
    assert env.runtime.heuristics.XPU_KERNEL_FORMAT == "spv"
    assert not env.runtime.refuses() and inductor_spirv.is_enabled()
    # The backend's launcher, with the build flags of the kernel being loaded.
    assert env.torch._C._StaticXpuLauncher.backend is _Launcher
    assert env.torch._C._StaticXpuLauncher._launch_kernel == _Launcher._launch_kernel
    undone = xpu_static_launcher.uninstall(verbose=False)
    assert undone.message == "removed torch._C._StaticXpuLauncher; Inductor refuses SPIR-V kernels again"
    assert env.runtime.refuses() and not inductor_spirv.is_enabled()
    assert all(a is b for a, b in zip(env.runtime.targets(), stock))


def test_spirv_backend_zebin_opt_in_with_ocloc_still_switches(spirv_backend, monkeypatch):
    env = spirv_backend
    monkeypatch.setenv(inductor_format.ENV_VAR, "zebin")
    result = torch_install.install(verbose=False, libraries=libsycl(9), find_ocloc=lambda: ("C:\\ocloc", "ocloc X"))
    assert result.status == "installed" and result.zebin is not None and result.zebin.changed
    assert result.message == (
        "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; Inductor XPU "
        "kernel format: zebin (TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin; Triton-XPU makes it with ocloc X)"
    )
    assert env.utils.XPU_KERNEL_FORMAT == "zebin" and env.utils.GPU_KERNEL_BIN_EXTS["xpu"] == ".zebin"
    assert inductor_spirv.is_enabled()
    undone = xpu_static_launcher.uninstall(verbose=False)
    assert undone.message.endswith("; Inductor XPU kernel format back to spv; Inductor refuses SPIR-V kernels again")
    assert env.utils.XPU_KERNEL_FORMAT == "spv" and env.runtime.refuses()


def test_spirv_backend_zebin_opt_in_without_a_zebin_compiler_stays_spirv_and_static(spirv_backend, monkeypatch):
    env = spirv_backend
    monkeypatch.setenv(inductor_format.ENV_VAR, "zebin")
    result = torch_install.install(
        verbose=False, libraries=libsycl(9), find_ocloc=lambda: (None, "ocloc was not found")
    )
    assert result.status == "installed" and result.static and result.zebin is None
    assert result.message == (
        SPIRV_LINE + " (TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin is not applied: Triton-XPU has "
        "no zebin compiler here (ocloc was not found; no driver compiler))"
    )
    assert env.utils.XPU_KERNEL_FORMAT == "spv" and not env.runtime.refuses()


def test_spirv_backend_with_zebin_forced_and_no_compiler_says_so_and_stays_static(spirv_backend):
    result = torch_install.install(
        True, verbose=False, libraries=libsycl(9), find_ocloc=lambda: (None, "ocloc was not found")
    )
    assert result.status == "installed" and result.zebin is not None and not result.zebin.changed
    assert result.message.startswith(
        SPIRV_LINE + " (zebin was asked for, but Inductor keeps SPIR-V: kept SPIR-V "
        "(.spv): ocloc was not found; no driver compiler; install the "
    )
    assert "cannot be launched statically" not in result.message


def test_spirv_backend_off_windows_with_zebin(spirv_backend, monkeypatch):
    env = spirv_backend
    monkeypatch.setattr(sys, "platform", "linux")
    env.utils.XPU_KERNEL_FORMAT = "zebin"
    monkeypatch.setenv(inductor_format.ENV_VAR, "zebin")  # torch reads it itself off Windows
    result = torch_install.install(
        verbose=False, libraries=libsycl(9), find_ocloc=lambda: pytest.fail("ocloc looked up off Windows")
    )
    assert result.status == "installed" and result.spirv_launch and result.zebin is None
    assert result.message == "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher"


@pytest.mark.parametrize("ocloc, status", [(None, "installed-spirv"), ("C:\\ocloc", "installed")])
def test_spirv_backend_on_a_torch_it_cannot_change_falls_back_to_zebin(spirv_backend, monkeypatch, ocloc, status):
    env = spirv_backend
    monkeypatch.setitem(sys.modules, inductor_spirv.LAUNCHER, None)  # not importable
    result = torch_install.install(verbose=False, libraries=libsycl(9), find_ocloc=lambda: (ocloc, f"ocloc in {ocloc}"))
    assert result.status == status and result.spirv is not None and not result.spirv.enabled
    assert not result.spirv_launch
    if ocloc is None:
        assert not result.static and env.utils.XPU_KERNEL_FORMAT == "spv"
        assert "; but kernels stay SPIR-V, so Inductor launches none of them statically: kept SPIR-V" in result.message
        assert result.message.endswith(
            " (this backend loads SPIR-V, but torch's Inductor cannot be imported "
            f"(import of {inductor_spirv.LAUNCHER} halted; None in sys.modules); "
            "nothing changed)"
        )
    else:
        assert result.static and env.utils.XPU_KERNEL_FORMAT == "zebin"
        assert "Inductor XPU kernel format: zebin" in result.message
    # Refused while SPIR-V; with zebin (enable_zebin reaches the runtime's copy too) there is nothing to refuse.
    assert env.runtime.heuristics.XPU_KERNEL_FORMAT == env.utils.XPU_KERNEL_FORMAT
    assert env.runtime.refuses() is (ocloc is None)


@pytest.mark.parametrize("value", [None, False, 0])
def test_backend_without_loads_spirv_keeps_todays_behaviour(spirv_backend, value):
    env = spirv_backend
    if value is None:
        del env.backend.LOADS_SPIRV
    else:
        env.backend.LOADS_SPIRV = value
    stock = env.runtime.targets()
    result = torch_install.install(
        verbose=False, libraries=libsycl(9), find_ocloc=lambda: (None, "ocloc was not found")
    )
    assert result.status == "installed-spirv" and result.spirv is None and not result.spirv_launch
    assert result.message.startswith(
        "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; but "
        "kernels stay SPIR-V, so Inductor launches none of them statically: "
    )
    assert env.runtime.refuses() and all(a is b for a, b in zip(env.runtime.targets(), stock))
    assert "Inductor refuses SPIR-V" not in xpu_static_launcher.uninstall(verbose=False).message
