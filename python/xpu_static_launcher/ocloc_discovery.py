#!/usr/bin/env python3
"""Find ocloc (the Intel GPU offline compiler) the way csrc/ocloc does.

Order (first hit wins):
  1. XSL_OCLOC: the ocloc executable, its library, or a folder holding them.
  2. An installed ocloc wheel (scripts/ocloc_wheel.py): <site>/intel_ocloc/bin
     for every folder of sys.path, then PYTHONPATH, VIRTUAL_ENV, CONDA_PREFIX.
  3. PATH (``ocloc.exe`` on Windows, ``;``-separated; ``ocloc`` elsewhere).
  4. Windows: oneAPI (%ONEAPI_ROOT%\\ocloc\\latest\\bin, the default
     C:\\Program Files (x86)\\Intel\\oneAPI\\ocloc\\latest\\bin, %CMPLR_ROOT%\\bin,
     then the compilers' bin folders).
  5. Linux: /usr/bin, /usr/local/bin, /opt/intel/oneapi/{ocloc,compiler}/latest/bin.

  6. Without ocloc: the installed Intel GPU driver, which compiles SPIR-V
     itself through Level Zero (csrc/compile/driver_compiler.h) when it lists an
     Intel GPU of the target's architecture. The CLI probes it through the
     xpu_static_launcher package (``find_compiler("driver")``) when that can
     be imported. ``XSL_ZEBIN_COMPILER=ocloc|driver`` forces one; a broken
     ``XSL_OCLOC`` is an error, never a fallback.

The library (``ocloc64.dll`` / ``libocloc.so``) is looked for next to the
executable (and in ../lib, ../lib64, ../lib/x86_64-linux-gnu on Linux).
The version comes from ``ocloc query OCL_DRIVER_VERSION`` (ocloc 22.43 has
no --version), run in a private temporary folder because ocloc writes the
answer to a file there.

The package's module (``python -m xpu_static_launcher.ocloc_discovery
--tried``); the repository's scripts load this file by its path, and it runs
as a script too. API::

    from xpu_static_launcher.ocloc_discovery import find_ocloc
    found = find_ocloc()
    if found.path: print(found.source, found.path, found.version)
    else: print(found.describe())   # lists every place tried

Everything that touches the machine goes through ``Probes`` so tests can run
the Windows order on Linux. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

ENV_VAR = "XSL_OCLOC"
COMPILER_ENV_VAR = "XSL_ZEBIN_COMPILER"  # auto | ocloc | driver (csrc/compile/zebin_compiler.h)
WHEEL_PACKAGE = "intel_ocloc"
ONEAPI_DEFAULT_ROOT = "C:\\Program Files (x86)\\Intel\\oneAPI"
LINUX_FOLDERS = (
    "/usr/bin",
    "/usr/local/bin",
    "/opt/intel/oneapi/ocloc/latest/bin",
    "/opt/intel/oneapi/compiler/latest/bin",
)


def _host_list_dir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


@dataclass
class Probes:
    """The machine as discovery sees it; replace fields in tests."""

    windows: bool = os.name == "nt"
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    is_file: Callable[[str], bool] = os.path.isfile
    is_dir: Callable[[str], bool] = os.path.isdir
    list_dir: Callable[[str], list[str]] = _host_list_dir
    python_paths: Sequence[str] = field(default_factory=lambda: list(sys.path))
    # (executable, library) -> (version, error); None means "do not ask".
    query_version: Callable[[str, str], tuple[str | None, str | None]] | None = None


@dataclass
class Candidate:
    source: str  # environment, wheel, PATH, oneAPI, system
    origin: str
    path: str


@dataclass
class OclocDiscovery:
    path: str | None = None  # the executable
    library: str | None = None
    source: str | None = None
    origin: str | None = None
    version: str | None = None
    version_error: str | None = None
    error: str | None = None  # set when nothing usable was found
    tried: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.error is None and bool(self.path or self.library)

    def describe(self) -> str:
        if not self.found:
            return self.error or "ocloc not found"
        lines = [
            f"ocloc: {self.path or '(none: library only)'}",
            f"library: {self.library or '(none: subprocess only)'}",
            f"source: {self.source} ({self.origin})",
            f"version: {self.version or 'unknown (' + str(self.version_error) + ')'}",
        ]
        return "\n".join(lines)


def join_path(folder: str, name: str, windows: bool) -> str:
    if not folder:
        return name
    sep = "\\" if windows else "/"
    if folder.endswith(sep) or (windows and folder.endswith("/")):
        return folder + name
    return folder + sep + name


def split_path_list(value: str, windows: bool) -> list[str]:
    result = []
    for entry in value.split(";" if windows else ":"):
        if windows and len(entry) >= 2 and entry[0] == '"' and entry[-1] == '"':
            entry = entry[1:-1]
        if entry:
            result.append(entry)
    return result


def _parent(path: str, windows: bool) -> str:
    cut = max(path.rfind("\\"), path.rfind("/")) if windows else path.rfind("/")
    if cut < 0:
        return "."
    return path[:1] if cut == 0 else path[:cut]


def _base(path: str, windows: bool) -> str:
    cut = max(path.rfind("\\"), path.rfind("/")) if windows else path.rfind("/")
    return path[cut + 1 :]


def executable_name(windows: bool) -> str:
    return "ocloc.exe" if windows else "ocloc"


def _is_library_name(name: str, windows: bool) -> bool:
    return name.lower().endswith(".dll") if windows else name.startswith("libocloc")


def library_candidates(folder: str, windows: bool) -> list[str]:
    if windows:
        return [join_path(folder, "ocloc64.dll", True)]
    prefix = _parent(folder, False)
    result = [join_path(folder, "libocloc.so", False)]
    for lib in ("lib", "lib64", "lib/x86_64-linux-gnu"):
        result.append(join_path(join_path(prefix, lib, False), "libocloc.so", False))
    return result


def _env(probes: Probes, name: str) -> str | None:
    value = probes.env.get(name)
    return value if value else None


def _python_search_paths(probes: Probes) -> list[str]:
    result = [p for p in probes.python_paths if p]
    python_path = _env(probes, "PYTHONPATH")
    if python_path:
        result += split_path_list(python_path, probes.windows)
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = _env(probes, var)
        if not prefix:
            continue
        if probes.windows:
            result.append(join_path(join_path(prefix, "Lib", True), "site-packages", True))
            continue
        lib = join_path(prefix, "lib", False)
        for name in probes.list_dir(lib):
            if name.startswith("python3"):
                result.append(join_path(join_path(lib, name, False), "site-packages", False))
    return result


def ocloc_candidates(probes: Probes) -> list[Candidate]:
    """Every place looked at, in order (same as csrc/ocloc oclocCandidates)."""
    win = probes.windows
    exe = executable_name(win)
    result: list[Candidate] = []
    explicit = _env(probes, ENV_VAR)
    if explicit:
        result.append(Candidate("environment", f"{ENV_VAR}={explicit}", explicit))
    for site in _python_search_paths(probes):
        folder = join_path(join_path(site, WHEEL_PACKAGE, win), "bin", win)
        result.append(Candidate("wheel", f"intel_ocloc wheel in {site}", join_path(folder, exe, win)))
    path = _env(probes, "PATH")
    if path:
        for folder in split_path_list(path, win):
            result.append(Candidate("PATH", f"PATH entry {folder}", join_path(folder, exe, win)))
    if win:
        roots = []
        oneapi_root = _env(probes, "ONEAPI_ROOT")
        if oneapi_root:
            roots.append(("%ONEAPI_ROOT%", oneapi_root))
        roots.append(("default oneAPI folder", ONEAPI_DEFAULT_ROOT))
        for label, root in roots:
            folder = "\\".join([root.rstrip("\\/"), "ocloc", "latest", "bin"])
            result.append(Candidate("oneAPI", f"{label} ocloc", join_path(folder, exe, True)))
        compiler_root = _env(probes, "CMPLR_ROOT")
        if compiler_root:
            result.append(
                Candidate(
                    "oneAPI", "%CMPLR_ROOT% compiler bin", join_path(join_path(compiler_root, "bin", True), exe, True)
                )
            )
        for label, root in roots:
            folder = "\\".join([root.rstrip("\\/"), "compiler", "latest", "bin"])
            result.append(Candidate("oneAPI", f"{label} compiler bin", join_path(folder, exe, True)))
    else:
        for folder in LINUX_FOLDERS:
            result.append(Candidate("system", f"standard folder {folder}", join_path(folder, exe, False)))
    return result


def _first_file(paths: Sequence[str], probes: Probes) -> str | None:
    for path in paths:
        if probes.is_file(path):
            return path
    return None


def query_ocloc_version(
    executable: str, library: str | None = None, timeout: float = 60.0
) -> tuple[str | None, str | None]:
    """(version, None) or (None, why not). Runs `ocloc query OCL_DRIVER_VERSION`."""
    del library  # the executable answers for both
    if not executable:
        return None, "no executable to ask"
    with tempfile.TemporaryDirectory(prefix="xocl") as folder:
        try:
            proc = subprocess.run(
                [executable, "query", "OCL_DRIVER_VERSION"],
                cwd=folder,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return None, f"cannot run {executable}: {exc}"
        answer = os.path.join(folder, "OCL_DRIVER_VERSION")
        if proc.returncode == 0 and os.path.isfile(answer):
            with open(answer, encoding="utf-8", errors="replace") as f:
                version = f.read().strip(" \t\r\n\x00")
            if version:
                return version, None
        output = proc.stdout.decode("utf-8", "replace").strip()
        return None, f"`ocloc query OCL_DRIVER_VERSION` failed (exit {proc.returncode}): {output}"


def find_ocloc(
    env: Mapping[str, str] | None = None, *, probes: Probes | None = None, with_version: bool = True
) -> OclocDiscovery:
    """Discover ocloc. `env` replaces os.environ; `probes` replaces everything."""
    if probes is None:
        probes = Probes()
        if env is not None:
            probes.env = env
        if with_version:
            probes.query_version = query_ocloc_version
    win = probes.windows
    result = OclocDiscovery()
    for candidate in ocloc_candidates(probes):
        result.tried.append(f"{candidate.origin}: {candidate.path}")
        executable: str | None = candidate.path
        library: str | None = None
        if candidate.source == "environment":
            if probes.is_dir(candidate.path):
                executable = join_path(candidate.path, executable_name(win), win)
                if not probes.is_file(executable):
                    executable = None
                library = _first_file(library_candidates(candidate.path, win), probes)
                if executable is None and library is None:
                    result.error = (
                        f"{ENV_VAR}={candidate.path} is a folder without "
                        f"{executable_name(win)} or the ocloc library; point it at the "
                        "ocloc executable or unset it."
                    )
                    return result
            elif not probes.is_file(candidate.path):
                result.error = (
                    f"{ENV_VAR}={candidate.path} does not exist; point it at the ocloc executable or unset it."
                )
                return result
            elif _is_library_name(_base(candidate.path, win), win):
                library = candidate.path
                executable = join_path(_parent(candidate.path, win), executable_name(win), win)
                if not probes.is_file(executable):
                    executable = None
        elif not probes.is_file(candidate.path):
            continue
        if library is None and executable:
            library = _first_file(library_candidates(_parent(executable, win), win), probes)
        result.path, result.library = executable, library
        result.source, result.origin = candidate.source, candidate.origin
        if probes.query_version is not None:
            result.version, result.version_error = probes.query_version(executable or "", library or "")
        return result
    lines = [
        "ocloc (the Intel GPU offline compiler) was not found; install oneAPI (ocloc component) or "
        f"the intel_ocloc wheel (scripts/ocloc_wheel.py), or set {ENV_VAR} to the ocloc executable. "
        "Looked in:"
    ]
    lines += [f"  {place}" for place in result.tried] or ["  nowhere (PATH is empty)"]
    result.error = "\n".join(lines)
    return result


def probe_driver() -> tuple[bool, str]:
    """(usable, "driver: ...") for the driver backend, through the
    xpu_static_launcher package (the same C++ probe compiles use)."""
    try:
        from xpu_static_launcher import compile as xsl_compile
    except ImportError as error:
        return False, (
            "driver: not probed: the xpu_static_launcher package, which holds the driver backend, "
            f"cannot be imported ({error})"
        )
    try:
        info = xsl_compile.find_compiler("driver")
    except (xsl_compile.ZebinCompileError, ValueError) as error:
        return False, f"driver: {error}"
    return True, str(info["tried"][-1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--no-version", action="store_true", help="do not run ocloc to ask its version")
    parser.add_argument("--tried", action="store_true", help="also list every place looked at, the driver last")
    parser.add_argument(
        "--no-driver", action="store_true", help="do not probe the Intel GPU driver (Level Zero) when ocloc is missing"
    )
    args = parser.parse_args(argv)
    forced = os.environ.get(COMPILER_ENV_VAR, "") or "auto"
    if forced not in ("auto", "ocloc", "driver"):
        print(f"{COMPILER_ENV_VAR}={forced} is not one of auto, ocloc, driver; fix or unset it.")
        return 1
    found = (
        find_ocloc(with_version=not args.no_version)
        if forced != "driver"
        else OclocDiscovery(error=f"{COMPILER_ENV_VAR}=driver: ocloc not looked for")
    )
    # The driver is the last step, taken only when ocloc is not found and no
    # explicit ocloc setting failed.
    driver: tuple[bool, str] | None = None
    explicit_failed = bool(os.environ.get(ENV_VAR)) and not found.found
    if not found.found and forced != "ocloc" and not explicit_failed and not args.no_driver:
        driver = probe_driver()
    usable = found.found or bool(driver and driver[0])
    if args.json:
        report = asdict(found)
        report["driver"] = None if driver is None else {"usable": driver[0], "detail": driver[1]}
        report["compiler"] = "ocloc" if found.found else ("driver" if usable else None)
        print(json.dumps(report, indent=2))
        return 0 if usable else 1
    if found.found:
        print(found.describe())
    elif driver is not None and driver[0]:
        why = f"{COMPILER_ENV_VAR}=driver" if forced == "driver" else "no ocloc found"
        print(f"zebin compiler: the Intel GPU driver ({why}; it compiles for the GPUs of this machine)")
        print(driver[1])
    else:
        print(found.describe())
        if driver is not None:
            print(driver[1])
    if args.tried:
        print("tried:")
        for place in found.tried:
            print(f"  {place}")
        if driver is not None:
            print(f"  {driver[1]}")
        elif found.found:
            print("  driver: not reached (ocloc comes first)")
    return 0 if usable else 1


if __name__ == "__main__":
    sys.exit(main())
