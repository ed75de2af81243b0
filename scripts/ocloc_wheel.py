#!/usr/bin/env python3
"""Package an installed ocloc into a pip-installable wheel.

Python environments on Windows have no ocloc, so Triton-XPU cannot make a
zebin there. This script takes the ocloc that IS installed (oneAPI on
Windows, the distribution's intel-opencl-icd on Linux, found the way
xpu_static_launcher's ocloc_discovery finds it, or given with --ocloc) and bundles it:

  Windows: ocloc.exe, ocloc64.dll and the IGC / opencl-clang DLLs it loads
           (igc64.dll, igdfcl64.dll, common_clang64.dll, ... and every
           non-system DLL they import), from the ocloc folder, the oneAPI
           compiler's bin folder or PATH.
  Linux:   ocloc, libocloc.so, the IGC libraries libocloc loads at run time
           (libigc, libigdfcl, libiga64) and every shared library `ldd`
           reports for them except the C/C++ runtime (glibc, libstdc++,
           libgcc_s); RUNPATH is set to $ORIGIN with patchelf so the bundled
           copies are the ones loaded.

The wheel holds the package `intel_ocloc` (files in intel_ocloc/bin; the
functions executable_path(), library_path(), bin_dir(), version()), a
console script `ocloc`, the licence files of everything bundled, the version
reported by the ocloc itself, and the platform tag win_amd64 or
manylinux_2_<N>_x86_64 with N the newest glibc symbol version the bundled
files need. After `pip install <wheel>`, csrc/ocloc and
xpu_static_launcher's ocloc_discovery find it (XSL_OCLOC > wheel > PATH > oneAPI).

Stdlib only (plus patchelf and ldd on Linux).
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
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# The package's ocloc discovery (its package imports the stdlib only), from
# the source tree.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from xpu_static_launcher import ocloc_discovery  # noqa: E402

DIST_NAME = "xsl_intel_ocloc"  # normalised distribution name
PACKAGE = "intel_ocloc"
GENERATOR = "xpu-static-launcher scripts/ocloc_wheel.py"

# Loaded by the system on every Linux machine: never bundled (the manylinux
# policy's base libraries, plus the C++ runtime the distribution provides).
LINUX_SYSTEM_LIBS = re.compile(
    r"^(linux-vdso|linux-gate|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libresolv|libnsl|"
    r"libstdc\+\+|libgcc_s|libanl|libcrypt)\.so"
)
# What libocloc dlopens (names found in its bytes): IGC and its helpers.
LINUX_DLOPEN_NAME = re.compile(rb"lib(?:igc|igdfcl|iga64|igdml)[A-Za-z0-9_]*\.so(?:\.[0-9]+)*")
# Windows DLLs ocloc64.dll loads by name at run time.
WINDOWS_RUNTIME_DLLS = (
    "igc64.dll",
    "igdfcl64.dll",
    "common_clang64.dll",
    "opencl-clang64.dll",
    "iga64.dll",
    "igdml64.dll",
)
WINDOWS_SYSTEM_DLL = re.compile(
    r"^(api-ms-win-|ext-ms-|kernel32|kernelbase|user32|gdi32|advapi32|shell32|ole32|oleaut32|ws2_32|"
    r"msvcrt|ntdll|bcrypt|crypt32|shlwapi|version|setupapi|cfgmgr32|dbghelp|psapi|rpcrt4|secur32|"
    r"ucrtbase|vcruntime|msvcp|concrt|imagehlp|dxgi|d3d|winmm|comdlg32|comctl32|sechost|userenv|"
    r"iphlpapi|wintrust|powrprof|mpr|netapi32|normaliz|dwmapi|uxtheme)",
    re.IGNORECASE,
)
LICENSE_NAME = re.compile(r"(licen[cs]e|copying|copyright|third[-_ ]party|notice)", re.IGNORECASE)


class WheelError(RuntimeError):
    pass


@dataclass
class BundleFile:
    source: Path
    name: str  # file name inside intel_ocloc/bin
    executable: bool = False


@dataclass
class Bundle:
    version: str
    platform_tag: str
    executable_name: str
    library_name: str
    files: list[BundleFile] = field(default_factory=list)
    licenses: list[tuple[Path, str]] = field(default_factory=list)  # (source, name under licenses/)
    origin: str = ""


# ---------------------------------------------------------------- helpers


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def normalise_version(raw: str) -> str:
    """'22.43.24595' stays; anything else is reduced to its dotted numbers."""
    numbers = re.findall(r"\d+", raw)
    if not numbers:
        raise WheelError(f"ocloc reported version {raw!r}, which has no number; pass --version.")
    return ".".join(str(int(n)) for n in numbers[:4])


def glibc_requirement(paths: Iterable[Path]) -> tuple[int, int]:
    """Newest GLIBC_2.N symbol version named by any of the ELF files."""
    newest = (2, 17)  # manylinux2014 floor
    pattern = re.compile(rb"GLIBC_2\.(\d+)(?:\.\d+)?\x00")
    for path in paths:
        data = path.read_bytes()
        for match in pattern.finditer(data):
            newest = max(newest, (2, int(match.group(1))))
    return newest


def linux_platform_tag(paths: Iterable[Path]) -> str:
    major, minor = glibc_requirement(paths)
    return f"manylinux_{major}_{minor}_x86_64"


def pe_imports(data: bytes) -> list[str]:
    """Names of the DLLs a PE32+ file imports (empty for non-PE input)."""
    try:
        if data[:2] != b"MZ":
            return []
        (pe_offset,) = struct.unpack_from("<I", data, 0x3C)
        if data[pe_offset : pe_offset + 4] != b"PE\0\0":
            return []
        coff = pe_offset + 4
        (sections_count,) = struct.unpack_from("<H", data, coff + 2)
        (optional_size,) = struct.unpack_from("<H", data, coff + 16)
        optional = coff + 20
        (magic,) = struct.unpack_from("<H", data, optional)
        directories = optional + (112 if magic == 0x20B else 96)
        import_rva, _ = struct.unpack_from("<II", data, directories + 8)
        sections: list[tuple[int, int, int]] = []
        table = optional + optional_size
        for i in range(sections_count):
            vsize, vaddr, raw_size, raw_ptr = struct.unpack_from("<IIII", data, table + 40 * i + 8)
            sections.append((vaddr, max(vsize, raw_size), raw_ptr))

        def offset(rva: int) -> int:
            for vaddr, size, raw in sections:
                if vaddr <= rva < vaddr + size:
                    return raw + rva - vaddr
            raise ValueError("RVA outside every section")

        names: list[str] = []
        if import_rva == 0:
            return names
        entry = offset(import_rva)
        while True:
            fields = struct.unpack_from("<IIIII", data, entry)
            if not any(fields):
                break
            name_at = offset(fields[3])
            end = data.index(b"\0", name_at)
            names.append(data[name_at:end].decode("ascii", "replace"))
            entry += 20
        return names
    except (struct.error, ValueError):
        return []


# ---------------------------------------------------------------- Linux


def ldd(path: Path) -> dict[str, Path]:
    """soname -> resolved path, as ldd reports it."""
    proc = subprocess.run(["ldd", str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result: dict[str, Path] = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"\s*(\S+)\s+=>\s+(\S+)\s+\(", line)
        if match:
            result[match.group(1)] = Path(match.group(2))
        elif "not found" in line:
            raise WheelError(f"{path}: ldd reports a missing library: {line.strip()}; install it first.")
    return result


def find_linux_library(name: str, near: Path) -> Path | None:
    for folder in (
        near,
        Path("/usr/lib/x86_64-linux-gnu"),
        Path("/lib/x86_64-linux-gnu"),
        Path("/usr/lib64"),
        Path("/usr/local/lib"),
        Path("/usr/lib"),
    ):
        if (folder / name).is_file():
            return folder / name
    proc = subprocess.run(["/sbin/ldconfig", "-p"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout.splitlines():
        match = re.match(rf"\s*{re.escape(name)}\s.*=>\s+(\S+)", line)
        if match and "x86-64" in line:
            return Path(match.group(1))
    return None


def collect_linux(executable: Path, library: Path) -> tuple[list[BundleFile], list[str]]:
    """Files to bundle, and the dlopen names not found (informational)."""
    dlopen_names = sorted({m.decode() for m in LINUX_DLOPEN_NAME.findall(library.read_bytes())})
    roots: dict[str, Path] = {}
    missing = []
    for name in dlopen_names:
        found = find_linux_library(name, library.resolve().parent)
        if found is None:
            missing.append(name)
        else:
            roots[name] = found
    if not any(name.startswith("libigc.") for name in roots):
        raise WheelError(
            f"{library} loads IGC (libigc) at run time but no libigc was found; install IGC (Debian: libigc1) first."
        )
    libraries: dict[str, Path] = {"libocloc.so": library}
    libraries.update(roots)
    for path in [executable, library] + list(roots.values()):
        for soname, resolved in ldd(path).items():
            if not LINUX_SYSTEM_LIBS.match(soname):
                libraries.setdefault(soname, resolved)
    files = [BundleFile(executable, "ocloc", executable=True)]
    files += [BundleFile(path, name) for name, path in sorted(libraries.items())]
    return files, missing


def debian_licenses(files: Sequence[BundleFile]) -> list[tuple[Path, str]]:
    """/usr/share/doc/<package>/copyright of every package owning a file."""
    packages = set()
    for item in files:
        for candidate in {item.source, item.source.resolve()}:
            proc = subprocess.run(
                ["dpkg", "-S", str(candidate)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
            )
            for line in proc.stdout.splitlines():
                packages.add(line.split(":", 1)[0].strip())
    result = []
    for package in sorted(packages):
        copyright_file = Path("/usr/share/doc") / package / "copyright"
        if copyright_file.is_file():
            result.append((copyright_file, f"{package}/copyright"))
    return result


def set_rpath(paths: Iterable[Path], patchelf: str) -> None:
    for path in paths:
        os.chmod(path, 0o755)
        subprocess.run([patchelf, "--set-rpath", "$ORIGIN", str(path)], check=True)


# ---------------------------------------------------------------- Windows


def windows_search_dirs(executable: Path, env: dict[str, str]) -> list[Path]:
    folders = [executable.parent]
    for root in (env.get("CMPLR_ROOT"),):
        if root:
            folders.append(Path(root) / "bin")
    roots = [env.get("ONEAPI_ROOT"), ocloc_discovery.ONEAPI_DEFAULT_ROOT]
    for root in roots:
        if root:
            folders.append(Path(root) / "compiler" / "latest" / "bin")
    folders += [Path(p) for p in ocloc_discovery.split_path_list(env.get("PATH", ""), True)]
    return folders


def collect_windows(executable: Path, library: Path, search_dirs: Sequence[Path]) -> list[BundleFile]:
    def locate(name: str) -> Path | None:
        for folder in search_dirs:
            if (folder / name).is_file():
                return folder / name
        return None

    chosen: dict[str, Path] = {"ocloc64.dll": library}
    queue = [library] + [p for p in (locate(n) for n in WINDOWS_RUNTIME_DLLS) if p]
    for path in queue[1:]:
        chosen[path.name.lower()] = path
    if not any(name.startswith("igc") for name in chosen):
        raise WheelError(
            f"igc64.dll was not found next to {library} or in the oneAPI compiler folders; "
            "install the oneAPI ocloc component or pass --search-dir."
        )
    seen = set()
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in pe_imports(path.read_bytes()) + pe_imports(executable.read_bytes()):
            key = name.lower()
            if key in chosen or key == "ocloc64.dll" or WINDOWS_SYSTEM_DLL.match(key):
                continue
            found = locate(name)
            if found is not None:
                chosen[key] = found
                queue.append(found)
    files = [BundleFile(executable, "ocloc.exe", executable=True)]
    files += [
        BundleFile(path, path.name if key != "ocloc64.dll" else "ocloc64.dll") for key, path in sorted(chosen.items())
    ]
    return files


def windows_licenses(executable: Path, env: dict[str, str]) -> list[tuple[Path, str]]:
    """Licence texts of the oneAPI ocloc install (its root, share/doc, licensing)."""
    root = executable.parent.parent
    folders = [root, root / "share" / "doc", root / "licensing", root / "documentation"]
    oneapi = env.get("ONEAPI_ROOT") or ocloc_discovery.ONEAPI_DEFAULT_ROOT
    folders.append(Path(oneapi) / "licensing")
    result = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and LICENSE_NAME.search(path.name) and path.stat().st_size < 8 << 20:
                result.append((path, path.relative_to(folder.parent).as_posix()))
    return result


# ---------------------------------------------------------------- wheel


def package_init(bundle: Bundle) -> str:
    return f'''"""ocloc {bundle.version} (Intel GPU offline compiler) with its IGC libraries.

