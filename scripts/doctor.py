#!/usr/bin/env python3
"""Explains why XPU Triton kernels are (not) launched statically.

Each check returns findings with a concrete fix. Every platform access goes
through a `Probes` object (environment, files, registry, subprocesses,
libraries), so tests run the Windows checks on Linux with fakes.

Run it as `python scripts/harness.py doctor [--json]` or directly.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import getpass
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

SCRIPTS = Path(__file__).resolve().parent


def _load_sibling(name: str) -> Any:
    """Imports scripts/<name>.py (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"xsl_{name}", SCRIPTS / f"{name}.py")
    assert spec and spec.loader, name
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


winenv = _load_sibling("winenv")

ERROR, WARNING, OK, INFO = "error", "warning", "ok", "info"

# Windows MAX_PATH counts the terminating NUL: a path may have 259 characters.
MAX_PATH = 260
# A real fused-kernel name from a field report was 110 characters long.
REALISTIC_KERNEL_NAME = (
    "triton_per_fused__native_batch_norm_legit_functional_add_convolution_"
    "backward_native_batch_norm_backward_sum_0"
)
# Triton's FileCacheManager: <dir>/<base32 sha256, 52>/tmp.pid_<pid>_<uuid4>/<file>
TRITON_KEY_CHARS = 52
UUID_CHARS = 36
PID_DIGITS = 6
# Longest file name Triton writes for a kernel: "__grp__<name>.json".
TRITON_LONGEST_FILE = "__grp__{name}.json"

LONG_PATHS_KEY = r"SYSTEM\CurrentControlSet\Control\FileSystem"
LONG_PATHS_VALUE = "LongPathsEnabled"

# Level Zero entry points the launcher and Triton-XPU resolve from the loader.
REQUIRED_ZE_SYMBOLS = (
    "zeInit",
    "zeDriverGet",
    "zeDeviceGet",
    "zeDeviceGetProperties",
    "zeContextCreate",
    "zeModuleCreate",
    "zeModuleDestroy",
    "zeModuleBuildLogGetString",
    "zeKernelCreate",
    "zeKernelDestroy",
    "zeKernelGetProperties",
    "zeKernelSetGroupSize",
    "zeKernelSetArgumentValue",
    "zeMemGetAllocProperties",
)
TRITON_DISTRIBUTIONS = ("pytorch-triton-xpu", "triton-xpu", "triton", "pytorch-triton")
XPU_WHEEL_INDEX = "https://download.pytorch.org/whl/xpu"


@dataclasses.dataclass
class Finding:
    check: str
    severity: str
    title: str
    detail: str = ""
    fix: str = ""
    data: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class OclocReport:
    path: str | None
    version: str | None
    source: str | None
    tried: list[str]


# --------------------------------------------------------------------------
# Probes


def _fallback_find_ocloc(env: Mapping[str, str], windows: bool, is_file: Callable[[str], bool]) -> OclocReport:
    """PATH and oneAPI only; used when scripts/ocloc_discovery.py is absent."""
    tried: list[str] = []
    name = "ocloc.exe" if windows else "ocloc"
    sep = ";" if windows else ":"
    dirs = [d for d in env.get("PATH", "").split(sep) if d]
    if windows:
        root = env.get("ONEAPI_ROOT", r"C:\Program Files (x86)\Intel\oneAPI")
        dirs.append(root.rstrip("\\") + r"\ocloc\latest\bin")
    else:
        dirs += ["/usr/bin", "/usr/local/bin", "/opt/intel/oneapi/ocloc/latest/bin"]
    for d in dirs:
        candidate = d.rstrip("\\/") + ("\\" if windows else "/") + name
        tried.append(candidate)
        if is_file(candidate):
            return OclocReport(candidate, None, "PATH" if d in env.get("PATH", "") else "default folder", tried)
    return OclocReport(None, None, None, tried)


