"""Let a published torch launch SPIR-V kernels statically (route (a)).

This package's launcher loads SPIR-V as well as zebin (the SYCL backend says
so with ``LOADS_SPIRV``): it tells them apart by their magic number and hands
SPIR-V to the GPU driver, which compiles it at the first load with the
kernel's build flags. Published torch wheels (2.13 through 2.15) still refuse
that, and on Windows they keep every kernel SPIR-V (``XPU_KERNEL_FORMAT =
"spv"``). ``enable_spirv_launch()`` changes three things in the installed
torch, and nothing else:

* ``StaticallyLaunchedXpuKernel.__init__`` (``runtime.static_triton_launcher``)
  keeps ``kernel.asm["zebin"]`` as ``cubin_raw`` when there is one, else
  ``kernel.asm["spv"]``, and keeps ``kernel.metadata.build_flags`` (the GRF
  mode Triton-XPU compiled for; "" when absent) as ``build_flags``. It wraps
  the release's own ``__init__``.
* ``StaticallyLaunchedXpuKernel.load_kernel`` runs the release's own method
  with those build flags made known to the launcher for the call (a
  ``contextvars.ContextVar``, so threads loading at once each see their own);
  the launcher ``install()`` puts into torch (``launcher_with_build_flags``)
  passes them to the backend's ``_load_kernel`` as its fifth argument.
* ``StaticTritonCompileResult.can_statically_launch`` (``runtime.
  triton_heuristics``) no longer raises "Static XPU Triton kernel launch does
  not support SPIR-V kernel.". Its nested ``check_can_launch`` compares
  ``XPU_KERNEL_FORMAT == "spv"``; the replacement is the same function whose
  nested code has that one ``"spv"`` constant replaced by a string no kernel
  format can equal (it holds a NUL, which no environment variable can). Every
  other check, and the format itself, stay as they are: ``XPU_KERNEL_FORMAT``
  is never changed, since it decides what Triton-XPU compiles.

Each change is made only when the installed code has the shape this module
expects: ``__init__`` reads ``asm`` into ``cubin_raw``, ``load_kernel``
calls ``C_impl._load_kernel``, and ``check_can_launch`` must be found once
among the constants of
``can_statically_launch``, hold the refusal message and exactly one ``"spv"``
constant, used once, as ``XPU_KERNEL_FORMAT == "spv"``. Otherwise nothing is
changed and the returned ``SpirvLaunchChange`` says why. A second call
changes nothing; ``SpirvLaunchChange.undo()`` (or ``disable_spirv_launch()``)
puts the three attributes back.

Only this package's launcher reads the build flags, so nothing is changed
when torch has a ``_StaticXpuLauncher`` of its own. ``torch_install.install()`` calls this
after it installs a backend with ``LOADS_SPIRV``.
"""

from __future__ import annotations

import contextvars
import dis
import importlib
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._undo import UndoStack

HEURISTICS = "torch._inductor.runtime.triton_heuristics"
LAUNCHER = "torch._inductor.runtime.static_triton_launcher"
COMPILE_RESULT = "StaticTritonCompileResult"
KERNEL_CLASS = "StaticallyLaunchedXpuKernel"
CHECK = "can_statically_launch"
NESTED_CHECK = "check_can_launch"
REFUSAL = "Static XPU Triton kernel launch does not support SPIR-V kernel."
FORMAT_NAME = "XPU_KERNEL_FORMAT"
SPIRV = "spv"
# Takes the place of "spv" in the refusal's comparison: no kernel format can
# equal it (a NUL cannot be in an environment variable; torch knows only
# "spv" and "zebin").
NOT_A_FORMAT = "spv\x00(the SPIR-V refusal lifted by xpu_static_launcher)"
# Set on every function this module installs.
MARK = "_xsl_spirv_launch"
BUILD_FLAGS = "build_flags"

# The build flags of the kernel StaticallyLaunchedXpuKernel.load_kernel is
# loading, for the launcher's _load_kernel (None outside such a call).
_LOADING_BUILD_FLAGS: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "xpu_static_launcher_build_flags", default=None
)


class ShapeMismatch(Exception):
    """The installed Inductor is not code this module knows how to change."""


