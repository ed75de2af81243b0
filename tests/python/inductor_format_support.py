"""Run in a fresh interpreter by test_inductor_format.py: import the installed
torch's real Inductor modules as they are on Windows, switch to zebin with
``enable_zebin`` and undo it, and print what Inductor reports at each step as
JSON.

Windows is faked only while ``torch._inductor.utils`` executes (that is where
torch decides ``_IS_WINDOWS``); everything else imports as on this machine,
since torch's Windows-only imports (msvcrt, WinDLL) do not exist here. An ocloc
is "found" in a made-up folder.

Usage: python3 inductor_format_support.py <package dir> [zebin|spv|-]
  (the second argument is TORCHINDUCTOR_XPU_KERNEL_FORMAT, '-' for unset)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import json
import sys
import sysconfig
import types
from collections.abc import Sequence
from typing import Any

READERS = (
    "torch._inductor.codecache",
    "torch._inductor.runtime.triton_heuristics",
    "torch._inductor.codegen.cpp_wrapper_gpu",
    "torch._inductor.triton_bundler",
)
OCLOC_FOLDER = "C:\\oneAPI\\ocloc\\latest\\bin"


class _WindowsWhileExecuting(importlib.abc.Loader):
    def __init__(self, real: importlib.abc.Loader) -> None:
        self.real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        saved = sys.platform
        sys.platform = "win32"
        try:
            self.real.exec_module(module)
        finally:
            sys.platform = saved


class _UtilsAsOnWindows(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != "torch._inductor.utils":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _WindowsWhileExecuting(spec.loader)
                return spec
        return None


def snapshot() -> dict[str, Any]:
    utils = sys.modules["torch._inductor.utils"]
    codecache = sys.modules["torch._inductor.codecache"]
    from xpu_static_launcher import inductor_format

    return {
        "utils": utils.XPU_KERNEL_FORMAT,
        "readers": inductor_format.readers(),
        "extension": utils.GPU_KERNEL_BIN_EXTS["xpu"],
        "bundler_extensions": sorted(sys.modules["torch._inductor.triton_bundler"].GPU_KERNEL_BIN_EXTS.values()),
        "get_kernel_bin_format": codecache.get_kernel_bin_format("xpu"),
    }


def main(argv: Sequence[str]) -> int:
    sys.path.insert(0, argv[1])
    sysconfig.get_config_vars()
    import torch

    sys.meta_path.insert(0, _UtilsAsOnWindows())
    for name in READERS:
        importlib.import_module(name)
    out: dict[str, Any] = {"torch": torch.__version__, "stock": snapshot()}
    from xpu_static_launcher import inductor_format

    environ = {"PATH": "C:\\Windows"}
    if argv[2] != "-":
        environ[inductor_format.ENV_VAR] = argv[2]
    sys.platform = "win32"  # what enable_zebin checks, as torch does
    try:
        change = inductor_format.enable_zebin(environ=environ, find_ocloc=lambda: (OCLOC_FOLDER, "ocloc (fake)"))
        out["enabled"] = snapshot()
        out["reason"] = change.reason
        out["path"] = environ["PATH"]
        undone = inductor_format.disable_zebin()
        out["undo_returned_change"] = undone is change
        out["undone"] = snapshot()
        out["path_after_undo"] = environ["PATH"]
    finally:
        sys.platform = "linux"
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