class Probes:
    """The real machine. Tests replace attributes or subclass."""

    def __init__(self, python: str | None = None, env: Mapping[str, str] | None = None):
        self.platform = sys.platform
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        self.python = python or sys.executable

    @property
    def windows(self) -> bool:
        return self.platform == "win32"

    def is_file(self, path: str) -> bool:
        return os.path.isfile(path)

    def run(self, argv: Sequence[str] | str, timeout: float = 120) -> tuple[int, str, str]:
        """A string is passed to the OS verbatim (cmd.exe quoting); a list is quoted."""
        command = argv if isinstance(argv, str) else list(argv)
        try:
            proc = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=timeout, env=self.env)
        except (OSError, subprocess.TimeoutExpired) as err:
            return (127, "", str(err))
        return (proc.returncode, proc.stdout, proc.stderr)

    def run_bytes(self, command: str, timeout: float = 120) -> tuple[int, bytes, bytes]:
        """A verbatim command line, output undecoded (cmd /u writes UTF-16)."""
        return winenv.run_cmd(command, timeout, self.env)

    def registry_dword(self, key: str, value: str) -> int | None:
        """HKLM DWORD value, or None when absent or not on Windows."""
        try:
            import winreg  # type: ignore[import-not-found]
        except ImportError:
            return None
        try:
            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, key) as handle:
                data, _ = winreg.QueryValueEx(handle, value)
                return int(data)
        except OSError:
            return None

    def find_ocloc(self) -> OclocReport:
        module_path = SCRIPTS / "ocloc_discovery.py"
        if module_path.is_file():
            spec = importlib.util.spec_from_file_location("xsl_ocloc_discovery", module_path)
            if spec and spec.loader:
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module  # dataclasses look their module up
                try:
                    spec.loader.exec_module(module)
                    found = module.find_ocloc(self.env)
                    return _report_from_discovery(found)
                except Exception as err:  # a broken helper must not kill the doctor
                    report = _fallback_find_ocloc(self.env, self.windows, self.is_file)
                    report.tried.insert(0, f"(scripts/ocloc_discovery.py failed: {err})")
                    return report
        return _fallback_find_ocloc(self.env, self.windows, self.is_file)

    def library_dirs(self) -> list[str]:
        if self.windows:
            root = self.env.get("SystemRoot", r"C:\Windows")
            return [root + r"\System32"] + [d for d in self.env.get("PATH", "").split(";") if d]
        dirs = [d for d in self.env.get("LD_LIBRARY_PATH", "").split(":") if d]
        return dirs + ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]

    def find_library(self, names: Sequence[str]) -> str | None:
        sep = "\\" if self.windows else "/"
        for directory in self.library_dirs():
            for name in names:
                candidate = directory.rstrip("\\/") + sep + name
                if self.is_file(candidate):
                    return candidate
        return None

    def library_symbols(self, path: str, names: Sequence[str]) -> set[str] | None:
        """The subset of `names` the library exports; None if it cannot load."""
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            return None
        return {n for n in names if hasattr(lib, n)}

    def library_version(self, path: str) -> str | None:
        if self.windows:
            return _windows_file_version(path)
        real = os.path.realpath(path)
        marker = ".so."
        return real.split(marker, 1)[1] if marker in real else None

    def temp_dir(self) -> str:
        return tempfile.gettempdir()

    def user_name(self) -> str:
        try:
            return getpass.getuser()
        except Exception:
            return "unknown_user"


def _report_from_discovery(found: Any) -> OclocReport:
    if found is None:
        return OclocReport(None, None, None, [])
    tried = list(getattr(found, "tried", []) or [])
    path = getattr(found, "path", None)
    if getattr(found, "found", True) is False:
        path = None
    return OclocReport(
        str(path) if path else None,
        getattr(found, "version", None),
        str(getattr(found, "source", "")) or None,
        [str(t) for t in tried],
    )


def _windows_file_version(path: str) -> str | None:
    try:
        version = ctypes.WinDLL("version.dll")  # type: ignore[attr-defined]
        size = version.GetFileVersionInfoSizeW(path, None)
        if not size:
            return None
        buffer = ctypes.create_string_buffer(size)
        version.GetFileVersionInfoW(path, 0, size, buffer)
        pointer = ctypes.c_void_p()
        length = ctypes.c_uint()
        version.VerQueryValueW(buffer, "\\", ctypes.byref(pointer), ctypes.byref(length))
        words = ctypes.cast(pointer, ctypes.POINTER(ctypes.c_uint32 * 4)).contents
        ms, ls = words[2], words[3]
        return f"{ms >> 16}.{ms & 0xFFFF}.{ls >> 16}.{ls & 0xFFFF}"
    except (AttributeError, OSError, ValueError):
        return None


# --------------------------------------------------------------------------
# The torch/Triton side, read by the target Python in one subprocess

