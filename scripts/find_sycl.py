#!/usr/bin/env python3
"""Find the SYCL runtime of this Python environment: intel-sycl-rt, the
distribution every PyTorch XPU wheel depends on.

Prints the include folder (holding sycl/sycl.hpp), the library folder (the
import library to link: libsycl.so on Linux, sycl<N>.lib or sycl.lib on
Windows), the folder of the runtime library to load (libsycl.so.<N>, or
sycl<N>.dll, which Python finds only through os.add_dll_directory), and the
libsycl major <N>. The files come from the distribution's own file list
(importlib.metadata), so the result is the copy torch loads. Layouts:

  Linux    <prefix>/include/sycl/sycl.hpp, <prefix>/lib/libsycl.so.<N>
  Windows  <prefix>/Library/include/sycl/sycl.hpp,
           <prefix>/Library/lib/sycl<N>.lib (or sycl.lib),
           <prefix>/Library/bin/sycl<N>.dll

CMake (cmake/SyclRuntime.cmake) runs `--cmake` when XSL_SYCL_INCLUDE_DIR and
XSL_SYCL_LIBRARY_DIR are not given. Exit status: 0 found, 1 not found (one
line on stderr saying why and what to install). Stdlib only.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import layout_cli

DISTRIBUTION = "intel-sycl-rt"
_LINUX_RUNTIME = re.compile(r"^libsycl\.so\.(\d+)$")
_WINDOWS_RUNTIME = re.compile(r"^sycl(\d+)\.dll$", re.IGNORECASE)
_WINDOWS_IMPORT = re.compile(r"^sycl(\d*)\.lib$", re.IGNORECASE)


@dataclass
class SyclLayout:
    include_dir: str
    lib_dir: str  # the import library's folder (link time)
    runtime_dir: str  # the runtime library's folder (load time)
    library: str  # the file to link
    runtime: str  # the file loaded at run time
    major: int
    version: str


class NotFound(Exception):
    """Why the SYCL runtime was not found (one line)."""


def _pick(files: Sequence[Path], pattern: re.Pattern[str]) -> list[Path]:
    return [f for f in files if pattern.match(f.name)]


def layout_from_files(files: Iterable[Path], version: str, windows: bool) -> SyclLayout:
    """The layout, from the distribution's files (located, absolute)."""
    files = list(files)
    headers = [f for f in files if f.name == "sycl.hpp" and f.parent.name == "sycl"]
    if not headers:
        raise NotFound(
            f"{DISTRIBUTION} {version} has no sycl/sycl.hpp; install a release that ships the headers (2025.0 or later)"
        )
    include_dir = headers[0].parent.parent
    if windows:
        runtimes = _pick(files, _WINDOWS_RUNTIME)
        if not runtimes:
            raise NotFound(f"{DISTRIBUTION} {version} has no sycl<N>.dll")
        runtime = sorted(runtimes, key=lambda f: f.name)[-1]
        major = int(_WINDOWS_RUNTIME.match(runtime.name).group(1))  # type: ignore[union-attr]
        imports = _pick(files, _WINDOWS_IMPORT)
        # sycl<N>.lib of the same major first, then a plain sycl.lib.
        imports.sort(key=lambda f: (f.name.lower() != f"sycl{major}.lib", f.name.lower() != "sycl.lib"))
        if not imports or _WINDOWS_IMPORT.match(imports[0].name).group(1) not in ("", str(major)):  # type: ignore[union-attr]
            raise NotFound(
                f"{DISTRIBUTION} {version} has {runtime.name} but no sycl{major}.lib or sycl.lib to link against"
            )
        library = imports[0]
    else:
        runtimes = _pick(files, _LINUX_RUNTIME)
        if not runtimes:
            raise NotFound(f"{DISTRIBUTION} {version} has no libsycl.so.<N>")
        runtime = sorted(runtimes, key=lambda f: int(_LINUX_RUNTIME.match(f.name).group(1)))[-1]  # type: ignore[union-attr]
        major = int(_LINUX_RUNTIME.match(runtime.name).group(1))  # type: ignore[union-attr]
        # The unversioned libsycl.so is the link-time name; without it link the
        # runtime file itself.
        plain = [f for f in files if f.name == "libsycl.so" and f.parent == runtime.parent]
        library = plain[0] if plain else runtime
    return SyclLayout(
        str(include_dir), str(library.parent), str(runtime.parent), str(library), str(runtime), major, version
    )


def find_sycl(paths: list[str] | None = None, windows: bool | None = None) -> SyclLayout:
    """The intel-sycl-rt layout of the environment (``paths`` replaces
    sys.path, ``windows`` the platform: tests)."""
    windows = os.name == "nt" if windows is None else windows
    found = list(importlib.metadata.distributions(name=DISTRIBUTION, path=paths if paths is not None else sys.path))
    if not found:
        raise NotFound(
            f"{DISTRIBUTION} is not installed in this Python environment ({sys.executable}); "
            f"pip install {DISTRIBUTION} (a PyTorch XPU wheel brings it), or pass "
            "-DXSL_SYCL_INCLUDE_DIR and -DXSL_SYCL_LIBRARY_DIR to CMake"
        )
    dist = found[0]
    # Windows wheels list their files with backslashes, which a PackagePath
    # keeps as part of the name; normpath, not resolve(), so that a symlinked
    # libsycl.so.<N> keeps its own name.
    files = [
        Path(os.path.normpath(os.path.abspath(str(dist.locate_file(str(f).replace("\\", "/"))))))
        for f in dist.files or []
    ]
    return layout_from_files(files, dist.version, windows)


def main(argv: Sequence[str] | None = None) -> int:
    return layout_cli.run(
        __doc__,
        argv,
        find_sycl,
        NotFound,
        "cmake/SyclRuntime.cmake",
        lambda layout: {
            "XSL_SYCL_INCLUDE_DIR": Path(layout.include_dir).as_posix(),
            "XSL_SYCL_LIBRARY_DIR": Path(layout.lib_dir).as_posix(),
            "XSL_SYCL_LIBRARY": Path(layout.library).as_posix(),
            "XSL_SYCL_RUNTIME_DIR": Path(layout.runtime_dir).as_posix(),
            "XSL_SYCL_MAJOR": layout.major,
        },
        lambda layout: {
            "include": layout.include_dir,
            "lib": layout.lib_dir,
            "runtime": layout.runtime,
            "major": layout.major,
            "version": layout.version,
        },
    )


if __name__ == "__main__":
    sys.exit(main())