@dataclass
class SpirvLaunchChange:
    """What ``enable_spirv_launch`` did. ``enabled``: SPIR-V kernels are
    launched statically now (by this call, or an earlier one when nothing
    changed). ``undo()`` puts back what this call replaced."""

    enabled: bool
    reason: str
    _replaced: list[tuple[type, str, Any, Any]] = field(default_factory=list, repr=False)
    _undone: bool = field(default=False, repr=False)
    left_alone: list[str] = field(default_factory=list, repr=False)

    @property
    def changed(self) -> bool:
        return bool(self._replaced)

    def undo(self) -> None:
        """Restore every attribute this change replaced, unless someone
        replaced it again since (then it is left alone and named in
        ``left_alone``). Later calls do nothing."""
        if self._undone:
            return
        self._undone = True
        for owner, name, original, installed in reversed(self._replaced):
            if owner.__dict__.get(name) is installed:
                setattr(owner, name, original)
            else:
                self.left_alone.append(f"{owner.__name__}.{name}")


_active: UndoStack[SpirvLaunchChange] = UndoStack()


def _function_of(owner: type, name: str) -> types.FunctionType:
    value = owner.__dict__.get(name)
    if isinstance(value, staticmethod):
        value = value.__func__
    if not isinstance(value, types.FunctionType):
        raise ShapeMismatch(f"{owner.__name__}.{name} is not a plain function here")
    return value


def _as_method(wrapper: Callable[..., None], original: Callable[..., None], doc: str) -> Callable[..., None]:
    """`wrapper` named as the method of KERNEL_CLASS it replaces, with `doc`
    and `original` as its __wrapped__."""
    wrapper.__qualname__ = f"{KERNEL_CLASS}.{original.__name__}"
    wrapper.__doc__ = f"xpu_static_launcher: {doc}"
    wrapper.__wrapped__ = original  # type: ignore[attr-defined]
    return wrapper


def _spirv_init(original: Callable[..., None]) -> Callable[..., None]:
    def __init__(self: Any, kernel: Any) -> None:
        original(self, kernel)
        if self.cubin_raw is None:
            self.cubin_raw = kernel.asm.get(SPIRV, None)
        flags = getattr(getattr(kernel, "metadata", None), BUILD_FLAGS, "")
        setattr(self, BUILD_FLAGS, flags if isinstance(flags, str) else "")

    return _as_method(
        __init__,
        original,
        "the release's __init__, then asm['spv'] as cubin_raw when there is no zebin, and "
        "metadata.build_flags kept for load_kernel.",
    )


def _spirv_load_kernel(original: Callable[..., None]) -> Callable[..., None]:
    def load_kernel(self: Any, device: int) -> None:
        token = _LOADING_BUILD_FLAGS.set(getattr(self, BUILD_FLAGS, ""))
        try:
            original(self, device)
        finally:
            _LOADING_BUILD_FLAGS.reset(token)

    return _as_method(
        load_kernel,
        original,
        "the release's load_kernel, with the kernel's build flags made known to the launcher's "
        "_load_kernel for the call.",
    )


def launcher_with_build_flags(launcher: Any) -> type:
    """A ``torch._C._StaticXpuLauncher`` over ``launcher`` (a backend that
    loads SPIR-V): ``_launch_kernel`` is the backend's own function (the
    launch costs nothing more), and ``_load_kernel`` passes the build flags
    of the kernel being loaded (``load_kernel`` above) as its fifth argument
    when the caller gives none."""
    load = launcher._load_kernel

    def _load_kernel(path: Any, name: Any, shared_mem_bytes: Any, device: Any, build_flags: str | None = None) -> Any:
        if build_flags is None:
            build_flags = _LOADING_BUILD_FLAGS.get()
        return load(path, name, shared_mem_bytes, device, build_flags)

    return type(
        "_StaticXpuLauncher",
        (),
        {
            "__doc__": (launcher.__doc__ or "") + "\n\n(xpu_static_launcher: _load_kernel receives the build "
            "flags of the kernel Inductor is loading.)",
            "__module__": __name__,
            "_load_kernel": staticmethod(_load_kernel),
            "_launch_kernel": staticmethod(launcher._launch_kernel),
            "backend": launcher,
        },
    )