TORCH_PROBE = r"""
import json, sys
info = {}
try:
    import importlib.metadata as md
    info["dists"] = {}
    for name in %(dists)r:
        try:
            info["dists"][name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    try:
        info["torch_requires"] = [r for r in (md.requires("torch") or []) if "triton" in r.lower()]
    except md.PackageNotFoundError:
        info["torch_requires"] = []
    import os, torch
    info["torch"] = torch.__version__
    # A source build (pip install -e .) has no Triton pin in its metadata;
    # its checkout names the Triton-XPU release it was tested with.
    pin_file = os.path.join(os.path.dirname(os.path.dirname(torch.__file__)), ".ci", "docker", "triton_xpu_version.txt")
    if os.path.isfile(pin_file):
        with open(pin_file) as f:
            info["source_pin"] = "pytorch-triton-xpu==" + f.read().strip()
    info["xpu_compiled"] = bool(torch.xpu._is_compiled())
    info["static_launcher"] = hasattr(torch._C, "_StaticXpuLauncher")
    import torch._inductor.utils as u
    info["kernel_format"] = u.XPU_KERNEL_FORMAT
    info["utils_patched"] = hasattr(u, "_xpu_kernel_format")
    try:
        import triton
        info["triton"] = getattr(triton, "__version__", "?")
        info["triton_file"] = triton.__file__
    except Exception as err:
        info["triton_import_error"] = f"{type(err).__name__}: {err}"
    if "triton" in info:
        try:
            import torch._inductor.runtime.triton_heuristics  # noqa: F401
        except Exception as err:
            info["inductor_import_error"] = f"{type(err).__name__}: {err}"
except Exception as err:
    info["torch_import_error"] = f"{type(err).__name__}: {err}"
print("XSL-DOCTOR " + json.dumps(info))
"""


def probe_torch(probes: Probes) -> dict[str, Any]:
    code = TORCH_PROBE % {"dists": TRITON_DISTRIBUTIONS}
    rc, out, err = probes.run([probes.python, "-c", code], timeout=300)
    for line in out.splitlines():
        if line.startswith("XSL-DOCTOR "):
            return json.loads(line[len("XSL-DOCTOR ") :])
    return {"torch_import_error": f"the probe failed (exit {rc}): {err.strip()[-400:]}"}


# --------------------------------------------------------------------------
# Checks


def check_ocloc(probes: Probes) -> list[Finding]:
    report = probes.find_ocloc()
    if report.path:
        version = f", version {report.version}" if report.version else ""
        if (report.source or "").lower() == "path":
            return [Finding("ocloc", OK, f"ocloc found: {report.path} (from {report.source}{version})", data=dataclasses.asdict(report))]
        folder = report.path.rsplit("\\" if probes.windows else "/", 1)[0]
        fix = f"set PATH={folder};%PATH%" if probes.windows else f'export PATH="{folder}:$PATH"'
        return [
            Finding(
                "ocloc",
                WARNING,
                f"ocloc found at {report.path} (from {report.source}{version}) but not on PATH",
                "Triton-XPU runs `ocloc` by its bare name and Inductor (patch 0003) asks shutil.which(\"ocloc\"): "
                "both only look on PATH, so kernels stay SPIR-V.",
                fix + " (or run the oneAPI ocloc env\\vars.bat) before starting Python.",
                data=dataclasses.asdict(report),
            )
        ]
    where = "\n".join(f"  - {t}" for t in report.tried) or "  (nothing searched)"
    if probes.windows:
        fix = (
            "Install the oneAPI ocloc component (Intel oneAPI Base Toolkit, or the standalone "
            "'Intel Graphics Offline Compiler'), then in the same shell run "
            '"%ONEAPI_ROOT%\\ocloc\\latest\\env\\vars.bat"; or pip install an ocloc wheel built with '
            "scripts\\ocloc_wheel.py into this environment (its `ocloc` console script lands on PATH). "
            "Triton-XPU runs it by the bare name `ocloc`, so it must be on PATH."
        )
    else:
        fix = "Install it: `sudo apt-get install intel-opencl-icd` (Debian/Ubuntu) or intel-ocloc, or pip install an ocloc wheel built with scripts/ocloc_wheel.py."
    return [
        Finding(
            "ocloc",
            ERROR,
            "ocloc not found: Triton-XPU cannot make zebins, kernels stay SPIR-V",
            f"Looked in:\n{where}",
            fix,
            data=dataclasses.asdict(report),
        )
    ]


