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

Linux (``--platform linux``): download the pinned intel-sycl-rt wheels
(hash-checked), unpack their headers and libsycl, configure and build the
package once per SYCL line with CMake (Release, no tests, no run path),
assemble the wheel (Python sources, every backend, the other extension
modules from the newest line), retag it with the manylinux tag ``auditwheel
show`` reports (libsycl excluded: torch's intel-sycl-rt provides it), then
check it (check_wheel).

Windows (``--platform win_amd64``): the same with MSVC and the pinned
win_amd64 intel-sycl-rt wheels (``Library/include``, ``sycl<N>.lib``): on a
Windows host from a VS x64 developer prompt for the running Python (preset
windows-msvc); on Linux with real MSVC under wine (preset
windows-msvc-wine, ``scripts/msvc_toolchain.py setup``) for the
CPython 3.11 headers ``scripts/windows_build_kit.py`` provides. The wine
build proves the recipe on every test run; the wheels users get are built on
a Windows runner (.github/workflows/windows-msvc.yml). ``--tree MAJOR=DIR`` builds a line's
modules in a build tree configured already (scripts/dev.sh reuses its MSVC
trees that way) instead of configuring one under ``--work``.

    python scripts/build_wheel.py [--platform linux|win_amd64] [--out dist] [--work build/wheel]
    python scripts/build_wheel.py --check dist/<wheel>

Stdlib only.
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
import types
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "xpu_static_launcher"
DIST_NAME = "xpu_static_launcher"
# What check_wheel requires of every wheel, beside the backends.
REQUIRED_MODULES = (
    "__init__.py",
    "torch_install.py",
    "_sycl_launcher.py",
    "_backend_choice.py",
    "_version.py",
    "ocloc_discovery.py",
)


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
SYCL_MAJORS = tuple(line.major for line in SYCL_LINES)
AUDITWHEEL = "auditwheel==6.8.2"

# What a module of the wheel may import besides the libsycl of its major:
# the C and C++ runtimes (manylinux policy), never torch or Python.
LINUX_RUNTIME = {
    "libc.so.6",
    "libm.so.6",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "ld-linux-x86-64.so.2",
}
BACKEND = re.compile(r"^_sycl_launcher_sycl(\d+)\.")
# The same for a Windows module (case-insensitive, as Windows names DLLs):
# the C runtime of MSVC 2015-2022, KERNEL32 (the loader code's LoadLibrary),
# the one python3XY.dll of the wheel's tag, and a backend's sycl<N>.dll.
WINDOWS_RUNTIME = re.compile(r"^(msvcp140(_\d)?|vcruntime140(_\d)?|api-ms-win-crt-[a-z0-9-]+|kernel32)\.dll$")
PLATFORMS = ("linux", "win_amd64")
# The presets of a Windows wheel's own build trees: on a Windows host, and
# under wine (scripts/dev.sh builds the same modules in the trees of these
# presets and their C++20 twins, /W4 /WX, and hands those over with --tree).
WINDOWS_PRESET = "windows-msvc"
WINDOWS_PRESET_UNDER_WINE = "windows-msvc-wine"


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


def requires_python() -> str:
    """pyproject.toml's requires-python: the CPythons the package supports,
    written into METADATA as Requires-Python (one source for the range)."""
    match = re.search(r'^requires-python = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    if not match:
        raise WheelError("pyproject.toml has no requires-python line")
    return match.group(1)


# ------------------------------------------------------------------ SYCL lines


def fetch_sycl(line: SyclLine, work: Path, python: str) -> tuple[Path, Path]:
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
    run(
        [
            python,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--require-hashes",
            "--only-binary=:all:",
            "--platform",
            "manylinux_2_28_x86_64",
            "-d",
            str(downloads),
            "-r",
            str(requirement),
        ],
        env=dict(os.environ, PIP_CONSTRAINT=os.devnull),
    )
    wheels = sorted(downloads.glob(f"intel_sycl_rt-{line.version}-*manylinux*.whl"))
    if not wheels:
        raise WheelError(f"pip downloaded no intel-sycl-rt {line.version} wheel into {downloads}")
    data = f"intel_sycl_rt-{line.version}.data/data/"
    with zipfile.ZipFile(wheels[0]) as archive:
        for name in archive.namelist():
            if not name.startswith(data):
                continue
            inner = name[len(data) :]
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
    run(
        [
            "cmake",
            "-S",
            str(REPO),
            "-B",
            str(build),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DXSL_BUILD_TESTS=OFF",
            "-DXSL_BUILD_PYTHON=ON",
            "-DXSL_BUILD_SYCL_BACKEND=ON",
            "-DXSL_SYCL_BACKEND_ABI3=OFF",
            "-DCMAKE_SKIP_RPATH=ON",
            f"-DPython_EXECUTABLE={python}",
            f"-DXSL_SYCL_INCLUDE_DIR={include}",
            f"-DXSL_SYCL_LIBRARY_DIR={lib}",
        ]
    )
    package = build / "python" / PACKAGE
    # A backend left by an earlier configuration (abi3 or not) is not this one.
    for stale in package.glob("_sycl_launcher_sycl*"):
        stale.unlink()
    targets = ["_sycl_launcher"] + (["_launcher", "_zebin", "_compile"] if everything else [])
    run(["cmake", "--build", str(build), "-j2", "--target", *targets])
    return package


# --------------------------------------------------------------- the wheel


def python_tag(python: str) -> tuple[str, str]:
    """(python tag, abi tag) of the full-API modules built for ``python``."""
    version = run([python, "-c", "import sys; print('%d%d' % sys.version_info[:2])"]).strip()
    return f"cp{version}", f"cp{version}"


def wheel_files(packages: Sequence[Path], suffix: str) -> dict[str, bytes]:
    """Archive name -> content: the Python sources, the generated version,
    every backend, the newest line's other modules (files
    ending in ``suffix``: .so or .pyd)."""
    files: dict[str, bytes] = {}
    for source in sorted((REPO / "python" / PACKAGE).glob("*.py")):
        files[f"{PACKAGE}/{source.name}"] = source.read_bytes()
    files[f"{PACKAGE}/_version.py"] = (packages[-1] / "_version.py").read_bytes()
    for index, package in enumerate(packages):
        for module in sorted(package.glob(f"*{suffix}")):
            if BACKEND.match(module.name) or index == len(packages) - 1:
                files[f"{PACKAGE}/{module.name}"] = module.read_bytes()
    return files


def metadata(version: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return (
        f"Metadata-Version: 2.1\nName: {DIST_NAME}\nVersion: {version}\n"
        "Summary: Static launcher for Intel XPU Triton kernels (torch._C._StaticXpuLauncher), "
        f"portable to Windows\nLicense: BSD-3-Clause\nRequires-Python: {requires_python()}\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )


def record_line(name: str, data: bytes) -> list[str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def write_wheel(out: Path, files: dict[str, bytes], version: str, tag: str) -> Path:
    dist_info = f"{DIST_NAME}-{version}.dist-info"
    wheel_meta = (
        f"Wheel-Version: 1.0\nGenerator: xpu-static-launcher build_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    )
    content = dict(files)
    content[f"{dist_info}/METADATA"] = metadata(version).encode()
    content[f"{dist_info}/WHEEL"] = wheel_meta.encode()
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
            info.external_attr = (0o755 if name.endswith((".so", ".pyd")) else 0o644) << 16
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
    match = re.search(r'constrains the platform tag to "(manylinux_\d+_\d+_x86_64)"', output) or re.search(
        r'consistent with the following platform tag: "(manylinux_\d+_\d+_x86_64)"', output
    )
    if not match:
        raise WheelError(f"auditwheel show gave no manylinux tag for {wheel.name}: {output}")
    return match.group(1)


def retag(wheel: Path, platform: str) -> Path:
    """The same wheel under ``platform`` (name and WHEEL's Tag line)."""
    name_tag = wheel.name[: -len(".whl")].split("-")
    name_tag[-1] = platform
    files: dict[str, bytes] = {}
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


def elf_needed(data: bytes) -> list[str]:
    """DT_NEEDED entries of a 64-bit little-endian ELF shared object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise WheelError("not a 64-bit little-endian ELF file")
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads: list[tuple[int, int, int]] = []
    dynamic: tuple[int, int] | None = None
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
    return [data[base + v : data.index(b"\0", base + v)].decode() for t, v in entries if t == 1]


def pe_imports(data: bytes) -> list[str]:
    """DLLs a PE32+ image imports: its import table, then its delay-load
    import table (a delay-loaded DLL is as much a dependency)."""

    def u16(offset: int) -> int:
        return int(struct.unpack_from("<H", data, offset)[0])

    def u32(offset: int) -> int:
        return int(struct.unpack_from("<I", data, offset)[0])

    try:
        if data[:2] != b"MZ":
            raise WheelError("not a PE file (no MZ header)")
        pe = u32(0x3C)
        if data[pe : pe + 4] != b"PE\0\0":
            raise WheelError("not a PE file (no PE signature)")
        sections, optional_size = u16(pe + 6), u16(pe + 20)
        optional = pe + 24
        if u16(optional) != 0x20B:
            raise WheelError("not a PE32+ (64-bit) image")
        directories = u32(optional + 108)
        table = optional + optional_size
        spans = [
            (u32(table + 40 * i + 12), max(u32(table + 40 * i + 8), u32(table + 40 * i + 16)), u32(table + 40 * i + 20))
            for i in range(sections)
        ]

        def offset_of(rva: int) -> int:
            for address, size, raw in spans:
                if address <= rva < address + size:
                    if raw + rva - address >= len(data):
                        raise WheelError(f"RVA {rva:#x} lies past the end of the file")
                    return raw + rva - address
            raise WheelError(f"RVA {rva:#x} is outside every section")

        def name_at(rva: int) -> str:
            start = offset_of(rva)
            return data[start : data.index(b"\0", start)].decode("ascii")

        names: list[str] = []
        # (data directory index, descriptor size, offset of the name RVA in it)
        for index, size, name_field in ((1, 20, 12), (13, 32, 4)):
            if index >= directories or u32(optional + 112 + 8 * index) == 0:
                continue
            entry = offset_of(u32(optional + 112 + 8 * index))
            while True:
                if entry + size > len(data):
                    raise WheelError("an import table runs past the end of the file")
                if not any(data[entry : entry + size]):  # the all-zero entry ends the table
                    break
                names.append(name_at(u32(entry + name_field)))
                entry += size
        return names
    except (struct.error, ValueError, UnicodeDecodeError) as error:
        raise WheelError(f"malformed PE image: {error}") from None


@dataclass
class WheelReport:
    name: str
    tag: str
    backends: dict[int, list[str]]  # major -> the module's imports
    size: int


def check_wheel(path: Path, majors: Sequence[int] = SYCL_MAJORS) -> WheelReport:
    """Checks a built wheel: name and WHEEL tags agree, RECORD lists every
    file with its hash, the package's Python sources are there, one backend
    per libsycl major in ``majors``, the modules are the tag's kind (.so or
    .pyd), each imports only its libsycl and the C/C++ runtimes (Linux: no
    torch, no libpython; Windows: no torch, the tag's python3XY.dll only,
    never ze_loader.dll), and METADATA names the distribution and version.
    WheelError says what is wrong."""
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
    for required in REQUIRED_MODULES:
        if f"{PACKAGE}/{required}" not in files:
            raise WheelError(f"{path.name}: {PACKAGE}/{required} is missing")
    windows = tag.endswith("-win_amd64")
    suffix, foreign = (".pyd", ".so") if windows else (".so", ".pyd")
    stray = sorted(name for name in files if name.endswith(foreign))
    if stray:
        raise WheelError(f"{path.name}: {stray[0]} does not belong in a wheel tagged {tag}")
    # The one Python DLL a Windows module may import: the tag's (cp311 -> python311.dll).
    python_dll = "python" + tag.split("-")[1][len("cp") :] + ".dll"
    backends: dict[int, list[str]] = {}
    for name, data in files.items():
        if not name.endswith(suffix):
            continue
        module = name.rsplit("/", 1)[-1]
        try:
            needed = pe_imports(data) if windows else elf_needed(data)
        except WheelError as error:
            raise WheelError(f"{path.name}: {module}: {error}") from None
        backend = BACKEND.match(module)
        if backend:
            if int(backend.group(1)) in backends:
                raise WheelError(f"{path.name}: two backends for libsycl major {backend.group(1)}")
            backends[int(backend.group(1))] = needed
        if windows:
            sycl_dll = f"sycl{backend.group(1)}.dll" if backend else None
            extra = sorted(
                d for d in needed if not (WINDOWS_RUNTIME.match(d.lower()) or d.lower() in (python_dll, sycl_dll))
            )
            runtimes = f"{python_dll}, {sycl_dll + ', ' if sycl_dll else ''}KERNEL32 and the C runtime"
        else:
            allowed = LINUX_RUNTIME | ({f"libsycl.so.{backend.group(1)}"} if backend else set())
            extra = sorted(set(needed) - allowed)
            runtimes = "its libsycl and the C/C++ runtimes" if backend else "the C/C++ runtimes"
        if extra:
            raise WheelError(f"{path.name}: {module} imports {', '.join(extra)} (allowed: {runtimes})")
    if sorted(backends) != sorted(majors):
        raise WheelError(f"{path.name}: backends for libsycl majors {sorted(backends)}, expected {sorted(majors)}")
    return WheelReport(path.name, tag, backends, path.stat().st_size)


# -------------------------------------------------------------------- main


def require_build_tools() -> None:
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            raise WheelError(f"{tool} is not on PATH (pip install {tool}, or the distribution's package)")


def build(out: Path, work: Path, python: str) -> Path:
    require_build_tools()
    run([python, "-m", "pip", "install", "-q", AUDITWHEEL], env=dict(os.environ, PIP_CONSTRAINT=os.devnull))
    newest = len(SYCL_LINES) - 1
    packages = [build_line(line, work, python, everything=(i == newest)) for i, line in enumerate(SYCL_LINES)]
    py_tag, abi_tag = python_tag(python)
    staged = write_wheel(
        work / "unrepaired", wheel_files(packages, ".so"), project_version(), f"{py_tag}-{abi_tag}-linux_x86_64"
    )
    platform = manylinux_tag(staged, python)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(staged, out / staged.name)
    return retag(out / staged.name, platform)


def windows_build_kit() -> types.ModuleType:
    """scripts/windows_build_kit.py: the pinned win_amd64 wheels (and, under
    wine, CPython's headers)."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import windows_build_kit as kit  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    return kit


def configure_windows_line(line: SyclLine, tree: Path, work: Path, python: str) -> None:
    """Configures a fresh MSVC build tree for one SYCL line (no tests): the
    Windows host's own Python, or under wine the CPython 3.11 kit."""
    kit = windows_build_kit()
    try:
        sycl = kit.wheel_kit("intel-sycl-rt", line.version, kit.default_cache(), work / "kits")
        if sys.platform == "win32":
            preset, python_args = WINDOWS_PRESET, [f"-DPython_EXECUTABLE={python}"]
        else:
            status = subprocess.run(
                [sys.executable, str(REPO / "scripts" / "msvc_toolchain.py"), "status"], capture_output=True, text=True
            )
            if status.returncode != 0:
                raise WheelError(
                    "MSVC under wine is not set up: run python3 scripts/msvc_toolchain.py setup "
                    f"({status.stderr.strip()})"
                )
            cpython = kit.python_kit(kit.default_cache(), work / "kits" / f"cpython-{kit.CPYTHON_VERSION}")
            preset, python_args = WINDOWS_PRESET_UNDER_WINE, [f"-DXSL_WINDOWS_PYTHON_KIT={cpython}"]
    except kit.Unavailable as why:
        raise WheelError(str(why)) from None
    run(
        [
            "cmake",
            "--preset",
            preset,
            "-S",
            str(REPO),
            "-B",
            str(tree),
            "-DXSL_BUILD_TESTS=OFF",
            "-DXSL_BUILD_PYTHON=ON",
            "-DXSL_SYCL_BACKEND_ABI3=OFF",
            *python_args,
            f"-DXSL_SYCL_INCLUDE_DIR={sycl / 'Library' / 'include'}",
            f"-DXSL_SYCL_LIBRARY_DIR={sycl / 'Library' / 'lib'}",
        ],
        cwd=str(REPO),
    )


def build_windows(out: Path, work: Path, python: str, trees: dict[int, Path]) -> Path:
    """The win_amd64 wheel: every line's backend, the newest line's other
    modules, tagged for the Python the modules were built for."""
    require_build_tools()
    packages: list[Path] = []
    newest = len(SYCL_LINES) - 1
    for index, line in enumerate(SYCL_LINES):
        tree = trees.get(line.major)
        if tree is None:
            tree = work / f"build-win-sycl{line.major}"
            configure_windows_line(line, tree, work, python)
        elif not (tree / "CMakeCache.txt").is_file():
            raise WheelError(f"--tree {line.major}={tree}: no CMakeCache.txt there (configure it first)")
        package = tree / "python" / PACKAGE
        targets = ["_sycl_launcher"] + (["_launcher", "_zebin", "_compile"] if index == newest else [])
        run(["cmake", "--build", str(tree), "-j2", "--target", *targets])
        backends = sorted(p.name for p in package.glob("_sycl_launcher_sycl*.pyd"))
        if [BACKEND.match(name).group(1) for name in backends] != [str(line.major)]:  # type: ignore[union-attr]
            raise WheelError(
                f"{tree} holds the backends {backends}, not one for libsycl {line.major} "
                f"(intel-sycl-rt {line.version}): configure it with that SYCL"
            )
        packages.append(package)
    suffixes = {
        m.group(1)
        for p in packages
        for m in (re.match(r"^[^.]+\.(cp\d+)-win_amd64\.pyd$", f.name) for f in p.glob("*.pyd"))
        if m
    }
    if len(suffixes) != 1:
        raise WheelError(f"the modules are built for {sorted(suffixes) or 'no'} CPython, expected one")
    py_tag = suffixes.pop()
    return write_wheel(out, wheel_files(packages, ".pyd"), project_version(), f"{py_tag}-{py_tag}-win_amd64")


def parse_tree(text: str) -> tuple[int, Path]:
    major, sep, folder = text.partition("=")
    if not sep or not major.isdigit() or int(major) not in [line.major for line in SYCL_LINES]:
        majors = ", ".join(str(line.major) for line in SYCL_LINES)
        raise argparse.ArgumentTypeError(f"{text!r} is not MAJOR=DIR with MAJOR one of {majors}")
    return int(major), Path(folder)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="folder for the wheel (default dist)")
    parser.add_argument(
        "--work", type=Path, default=REPO / "build" / "wheel", help="downloads and build trees (default build/wheel)"
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the Python whose headers and tag the full-API modules get (default: this one)",
    )
    parser.add_argument("--check", type=Path, metavar="WHEEL", help="only check this wheel")
    parser.add_argument(
        "--platform",
        choices=PLATFORMS,
        default="win_amd64" if sys.platform == "win32" else "linux",
        help="the wheel's platform (default: this host's); win_amd64 on Linux builds with MSVC under wine",
    )
    parser.add_argument(
        "--tree",
        type=parse_tree,
        action="append",
        default=[],
        metavar="MAJOR=DIR",
        help="win_amd64: build libsycl MAJOR's modules in this configured MSVC build tree",
    )
    args = parser.parse_args(argv)
    if args.tree and args.platform != "win_amd64":
        parser.error("--tree is for --platform win_amd64")
    try:
        if args.check:
            wheel = args.check
        elif args.platform == "win_amd64":
            wheel = build_windows(args.out, args.work, args.python, dict(args.tree))
        else:
            wheel = build(args.out, args.work, args.python)
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
