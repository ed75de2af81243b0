"""Switch PyTorch Inductor's XPU kernel format to zebin at run time.

Published torch wheels (2.13 through 2.15) decide the format once, when
``torch._inductor.utils`` is imported::

    XPU_KERNEL_FORMAT = "spv" if _IS_WINDOWS else os.getenv(
        "TORCHINDUCTOR_XPU_KERNEL_FORMAT", "zebin")

so on Windows every kernel is kept as SPIR-V, which those releases refuse to
launch statically. With a SYCL backend that loads SPIR-V (``LOADS_SPIRV``),
``inductor_spirv`` lifts that refusal instead and zebin is only an opt-in;
otherwise zebin is the way. ``enable_zebin()`` switches a torch that is
already installed, by this rule:

* ``TORCHINDUCTOR_XPU_KERNEL_FORMAT`` ("zebin" or "spv"), when set, wins on
  every platform;
* otherwise zebin, except on Windows when Triton-XPU has no zebin compiler:
  no ocloc (it runs ``ocloc`` from PATH) and no matching Intel GPU driver it
  can compile with (only a Triton-XPU with this project's patch 0002 falls
  back to the driver; ``find_driver_compiler``). Then the format stays and
  the returned change says why.

Every place those releases read the format is updated:

* ``torch._inductor.utils.XPU_KERNEL_FORMAT`` (the definition, read by every
  module imported afterwards);
* the copies bound by ``from ..utils import XPU_KERNEL_FORMAT`` in modules
  already imported (``codecache``: ``get_kernel_bin_format`` and the cache
  keys; ``runtime.triton_heuristics``: ``generate_native_code``, the binary
  it hands to the static launcher and its SPIR-V refusal;
  ``codegen.cpp_wrapper_gpu``: AOT ``is_spv``), found by scanning
  ``sys.modules``;
* ``torch._inductor.utils.GPU_KERNEL_BIN_EXTS["xpu"]`` (the cache file
  extension, a dict shared with ``triton_heuristics`` and ``triton_bundler``),
  changed in place.

``FormatChange.undo()`` (or ``disable_zebin()``) puts every value back.
Inductor's compile workers are separate processes that import torch afresh:
they see the change only when it is made at every interpreter start (``python
-m xpu_static_launcher enable-at-startup``).
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from ._undo import UndoStack

ENV_VAR = "TORCHINDUCTOR_XPU_KERNEL_FORMAT"
FORMATS = ("zebin", "spv")
UTILS_MODULE = "torch._inductor.utils"
BINDING = "XPU_KERNEL_FORMAT"
EXTENSIONS = "GPU_KERNEL_BIN_EXTS"

# Returns the folder of an ocloc executable, or None with the reason.
OclocFinder = Callable[[], tuple[str | None, str]]


def is_windows() -> bool:
    """What torch checks (``_IS_WINDOWS = sys.platform == "win32"``)."""
    return sys.platform == "win32"


def find_ocloc_folder() -> tuple[str | None, str]:
    """The folder of the ocloc executable this package's discovery finds
    (``XSL_OCLOC``, the intel_ocloc wheel, PATH, oneAPI), or None and why."""
    from . import ocloc_discovery

    found = ocloc_discovery.find_ocloc(with_version=False)
    if not found.found or not found.path:
        return None, (
            found.error or "ocloc was found only as a library; Triton-XPU needs the ocloc executable"
        ).splitlines()[0]
    return os.path.dirname(found.path), f"ocloc {found.path} ({found.origin})"


# (True, where) when Triton-XPU can make zebins with the installed GPU
# driver, else (False, why not).
DriverFinder = Callable[[], tuple[bool, str]]


def find_driver_compiler() -> tuple[bool, str]:
    """Whether Triton-XPU can make zebins without ocloc: its make_zebin falls
    back to the GPU driver only with this project's Triton-XPU patch 0002
    (``zebin_compile_command`` in its ``ocloc`` module), and only when a
    Level Zero driver of an Intel GPU is installed."""
    try:
        importlib.import_module("triton.backends.intel")
    except ImportError:
        return False, "Triton-XPU (triton.backends.intel) is not installed"
    try:  # the module patches/triton-xpu 0001 adds; stock Triton-XPU has none
        triton_ocloc = importlib.import_module("triton.backends.intel.ocloc")
    except ImportError:
        triton_ocloc = None
    if not hasattr(triton_ocloc, "zebin_compile_command"):
        return False, "this Triton-XPU cannot compile with the GPU driver (it lacks patches/triton-xpu 0002)"
    from .compile import ZebinCompileError, find_compiler

    try:
        found = find_compiler("driver")
    except (ZebinCompileError, ImportError) as err:
        return False, str(err).splitlines()[0]
    return True, f"the GPU driver ({found.get('origin', 'Level Zero')})"


@dataclass
class FormatChange:
    """What ``enable_zebin`` did; ``undo()`` restores every value it replaced."""

    format: str | None  # what Inductor reports now; None without torch
    previous: str | None
    reason: str
    _bindings: list[tuple[types.ModuleType, Any]] = field(default_factory=list, repr=False)
    _extension: tuple[MutableMapping[str, str], str] | None = field(default=None, repr=False)
    _path: tuple[MutableMapping[str, str], str | None] | None = field(default=None, repr=False)
    _undone: bool = field(default=False, repr=False)

    @property
    def changed(self) -> bool:
        return bool(self._bindings) or self._extension is not None or self._path is not None

    def undo(self) -> None:
        """Put back the format, the extension and PATH (once; later calls do
        nothing). Modules imported after the change took the new value from
        ``torch._inductor.utils`` and are reset as well."""
        if self._undone:
            return
        self._undone = True
        if self._bindings:
            utils = self._bindings[0][0]
            now = getattr(utils, BINDING, None)
            restored = {id(module) for module, _ in self._bindings}
            for module, value in self._bindings:
                setattr(module, BINDING, value)
            for module in _inductor_modules():
                if id(module) not in restored and module.__dict__.get(BINDING) == now:
                    setattr(module, BINDING, self.previous)
        if self._extension is not None:
            table, value = self._extension
            table["xpu"] = value
        if self._path is not None:
            environ, value = self._path
            if value is None:
                environ.pop("PATH", None)
            else:
                environ["PATH"] = value


_active: UndoStack[FormatChange] = UndoStack()


def _inductor_modules() -> list[types.ModuleType]:
    return [
        m
        for name, m in list(sys.modules.items())
        if isinstance(m, types.ModuleType) and (name == "torch._inductor" or name.startswith("torch._inductor."))
    ]


def _requested(environ: Mapping[str, str]) -> str | None:
    value = environ.get(ENV_VAR)
    if value is None:
        return None
    if value not in FORMATS:
        raise ValueError(
            f"{ENV_VAR}={value!r} is not a kernel format Inductor knows; set it to 'zebin' or 'spv', or unset it"
        )
    return value


def _path_separator() -> str:
    return ";" if is_windows() else ":"


def _on_path(folder: str, environ: Mapping[str, str]) -> bool:
    def norm(path: str) -> str:
        path = path.rstrip("\\/")
        return path.lower().replace("/", "\\") if is_windows() else path

    parts = [norm(p) for p in environ.get("PATH", "").split(_path_separator()) if p]
    return norm(folder) in parts


def _decide(
    environ: MutableMapping[str, str], find_ocloc: OclocFinder, find_driver: DriverFinder
) -> tuple[str, str, str | None]:
    """(format, reason, folder to put on PATH or None): zebin when a zebin
    compiler is available to Triton-XPU, ocloc or a matching GPU driver."""
    requested = _requested(environ)
    if requested is not None:
        unset = "; unset it for zebin" if requested == "spv" else ""
        return requested, f"{ENV_VAR}={requested}{unset}", None
    if not is_windows():
        return "zebin", "zebin is the default off Windows", None
    folder, where = find_ocloc()
    if folder is not None:
        return "zebin", f"zebin: Triton-XPU makes it with {where}", None if _on_path(folder, environ) else folder
    driver, driver_where = find_driver()
    if driver:
        return "zebin", f"zebin: Triton-XPU makes it with {driver_where} ({where})", None
    return (
        "spv",
        (
            f"kept SPIR-V (.spv), which cannot be launched statically: {where}; {driver_where}; "
            "install the intel_ocloc wheel (scripts/ocloc_wheel.py) or oneAPI's ocloc, so that Triton-XPU "
            "can make zebins"
        ),
        None,
    )


def enable_zebin(
    *,
    environ: MutableMapping[str, str] | None = None,
    find_ocloc: OclocFinder | None = None,
    find_driver: DriverFinder | None = None,
) -> FormatChange:
    """Make Inductor keep XPU kernels as zebin (see the module doc for the
    rule). Imports ``torch._inductor.utils``; without torch nothing changes
    and ``format`` is None. ``environ`` (default ``os.environ``) is read for
    the user's choice and gets the ocloc folder prepended to PATH when
    Triton-XPU could not find it there; ``find_ocloc`` replaces the package's
    ocloc discovery and ``find_driver`` the GPU driver probe (tests)."""
    environ = os.environ if environ is None else environ
    target, reason, folder = _decide(environ, find_ocloc or find_ocloc_folder, find_driver or find_driver_compiler)
    try:
        import importlib

        utils = importlib.import_module(UTILS_MODULE)
    except ImportError as err:
        return FormatChange(None, None, f"torch's Inductor cannot be imported ({err}); nothing changed")
    previous = getattr(utils, BINDING, None)
    if not isinstance(previous, str):
        return FormatChange(
            None, None, f"{UTILS_MODULE} has no {BINDING}; this torch is not one this package knows, nothing changed"
        )
    change = FormatChange(target, previous, reason)
    if target != previous:
        change._bindings.append((utils, previous))
        for module in _inductor_modules():
            if module is not utils and module.__dict__.get(BINDING) == previous:
                change._bindings.append((module, previous))
        for module, _ in change._bindings:
            setattr(module, BINDING, target)
    table = getattr(utils, EXTENSIONS, None)
    if isinstance(table, dict) and table.get("xpu") != f".{target}" and "xpu" in table:
        change._extension = (table, table["xpu"])
        table["xpu"] = f".{target}"
    if folder is not None and target == "zebin":
        change._path = (environ, environ.get("PATH"))
        rest = environ.get("PATH")
        environ["PATH"] = folder if not rest else folder + _path_separator() + rest
        change.reason += " (its folder was put first on PATH)"
    if change.changed:
        _active.push(change)
    return change


def disable_zebin() -> FormatChange | None:
    """Undo the most recent ``enable_zebin`` that changed something; returns
    it, or None when there is nothing to undo."""
    return _active.undo_latest()


def current_format() -> str | None:
    """The format ``torch._inductor.utils`` reports, or None when torch's
    Inductor is not importable."""
    try:
        import importlib

        utils = importlib.import_module(UTILS_MODULE)
    except ImportError:
        return None
    value = getattr(utils, BINDING, None)
    return value if isinstance(value, str) else None


def readers() -> dict[str, Any]:
    """Every imported ``torch._inductor`` module's copy of the format (for
    diagnostics and tests)."""
    return {m.__name__: m.__dict__[BINDING] for m in _inductor_modules() if BINDING in m.__dict__}


def zebin_decision(
    *,
    environ: Mapping[str, str] | None = None,
    find_ocloc: OclocFinder | None = None,
    find_driver: DriverFinder | None = None,
) -> tuple[str, str]:
    """(format, reason) that ``enable_zebin`` would choose, changing nothing;
    the reason names the fix when it is SPIR-V."""
    target, reason, _ = _decide(
        dict(os.environ if environ is None else environ),
        find_ocloc or find_ocloc_folder,
        find_driver or find_driver_compiler,
    )
    return target, reason


def zebin_opted_in(
    *,
    environ: Mapping[str, str] | None = None,
    find_ocloc: OclocFinder | None = None,
    find_driver: DriverFinder | None = None,
) -> tuple[bool, str]:
    """Whether the user opted into zebin on Windows, where a launcher that
    loads SPIR-V makes zebin unnecessary: (True, where) when
    ``TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin`` is set and Triton-XPU has a zebin
    compiler (ocloc, or the GPU driver); (False, why) when it is set but there
    is none; (False, "") when it is not set, or off Windows (where torch reads
    the variable itself). ValueError for a value torch does not know."""
    requested = _requested(os.environ if environ is None else environ)
    if requested != "zebin" or not is_windows():
        return False, ""
    folder, where = (find_ocloc or find_ocloc_folder)()
    if folder is not None:
        return True, where
    driver, driver_where = (find_driver or find_driver_compiler)()
    if driver:
        return True, driver_where
    return False, f"{where}; {driver_where}"


def zebin_by_default(find_ocloc: OclocFinder | None = None, find_driver: DriverFinder | None = None) -> bool:
    """``install()``'s default for ``zebin``: on Windows when Triton-XPU has a
    zebin compiler (an ocloc, or the GPU driver, see find_driver_compiler),
    off elsewhere (Inductor already uses zebin there)."""
    if not is_windows():
        return False
    folder, _ = (find_ocloc or find_ocloc_folder)()
    return folder is not None or (find_driver or find_driver_compiler)()[0]


__all__ = [
    "ENV_VAR",
    "FormatChange",
    "current_format",
    "disable_zebin",
    "enable_zebin",
    "find_driver_compiler",
    "find_ocloc_folder",
    "readers",
    "zebin_by_default",
    "zebin_decision",
    "zebin_opted_in",
]