def check_kernel_format(probes: Probes, info: Mapping[str, Any]) -> list[Finding]:
    fmt = info.get("kernel_format")
    if fmt is None:
        return []
    if fmt == "zebin":
        return [Finding("kernel-format", OK, "XPU_KERNEL_FORMAT resolves to zebin")]
    env_value = probes.env.get("TORCHINDUCTOR_XPU_KERNEL_FORMAT")
    if env_value is not None:
        why = f"TORCHINDUCTOR_XPU_KERNEL_FORMAT={env_value} is set."
        fix = "Unset TORCHINDUCTOR_XPU_KERNEL_FORMAT (or set it to zebin)."
    elif probes.windows and not info.get("utils_patched"):
        why = "This torch forces spv on Windows and ignores TORCHINDUCTOR_XPU_KERNEL_FORMAT there (torch/_inductor/utils.py)."
        fix = (
            "Rebuild torch with the patchset (python scripts/harness.py all); this torch cannot use "
            "zebin on Windows whatever the environment says."
        )
    else:
        why = "No ocloc was found on PATH when torch._inductor.utils was imported."
        fix = "Make ocloc available (see the ocloc finding), or set TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin."
    return [
        Finding(
            "kernel-format",
            ERROR,
            f"XPU_KERNEL_FORMAT resolves to {fmt}: Inductor will not launch XPU kernels statically",
            why + " triton_heuristics then raises CannotStaticallyLaunchKernel and silently uses "
            "TritonCompileResult (no recheck_autotune_cache on warm starts).",
            fix,
        )
    ]


def check_static_launcher(info: Mapping[str, Any]) -> list[Finding]:
    if "torch_import_error" in info:
        return [
            Finding(
                "torch",
                ERROR,
                "torch cannot be imported",
                str(info["torch_import_error"]),
                "Install torch in this Python, or pass --python to the interpreter that has it.",
            )
        ]
    version = info.get("torch", "?")
    if not info.get("xpu_compiled"):
        return [
            Finding(
                "static-launcher",
                WARNING,
                f"torch {version} is not an XPU build: no XPU kernels at all",
                "torch.xpu._is_compiled() is False.",
                f"Install an XPU wheel (pip install torch --index-url {XPU_WHEEL_INDEX}) or build one: "
                "python scripts/harness.py all.",
            )
        ]
    if info.get("static_launcher"):
        return [Finding("static-launcher", OK, f"torch._C._StaticXpuLauncher exists (torch {version})")]
    return [
        Finding(
            "static-launcher",
            ERROR,
            f"torch._C._StaticXpuLauncher is missing in torch {version}",
            "The build compiled the XPU launcher out (upstream guards it with #ifndef _WIN32), "
            "so every XPU kernel uses Triton's Python launcher.",
            "Build torch with patches 0001 and 0002: python scripts/harness.py all.",
        )
    ]


def _required_triton(requires: Sequence[str]) -> tuple[str, str] | None:
    for req in requires:
        head = req.split(";")[0].strip()
        if "==" in head:
            name, version = head.split("==", 1)
            return name.strip(), version.strip()
    return None


def check_triton(info: Mapping[str, Any]) -> list[Finding]:
    if "torch_import_error" in info:
        return []
    dists: dict[str, str] = dict(info.get("dists", {}))
    required = _required_triton(list(info.get("torch_requires", [])) + ([info["source_pin"]] if info.get("source_pin") else []))
    rows = [("torch", str(info.get("torch", "?")))]
    rows.append(("required by torch", f"{required[0]}=={required[1]}" if required else "(no pin in torch metadata)"))
    rows += [(f"installed {name}", version) for name, version in sorted(dists.items())]
    rows.append(("import triton", info.get("triton_import_error") or f"ok ({info.get('triton', '?')})" if dists else "not installed"))
    if "inductor_import_error" in info:
        rows.append(("import triton_heuristics", str(info["inductor_import_error"])))
    table = "\n".join(f"  {k:<26} {v}" for k, v in rows)
    pin = f"{required[0]}=={required[1]}" if required else "pytorch-triton-xpu==<the version in .ci/docker/triton_xpu_version.txt>"
    install = f"pip uninstall -y {' '.join(sorted(dists)) or 'triton'} && pip install {pin} --index-url {XPU_WHEEL_INDEX}"
    findings: list[Finding] = []
    if not dists:
        severity = WARNING if not info.get("xpu_compiled") else ERROR
        return [Finding("triton", severity, "Triton is not installed: torch.compile cannot make GPU kernels", table, f"pip install {pin} --index-url {XPU_WHEEL_INDEX}", {"table": rows})]
    if len(dists) > 1:
        findings.append(
            Finding("triton", ERROR, f"several Triton distributions share the `triton` package: {', '.join(sorted(dists))}", table, install, {"table": rows})
        )
    if required and dists.get(required[0]) != required[1]:
        findings.append(
            Finding("triton", ERROR, f"installed Triton does not match torch {info.get('torch')} (needs {required[0]}=={required[1]})", table, install, {"table": rows})
        )
    error = info.get("triton_import_error") or info.get("inductor_import_error")
    if error:
        hint = " (AttrsDescriptor moved between Triton releases: this is a torch/Triton version mismatch)" if "AttrsDescriptor" in error else ""
        findings.append(Finding("triton", ERROR, f"Triton import fails: {error}{hint}", table, install, {"table": rows}))
    if not findings:
        findings.append(Finding("triton", OK, f"Triton {info.get('triton')} matches torch {info.get('torch')}", table, data={"table": rows}))
    return findings


