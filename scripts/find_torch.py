#!/usr/bin/env python3
"""Find the torch of this Python environment, which the package's SYCL
backend is built against: its release, its C++ headers (torch/include) and
its libraries (torch/lib: torch_python, torch, torch_cpu, c10 and, in XPU
builds, c10_xpu).

CMake (cmake/SyclBackend.cmake) runs `--cmake`. torch is located with
importlib, not imported (an import is slow and loads GPU runtimes). Exit
status: 0 found, 1 not found (one line on stderr saying why and what to
install). Stdlib only.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import layout_cli


@dataclass
class TorchLayout:
    version: str  # the release, without a local part such as +cpu
    include_dir: str
    lib_dir: str


class NotFound(Exception):
    pass


def find_torch(paths: Sequence[str] | None = None) -> TorchLayout:
    """The torch of the environment (``paths`` replaces sys.path: tests)."""
    search = list(paths) if paths is not None else sys.path
    spec = importlib.machinery.PathFinder.find_spec("torch", search)
    if spec is None or not spec.submodule_search_locations:
        raise NotFound(
            f"torch is not installed in this Python environment ({sys.executable}); "
            "install the PyTorch XPU wheel first, and build with --no-build-isolation "
            "so that the build sees it"
        )
    root = Path(list(spec.submodule_search_locations)[0])
    include, lib = root / "include", root / "lib"
    if not (include / "torch" / "csrc").is_dir():
        raise NotFound(f"torch at {root} has no C++ headers (torch/include/torch/csrc)")
    if not lib.is_dir():
        raise NotFound(f"torch at {root} has no library folder (torch/lib)")
    found = list(importlib.metadata.distributions(name="torch", path=search))
    version = found[0].version.split("+", 1)[0] if found else "unknown"
    return TorchLayout(version, str(include), str(lib))


def main(argv: Sequence[str] | None = None) -> int:
    return layout_cli.run(
        __doc__,
        argv,
        find_torch,
        NotFound,
        "cmake/SyclBackend.cmake",
        lambda layout: {
            "XSL_TORCH_VERSION": layout.version,
            "XSL_TORCH_INCLUDE": Path(layout.include_dir).as_posix(),
            "XSL_TORCH_LIB": Path(layout.lib_dir).as_posix(),
        },
        lambda layout: {"version": layout.version, "include": layout.include_dir, "lib": layout.lib_dir},
    )


if __name__ == "__main__":
    sys.exit(main())
