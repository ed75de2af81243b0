"""Run ``install()`` in every interpreter, once torch's Inductor is imported.

Imported by the ``.pth`` file ``python -m xpu_static_launcher
enable-at-startup`` writes. Importing torch at every interpreter start would
slow down every Python program (pip included), so this only puts a finder on
``sys.meta_path``: when ``torch._inductor`` (which ``torch.compile`` and
Inductor's compile workers import) has been executed and torch itself is fully
imported, it calls ``install()`` once and takes itself off. Stdlib only.

It prints nothing when it installs, when torch already has a launcher or is
not an XPU build; it prints its one line to stderr when it refuses (backend
missing, libsycl mismatch), and once per program (not again in the compile
workers, which inherit ``XSL_STARTUP_WARNED``) when it installs but kernels
stay SPIR-V. ``XSL_STARTUP_VERBOSE=1`` prints every outcome,
``XSL_STARTUP=0`` turns it off for one run.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from collections.abc import Sequence
from typing import Any

TRIGGER = "torch._inductor"
QUIET = ("installed", "present", "no-torch", "not-xpu")
# Set once installed-spirv has been reported: Inductor's compile workers
# inherit it, so a program prints that line once, not once per worker.
WARNED_ENV = "XSL_STARTUP_WARNED"


def _torch_ready() -> bool:
    torch = sys.modules.get("torch")
    spec = getattr(torch, "__spec__", None)
    return torch is not None and not getattr(spec, "_initializing", False)


class _Loader(importlib.abc.Loader):
    def __init__(self, real: importlib.abc.Loader, hook: StartupHook) -> None:
        self.real = real
        self.hook = hook

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.real.exec_module(module)
        self.hook.fire()


class StartupHook(importlib.abc.MetaPathFinder):
    """Calls ``install()`` after ``torch._inductor`` has been imported."""

    def __init__(self) -> None:
        self.done = False

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if self.done or not (name == TRIGGER or name.startswith(TRIGGER + ".")):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader, self)
                return spec
        return None

    def fire(self) -> None:
        if self.done or not _torch_ready():
            return  # tried again at the next torch._inductor module
        self.done = True
        remove()
        try:
            from .torch_install import install

            result = install(verbose=False)
        except Exception as err:  # noqa: BLE001 - never break the user's import
            print(f"xpu_static_launcher: install() at start-up failed: {err!r}", file=sys.stderr)
            return
        verbose = os.environ.get("XSL_STARTUP_VERBOSE") == "1"
        if result.status == "installed-spirv" and not verbose:
            if os.environ.get(WARNED_ENV) == "1":
                return
            os.environ[WARNED_ENV] = "1"
        if result.status not in QUIET or verbose:
            print(f"xpu_static_launcher: {result.message}", file=sys.stderr)


def installed_hook() -> StartupHook | None:
    return next((f for f in sys.meta_path if isinstance(f, StartupHook)), None)


def arm() -> StartupHook | None:
    """Put the hook on sys.meta_path (once); runs it now if torch's Inductor
    is already imported."""
    if os.environ.get("XSL_STARTUP") == "0":
        return None
    hook = installed_hook()
    if hook is None:
        hook = StartupHook()
        sys.meta_path.insert(0, hook)
    if TRIGGER in sys.modules:
        hook.fire()
    return hook


def remove() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, StartupHook)]


arm()
