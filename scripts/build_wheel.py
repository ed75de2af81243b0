#!/usr/bin/env python3
"""Build the prebuilt xpu_static_launcher wheel for stock torch XPU users.

One wheel carries one compiled SYCL backend per libsycl major that torch XPU
wheels use: ``_sycl_launcher_sycl8`` built against intel-sycl-rt 2025.x and
``_sycl_launcher_sycl9`` against 2026.x (``xpu_static_launcher._sycl_launcher``
imports the one for the libsycl torch loaded). So ``pip install`` of one
file, under one distribution name and an ordinary version, serves every
torch release on either line: no local version (PyPI refuses those), no
second distribution name to choose between (and to install both of, over
the same files).

Steps: download the pinned intel-sycl-rt wheels (hash-checked), unpack their
headers and libsycl, configure and build the package once per SYCL line
with CMake (Release, no tests, no run path), assemble the wheel (Python
sources, every backend, the other extension modules from the first line),
retag it with the manylinux tag ``auditwheel show`` reports (libsycl
excluded: torch's intel-sycl-rt provides it), then check it (check_wheel).

    python scripts/build_wheel.py [--out dist] [--work build/wheel]
    python scripts/build_wheel.py --check dist/<wheel>

Linux only here; the win_amd64 wheel (sycl8.dll / sycl9.dll, MSVC) is the
documented next step in docs/wheels.md. Stdlib only.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "xpu_static_launcher"
DIST_NAME = "xpu_static_launcher"


@dataclass(frozen=True)
class SyclLine:
    """A pinned intel-sycl-rt release: the libsycl major its wheel links."""

    version: str
    major: int
    sha256: str  # of the manylinux_2_28_x86_64 wheel on PyPI


# The lines torch XPU wheels use: 2025.x (libsycl.so.8) and 2026.x (.so.9).
SYCL_LINES = (
    SyclLine("2025.3.3", 8, "fbef5f5163492be14f65ed900f69b453432bec3d3f3f64e5e551758bfa4cecdf"),
    SyclLine("2026.2.0", 9, "ad920da1ffcb43edbc03422a7c85094997e6d578f9ab534743442af70bcbfaa1"),
)
AUDITWHEEL = "auditwheel==6.8.2"

# What a module of the wheel may import besides the libsycl of its major:
# the C and C++ runtimes (manylinux policy), never torch or Python.
LINUX_RUNTIME = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
                 "libpthread.so.0", "libdl.so.2", "ld-linux-x86-64.so.2"}
BACKEND = re.compile(r"^_sycl_launcher_sycl(\d+)\.")


class WheelError(Exception):
    """A build step or a check failed (one line saying which and why)."""


def run(cmd: Sequence[str], **kwargs: object) -> str:
    result = subprocess.run(list(cmd), capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-3000:]
        raise WheelError(f"{' '.join(cmd[:4])} ... failed (status {result.returncode}):\n{tail}")
    return str(result.stdout)


def project_version() -> str:
    match = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    if not match:
        raise WheelError("pyproject.toml has no version line")
    return match.group(1)


# ------------------------------------------------------------------ SYCL lines


def fetch_sycl(line: SyclLine, work: Path, python: str) -> Tuple[Path, Path]:
    """The include and library folders of the pinned intel-sycl-rt wheel,
    downloaded with its hash checked and unpacked under ``work``."""
    root = work / f"intel-sycl-rt-{line.version}"
    include, lib = root / "include", root / "lib"
    if (include / "sycl" / "sycl.hpp").is_file() and (lib / f"libsycl.so.{line.major}").is_file():
        return include, lib
    downloads = work / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    requirement = downloads / f"intel-sycl-rt-{line.version}.txt"
    requirement.write_text(f"intel-sycl-rt=={line.version} --hash=sha256:{line.sha256}\n")
    run([python, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes",
         "--only-binary=:all:", "--platform", "manylinux_2_28_x86_64", "-d", str(downloads),
         "-r", str(requirement)], env=dict(os.environ, PIP_CONSTRAINT=os.devnull))
    wheels = sorted(downloads.glob(f"intel_sycl_rt-{line.version}-*manylinux*.whl"))
    if not wheels:
        raise WheelError(f"pip downloaded no intel-sycl-rt {line.version} wheel into {downloads}")
    data = f"intel_sycl_rt-{line.version}.data/data/"
    with zipfile.ZipFile(wheels[0]) as archive:
        for name in archive.namelist():
            if not name.startswith(data):
                continue
            inner = name[len(data):]
            if inner.startswith("include/") or re.match(r"lib/libsycl\.so(\.\d+)?$", inner):
                target = root / inner
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(name) as source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
    if not (lib / f"libsycl.so.{line.major}").is_file():
        raise WheelError(f"intel-sycl-rt {line.version} has no lib/libsycl.so.{line.major}")
    return include, lib


def build_line(line: SyclLine, work: Path, python: str, everything: bool) -> Path:
    """Configure and build the package against one SYCL line; returns the
    build tree's package folder."""
    include, lib = fetch_sycl(line, work, python)
    build = work / f"build-sycl{line.major}"
    run(["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         "-DXSL_BUILD_TESTS=OFF", "-DXSL_BUILD_PYTHON=ON", "-DXSL_BUILD_SYCL_BACKEND=ON",
         "-DXSL_SYCL_BACKEND_ABI3=OFF", "-DCMAKE_SKIP_RPATH=ON", f"-DPython_EXECUTABLE={python}",
         f"-DXSL_SYCL_INCLUDE_DIR={include}", f"-DXSL_SYCL_LIBRARY_DIR={lib}"])
    package = build / "python" / PACKAGE
    # A backend left by an earlier configuration (abi3 or not) is not this one.
    for stale in package.glob("_sycl_launcher_sycl*"):
        stale.unlink()
    targets = ["_sycl_launcher"] + (["_launcher", "_zebin", "_compile"] if everything else [])
    run(["cmake", "--build", str(build), "-j2", "--target", *targets])
    return package


