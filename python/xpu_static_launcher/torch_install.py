"""Put this package's SYCL launcher into a published PyTorch XPU wheel.

``install()`` sets ``torch._C._StaticXpuLauncher`` to the SYCL backend
(``xpu_static_launcher._sycl_launcher``) only when all of these hold:

1. torch imports and is XPU-capable: ``torch._C._xpu_getCurrentRawStream``
   exists (Inductor passes its ``sycl::queue*`` as ``stream``) and
   ``torch.xpu.is_available()``;
2. torch has no ``_StaticXpuLauncher`` of its own;
3. the backend imports and was built against the libsycl major torch loaded
   (``_sycl_launcher.SYCL_MAJOR`` against ``libsycl.so.<N>`` in
   /proc/self/maps on Linux, ``sycl<N>.dll`` among the process's modules on
   Windows).

It never installs the Level Zero launcher (``xpu_static_launcher.launcher.
StaticXpuLauncher``): that one takes Level Zero command lists, not torch's
queues, and stays under its own name for tools and tests.

A backend that loads SPIR-V (``_sycl_launcher.LOADS_SPIRV`` true) is followed
by ``inductor_spirv.enable_spirv_launch``: Inductor then launches SPIR-V
kernels statically too (the GPU driver compiles each at its first load; the
loaded kernel is kept afterwards), and ``XPU_KERNEL_FORMAT`` is left alone,
so on Windows kernels stay SPIR-V and no ocloc is needed. The status is
``installed``. Zebin is then only an opt-in: ``zebin=True``, or by default
``TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin`` on Windows with a zebin compiler
for Triton-XPU, switches the format with ``inductor_format.enable_zebin``.

Otherwise (an older backend, or a torch whose code ``enable_spirv_launch``
does not know) ``zebin`` (default: on Windows when Triton-XPU has a zebin
compiler) switches Inductor to zebin with ``enable_zebin``. The status is
``installed`` only when Inductor then keeps kernels as zebin; when they stay
SPIR-V (no ocloc and no driver compiler on Windows,
``TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv``, ``zebin=False``) the launcher is set
but Inductor refuses static launch for every kernel, and the status is
``installed-spirv`` with the fix named.

The result names what happened in one line; ``uninstall()`` undoes all of it.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import inductor_format, inductor_spirv, triton_release

BACKEND_MODULE = "xpu_static_launcher._sycl_launcher"
ATTRIBUTE = "_StaticXpuLauncher"
ABI = ("_load_kernel", "_launch_kernel")

# Lists the file names of the shared libraries loaded in this process.
LibraryProbe = Callable[[], Iterable[str]]

# install() set the launcher: kernels launch statically (zebin, or SPIR-V with
# a backend that loads it), or they stay SPIR-V that Inductor refuses.
INSTALLED = ("installed", "installed-spirv")
# What install() says when kernels stay SPIR-V and are launched statically.
SPIRV_STATIC = (
    "Inductor's XPU kernels stay SPIR-V and are launched statically as SPIR-V (compiled by the GPU "
    "driver at first load, kept afterwards)"
)

_LINUX_SYCL = re.compile(r"^libsycl\.so\.(\d+)(?:\.|$)")
_WINDOWS_SYCL = re.compile(r"^sycl(\d+)d?\.dll$", re.IGNORECASE)


@dataclass
class InstallResult:
    """``status`` is one of: installed, installed-spirv, present, no-torch,
    not-xpu, no-backend, sycl-mismatch, sycl-unknown (install); uninstalled,
    not-installed (uninstall). ``message`` is the one line that says it.
    ``installed`` is true when this call set the launcher (both installed
    statuses); ``static`` only when Inductor will also launch kernels
    statically (zebins, or SPIR-V with a backend that loads it)."""

    status: str
    message: str
    zebin: inductor_format.FormatChange | None = None
    spirv: inductor_spirv.SpirvLaunchChange | None = None

    @property
    def installed(self) -> bool:
        return self.status in INSTALLED

    @property
    def static(self) -> bool:
        """True when Inductor will launch kernels statically."""
        return self.status == "installed"

    @property
    def spirv_launch(self) -> bool:
        """True when SPIR-V kernels are launched statically too."""
        return self.status == "installed" and self.spirv is not None and self.spirv.enabled

    def __str__(self) -> str:
        return self.message


@dataclass
class _Installed:
    torch_c: Any
    launcher: Any
    zebin: inductor_format.FormatChange | None
    spirv: inductor_spirv.SpirvLaunchChange | None = None
    metadata: str = ""  # how n_regs/n_spills are reported (triton_release)


_installed: _Installed | None = None


def linux_loaded_libraries(maps: str = "/proc/self/maps") -> list[str]:
    """File names of the libraries mapped into this process (Linux)."""
    names: set[str] = set()
    try:
        with open(maps, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                fields = line.split(None, 5)
                if len(fields) == 6 and fields[5].startswith("/"):
                    names.add(os.path.basename(fields[5].strip()))
    except OSError:
        return []
    return sorted(names)


def windows_loaded_libraries() -> list[str]:  # pragma: no cover - Windows only
    """File names of the modules loaded in this process (Windows,
    EnumProcessModules)."""
    import ctypes
    from ctypes import wintypes

    psapi = ctypes.WinDLL("psapi", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]  # Windows only
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]  # Windows only
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    process = kernel32.GetCurrentProcess()
    psapi.EnumProcessModules.argtypes = [
        wintypes.HANDLE,
        ctypes.POINTER(wintypes.HMODULE),
        wintypes.DWORD,
        ctypes.POINTER(wintypes.DWORD),
    ]
    kernel32.GetModuleFileNameW.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
    count = 1024
    while True:
        modules = (wintypes.HMODULE * count)()
        needed = wintypes.DWORD()
        if not psapi.EnumProcessModules(process, modules, ctypes.sizeof(modules), ctypes.byref(needed)):
            return []
        if needed.value <= ctypes.sizeof(modules):
            break
        count = needed.value // ctypes.sizeof(wintypes.HMODULE) + 16
    names = []
    buffer = ctypes.create_unicode_buffer(32768)
    for handle in modules[: needed.value // ctypes.sizeof(wintypes.HMODULE)]:
        if handle and kernel32.GetModuleFileNameW(handle, buffer, len(buffer)):
            names.append(os.path.basename(buffer.value))
    return sorted(names)


def loaded_libraries() -> list[str]:
    """This process's loaded libraries on this platform ([] elsewhere)."""
    if os.name == "nt":  # pragma: no cover - Windows only
        return windows_loaded_libraries()
    if sys.platform.startswith("linux"):
        return linux_loaded_libraries()
    return []