Repackaged from {bundle.origin or "a local install"} by {GENERATOR}.
Not an official Intel package: see the licence files in the .dist-info folder.
"""

import os
import subprocess
import sys

__version__ = "{bundle.version}"
_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def bin_dir():
    """Folder holding ocloc and every library it loads."""
    return _BIN


def executable_path():
    """The bundled ocloc executable."""
    return os.path.join(_BIN, "{bundle.executable_name}")


def library_path():
    """The bundled ocloc library (oclocInvoke / oclocFreeOutput)."""
    return os.path.join(_BIN, "{bundle.library_name}")


def version():
    """ocloc's driver version, as `ocloc query OCL_DRIVER_VERSION` reported it."""
    return __version__


def main(argv=None):
    """Console script `ocloc`: runs the bundled executable."""
    args = [executable_path()] + list(sys.argv[1:] if argv is None else argv)
    if os.name != "nt":
        os.execv(args[0], args)
    code = subprocess.call(args)
    # Windows exit codes are 32-bit; keep ocloc's negative codes negative.
    return code - (1 << 32) if code >= (1 << 31) else code
'''


def metadata_text(bundle: Bundle) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {DIST_NAME.replace('_', '-')}",
        f"Version: {bundle.version}",
        f"Summary: ocloc {bundle.version} (Intel GPU offline compiler) and its IGC libraries, "
        "repackaged from a local install",
        "License: Intel and third-party licences; see the licenses folder of this .dist-info",
        "Requires-Python: >=3.8",
        "",
        "Built by scripts/ocloc_wheel.py of xpu-static-launcher from " + (bundle.origin or "a local install") + ".",
        "",
    ]
    return "\n".join(lines)


def wheel_name(bundle: Bundle) -> str:
    return f"{DIST_NAME}-{bundle.version}-py3-none-{bundle.platform_tag}.whl"


def write_wheel(bundle: Bundle, staged: dict[str, Path], out_dir: Path, compression: int, level: int | None) -> Path:
    """Writes the wheel; `staged` maps bin file names to the (patched) files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / wheel_name(bundle)
    dist_info = f"{DIST_NAME}-{bundle.version}.dist-info"
    records: list[tuple[str, str, int]] = []

    def add_bytes(zf: zipfile.ZipFile, arcname: str, data: bytes, mode: int = 0o644) -> None:
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = compression
        zf.writestr(info, data, compress_type=compression, compresslevel=level)
        records.append((arcname, record_hash(data), len(data)))

    def add_file(zf: zipfile.ZipFile, arcname: str, path: Path, mode: int) -> None:
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = compression
        if level is not None:
            # No public per-entry level for open() before 3.13 (compress_level).
            setattr(
                info, "compress_level" if "compress_level" in zipfile.ZipInfo.__slots__ else "_compresslevel", level
            )
        digest = hashlib.sha256()
        size = 0
        with open(path, "rb") as src, zf.open(info, "w", force_zip64=True) as dst:
            for chunk in iter(lambda: src.read(1 << 20), b""):
                digest.update(chunk)
                dst.write(chunk)
                size += len(chunk)
        encoded = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
        records.append((arcname, "sha256=" + encoded, size))

    tmp_target = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp_target, "w", allowZip64=True) as zf:
        add_bytes(zf, f"{PACKAGE}/__init__.py", package_init(bundle).encode())
        add_bytes(zf, f"{PACKAGE}/__main__.py", b"import sys\nfrom intel_ocloc import main\n\nsys.exit(main())\n")
        for item in bundle.files:
            add_file(zf, f"{PACKAGE}/bin/{item.name}", staged[item.name], 0o755)
        for source, name in bundle.licenses:
            add_file(zf, f"{dist_info}/licenses/{name}", source, 0o644)
        add_bytes(zf, f"{dist_info}/METADATA", metadata_text(bundle).encode())
        add_bytes(
            zf,
            f"{dist_info}/WHEEL",
            (
                "Wheel-Version: 1.0\n"
                f"Generator: {GENERATOR}\n"
                "Root-Is-Purelib: false\n"
                f"Tag: py3-none-{bundle.platform_tag}\n"
            ).encode(),
        )
        add_bytes(zf, f"{dist_info}/entry_points.txt", b"[console_scripts]\nocloc = intel_ocloc:main\n")
        add_bytes(zf, f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())
        record = io.StringIO()
        writer = csv.writer(record, lineterminator="\n")
        for name, digest, size in records:
            writer.writerow([name, digest, size])
        writer.writerow([f"{dist_info}/RECORD", "", ""])
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100644) << 16
        info.compress_type = compression
        zf.writestr(info, record.getvalue().encode())
    os.replace(tmp_target, target)
    return target


def build(
    executable: Path,
    library: Path,
    out_dir: Path,
    *,
    version: str | None = None,
    compression: int = zipfile.ZIP_DEFLATED,
    level: int | None = 6,
    windows: bool | None = None,
    search_dirs: Sequence[Path] | None = None,
    patchelf: str | None = None,
    allow_missing_licenses: bool = False,
    origin: str = "",
    log: Callable[[str], object] = print,
) -> Path:
    windows = (os.name == "nt") if windows is None else windows
    if version is None:
        raw, why = ocloc_discovery.query_ocloc_version(str(executable))
        if raw is None:
            raise WheelError(f"cannot read the version of {executable}: {why}; pass --version.")
        version = raw
    version = normalise_version(version)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="oclocwheel") as staging_dir:
        staging = Path(staging_dir)
        if windows:
            files = collect_windows(executable, library, search_dirs or windows_search_dirs(executable, env))
            licenses = windows_licenses(executable, env)
            platform_tag = "win_amd64"
            exe_name, lib_name = "ocloc.exe", "ocloc64.dll"
        else:
            files, missing = collect_linux(executable, library)
            if missing:
                log(f"note: optional libraries not installed, not bundled: {', '.join(missing)}")
            licenses = debian_licenses(files)
            exe_name, lib_name = "ocloc", "libocloc.so"
            platform_tag = ""
        if not licenses and not allow_missing_licenses:
            raise WheelError(
                "no licence files were found for the bundled ocloc; pass "
                "--allow-missing-licenses only if you add them yourself."
            )
        staged: dict[str, Path] = {}
        for item in files:
            copy = staging / item.name
            shutil.copyfile(item.source, copy)
            staged[item.name] = copy
        if not windows:
            tool = patchelf or shutil.which("patchelf")
            if tool is None:
                raise WheelError("patchelf is needed to set RUNPATH=$ORIGIN (Debian: apt install patchelf).")
            set_rpath(staged.values(), tool)
            platform_tag = linux_platform_tag(staged.values())
        bundle = Bundle(
            version=version,
            platform_tag=platform_tag,
            executable_name=exe_name,
            library_name=lib_name,
            files=files,
            licenses=licenses,
            origin=origin,
        )
        for item in files:
            log(f"  bundling {item.name:<28} from {item.source}")
        return write_wheel(bundle, staged, out_dir, compression, level)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ocloc", help="ocloc executable (default: discovered like ocloc_discovery.py)")
    parser.add_argument("--library", help="ocloc library (default: next to the executable)")
    parser.add_argument("--out", default="dist", help="output folder (default: dist)")
    parser.add_argument("--version", help="wheel version (default: `ocloc query OCL_DRIVER_VERSION`)")
    parser.add_argument("--store", action="store_true", help="no compression (fast, large; for tests)")
    parser.add_argument("--level", type=int, default=6, help="deflate level 1-9 (default 6)")
    parser.add_argument(
        "--search-dir",
        action="append",
        default=[],
        help="Windows: extra folder to look for IGC/opencl-clang DLLs (repeatable)",
    )
    parser.add_argument(
        "--allow-missing-licenses",
        action="store_true",
        help="build even if no licence file was found (add them yourself)",
    )
    args = parser.parse_args(argv)
    if args.ocloc:
        found = ocloc_discovery.find_ocloc(env=dict(os.environ, XSL_OCLOC=args.ocloc), with_version=False)
    else:
        found = ocloc_discovery.find_ocloc(with_version=False)
    if not found.found:
        print(found.describe(), file=sys.stderr)
        return 1
    library = args.library or found.library
    if not found.path or not library:
        print(
            f"need both the ocloc executable and its library; found executable={found.path!r} "
            f"library={library!r} ({found.origin}). Pass --ocloc/--library.",
            file=sys.stderr,
        )
        return 1
    if found.source == "wheel":
        print(f"note: packaging ocloc from an installed wheel ({found.path})")
    search_dirs = [Path(d) for d in args.search_dir]
    if os.name == "nt":
        search_dirs += windows_search_dirs(Path(found.path), dict(os.environ))
    try:
        wheel = build(
            Path(found.path),
            Path(library),
            Path(args.out),
            version=args.version,
            compression=zipfile.ZIP_STORED if args.store else zipfile.ZIP_DEFLATED,
            level=None if args.store else args.level,
            search_dirs=search_dirs or None,
            allow_missing_licenses=args.allow_missing_licenses,
            origin=f"{found.path} ({found.origin})",
        )
    except (WheelError, OSError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