def _check_code(outer: types.CodeType) -> types.CodeType:
    """The one nested ``check_can_launch`` code of ``can_statically_launch``,
    when it holds the refusal as expected; ShapeMismatch otherwise."""
    nested = [c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == NESTED_CHECK]
    if len(nested) != 1:
        raise ShapeMismatch(f"{CHECK} has {len(nested)} nested {NESTED_CHECK} functions, not 1")
    code = nested[0]
    messages = [c for c in code.co_consts if isinstance(c, str) and c == REFUSAL]
    if len(messages) != 1:
        raise ShapeMismatch(f"{NESTED_CHECK} does not hold the refusal {REFUSAL!r}")
    spirv = [i for i, c in enumerate(code.co_consts) if isinstance(c, str) and c == SPIRV]
    if len(spirv) != 1:
        raise ShapeMismatch(f"{NESTED_CHECK} has {len(spirv)} {SPIRV!r} constants, not 1")
    instructions = list(dis.get_instructions(code))
    uses = [
        n
        for n, ins in enumerate(instructions)
        if ins.opcode in dis.hasconst and isinstance(ins.argval, str) and ins.argval == SPIRV
    ]
    if len(uses) != 1:
        raise ShapeMismatch(f"{NESTED_CHECK} uses {SPIRV!r} {len(uses)} times, not once")
    n = uses[0]
    before = instructions[n - 1] if n > 0 else None
    after = instructions[n + 1] if n + 1 < len(instructions) else None
    if not (
        instructions[n].opname == "LOAD_CONST"
        and before is not None
        and before.opname in ("LOAD_GLOBAL", "LOAD_NAME")
        and before.argval == FORMAT_NAME
        and after is not None
        and after.opname == "COMPARE_OP"
        and "==" in str(after.argrepr)
    ):
        raise ShapeMismatch(f"{NESTED_CHECK} does not use {SPIRV!r} as {FORMAT_NAME} == {SPIRV!r}")
    return code


def lift_refusal(function: types.FunctionType) -> types.FunctionType:
    """``can_statically_launch`` with the SPIR-V refusal lifted: the same
    function (globals, defaults, closure, attributes) whose nested
    ``check_can_launch`` compares the format with ``NOT_A_FORMAT`` instead of
    ``"spv"``. ShapeMismatch when the code is not as expected."""
    outer = function.__code__
    nested = _check_code(outer)
    consts = tuple(NOT_A_FORMAT if isinstance(c, str) and c == SPIRV else c for c in nested.co_consts)
    lifted_nested = nested.replace(co_consts=consts)
    lifted_outer = outer.replace(co_consts=tuple(lifted_nested if c is nested else c for c in outer.co_consts))
    lifted = types.FunctionType(
        lifted_outer, function.__globals__, function.__name__, function.__defaults__, function.__closure__
    )
    lifted.__kwdefaults__ = function.__kwdefaults__
    lifted.__dict__.update(function.__dict__)
    for name in ("__qualname__", "__doc__", "__module__", "__annotations__", "__type_params__"):
        if hasattr(function, name):
            setattr(lifted, name, getattr(function, name))
    lifted.__wrapped__ = function  # type: ignore[attr-defined]
    return lifted


def _torch_version() -> str:
    torch = sys.modules.get("torch")
    return str(getattr(torch, "__version__", "?"))


@dataclass
class _Plan:
    targets: list[tuple[type, str, Any, Any]]  # (owner, name, original, replacement)


def _uses(function: types.FunctionType, *names: str) -> bool:
    """Whether ``function``'s code reads every name in ``names``."""
    return all(name in function.__code__.co_names for name in names)


def _plan() -> _Plan:
    """What enable_spirv_launch would install; ImportError without torch's
    Inductor, ShapeMismatch when it is not code this module knows."""
    launcher_module = importlib.import_module(LAUNCHER)
    heuristics = importlib.import_module(HEURISTICS)
    kernel_class = getattr(launcher_module, KERNEL_CLASS, None)
    result_class = getattr(heuristics, COMPILE_RESULT, None)
    if not isinstance(kernel_class, type):
        raise ShapeMismatch(f"{LAUNCHER} has no class {KERNEL_CLASS}")
    if not isinstance(result_class, type):
        raise ShapeMismatch(f"{HEURISTICS} has no class {COMPILE_RESULT}")
    if not isinstance(getattr(heuristics, FORMAT_NAME, None), str):
        raise ShapeMismatch(f"{HEURISTICS} has no {FORMAT_NAME}")
    init = _function_of(kernel_class, "__init__")
    if not _uses(init, "asm", "cubin_raw"):
        raise ShapeMismatch(f"{KERNEL_CLASS}.__init__ does not read kernel.asm into cubin_raw")
    load_kernel = _function_of(kernel_class, "load_kernel")
    if not _uses(load_kernel, "C_impl", "_load_kernel"):
        raise ShapeMismatch(f"{KERNEL_CLASS}.load_kernel does not call C_impl._load_kernel")
    check = result_class.__dict__.get(CHECK)
    if not isinstance(check, staticmethod):
        raise ShapeMismatch(f"{COMPILE_RESULT}.{CHECK} is not a staticmethod")
    lifted = lift_refusal(_function_of(result_class, CHECK))
    return _Plan(
        [
            (kernel_class, "__init__", init, _spirv_init(init)),
            (kernel_class, "load_kernel", load_kernel, _spirv_load_kernel(load_kernel)),
            (result_class, CHECK, check, staticmethod(lifted)),
        ]
    )