def sycl_majors(libraries: Iterable[str]) -> set[int]:
    """The libsycl majors among library file names (``libsycl.so.9``,
    ``libsycl.so.9.0.0``, ``sycl8.dll``, ``sycl8d.dll``)."""
    majors: set[int] = set()
    for name in libraries:
        base = os.path.basename(name.replace("\\", "/"))
        match = _LINUX_SYCL.match(base) or _WINDOWS_SYCL.match(base)
        if match:
            majors.add(int(match.group(1)))
    return majors


def _report(result: InstallResult, verbose: bool) -> InstallResult:
    if verbose:
        print(f"xpu_static_launcher: {result.message}", file=sys.stderr)
    return result


def _launcher_of(backend: types.ModuleType) -> Any:
    """The object with torch's ABI: the type the glue's StaticXpuLauncher_init
    registers (``_StaticXpuLauncher``, as in torch._C), else a
    ``StaticXpuLauncher`` class, else the module itself."""
    launcher = getattr(backend, ATTRIBUTE, None) or getattr(backend, "StaticXpuLauncher", backend)
    missing = [name for name in ABI if not callable(getattr(launcher, name, None))]
    if missing:
        raise ImportError(f"{BACKEND_MODULE} lacks {', '.join(missing)}")
    return launcher


def loads_spirv(backend: types.ModuleType) -> bool:
    """Whether the backend's ``_load_kernel`` takes SPIR-V and build flags
    (``LOADS_SPIRV``: True, or 1 as the compiled module sets it; absent on
    older builds)."""
    value = getattr(backend, "LOADS_SPIRV", False)
    return isinstance(value, int) and bool(value)