def cache_dirs(probes: Probes) -> tuple[str, str]:
    """(Inductor cache dir, Triton cache dir) as torch would pick them."""
    inductor = probes.env.get("TORCHINDUCTOR_CACHE_DIR")
    if not inductor:
        user = "".join("_" if c in '\\/:*?"<>|' else c for c in probes.user_name())
        sep = "\\" if probes.windows else "/"
        inductor = probes.temp_dir().rstrip("\\/") + sep + "torchinductor_" + user
    triton = probes.env.get("TRITON_CACHE_DIR")
    if not triton:
        sep = "\\" if probes.windows else "/"
        triton = inductor.rstrip("\\/") + sep + "triton" + sep + "0"
    return inductor, triton


def deepest_cache_path(triton_dir: str, kernel_name: str = REALISTIC_KERNEL_NAME, windows: bool = True) -> str:
    """The longest path Triton writes for a kernel (its temp file in put())."""
    sep = "\\" if windows else "/"
    key = "K" * TRITON_KEY_CHARS
    temp = f"tmp.pid_{'9' * PID_DIGITS}_{'u' * UUID_CHARS}"
    return sep.join([triton_dir.rstrip("\\/"), key, temp, TRITON_LONGEST_FILE.format(name=kernel_name)])


def check_long_paths(probes: Probes) -> list[Finding]:
    inductor, triton = cache_dirs(probes)
    deepest = deepest_cache_path(triton, windows=probes.windows)
    length = len(deepest)
    data = {"inductor_cache_dir": inductor, "triton_cache_dir": triton, "deepest_path_chars": length, "limit": MAX_PATH - 1}
    detail = (
        f"Triton cache: {triton}\nDeepest path Triton writes for a {len(REALISTIC_KERNEL_NAME)}-character kernel name: "
        f"{length} characters (<dir>\\<52-char key>\\tmp.pid_<pid>_<uuid>\\__grp__<name>.json); Windows allows {MAX_PATH - 1} "
        "without long paths."
    )
    if not probes.windows:
        return [Finding("long-paths", INFO, f"long paths: not limited on {probes.platform} (deepest cache path {length} chars)", detail, data=data)]
    enabled = probes.registry_dword(LONG_PATHS_KEY, LONG_PATHS_VALUE) == 1
    data["long_paths_enabled"] = enabled
    if enabled:
        return [Finding("long-paths", OK, f"LongPathsEnabled=1 (deepest cache path {length} chars)", detail, data=data)]
    if length < MAX_PATH:
        return [Finding("long-paths", OK, f"cache paths fit in MAX_PATH ({length} of {MAX_PATH - 1} chars), long paths are off", detail, data=data)]
    return [
        Finding(
            "long-paths",
            ERROR,
            f"cache paths reach {length} characters but Windows long paths are disabled",
            detail + "\nSymptom: Triton or Inductor fails with 'cannot find the file' for a temp file.",
            "Either enable long paths (admin PowerShell: New-ItemProperty -Path "
            "'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem' -Name LongPathsEnabled -Value 1 "
            "-PropertyType DWORD -Force, then open a new shell), or use short caches: "
            "set TORCHINDUCTOR_CACHE_DIR=C:\\tic and TRITON_CACHE_DIR=C:\\tic\\tr.",
            data,
        )
    ]