def _marked(value: Any) -> bool:
    if isinstance(value, staticmethod):
        value = value.__func__
    return bool(getattr(value, MARK, False))


def _installed_targets() -> list[Any]:
    """The three attributes as they are now in the imported Inductor modules
    (None for a module or class not imported or absent)."""
    launcher_module, heuristics = sys.modules.get(LAUNCHER), sys.modules.get(HEURISTICS)
    kernel_class = getattr(launcher_module, KERNEL_CLASS, None)
    result_class = getattr(heuristics, COMPILE_RESULT, None)
    return [
        getattr(kernel_class, "__dict__", {}).get("__init__"),
        getattr(kernel_class, "__dict__", {}).get("load_kernel"),
        getattr(result_class, "__dict__", {}).get(CHECK),
    ]


def is_enabled() -> bool:
    """Whether the imported Inductor launches SPIR-V kernels statically
    (every change of ``enable_spirv_launch`` is in place). Imports nothing."""
    return all(_marked(value) for value in _installed_targets())


def _own_launcher() -> bool:
    """Whether torch._C has a _StaticXpuLauncher that install() did not set
    (torch's own, whose _load_kernel takes no build flags)."""
    torch_c = sys.modules.get("torch._C")
    existing = getattr(torch_c, "_StaticXpuLauncher", None)
    if existing is None:
        return False
    from . import torch_install

    state = torch_install._installed
    return state is None or existing is not state.launcher


def spirv_launch_support() -> tuple[bool, str]:
    """(True, release) when ``enable_spirv_launch`` can make its change on the
    installed torch (or has made it), else (False, why). Changes nothing."""
    if is_enabled():
        return True, "enabled already"
    try:
        plan = _plan()
    except ImportError as err:
        return False, f"torch's Inductor cannot be imported ({err})"
    except ShapeMismatch as err:
        return False, f"torch {_torch_version()}: {err}"
    if _own_launcher():
        return False, "torch has its own torch._C._StaticXpuLauncher"
    return True, f"torch {_torch_version()} ({len(plan.targets)} changes)"


def enable_spirv_launch() -> SpirvLaunchChange:
    """Make the installed torch's Inductor launch SPIR-V kernels statically
    (see the module doc). Imports Inductor's runtime modules; changes nothing
    and says why when torch is not importable, its code is not what this
    module expects, or torch has a launcher of its own."""
    if is_enabled():
        return SpirvLaunchChange(
            True, "SPIR-V kernels are launched statically already (an earlier enable_spirv_launch); nothing changed"
        )
    try:
        plan = _plan()
    except ImportError as err:
        return SpirvLaunchChange(False, f"torch's Inductor cannot be imported ({err}); nothing changed")
    except ShapeMismatch as err:
        return SpirvLaunchChange(
            False, f"torch {_torch_version()}: {err}; nothing changed, so Inductor still refuses SPIR-V kernels"
        )
    if _own_launcher():
        return SpirvLaunchChange(
            False,
            "torch has its own torch._C._StaticXpuLauncher, whose _load_kernel takes no build flags; nothing changed",
        )
    change = SpirvLaunchChange(
        True,
        f"SPIR-V kernels are launched statically: torch {_torch_version()}'s "
        f"{CHECK} no longer refuses them, {KERNEL_CLASS} loads asm['spv'] with its "
        f"build flags ({FORMAT_NAME} unchanged)",
    )
    for owner, name, original, replacement in plan.targets:
        function = replacement.__func__ if isinstance(replacement, staticmethod) else replacement
        setattr(function, MARK, True)
        setattr(owner, name, replacement)
        change._replaced.append((owner, name, original, replacement))
    _active.push(change)
    return change


def disable_spirv_launch() -> SpirvLaunchChange | None:
    """Undo the most recent ``enable_spirv_launch`` that changed something;
    returns it, or None when there is nothing to undo."""
    return _active.undo_latest()


__all__ = [
    "NOT_A_FORMAT",
    "REFUSAL",
    "ShapeMismatch",
    "SpirvLaunchChange",
    "disable_spirv_launch",
    "enable_spirv_launch",
    "is_enabled",
    "launcher_with_build_flags",
    "lift_refusal",
    "spirv_launch_support",
]