def install(
    zebin: bool | None = None,
    *,
    verbose: bool = True,
    libraries: LibraryProbe | None = None,
    find_ocloc: inductor_format.OclocFinder | None = None,
) -> InstallResult:
    """Install the SYCL backend as ``torch._C._StaticXpuLauncher`` when it is
    safe (see the module doc); returns what happened and, with ``verbose``,
    prints it to stderr as one line. ``zebin``: True/False forces
    ``enable_zebin`` on/off after a successful install; None means: with a
    backend that loads SPIR-V, only on Windows when
    ``TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin`` asks for it and Triton-XPU has a
    zebin compiler; with another backend, on Windows when Triton-XPU has a
    zebin compiler. ``libraries`` and ``find_ocloc`` replace the process and
    ocloc probes (tests)."""
    global _installed
    try:
        import torch
        import torch._C as torch_c
    except ImportError as err:
        return _report(InstallResult("no-torch", f"nothing installed: torch cannot be imported ({err})"), verbose)
    existing = getattr(torch_c, ATTRIBUTE, None)
    if existing is not None:
        ours = _installed is not None and existing is _installed.launcher
        why = "installed by xpu_static_launcher already" if ours else "torch has its own, left alone"
        return _report(InstallResult("present", f"torch._C.{ATTRIBUTE} is present ({why})"), verbose)
    if not hasattr(torch_c, "_xpu_getCurrentRawStream"):
        return _report(
            InstallResult(
                "not-xpu",
                f"nothing installed: torch {getattr(torch, '__version__', '?')} is not an XPU build "
                "(no torch._C._xpu_getCurrentRawStream); install a PyTorch XPU wheel",
            ),
            verbose,
        )
    xpu = getattr(torch, "xpu", None)
    if xpu is None or not xpu.is_available():
        return _report(
            InstallResult(
                "not-xpu",
                "nothing installed: torch.xpu.is_available() is False (no Intel GPU or driver visible to torch)",
            ),
            verbose,
        )
    torch_majors = sycl_majors((libraries or loaded_libraries)())
    try:
        backend = importlib.import_module(BACKEND_MODULE)
        launcher = _launcher_of(backend)
    except ImportError as err:
        return _report(
            InstallResult(
                "no-backend",
                f"nothing installed: the SYCL backend {BACKEND_MODULE} cannot be used ({err}); "
                "rebuild the package in this environment with intel-sycl-rt installed",
            ),
            verbose,
        )
    built = getattr(backend, "SYCL_MAJOR", None)
    if not torch_majors:
        return _report(
            InstallResult(
                "sycl-unknown",
                f"nothing installed: no libsycl is loaded by torch in this process, so the "
                f"backend (built for libsycl major {built}) cannot be checked against it",
            ),
            verbose,
        )
    if not isinstance(built, int) or torch_majors != {built}:
        loaded = ", ".join(str(m) for m in sorted(torch_majors))
        return _report(
            InstallResult(
                "sycl-mismatch",
                f"refused: {BACKEND_MODULE} was built against libsycl major {built} but this "
                f"process loaded libsycl major {loaded}; rebuild the package "
                "(pip install --no-build-isolation .) in the environment torch runs in",
            ),
            verbose,
        )
    spirv_backend = loads_spirv(backend)
    if spirv_backend:
        launcher = inductor_spirv.launcher_with_build_flags(launcher)
    setattr(torch_c, ATTRIBUTE, launcher)
    _installed = _Installed(torch_c, launcher, None)
    _installed.metadata = triton_release.apply_to(backend)
    spirv_why = ""
    if spirv_backend:
        _installed.spirv = inductor_spirv.enable_spirv_launch()
        if _installed.spirv.enabled:
            return _report(_install_with_spirv(built, zebin, find_ocloc), verbose)
        spirv_why = f"this backend loads SPIR-V, but {_installed.spirv.reason}"
    by_default = zebin is None
    if zebin is None:
        zebin = inductor_format.zebin_by_default(find_ocloc)
    message = f"installed the SYCL backend (libsycl {built}) as torch._C.{ATTRIBUTE}"
    zebin_why = ""
    if zebin:
        try:
            _installed.zebin = inductor_format.enable_zebin(find_ocloc=find_ocloc)
        except ValueError as err:  # a bad TORCHINDUCTOR_XPU_KERNEL_FORMAT
            message += f"; Inductor XPU kernel format unchanged: {err}"
            zebin_why = str(err)
        else:
            change = _installed.zebin
            message += f"; Inductor XPU kernel format: {change.format} ({change.reason})"
            zebin_why = change.reason
    if inductor_format.current_format() != "spv":
        return _report(InstallResult("installed", _with_metadata(message), _installed.zebin, _installed.spirv), verbose)
    if zebin_why:
        message += "; so Inductor launches no kernel statically"
    else:
        message += "; but kernels stay SPIR-V, so Inductor launches none of them statically: " + _spirv_reason(
            by_default, find_ocloc
        )
    if spirv_why:
        message += f" ({spirv_why})"
    return _report(InstallResult("installed-spirv", message, _installed.zebin, _installed.spirv), verbose)