def check_level_zero(probes: Probes) -> list[Finding]:
    loader_names = ["ze_loader.dll"] if probes.windows else ["libze_loader.so.1", "libze_loader.so"]
    driver_names = ["ze_intel_gpu64.dll"] if probes.windows else ["libze_intel_gpu.so.1", "libze_intel_gpu.so"]
    loader = probes.find_library(loader_names)
    if loader is None:
        fix = (
            "Install the Intel graphics driver (it installs ze_loader.dll into System32)."
            if probes.windows
            else "sudo apt-get install libze1 (the Level Zero loader)."
        )
        return [Finding("level-zero", ERROR, f"Level Zero loader ({loader_names[0]}) not found", "Searched: " + ", ".join(probes.library_dirs()), fix)]
    findings: list[Finding] = []
    version = probes.library_version(loader) or "unknown version"
    symbols = probes.library_symbols(loader, REQUIRED_ZE_SYMBOLS)
    if symbols is None:
        findings.append(Finding("level-zero", ERROR, f"Level Zero loader {loader} cannot be loaded", f"version {version}", "Reinstall the Intel graphics driver / libze1 for this architecture."))
    else:
        missing = [s for s in REQUIRED_ZE_SYMBOLS if s not in symbols]
        if missing:
            findings.append(
                Finding(
                    "level-zero",
                    ERROR,
                    f"Level Zero loader {loader} ({version}) is too old: it lacks {', '.join(missing)}",
                    "",
                    "Update the Intel graphics driver (Windows) or libze1 (Linux).",
                )
            )
        else:
            findings.append(Finding("level-zero", OK, f"Level Zero loader {loader} ({version})"))
    driver = probes.find_library(driver_names)
    override = probes.env.get("ZE_ENABLE_ALT_DRIVERS")
    if driver is None and not override:
        fix = (
            "Install or update the Intel Arc/Iris Xe graphics driver."
            if probes.windows
            else "Install the GPU driver: sudo apt-get install intel-level-zero-gpu (or libze-intel-gpu1)."
        )
        findings.append(Finding("level-zero", ERROR, f"no Level Zero GPU driver ({driver_names[0]}): kernels cannot run on this machine", "", fix))
    else:
        findings.append(Finding("level-zero", OK, f"Level Zero driver: {driver or override}"))
    return findings


def run_checks(probes: Probes, with_torch: bool = True) -> list[Finding]:
    findings: list[Finding] = []
    findings += check_ocloc(probes)
    if with_torch:
        info = probe_torch(probes)
        findings += check_static_launcher(info)
        findings += check_kernel_format(probes, info)
        findings += check_triton(info)
    findings += check_long_paths(probes)
    findings += check_level_zero(probes)
    return findings


def render_text(findings: Sequence[Finding], probes: Probes) -> str:
    out = [f"xpu-static-launcher doctor ({probes.platform}, Python {probes.python})"]
    for f in findings:
        out.append(f"  [{f.severity:<7}] {f.title}")
        for label, text in (("why", f.detail), ("fix", f.fix)):
            if text:
                lines = text.split("\n")
                out.append(f"            {label}: {lines[0]}")
                out.extend(f"                 {line}" for line in lines[1:])
    errors = sum(f.severity == ERROR for f in findings)
    warnings = sum(f.severity == WARNING for f in findings)
    out.append(f"  {errors} error(s), {warnings} warning(s)")
    return "\n".join(out)


def render_json(findings: Sequence[Finding], probes: Probes) -> str:
    return json.dumps(
        {
            "platform": probes.platform,
            "python": probes.python,
            "findings": [dataclasses.asdict(f) for f in findings],
            "errors": sum(f.severity == ERROR for f in findings),
            "warnings": sum(f.severity == WARNING for f in findings),
        },
        indent=2,
    )


def main(argv: Sequence[str] | None = None, probes: Probes | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--python", help="interpreter whose torch/Triton to inspect (default: this one)")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch/Triton checks (no torch import)")
    args = parser.parse_args(argv)
    probes = probes or Probes(python=args.python)
    findings = run_checks(probes, with_torch=not args.no_torch)
    print(render_json(findings, probes) if args.json else render_text(findings, probes))
    return 1 if any(f.severity == ERROR for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