# --------------------------------------------------------------- the wheel


def python_tag(python: str) -> Tuple[str, str]:
    """(python tag, abi tag) of the full-API modules built for ``python``."""
    version = run([python, "-c", "import sys; print('%d%d' % sys.version_info[:2])"]).strip()
    return f"cp{version}", f"cp{version}"


def wheel_files(packages: Sequence[Path]) -> Dict[str, bytes]:
    """Archive name -> content: the Python sources, the generated version,
    ocloc discovery, every backend, the first build's other modules."""
    files: Dict[str, bytes] = {}
    for source in sorted((REPO / "python" / PACKAGE).glob("*.py")):
        files[f"{PACKAGE}/{source.name}"] = source.read_bytes()
    files[f"{PACKAGE}/ocloc_discovery.py"] = (REPO / "scripts" / "ocloc_discovery.py").read_bytes()
    files[f"{PACKAGE}/_version.py"] = (packages[0] / "_version.py").read_bytes()
    for index, package in enumerate(packages):
        for module in sorted(package.glob("*.so")):
            if BACKEND.match(module.name) or index == 0:
                files[f"{PACKAGE}/{module.name}"] = module.read_bytes()
    return files


def metadata(version: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return (f"Metadata-Version: 2.1\nName: {DIST_NAME}\nVersion: {version}\n"
            "Summary: Static launcher for Intel XPU Triton kernels (torch._C._StaticXpuLauncher), "
            "portable to Windows\nLicense: BSD-3-Clause\nRequires-Python: >=3.9\n"
            "Description-Content-Type: text/markdown\n\n" + readme)


def record_line(name: str, data: bytes) -> List[str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def write_wheel(out: Path, files: Dict[str, bytes], version: str, tag: str) -> Path:
    dist_info = f"{DIST_NAME}-{version}.dist-info"
    entry_points = "[console_scripts]\nzebin-info-py = xpu_static_launcher.zebin:main\n"
    wheel_meta = f"Wheel-Version: 1.0\nGenerator: xpu-static-launcher build_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    content = dict(files)
    content[f"{dist_info}/METADATA"] = metadata(version).encode()
    content[f"{dist_info}/WHEEL"] = wheel_meta.encode()
    content[f"{dist_info}/entry_points.txt"] = entry_points.encode()
    rows = [record_line(name, data) for name, data in content.items()]
    rows.append([f"{dist_info}/RECORD", "", ""])
    record = io.StringIO()
    csv.writer(record, lineterminator="\n").writerows(rows)
    content[f"{dist_info}/RECORD"] = record.getvalue().encode()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{DIST_NAME}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in content.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return path


def manylinux_tag(wheel: Path, python: str) -> str:
    """The manylinux tag ``auditwheel show`` finds the wheel's symbol
    versions consistent with. Its overall verdict is linux_x86_64 because
    the backends import libsycl, which no manylinux policy lists and which
    torch's intel-sycl-rt provides at run time (as torch's own wheels
    import it), so the tag is the one the symbol versions constrain it to."""
    output = " ".join(run([python, "-m", "auditwheel", "show", str(wheel)]).split())
    match = (re.search(r'constrains the platform tag to "(manylinux_\d+_\d+_x86_64)"', output)
             or re.search(r'consistent with the following platform tag: "(manylinux_\d+_\d+_x86_64)"', output))
    if not match:
        raise WheelError(f"auditwheel show gave no manylinux tag for {wheel.name}: {output}")
    return match.group(1)


def retag(wheel: Path, platform: str) -> Path:
    """The same wheel under ``platform`` (name and WHEEL's Tag line)."""
    name_tag = wheel.name[:-len(".whl")].split("-")
    name_tag[-1] = platform
    files: Dict[str, bytes] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            files[name] = archive.read(name)
    version = name_tag[1]
    dist_info = f"{DIST_NAME}-{version}.dist-info"
    tag = "-".join(name_tag[2:])
    for key in [k for k in files if k.startswith(dist_info + "/")]:
        del files[key]
    path = write_wheel(wheel.parent, files, version, tag)
    if path != wheel:
        wheel.unlink()
    return path


# ------------------------------------------------------------------ checks


def elf_needed(data: bytes) -> List[str]:
    """DT_NEEDED entries of a 64-bit little-endian ELF shared object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise WheelError("not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads: List[Tuple[int, int, int]] = []
    dynamic: Optional[Tuple[int, int]] = None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return []
    entries = [struct.unpack_from("<qQ", data, dynamic[0] + i) for i in range(0, dynamic[1], 16)]
    strtab = next((v for t, v in entries if t == 5), None)
    if strtab is None:
        return []
    base = next((off + strtab - vaddr for vaddr, off, size in loads if vaddr <= strtab < vaddr + size), None)
    if base is None:
        raise WheelError("DT_STRTAB is outside every PT_LOAD segment")
    return [data[base + v:data.index(b"\0", base + v)].decode() for t, v in entries if t == 1]


@dataclass
class WheelReport:
    name: str
    tag: str
    backends: Dict[int, List[str]]  # major -> the module's imports
    size: int


def check_wheel(path: Path, majors: Sequence[int] = tuple(line.major for line in SYCL_LINES)) -> WheelReport:
    """Checks a built wheel: name and WHEEL tags agree, RECORD lists every
    file with its hash, the package's Python sources are there, one backend
    per libsycl major in ``majors``, each module imports only its libsycl
    and the C/C++ runtimes (no torch, no libpython), and METADATA names the
    distribution and version. WheelError says what is wrong."""
    match = re.match(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-(?P<tag>[^-]+-[^-]+-[^-]+)\.whl$", path.name)
    if not match:
        raise WheelError(f"{path.name} is not a wheel file name")
    version, tag = match.group("version"), match.group("tag")
    dist_info = f"{match.group('name')}-{version}.dist-info"
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    wheel_meta = files.get(f"{dist_info}/WHEEL", b"").decode()
    if f"Tag: {tag}" not in wheel_meta.splitlines():
        raise WheelError(f"{path.name}: WHEEL's Tag lines do not include {tag}")
    meta = files.get(f"{dist_info}/METADATA", b"").decode(errors="replace")
    for field in (f"Name: {DIST_NAME}", f"Version: {version}"):
        if field not in meta.splitlines():
            raise WheelError(f"{path.name}: METADATA lacks '{field}'")
    rows = list(csv.reader(io.StringIO(files.get(f"{dist_info}/RECORD", b"").decode())))
    recorded = {row[0]: row[1] for row in rows if row}
    for name, data in files.items():
        if name == f"{dist_info}/RECORD":
            continue
        expected = record_line(name, data)[1]
        if recorded.get(name) != expected:
            raise WheelError(f"{path.name}: RECORD's hash of {name} is {recorded.get(name)!r}, not {expected}")
    for required in ("__init__.py", "torch_install.py", "_sycl_launcher.py", "_backend_choice.py", "_version.py",
                     "ocloc_discovery.py"):
        if f"{PACKAGE}/{required}" not in files:
            raise WheelError(f"{path.name}: {PACKAGE}/{required} is missing")
    backends: Dict[int, List[str]] = {}
    for name, data in files.items():
        if not name.endswith(".so"):
            continue
        needed = elf_needed(data)
        module = name.rsplit("/", 1)[-1]
        backend = BACKEND.match(module)
        allowed = set(LINUX_RUNTIME)
        if backend:
            if int(backend.group(1)) in backends:
                raise WheelError(f"{path.name}: two backends for libsycl major {backend.group(1)}")
            backends[int(backend.group(1))] = needed
            allowed.add(f"libsycl.so.{backend.group(1)}")
        extra = sorted(set(needed) - allowed)
        if extra:
            raise WheelError(f"{path.name}: {module} imports {', '.join(extra)} (allowed: its libsycl and "
                             "the C/C++ runtimes)")
    if sorted(backends) != sorted(majors):
        raise WheelError(f"{path.name}: backends for libsycl majors {sorted(backends)}, expected {sorted(majors)}")
    return WheelReport(path.name, tag, backends, path.stat().st_size)


# -------------------------------------------------------------------- main


def build(out: Path, work: Path, python: str) -> Path:
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            raise WheelError(f"{tool} is not on PATH (pip install {tool}, or the distribution's package)")
    run([python, "-m", "pip", "install", "-q", AUDITWHEEL], env=dict(os.environ, PIP_CONSTRAINT=os.devnull))
    packages = [build_line(line, work, python, everything=(i == 0)) for i, line in enumerate(SYCL_LINES)]
    py_tag, abi_tag = python_tag(python)
    staged = write_wheel(work / "unrepaired", wheel_files(packages), project_version(),
                         f"{py_tag}-{abi_tag}-linux_x86_64")
    platform = manylinux_tag(staged, python)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(staged, out / staged.name)
    return retag(out / staged.name, platform)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="folder for the wheel (default dist)")
    parser.add_argument("--work", type=Path, default=REPO / "build" / "wheel",
                        help="downloads and build trees (default build/wheel)")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python whose headers and tag the full-API modules get (default: this one)")
    parser.add_argument("--check", type=Path, metavar="WHEEL", help="only check this wheel")
    args = parser.parse_args(argv)
    try:
        wheel = args.check if args.check else build(args.out, args.work, args.python)
        report = check_wheel(wheel)
    except WheelError as error:
        print(f"build_wheel: {error}", file=sys.stderr)
        return 1
    for major, needed in sorted(report.backends.items()):
        print(f"backend libsycl {major}: imports {', '.join(needed)}")
    print(f"wheel {report.name}: {report.size / 1e6:.2f} MB, tag {report.tag}")
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
