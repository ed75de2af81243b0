#!/usr/bin/env python3
"""Real torch and SYCL header trees for compiling the PyTorch glue.

`locate` prints one line per tree the build can use:
    sycl <include dir>            from the installed intel-sycl-rt
    torch <version> <include dir> the installed torch, then fetched trees
    runtime <torch lib dir> <libsycl file>
                                  what the glue links to run in this Python
                                  (installed torch and intel-sycl-rt)
`fetch` unpacks only `torch/include` of a torch wheel from PyPI into
DEST/<version>/include, so a release that cannot be installed here (the
latest one is a CUDA build with a version cap on this machine) still
provides its headers.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def installed_torch() -> tuple[str, Path] | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0])
    include = root / "include"
    if not (include / "torch" / "csrc").is_dir():
        return None
    try:
        version = importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        version = "installed"
    return version, include


def sycl_include() -> Path | None:
    try:
        dist = importlib.metadata.distribution("intel-sycl-rt")
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in dist.files or []:
        if str(entry).replace("\\", "/").endswith("include/sycl/sycl.hpp"):
            return Path(dist.locate_file(entry)).resolve().parents[1]
    return None


def sycl_library() -> Path | None:
    """The libsycl the installed intel-sycl-rt ships (sycl<N>.dll's import
    library sycl.lib on Windows)."""
    try:
        dist = importlib.metadata.distribution("intel-sycl-rt")
    except importlib.metadata.PackageNotFoundError:
        return None
    names = ("libsycl.so", "sycl.lib")
    for entry in dist.files or []:
        if Path(str(entry)).name in names:
            return Path(dist.locate_file(entry)).resolve()
    return None


def fetched_trees(root: Path) -> list[tuple[str, Path]]:
    if not root.is_dir():
        return []
    return sorted((d.name, d / "include") for d in root.iterdir() if (d / "include" / "torch" / "csrc").is_dir())


def locate(fetched_root: Path) -> int:
    sycl = sycl_include()
    if sycl is not None:
        print(f"sycl {sycl.as_posix()}")
    trees = []
    found = installed_torch()
    if found is not None:
        trees.append(found)
    trees += [t for t in fetched_trees(fetched_root) if found is None or t[0] != found[0]]
    for version, include in trees:
        print(f"torch {version} {include.resolve().as_posix()}")
    library = sycl_library()
    if found is not None and library is not None and (found[1].parent / "lib").is_dir():
        print(f"runtime {(found[1].parent / 'lib').resolve().as_posix()} {library.as_posix()}")
    return 0


# Inductor sources the patchset tests read from releases not installed here.
PYTHON_FILES = ("_inductor/utils.py", "_inductor/runtime/static_triton_launcher.py")


def fetch(version: str, dest: Path) -> int:
    target = dest / version / "include"
    if (target / "torch" / "csrc").is_dir() and all((dest / version / f).is_file() for f in PYTHON_FILES):
        print(f"torch {version} headers already in {target}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        # A machine-wide pip constraint may cap torch below the wanted release.
        env["PIP_CONSTRAINT"] = os.devnull
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", tmp, f"torch=={version}"]
        result = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wheels = list(Path(tmp).glob("torch-*.whl"))
        if result.returncode != 0 or not wheels:
            print(f"error: pip could not download torch=={version}: {result.stderr.strip()[-500:]}", file=sys.stderr)
            return 1
        staging = dest / f".{version}.partial"
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = [m for m in wheel.namelist()
                       if m.startswith("torch/include/") or m[len("torch/"):] in PYTHON_FILES]
            for member in members:
                out = staging / member[len("torch/"):]
                if member.endswith("/"):
                    continue
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(wheel.read(member))
        (dest / version).mkdir(parents=True, exist_ok=True)
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging / "include", target)
        for name in PYTHON_FILES:
            out = dest / version / name
            out.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / name, out)
        shutil.rmtree(staging)
    print(f"torch {version} headers in {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    loc = sub.add_parser("locate", help="print the SYCL and torch include trees found")
    loc.add_argument("--fetched-root", type=Path, required=True, help="folder that `fetch` fills")
    get = sub.add_parser("fetch", help="unpack torch/include and the Inductor files the tests read, of a torch release from PyPI")
    get.add_argument("--version", required=True, help="torch release, e.g. 2.15.0")
    get.add_argument("--dest", type=Path, required=True, help="folder for <version>/include")
    args = parser.parse_args(argv)
    if args.command == "locate":
        return locate(args.fetched_root)
    return fetch(args.version, args.dest)


if __name__ == "__main__":
    sys.exit(main())