def _with_metadata(message: str) -> str:
    """install()'s message with how n_regs/n_spills are reported."""
    assert _installed is not None
    return f"{message}; {_installed.metadata}" if _installed.metadata else message


def _install_with_spirv(
    built: Any, zebin: bool | None, find_ocloc: inductor_format.OclocFinder | None
) -> InstallResult:
    """The end of install() once Inductor launches SPIR-V kernels statically:
    zebin only when asked for (``zebin=True``, or the variable on Windows)."""
    assert _installed is not None
    message = f"installed the SYCL backend (libsycl {built}) as torch._C.{ATTRIBUTE}"
    opted_out = compiler = ""
    if zebin is None:
        try:
            zebin, found = inductor_format.zebin_opted_in(find_ocloc=find_ocloc)
        except ValueError as err:  # a bad TORCHINDUCTOR_XPU_KERNEL_FORMAT
            zebin, opted_out = False, str(err)
        else:
            if zebin:
                compiler = f"; Triton-XPU makes it with {found}"
            elif found:
                opted_out = (
                    f"{inductor_format.ENV_VAR}=zebin is not applied: Triton-XPU has no zebin compiler here ({found})"
                )
    if zebin:
        try:
            _installed.zebin = inductor_format.enable_zebin(find_ocloc=find_ocloc)
        except ValueError as err:
            opted_out = str(err)
        else:
            change = _installed.zebin
            if change.format == "zebin":
                message += f"; Inductor XPU kernel format: zebin ({change.reason}{compiler})"
            else:
                opted_out = "zebin was asked for, but Inductor keeps SPIR-V: " + change.reason.replace(
                    ", which cannot be launched statically", ""
                )
    if inductor_format.current_format() == "spv":
        message += "; " + SPIRV_STATIC
    if opted_out:
        message += f" ({opted_out})"
    return InstallResult("installed", _with_metadata(message), _installed.zebin, _installed.spirv)


def _spirv_reason(by_default: bool, find_ocloc: inductor_format.OclocFinder | None) -> str:
    """Why Inductor reports SPIR-V when install() did not run the zebin
    switch, and the fix."""
    if not by_default:
        return "the zebin switch is off (zebin=False or check --no-zebin); leave it on"
    target, reason = inductor_format.zebin_decision(find_ocloc=find_ocloc)
    if target == "spv":
        return reason
    return (
        f"torch._inductor.utils.{inductor_format.BINDING} is 'spv' although {reason}; "
        "call xpu_static_launcher.enable_zebin() or install(zebin=True)"
    )


def uninstall(*, verbose: bool = True) -> InstallResult:
    """Undo ``install()``: remove the launcher it set (only if it is still
    the one it set) and undo its ``enable_zebin`` and
    ``enable_spirv_launch``."""
    global _installed
    state, _installed = _installed, None
    if state is None:
        return _report(
            InstallResult("not-installed", "nothing to undo: install() did not install a launcher in this process"),
            verbose,
        )
    if state.zebin is not None:
        state.zebin.undo()
    if state.spirv is not None:
        state.spirv.undo()
    if getattr(state.torch_c, ATTRIBUTE, None) is state.launcher:
        delattr(state.torch_c, ATTRIBUTE)
        message = f"removed torch._C.{ATTRIBUTE}"
    else:
        message = f"left torch._C.{ATTRIBUTE} alone (it was replaced after install())"
    if state.zebin is not None and state.zebin.changed:
        message += f"; Inductor XPU kernel format back to {state.zebin.previous}"
    if state.spirv is not None and state.spirv.changed:
        message += "; Inductor refuses SPIR-V kernels again"
        if state.spirv.left_alone:
            message += f" (except {', '.join(state.spirv.left_alone)}, replaced after install() and left alone)"
    return _report(InstallResult("uninstalled", message, state.zebin, state.spirv), verbose)


__all__ = ["INSTALLED", "InstallResult", "install", "uninstall", "loaded_libraries", "loads_spirv", "sycl_majors"]
