#!/usr/bin/env python3
"""torch releases that are not installed here, for the tests.

`fetch` unpacks only `torch/include` of a torch wheel from PyPI into
DEST/<version>/include, plus the few Inductor sources the Python tests read
and an index of the Inductor modules that name the XPU kernel format, so a
release that is not installed in the test environment still provides its
headers (cmake/TorchGlueCheck.cmake) and Inductor sources.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# Inductor sources the patchset tests read from releases not installed here.
PYTHON_FILES = ("_inductor/utils.py", "_inductor/runtime/static_triton_launcher.py")
# Every Inductor module that names the XPU kernel format or its file extension
# (tests/python/test_inductor_format.py checks that enable_zebin covers each
# one); the list of matches is written to FORMAT_INDEX.
FORMAT_NAMES = ("XPU_KERNEL_FORMAT", "GPU_KERNEL_BIN_EXTS")
FORMAT_INDEX = "_inductor/xpu_kernel_format_index.json"


def _download(version: str, tmp: str) -> Path | None:
    env = dict(os.environ)
    # A machine-wide pip constraint may cap torch below the wanted release.
    env["PIP_CONSTRAINT"] = os.devnull
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-q",
        "-d",
        tmp,
        f"torch=={version}",
    ]
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wheels = list(Path(tmp).glob("torch-*.whl"))
    if result.returncode != 0 or not wheels:
        print(f"error: pip could not download torch=={version}: {result.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return wheels[0]


def _extract(wheel_path: Path, version: str, dest: Path, with_headers: bool) -> None:
    staging = dest / f".{version}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    readers: list[str] = []
    scanned = 0
    with zipfile.ZipFile(wheel_path) as wheel:
        for member in wheel.namelist():
            if member.endswith("/") or not member.startswith("torch/"):
                continue
            name = member[len("torch/") :]
            wanted = name in PYTHON_FILES or (with_headers and name.startswith("include/"))
            if name.startswith("_inductor/") and name.endswith(".py"):
                scanned += 1
                text = wheel.read(member).decode("utf-8", "replace")
                if any(word in text for word in FORMAT_NAMES):
                    readers.append(name)
                    wanted = True
            if wanted:
                out = staging / name
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(wheel.read(member))
    index = {
        "torch": version,
        "scanned_inductor_modules": scanned,
        "names": list(FORMAT_NAMES),
        "files": sorted(readers),
    }
    (staging / FORMAT_INDEX).parent.mkdir(parents=True, exist_ok=True)
    (staging / FORMAT_INDEX).write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    (dest / version).mkdir(parents=True, exist_ok=True)
    if with_headers:
        target = dest / version / "include"
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging / "include", target)
    for path in sorted(p for p in staging.rglob("*") if p.is_file()):
        out = dest / version / path.relative_to(staging)
        out.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, out)
    shutil.rmtree(staging)


def fetch(version: str, dest: Path, wheel: Path | None = None) -> int:
    target = dest / version / "include"
    have_headers = (target / "torch" / "csrc").is_dir()
    have_python = all((dest / version / f).is_file() for f in PYTHON_FILES + (FORMAT_INDEX,))
    if have_headers and have_python:
        print(f"torch {version} headers already in {target}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        if wheel is None:
            wheel = _download(version, tmp)
            if wheel is None:
                return 1
        elif not wheel.is_file():
            print(
                f"error: --wheel {wheel} does not exist; pass a torch-{version} wheel or leave --wheel out",
                file=sys.stderr,
            )
            return 1
        # An existing header tree is left as it is (builds may be reading it).
        _extract(wheel, version, dest, with_headers=not have_headers)
    print(f"torch {version} headers and Inductor sources in {dest / version}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    get = sub.add_parser(
        "fetch", help="unpack torch/include and the Inductor files the tests read, of a torch release from PyPI"
    )
    get.add_argument("--version", required=True, help="torch release, e.g. 2.15.0")
    get.add_argument("--dest", type=Path, required=True, help="folder for <version>/include")
    get.add_argument("--wheel", type=Path, help="a torch wheel already on disk instead of pip download")
    args = parser.parse_args(argv)
    return fetch(args.version, args.dest, args.wheel)


if __name__ == "__main__":
    sys.exit(main())
