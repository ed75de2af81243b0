#!/usr/bin/env python3
"""Explains why XPU Triton kernels are (not) launched statically.

It knows both routes to a static launcher on Windows: (a) a published torch
XPU wheel plus the xpu_static_launcher package (its install() is run in the
probed Python, after torch's Inductor is imported, as enable-at-startup does),
and (b) a torch built with the PR stack. A torch from a published wheel is
never offered a rebuild: route (b) is named only for a torch built from
source. Each check returns findings with a concrete fix; the most likely
cause comes first, as an error, and findings that merely follow from it are
shown as information without a fix of their own (order_by_cause). Every
platform access goes through a `Probes` object (environment, files, registry,
subprocesses, libraries), so tests run the Windows checks on Linux with fakes.

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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import winenv  # a sibling: scripts/ is on sys.path when a script runs

SCRIPTS = Path(__file__).resolve().parent
# The package's ocloc discovery, loaded by its path (stdlib only).
OCLOC_DISCOVERY = SCRIPTS.parent / "python" / "xpu_static_launcher" / "ocloc_discovery.py"

ERROR, WARNING, OK, INFO = "error", "warning", "ok", "info"

# Windows MAX_PATH counts the terminating NUL: a path may have 259 characters.
MAX_PATH = 260
# A real fused-kernel name from a field report was 110 characters long.
REALISTIC_KERNEL_NAME = (
    "triton_per_fused__native_batch_norm_legit_functional_add_convolution_backward_native_batch_norm_backward_sum_0"
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
# What the doctor's Level Zero probe needs from the loader.
ZE_ENUMERATION_SYMBOLS = ("zeInit", "zeDriverGet", "zeDeviceGet", "zeDeviceGetProperties")
ZE_DEVICE_TYPES = {1: "GPU", 2: "CPU", 3: "FPGA", 4: "memory copy accelerator", 5: "NPU/VPU"}
INTEL_VENDOR_ID = 0x8086
LOADER_OVERRIDE_ENV = "XSL_LEVEL_ZERO_LOADER"  # as in csrc/level_zero/loader.h
ZE_PROBE_MARKER = "XSL-ZE "
TRITON_DISTRIBUTIONS = ("pytorch-triton-xpu", "triton-xpu", "triton", "pytorch-triton")
XPU_WHEEL_INDEX = "https://download.pytorch.org/whl/xpu"
# In a PyTorch checkout: the pytorch-triton-xpu release it was tested with.
TRITON_XPU_VERSION_FILE = ".ci/docker/triton_xpu_version.txt"
PYTORCH_BLOB_URL = "https://github.com/pytorch/pytorch/blob"
# PRs of the stack in patches/pytorch, by subject (their order may change).
LAUNCHER_PR = "Enable the XPU static Triton launcher on Windows"
SPIRV_PR = "XPU static launcher: load SPIR-V kernels"
# What Inductor raised for SPIR-V kernels before that PR.
SPIRV_REFUSAL = "Static XPU Triton kernel launch does not support SPIR-V kernel."


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
    """PATH and oneAPI only; used when the package's ocloc_discovery.py is absent."""
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
            proc = subprocess.run(
                command, capture_output=True, text=True, errors="replace", timeout=timeout, env=self.env
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return (127, "", str(err))
        return (proc.returncode, proc.stdout, proc.stderr)

    def run_bytes(self, command: str, timeout: float = 120) -> tuple[int, bytes, bytes]:
        """A verbatim command line, output undecoded (cmd /u writes UTF-16)."""
        return winenv.run_cmd(command, timeout, self.env)

    def registry_dword(self, key: str, value: str) -> int | None:
        """HKLM DWORD value, or None when absent or not on Windows."""
        if sys.platform != "win32":
            return None
        try:
            import winreg
        except ImportError:
            return None
        try:
            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, key) as handle:
                data, _ = winreg.QueryValueEx(handle, value)
                return int(data)
        except OSError:
            return None

    def find_ocloc(self) -> OclocReport:
        module_path = OCLOC_DISCOVERY
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
                    report.tried.insert(0, f"(ocloc_discovery.py failed: {err})")
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

    def level_zero_devices(self, loader: str) -> dict[str, Any]:
        """enumerate_level_zero(loader) in a child process (a broken driver
        may crash it, and the loader reads the environment once per process)."""
        rc, out, err = self.run(
            [sys.executable, str(Path(__file__).resolve()), "--level-zero-probe", loader], timeout=120
        )
        for line in out.splitlines():
            if line.startswith(ZE_PROBE_MARKER):
                return dict(json.loads(line[len(ZE_PROBE_MARKER) :]))
        return {"probe_error": f"the Level Zero probe failed (exit {rc}): {err.strip()[-300:] or 'no output'}"}

    def temp_dir(self) -> str:
        return tempfile.gettempdir()

    def user_name(self) -> str:
        try:
            return getpass.getuser()
        except Exception:
            return "unknown_user"


class _ZeDeviceProperties(ctypes.Structure):
    """ze_device_properties_t of Level Zero 1.x, with room to spare."""

    _fields_ = [
        ("stype", ctypes.c_uint32),
        ("pNext", ctypes.c_void_p),
        ("type", ctypes.c_uint32),
        ("vendorId", ctypes.c_uint32),
        ("deviceId", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("subdeviceId", ctypes.c_uint32),
        ("coreClockRate", ctypes.c_uint32),
        ("maxMemAllocSize", ctypes.c_uint64),
        ("maxHardwareContexts", ctypes.c_uint32),
        ("maxCommandQueuePriority", ctypes.c_uint32),
        ("numThreadsPerEU", ctypes.c_uint32),
        ("physicalEUSimdWidth", ctypes.c_uint32),
        ("numEUsPerSubslice", ctypes.c_uint32),
        ("numSubslicesPerSlice", ctypes.c_uint32),
        ("numSlices", ctypes.c_uint32),
        ("timerResolution", ctypes.c_uint64),
        ("timestampValidBits", ctypes.c_uint32),
        ("kernelTimestampValidBits", ctypes.c_uint32),
        ("uuid", ctypes.c_uint8 * 16),
        ("name", ctypes.c_char * 256),
        ("spare", ctypes.c_uint8 * 256),
    ]


ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3
ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT = 0x1000F


class _ZeDeviceIpVersion(ctypes.Structure):
    """ze_device_ip_version_ext_t (Level Zero 1.6), chained to the properties."""

    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("ipVersion", ctypes.c_uint32)]


def ip_version_text(value: int) -> str:
    """'12.60.7' from architecture << 22 | release << 14 | revision."""
    return f"{value >> 22}.{(value >> 14) & 0xFF}.{value & 0x3FFF}"


def enumerate_level_zero(loader: str) -> dict[str, Any]:
    """zeInit(0), then every device of every driver: {"init_error"} when
    zeInit fails (nothing else may be called then), else {"drivers",
    "devices": [{"driver", "index", "name", "type", "vendor", "device_id"}]}."""
    lib = ctypes.CDLL(loader)
    handle_array = ctypes.c_void_p
    result = lib.zeInit(ctypes.c_uint32(0)) & 0xFFFFFFFF
    if result != 0:
        return {"init_error": f"0x{result:08x}"}

    def listed(call: Callable[..., int], *head: Any) -> list[Any]:
        count = ctypes.c_uint32(0)
        if call(*head, ctypes.byref(count), None) & 0xFFFFFFFF or count.value == 0:
            return []
        handles = (handle_array * count.value)()
        if call(*head, ctypes.byref(count), handles) & 0xFFFFFFFF:
            return []
        return list(handles[: count.value])

    drivers = listed(lib.zeDriverGet)
    devices = []
    for driver_index, driver in enumerate(drivers):
        for index, device in enumerate(listed(lib.zeDeviceGet, handle_array(driver))):
            props = _ZeDeviceProperties()
            props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES
            ip = _ZeDeviceIpVersion(ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT, None, 0)
            props.pNext = ctypes.cast(ctypes.pointer(ip), ctypes.c_void_p)
            if lib.zeDeviceGetProperties(handle_array(device), ctypes.byref(props)) & 0xFFFFFFFF:
                continue
            devices.append(
                {
                    "driver": driver_index,
                    "index": index,
                    "name": props.name.decode("utf-8", errors="replace"),
                    "type": props.type,
                    "vendor": props.vendorId,
                    "device_id": props.deviceId,
                    "ip_version": ip.ipVersion,
                }
            )
    return {"drivers": len(drivers), "devices": devices}


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
        version = ctypes.WinDLL("version.dll")  # type: ignore[attr-defined,unused-ignore]  # Windows only
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
    info["git_version"] = getattr(torch.version, "git_version", None)
    # A source build (pip install -e .) has no Triton pin in its metadata;
    # its checkout names the Triton-XPU release it was tested with.
    info["source_root"] = os.path.dirname(os.path.dirname(torch.__file__))
    # An editable build runs from its checkout (setup.py, version.txt);
    # a published wheel from site-packages.
    info["source_build"] = all(os.path.isfile(os.path.join(info["source_root"], name))
                               for name in ("setup.py", "version.txt"))
    info["xpu_compiled"] = bool(torch.xpu._is_compiled())
    if info["xpu_compiled"]:
        try:
            info["xpu_available"] = bool(torch.xpu.is_available())
            info["xpu_devices"] = int(torch.xpu.device_count()) if info["xpu_available"] else 0
        except Exception as err:
            info["xpu_available"] = False
            info["xpu_error"] = f"{type(err).__name__}: {err}"
    # Inductor first: importing it runs enable-at-startup's install(), as in
    # the user's own programs.
    import torch._inductor.utils as u
    info["startup_hook"] = "xpu_static_launcher._startup" in sys.modules
    info["static_launcher"] = hasattr(torch._C, "_StaticXpuLauncher")
    info["kernel_format"] = u.XPU_KERNEL_FORMAT
    info["utils_patched"] = hasattr(u, "get_xpu_kernel_format")
    # Whether this torch's own Inductor launches SPIR-V statically (the PR
    # stack's SPIR-V PR), read from its files: install() may have changed
    # the loaded code already.
    try:
        import importlib.util
        def source(name):
            with open(importlib.util.find_spec(name).origin, encoding="utf-8") as f:
                return f.read()
        heuristics = source("torch._inductor.runtime.triton_heuristics")
        launcher = source("torch._inductor.runtime.static_triton_launcher")
        info["torch_launches_spirv"] = %(refusal)r not in heuristics and 'asm.get("spv")' in launcher
    except Exception:
        info["torch_launches_spirv"] = None
    try:
        rt = md.version("intel-sycl-rt")
        headers = [str(f.locate()) for f in (md.files("intel-sycl-rt") or []) if f.name == "sycl.hpp"]
        info["sycl_rt"] = {"version": rt, "header": headers[0] if headers else None}
    except md.PackageNotFoundError:
        info["sycl_rt"] = None
    import importlib.util
    if importlib.util.find_spec("xpu_static_launcher") is not None:
        try:
            import xpu_static_launcher as xsl
            result = xsl.install(verbose=False)
            info["package"] = {"version": getattr(xsl, "__version__", "?"), "file": xsl.__file__,
                               "status": result.status, "message": result.message,
                               "kernel_format": u.XPU_KERNEL_FORMAT}
        except Exception as err:
            info["package"] = {"error": f"{type(err).__name__}: {err}"}
        # Whether its SYCL backend loads SPIR-V, and whether Inductor launches
        # SPIR-V kernels statically (an older package has neither).
        if "error" not in info["package"]:
            try:
                import xpu_static_launcher._sycl_launcher as backend
                info["package"]["loads_spirv"] = bool(getattr(backend, "LOADS_SPIRV", False))
            except Exception:
                info["package"]["loads_spirv"] = None
            try:
                from xpu_static_launcher import inductor_spirv
                supported, why = inductor_spirv.spirv_launch_support()
                info["package"].update(spirv_launch=inductor_spirv.is_enabled(), spirv_support=supported,
                                       spirv_support_reason=why)
            except Exception:
                pass
    try:
        import triton
        info["triton"] = getattr(triton, "__version__", "?")
        info["triton_file"] = triton.__file__
    except Exception as err:
        info["triton_import_error"] = f"{type(err).__name__}: {err}"
    # Whether Triton-XPU falls back to the GPU driver without ocloc: only with
    # patches/triton-xpu (0001 adds its ocloc module, 0002 the driver path).
    try:
        import triton.backends.intel
        try:
            import triton.backends.intel.ocloc as triton_ocloc
            info["triton_driver_compiler"] = hasattr(triton_ocloc, "zebin_compile_command")
        except ImportError:
            info["triton_driver_compiler"] = False
    except Exception:
        pass
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
    code = TORCH_PROBE % {"dists": TRITON_DISTRIBUTIONS, "refusal": SPIRV_REFUSAL}
    rc, out, err = probes.run([probes.python, "-c", code], timeout=300)
    for line in out.splitlines():
        if line.startswith("XSL-DOCTOR "):
            probed: dict[str, Any] = json.loads(line[len("XSL-DOCTOR ") :])
            return probed
    return {"torch_import_error": f"the probe failed (exit {rc}): {err.strip()[-400:]}"}


def read_source_pin(checkout: str | os.PathLike[str]) -> str | None:
    """The "pytorch-triton-xpu==<v>" pin of a PyTorch checkout, or None."""
    path = Path(checkout) / TRITON_XPU_VERSION_FILE
    try:
        version = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return f"pytorch-triton-xpu=={version}" if version else None


def add_source_pin(info: dict[str, Any], checkouts: Sequence[str | os.PathLike[str] | None]) -> None:
    """Sets info["source_pin"] from the first checkout that has the pin file."""
    for checkout in checkouts:
        pin = read_source_pin(checkout) if checkout else None
        if pin:
            info["source_pin"] = pin
            info["source_pin_file"] = str(Path(checkout) / TRITON_XPU_VERSION_FILE)  # type: ignore[arg-type]
            return


def triton_pin_location(info: Mapping[str, Any]) -> str:
    """Where to read the Triton-XPU version when neither metadata nor a checkout names it."""
    commit = str(info.get("git_version") or "")
    if len(commit) == 40 and all(c in "0123456789abcdef" for c in commit):
        ref = commit
    else:
        release = str(info.get("torch", "")).split("+")[0]
        ref = (
            "v" + release
            if release and all(part.isdigit() for part in release.split("."))
            else "<the torch tag or commit>"
        )
    return f"{PYTORCH_BLOB_URL}/{ref}/{TRITON_XPU_VERSION_FILE}"


# --------------------------------------------------------------------------
# Checks


def driver_gpus(level_zero: Sequence[Finding]) -> list[dict[str, Any]]:
    """The Intel GPUs the Level Zero check found (the driver can compile for these)."""
    for finding in level_zero:
        if finding.severity == OK and "devices" in finding.data:
            return [d for d in finding.data["devices"] if is_intel_gpu(d)]
    return []


def spirv_launch(info: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether this environment's kernels are launched statically as SPIR-V,
    so that nothing needs ocloc: by this torch itself (built with the PR
    stack) or by the xpu_static_launcher package (route a), unless the user
    opted into zebin."""
    if env.get("TORCHINDUCTOR_XPU_KERNEL_FORMAT") == "zebin":
        return False
    torch_itself = info.get("torch_launches_spirv") is True and info.get("kernel_format") == "spv"
    return torch_itself or spirv_launch_route_a(info, env)


def spirv_launch_route_a(info: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether route (a) launches this environment's kernels statically as
    SPIR-V, so that nothing needs ocloc: the xpu_static_launcher package's
    backend loads SPIR-V and its change to this torch's Inductor applies (or is
    in place), Inductor keeps SPIR-V, and the user did not opt into zebin
    (TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin, which needs a zebin compiler)."""
    package = _package(info)
    if env.get("TORCHINDUCTOR_XPU_KERNEL_FORMAT") == "zebin":
        return False
    if package.get("kernel_format", info.get("kernel_format")) != "spv":
        return False
    return package.get("spirv_launch") is True or (
        package.get("loads_spirv") is True and package.get("spirv_support") is True
    )


SPIRV_LAUNCH_DETAIL = (
    "Kernels are launched statically as SPIR-V (by this torch, built with the PR stack, or by the "
    "xpu_static_launcher package): the GPU driver compiles each one at its first load. ocloc only matters to "
    "opt into zebin (TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin)."
)


def check_ocloc(
    probes: Probes,
    gpus: Sequence[Mapping[str, Any]] = (),
    triton_driver: bool | None = None,
    spirv_launch: bool = False,
) -> list[Finding]:
    """ocloc, and without it the driver backend: the Intel GPU driver
    compiles SPIR-V for `gpus` (from the Level Zero check) itself.
    `triton_driver`: whether the installed Triton-XPU can use it (patch
    0002); False turns "the driver instead" into an error, None is unknown.
    `spirv_launch` (spirv_launch()): kernels are launched statically as
    SPIR-V, so a missing or misplaced ocloc is no problem."""
    report = probes.find_ocloc()

    def finding(severity: str, title: str, detail: str = "", fix: str = "", **data: Any) -> list[Finding]:
        return [Finding("ocloc", severity, title, detail, fix, data=dict(dataclasses.asdict(report), **data))]

    if report.path:
        version = f", version {report.version}" if report.version else ""
        if (report.source or "").lower() == "path":
            return finding(OK, f"ocloc found: {report.path} (from {report.source}{version})")
        if spirv_launch:
            return finding(
                INFO,
                f"ocloc found at {report.path} (from {report.source}{version}), not on "
                "PATH; not needed: kernels are launched statically as SPIR-V",
                SPIRV_LAUNCH_DETAIL,
            )
        folder = report.path.rsplit("\\" if probes.windows else "/", 1)[0]
        fix = (
            f"cmd: set PATH={folder};%PATH%   PowerShell: $env:PATH = '{folder};' + $env:PATH"
            if probes.windows
            else f'export PATH="{folder}:$PATH"'
        )
        return finding(
            WARNING,
            f"ocloc found at {report.path} (from {report.source}{version}) but not on PATH",
            "Triton-XPU runs `ocloc` by its bare name, so only PATH counts when zebin is asked for "
            "(TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin, or xpu_static_launcher.install() switching to zebin). "
            "install() puts this folder first on PATH in its own process.",
            fix + " (or run the oneAPI ocloc env\\vars.bat) before starting Python.",
        )
    where = "\n".join(f"  - {t}" for t in report.tried) or "  (nothing searched)"
    if spirv_launch:
        return finding(
            OK,
            "ocloc not needed: xpu_static_launcher launches the SPIR-V kernels statically",
            SPIRV_LAUNCH_DETAIL + "\nLooked for ocloc in:\n" + where,
        )
    forced = probes.env.get("XSL_ZEBIN_COMPILER", "")
    if gpus and forced != "ocloc" and triton_driver is False:
        return finding(
            ERROR,
            "ocloc not found, and the installed Triton-XPU cannot compile with the GPU driver: kernels stay SPIR-V",
            "The Intel GPU driver could make zebins for this machine's GPU, but only a Triton-XPU with "
            "patches/triton-xpu 0002 falls back to it; this one runs `ocloc` from PATH only.\n"
            "Looked for ocloc in:\n" + where,
            _install_ocloc_fix(probes.windows),
        )
    if gpus and forced != "ocloc":
        names = ", ".join(
            f"'{d.get('name')}'" + (f" (IP {ip_version_text(int(d['ip_version']))})" if d.get("ip_version") else "")
            for d in gpus
        )
        return finding(
            WARNING,
            f"ocloc not found: zebins come from the Intel GPU driver instead, for {names}",
            "The GPU driver compiles SPIR-V itself (Level Zero zeModuleCreate, then zeModuleGetNativeBinary): "
            "nothing beyond the driver is needed, and the zebin comes from the compiler that will load it. "
            "It compiles only for the GPUs of this machine. Triton-XPU uses it through patches/triton-xpu "
            "0002 and the xpu_static_launcher package (python -m xpu_static_launcher.compile); "
            "XSL_ZEBIN_COMPILER=driver forces it.\nLooked for ocloc in:\n" + where,
            "Nothing to install for this machine's GPU. To compile for other GPUs too, install ocloc "
            "(oneAPI ocloc component, or an ocloc wheel built with scripts/ocloc_wheel.py).",
            compiler="driver",
            gpus=list(gpus),
        )
    return finding(
        ERROR,
        "ocloc not found: Triton-XPU cannot make zebins, kernels stay SPIR-V",
        f"Looked in:\n{where}",
        _install_ocloc_fix(probes.windows),
    )


def _install_ocloc_fix(windows: bool) -> str:
    if windows:
        return (
            "Install the oneAPI ocloc component (Intel oneAPI Base Toolkit, or the standalone "
            "'Intel Graphics Offline Compiler'), then in the same shell run "
            '"%ONEAPI_ROOT%\\ocloc\\latest\\env\\vars.bat"; or pip install an ocloc wheel built with '
            "scripts\\ocloc_wheel.py into this environment (its `ocloc` console script lands on PATH). "
            "Triton-XPU runs it by the bare name `ocloc`, so it must be on PATH."
        )
    return (
        "Install it: `sudo apt-get install intel-opencl-icd` (Debian/Ubuntu) or intel-ocloc, or pip install an "
        "ocloc wheel built with scripts/ocloc_wheel.py."
    )


PACKAGE_INSTALLED = ("installed", "installed-spirv")
ROUTE_A = (
    "Route (a), no torch rebuild: install the xpu_static_launcher package into this environment (README, "
    '"Route (a)": its prebuilt wheel with pip install --no-index --find-links <folder of the wheel> '
    "xpu_static_launcher, or from a clone of its repository with pip install --no-build-isolation .), then run: "
    "python -m xpu_static_launcher check"
)
# The Windows driver that brings Level Zero (ze_loader.dll) and the GPU's compiler.
WINDOWS_DRIVER_FIX = (
    "Install the current Intel Arc & Iris Xe graphics driver from intel.com (it installs ze_loader.dll), "
    "restart Windows, and check that Device Manager lists the Intel GPU under Display adapters."
)
LINUX_DRIVER_FIX = (
    "Install the Intel GPU driver with its Level Zero part (Debian/Ubuntu: sudo apt-get install "
    "intel-level-zero-gpu libze1) and check that this user may open /dev/dri/renderD* "
    "(sudo usermod -aG render $USER, then log in again)."
)
ZEBIN_COMPILER_FIX = (
    "Give Triton-XPU a zebin compiler: pip install an ocloc wheel built with scripts\\ocloc_wheel.py, or "
    "oneAPI's ocloc (its ocloc\\latest\\env\\vars.bat puts it on PATH); xpu_static_launcher.install() then "
    "switches Inductor to zebin."
)


def _package(info: Mapping[str, Any]) -> dict[str, Any]:
    """What the probe learned about the xpu_static_launcher package ({} when not installed)."""
    return dict(info.get("package") or {})


def check_kernel_format(probes: Probes, info: Mapping[str, Any]) -> list[Finding]:
    fmt = info.get("kernel_format")
    if fmt is None:
        return []
    if fmt == "zebin":
        return [Finding("kernel-format", OK, "XPU_KERNEL_FORMAT resolves to zebin")]
    package = _package(info)
    if info.get("torch_launches_spirv") is True:
        return [
            Finding(
                "kernel-format",
                OK,
                "XPU_KERNEL_FORMAT resolves to spv, and this torch launches SPIR-V kernels statically",
                f'Its PR "{SPIRV_PR}" (the PR stack) loads SPIR-V in torch._C._StaticXpuLauncher: the GPU driver '
                "compiles each kernel at its first load, with Triton's build flags.",
            )
        ]
    if package.get("kernel_format", fmt) == "spv" and package.get("spirv_launch") is True:
        return [
            Finding(
                "kernel-format",
                OK,
                "XPU_KERNEL_FORMAT resolves to spv, and xpu_static_launcher launches SPIR-V kernels statically",
                "Inductor keeps SPIR-V; the GPU driver compiles each kernel at its first load and the loaded kernel "
                "is kept. " + str(package.get("message", "")),
            )
        ]
    if package.get("kernel_format") == "zebin":
        return [
            Finding(
                "kernel-format",
                OK,
                "XPU_KERNEL_FORMAT: this torch picks spv, xpu_static_launcher.install() switches it to zebin",
                str(package.get("message", "")),
            )
        ]
    env_value = probes.env.get("TORCHINDUCTOR_XPU_KERNEL_FORMAT")
    if env_value is not None:
        why = f"TORCHINDUCTOR_XPU_KERNEL_FORMAT={env_value} is set."
        fix = "Unset TORCHINDUCTOR_XPU_KERNEL_FORMAT (or set it to zebin)."
    elif probes.windows and not info.get("utils_patched"):
        why = (
            "This torch picks spv on Windows in torch/_inductor/utils.py, "
            "whatever TORCHINDUCTOR_XPU_KERNEL_FORMAT says."
        )
        if package.get("status") in PACKAGE_INSTALLED:
            reason = str(package.get("message", "")).split("statically: ", 1)[-1].rstrip(".")
            why += f" xpu_static_launcher.install() kept it: {reason}."
            fix = ZEBIN_COMPILER_FIX
            if package.get("loads_spirv") is False:
                fix += (
                    " Or install an xpu_static_launcher whose SYCL backend loads SPIR-V (LOADS_SPIRV): its "
                    "install() makes Inductor launch SPIR-V kernels statically, with no ocloc."
                )
        else:
            fix = (
                f"{ROUTE_A}; its install() makes Inductor launch SPIR-V kernels statically when its SYCL backend "
                "loads SPIR-V (no ocloc needed), else switches Inductor to zebin at run time when Triton-XPU has a "
                "zebin compiler (ocloc)."
            )
            if info.get("source_build"):
                fix += (
                    f" Or, as this torch is built from source: rebuild it with the PR stack (its PR "
                    f'"{SPIRV_PR}"): {build_with_patches_fix(windows=True)}.'
                )
    else:
        why = "This torch keeps SPIR-V and its Inductor refuses to launch SPIR-V kernels statically."
        fix = f"{ROUTE_A}; or set TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin with ocloc on PATH (see the ocloc finding)."
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


def build_with_patches_fix(windows: bool) -> str:
    """How to get a torch with the patchset: the harness builds it on Windows
    only; elsewhere the patches are applied to a checkout by hand."""
    if windows:
        return "python scripts/harness.py all"
    return (
        "apply patches/pytorch to a PyTorch checkout (python3 scripts/patchset.py apply <checkout>) "
        "and build it with USE_XPU=1 (docs/harness.md)"
    )


def fresh_venv_fix(windows: bool) -> str:
    """The torch XPU wheel, installed into a new venv (pip keeps a CPU torch of
    the same version in place: "Requirement already satisfied")."""
    if windows:
        return (
            "Install the torch XPU wheel in a fresh venv: py -3 -m venv C:\\xsl\\venv, then "
            "C:\\xsl\\venv\\Scripts\\activate.bat (PowerShell: C:\\xsl\\venv\\Scripts\\Activate.ps1), then "
            f"pip install torch --index-url {XPU_WHEEL_INDEX}; then install xpu_static_launcher into that venv "
            '(README, "Route (a)").'
        )
    return (
        "Install the torch XPU wheel in a fresh venv: python3 -m venv ~/xpu-venv && . ~/xpu-venv/bin/activate, "
        f"then pip install torch --index-url {XPU_WHEEL_INDEX}."
    )


def sees_no_xpu_device(info: Mapping[str, Any]) -> bool:
    """An XPU torch that found no GPU: the probe's torch.xpu.is_available(),
    or install()'s refusal for that reason."""
    if not info.get("xpu_compiled"):
        return False
    if info.get("xpu_available") is False:
        return True
    package = _package(info)
    return package.get("status") == "not-xpu" and "is_available() is False" in str(package.get("message", ""))


# What a root cause explains: findings of these checks merely follow from it.
FOLLOW_CPU_TORCH = ["kernel-format", "ocloc", "triton"]
FOLLOW_NO_DEVICE = ["kernel-format", "ocloc"]
FOLLOW_NO_LAUNCHER = ["kernel-format", "ocloc"]


def check_static_launcher(info: Mapping[str, Any], windows: bool, building: bool = False) -> list[Finding]:
    """The launcher and what stands before it, the most likely cause first: no
    torch, a CPU-only torch, no GPU visible to torch, then the package.
    `building`: run by the harness before it builds torch (no torch is fine)."""
    if "torch_import_error" in info:
        error = str(info["torch_import_error"])
        if building and "No module named 'torch'" in error:
            return [
                Finding(
                    "torch",
                    INFO,
                    "no torch in this Python yet: the harness's build step installs the one it builds",
                    error,
                )
            ]
        return [
            Finding(
                "torch",
                ERROR,
                "torch cannot be imported",
                error,
                "Install torch in this Python, or pass --python to the interpreter that has it.",
                data={"explains": ["ocloc"]},
            )
        ]
    version = info.get("torch", "?")
    package = _package(info)
    status, message = package.get("status"), str(package.get("message", ""))
    if not info.get("xpu_compiled"):
        return [
            Finding(
                "torch",
                ERROR,
                f"torch {version} is a CPU-only build: nothing runs on the Intel GPU",
                "torch.xpu._is_compiled() is False. pip keeps an installed torch in place "
                '("Requirement already satisfied"), so the XPU wheel goes into a fresh venv; it brings its own '
                "Triton (pytorch-triton-xpu).",
                fresh_venv_fix(windows),
                data={"explains": FOLLOW_CPU_TORCH},
            )
        ]
    if sees_no_xpu_device(info):
        why = "torch.xpu.is_available() is False: no Intel GPU, or no driver for it, is visible to torch."
        if info.get("xpu_error"):
            why += f" ({info['xpu_error']})"
        why += " Nothing runs on XPU without it; the Level Zero finding says what is missing."
        return [
            Finding(
                "xpu-device",
                ERROR,
                f"torch {version} is an XPU build but sees no Intel GPU",
                why,
                WINDOWS_DRIVER_FIX if windows else LINUX_DRIVER_FIX,
                data={"explains": FOLLOW_NO_DEVICE},
            )
        ]
    if info.get("static_launcher"):
        if info.get("startup_hook") and "installed by xpu_static_launcher already" in message:
            return [
                Finding(
                    "static-launcher",
                    OK,
                    f"torch._C._StaticXpuLauncher is xpu_static_launcher's SYCL "
                    f"backend, set at start-up (torch {version})",
                )
            ]
        return [Finding("static-launcher", OK, f"torch._C._StaticXpuLauncher exists (torch {version})")]
    if "error" in package:
        return [
            Finding(
                "static-launcher",
                ERROR,
                f"torch {version} has no _StaticXpuLauncher, and the xpu_static_launcher package fails to import",
                str(package["error"]),
                "Reinstall the package in this environment: pip install --no-build-isolation <this repository> "
                '(README, "Route (a)").',
                data={"explains": FOLLOW_NO_LAUNCHER},
            )
        ]
    if status == "installed" and not info.get("startup_hook"):
        return [
            Finding(
                "static-launcher",
                ERROR,
                f"xpu_static_launcher {package.get('version', '?')} is installed but not enabled: torch {version} "
                "starts without _StaticXpuLauncher",
                f"install() works here ({message}), but nothing runs it when a program starts, so Inductor uses "
                "Triton's Python launcher. A program that calls xpu_static_launcher.install() itself before "
                "torch.compile is not affected.",
                "python -m xpu_static_launcher enable-at-startup, then python -m xpu_static_launcher verify",
                data={"package": package},
            )
        ]
    if status in PACKAGE_INSTALLED:
        return [
            Finding(
                "static-launcher",
                WARNING,
                f"torch {version} has no _StaticXpuLauncher of its own; xpu_static_launcher "
                f"{package.get('version', '?')} provides its SYCL backend when install() runs",
                f"install() here: {message}",
                "Make every Python start get it: python -m xpu_static_launcher enable-at-startup (or call "
                "xpu_static_launcher.install() in your program).",
                data={"package": package},
            )
        ]
    if status:
        return [
            Finding(
                "static-launcher",
                ERROR,
                f"torch {version} has no _StaticXpuLauncher, and xpu_static_launcher.install() refuses ({status})",
                message,
                "Follow the line above; for the package's own build: pip install --no-build-isolation "
                '<this repository> in the environment torch runs in (README, "Route (a)").',
                data={"package": package, "explains": FOLLOW_NO_LAUNCHER},
            )
        ]
    fix = f"{ROUTE_A}."
    if info.get("source_build"):
        # Only a torch built from source is rebuilt; a published wheel never is.
        fix += (
            f" Or, as this torch is built from source: rebuild it with the PR stack (patches/pytorch; its PR "
            f'"{LAUNCHER_PR}"): {build_with_patches_fix(windows)}.'
        )
    return [
        Finding(
            "static-launcher",
            ERROR,
            f"torch._C._StaticXpuLauncher is missing in torch {version}, and the xpu_static_launcher package is "
            "not installed",
            "The build compiled the XPU launcher out (upstream guards it with #ifndef _WIN32), "
            "so every XPU kernel uses Triton's Python launcher.",
            fix,
            data={"explains": FOLLOW_NO_LAUNCHER},
        )
    ]


def _on_path(probes: Probes, name: str) -> str | None:
    """The first `name` in the PATH of the probed environment, or None."""
    sep, slash = (";", "\\") if probes.windows else (":", "/")
    for folder in probes.env.get("PATH", "").split(sep):
        if folder and probes.is_file(folder.rstrip("\\/") + slash + name):
            return folder.rstrip("\\/") + slash + name
    return None


def check_msvc(probes: Probes, info: Mapping[str, Any]) -> list[Finding]:
    """Triton-XPU builds its driver and launcher modules with cl.exe on Windows."""
    if not probes.windows or not info.get("xpu_compiled"):
        return []
    found = _on_path(probes, "cl.exe")
    if found:
        return [Finding("msvc", OK, f"cl.exe on PATH: {found}")]
    return [
        Finding(
            "msvc",
            ERROR,
            "cl.exe is not on PATH: torch.compile on XPU fails when Triton-XPU builds its helper modules",
            "At the first torch.compile, Triton-XPU compiles its driver (driver.c) and each kernel's launcher "
            "with the C++ compiler on PATH (triton/runtime/build.py); on Windows that is MSVC's cl.exe "
            "(intel/intel-xpu-backend-for-triton#4465). It is needed even when kernels launch statically.",
            'Start Python from an "x64 Native Tools Command Prompt for VS" (VS 2022 or 2026), or run '
            "vcvars64.bat of Visual Studio (C++ tools) in that shell first"
            + (
                "; for this source-built torch, the harness's <work>\\activate.cmd does it."
                if info.get("source_build")
                else "."
            ),
        )
    ]


def check_sycl_headers(probes: Probes, info: Mapping[str, Any]) -> list[Finding]:
    """Triton-XPU's find_sycl: icpx on PATH, ONEAPI_ROOT, else intel-sycl-rt's
    headers (a 2025 or newer wheel); else an AssertionError at compile time."""
    if not info.get("xpu_compiled"):
        return []
    icpx = _on_path(probes, "icpx.exe" if probes.windows else "icpx")
    if icpx:
        return [Finding("sycl-headers", OK, f"SYCL headers for Triton-XPU: from the compiler {icpx}")]
    root = probes.env.get("ONEAPI_ROOT")
    if root:
        header = root.rstrip("\\/") + (
            "\\compiler\\latest\\include\\sycl\\sycl.hpp"
            if probes.windows
            else "/compiler/latest/include/sycl/sycl.hpp"
        )
        if probes.is_file(header):
            return [Finding("sycl-headers", OK, f"SYCL headers for Triton-XPU: {header} (ONEAPI_ROOT)")]
        return [
            Finding(
                "sycl-headers",
                ERROR,
                f"ONEAPI_ROOT={root} has no compiler\\latest\\include\\sycl\\sycl.hpp",
                "Triton-XPU takes its SYCL headers from ONEAPI_ROOT when it is set, and does not look further.",
                "Install the oneAPI DPC++ compiler there, or unset ONEAPI_ROOT so that intel-sycl-rt's headers "
                "are used.",
            )
        ]
    rt = info.get("sycl_rt") or {}
    if rt.get("header") and not str(rt.get("version", "")).startswith("2024"):
        return [
            Finding("sycl-headers", OK, f"SYCL headers for Triton-XPU: intel-sycl-rt {rt['version']} ({rt['header']})")
        ]
    have = f"intel-sycl-rt {rt['version']} has no usable headers" if rt else "intel-sycl-rt is not installed"
    return [
        Finding(
            "sycl-headers",
            ERROR,
            f"no SYCL headers for Triton-XPU ({have}): torch.compile fails in find_sycl with "
            '"AssertionError: sycl headers not found"',
            "Triton-XPU looks for icpx on PATH, then ONEAPI_ROOT, then the intel-sycl-rt wheel (2025.0 or newer).",
            "pip install the intel-sycl-rt version your torch XPU wheel requires (pip show torch lists it), or "
            "run oneAPI's compiler\\latest\\env\\vars.bat in the shell first.",
        )
    ]


# cmd.exe's longest command line; `set PATH=...;%PATH%` must fit in it.
CMD_LINE_LIMIT = 8191
# What the doctor keeps free for the VS and oneAPI env scripts to add.
PATH_HEADROOM = 2000


def check_path_length(probes: Probes) -> list[Finding]:
    if not probes.windows:
        return []
    length = len(probes.env.get("PATH", ""))
    data = {"path_chars": length, "limit": CMD_LINE_LIMIT}
    detail = (
        f"PATH has {length} characters. vcvarsall.bat and oneAPI's vars.bat prepend to it with "
        f"`set PATH=...;%PATH%`, a cmd line of at most {CMD_LINE_LIMIT} characters."
    )
    fix = (
        "Remove stale folders from the user and system PATH (System Properties > Environment Variables), "
        "then open a new shell."
    )
    if length > CMD_LINE_LIMIT - len("set PATH="):
        return [
            Finding(
                "path-length",
                ERROR,
                f"PATH is {length} characters: cmd.exe cannot set it again",
                detail + ' Env scripts then fail with "The input line is too long".',
                fix,
                data,
            )
        ]
    if length > CMD_LINE_LIMIT - PATH_HEADROOM:
        return [
            Finding(
                "path-length",
                WARNING,
                f"PATH is {length} characters: chaining the VS and oneAPI env scripts may pass cmd's {CMD_LINE_LIMIT}",
                detail,
                fix,
                data,
            )
        ]
    return [Finding("path-length", OK, f"PATH is {length} characters (cmd's limit is {CMD_LINE_LIMIT})", data=data)]


def _required_triton(requires: Sequence[str]) -> tuple[str, str] | None:
    """The pinned Triton distribution; pytorch-triton-xpu before any other."""
    pins = []
    for req in requires:
        head = req.split(";")[0].strip()
        if "==" in head:
            name, version = head.split("==", 1)
            pins.append((name.strip(), version.strip()))
    pins.sort(key=lambda pin: pin[0] != "pytorch-triton-xpu")
    return pins[0] if pins else None


def check_triton(info: Mapping[str, Any]) -> list[Finding]:
    if "torch_import_error" in info:
        return []
    dists: dict[str, str] = dict(info.get("dists", {}))
    required = _required_triton(
        list(info.get("torch_requires", [])) + ([info["source_pin"]] if info.get("source_pin") else [])
    )
    rows = [("torch", str(info.get("torch", "?")))]
    rows.append(("required by torch", f"{required[0]}=={required[1]}" if required else "(no pin in torch metadata)"))
    if required and info.get("source_pin_file") and info.get("source_pin") == f"{required[0]}=={required[1]}":
        rows.append(("pin read from", str(info["source_pin_file"])))
    rows += [(f"installed {name}", version) for name, version in sorted(dists.items())]
    rows.append(
        (
            "import triton",
            info.get("triton_import_error") or f"ok ({info.get('triton', '?')})" if dists else "not installed",
        )
    )
    if "inductor_import_error" in info:
        rows.append(("import triton_heuristics", str(info["inductor_import_error"])))
    table = "\n".join(f"  {k:<26} {v}" for k, v in rows)
    if required:
        pin, where = f"{required[0]}=={required[1]}", ""
    else:
        # Neither the wheel metadata nor a checkout names it: say where it is.
        pin = "pytorch-triton-xpu==<version>"
        where = (
            f"Take <version> from {triton_pin_location(info)} (the file {TRITON_XPU_VERSION_FILE} of the PyTorch "
            "source torch was built from; or run the doctor with --src <checkout>), then: "
        )
    install = (
        f"{where}pip uninstall -y {' '.join(sorted(dists)) or 'triton'} && "
        f"pip install {pin} --index-url {XPU_WHEEL_INDEX}"
    )
    findings: list[Finding] = []
    if not dists:
        severity = WARNING if not info.get("xpu_compiled") else ERROR
        return [
            Finding(
                "triton",
                severity,
                "Triton is not installed: torch.compile cannot make GPU kernels",
                table,
                f"{where}pip install {pin} --index-url {XPU_WHEEL_INDEX}",
                {"table": rows},
            )
        ]
    if len(dists) > 1:
        findings.append(
            Finding(
                "triton",
                ERROR,
                f"several Triton distributions share the `triton` package: {', '.join(sorted(dists))}",
                table,
                install,
                {"table": rows},
            )
        )
    if required and dists.get(required[0]) != required[1]:
        findings.append(
            Finding(
                "triton",
                ERROR,
                f"installed Triton does not match torch {info.get('torch')} (needs {required[0]}=={required[1]})",
                table,
                install,
                {"table": rows},
            )
        )
    error = info.get("triton_import_error") or info.get("inductor_import_error")
    if error:
        hint = (
            " (AttrsDescriptor moved between Triton releases: this is a torch/Triton version mismatch)"
            if "AttrsDescriptor" in error
            else ""
        )
        findings.append(
            Finding("triton", ERROR, f"Triton import fails: {error}{hint}", table, install, {"table": rows})
        )
    if not findings:
        findings.append(
            Finding(
                "triton",
                OK,
                f"Triton {info.get('triton')} matches torch {info.get('torch')}",
                table,
                data={"table": rows},
            )
        )
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


SHORT_CACHE_FIX = (
    "Use short cache folders. cmd: set TORCHINDUCTOR_CACHE_DIR=C:\\tic and set TRITON_CACHE_DIR=C:\\tic\\tr; "
    "PowerShell: $env:TORCHINDUCTOR_CACHE_DIR = 'C:\\tic' and $env:TRITON_CACHE_DIR = 'C:\\tic\\tr'; "
    "for every new shell: setx TORCHINDUCTOR_CACHE_DIR C:\\tic and setx TRITON_CACHE_DIR C:\\tic\\tr."
)


def check_long_paths(probes: Probes) -> list[Finding]:
    inductor, triton = cache_dirs(probes)
    deepest = deepest_cache_path(triton, windows=probes.windows)
    length = len(deepest)
    data = {
        "inductor_cache_dir": inductor,
        "triton_cache_dir": triton,
        "deepest_path_chars": length,
        "limit": MAX_PATH - 1,
    }
    detail = (
        f"Triton cache: {triton}\nDeepest path Triton writes for a {len(REALISTIC_KERNEL_NAME)}-character kernel name: "
        f"{length} characters (<dir>\\<52-char key>\\tmp.pid_<pid>_<uuid>\\__grp__<name>.json); "
        f"Windows allows {MAX_PATH - 1} without long paths."
    )
    if not probes.windows:
        return [
            Finding(
                "long-paths",
                INFO,
                f"long paths: not limited on {probes.platform} (deepest cache path {length} chars)",
                detail,
                data=data,
            )
        ]
    enabled = probes.registry_dword(LONG_PATHS_KEY, LONG_PATHS_VALUE) == 1
    data["long_paths_enabled"] = enabled
    if length < MAX_PATH:
        state = "on" if enabled else "off"
        return [
            Finding(
                "long-paths",
                OK,
                f"cache paths fit in MAX_PATH ({length} of {MAX_PATH - 1} chars), long paths are {state}",
                detail,
                data=data,
            )
        ]
    if enabled:
        return [
            Finding(
                "long-paths",
                WARNING,
                f"LongPathsEnabled=1, but cache paths reach {length} characters: not known to be enough",
                detail + "\nLongPathsEnabled=1 helps only programs that declare themselves long-path aware "
                "(python.exe does). Whether cl.exe and ocloc.exe, which Triton-XPU runs on files in these "
                "folders, do is not verified: short cache folders avoid the question.",
                SHORT_CACHE_FIX,
                data,
            )
        ]
    return [
        Finding(
            "long-paths",
            ERROR,
            f"cache paths reach {length} characters but Windows long paths are disabled",
            detail + "\nSymptom: Triton or Inductor fails with 'cannot find the file' for a temp file.",
            "Either enable long paths (admin PowerShell: New-ItemProperty -Path "
            "'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem' -Name LongPathsEnabled -Value 1 "
            "-PropertyType DWORD -Force, then open a new shell), or "
            + SHORT_CACHE_FIX[0].lower()
            + SHORT_CACHE_FIX[1:],
            data,
        )
    ]


def describe_device(device: Mapping[str, Any]) -> str:
    kind = ZE_DEVICE_TYPES.get(int(device.get("type", 0)), "unknown type")
    return (
        f"XPU device {device.get('index')} of driver {device.get('driver')}: '{device.get('name')}' "
        f"({kind}, vendor 0x{int(device.get('vendor', 0)):04x}, PCI device id 0x{int(device.get('device_id', 0)):04x})"
    )


def is_intel_gpu(device: Mapping[str, Any]) -> bool:
    return device.get("type") == 1 and device.get("vendor") == INTEL_VENDOR_ID


def check_level_zero(probes: Probes) -> list[Finding]:
    """Three situations, told apart: no driver at all (the loader is missing),
    a driver that sees no Intel GPU, and devices that are not Intel GPUs."""
    loader_names = ["ze_loader.dll"] if probes.windows else ["libze_loader.so.1", "libze_loader.so"]
    driver_names = ["ze_intel_gpu64.dll"] if probes.windows else ["libze_intel_gpu.so.1", "libze_intel_gpu.so"]
    override = probes.env.get(LOADER_OVERRIDE_ENV)
    if override:
        loader = override if probes.is_file(override) else probes.find_library([override])
    else:
        loader = probes.find_library(loader_names)
    if loader is None:
        fix = (
            WINDOWS_DRIVER_FIX
            if probes.windows
            else "sudo apt-get install libze1 (the Level Zero loader) and the Intel GPU driver's Level Zero part."
        )
        name = override or loader_names[0]
        return [
            Finding(
                "level-zero",
                ERROR,
                f"no Level Zero driver: the loader ({name}) is missing, so no kernel can run",
                "Searched: " + ", ".join(probes.library_dirs()),
                fix,
            )
        ]
    findings: list[Finding] = []
    version = probes.library_version(loader) or "unknown version"
    symbols = probes.library_symbols(loader, REQUIRED_ZE_SYMBOLS)
    if symbols is None:
        return [
            Finding(
                "level-zero",
                ERROR,
                f"Level Zero loader {loader} cannot be loaded",
                f"version {version}",
                WINDOWS_DRIVER_FIX if probes.windows else "Reinstall libze1 for this architecture.",
            )
        ]
    missing = [s for s in REQUIRED_ZE_SYMBOLS if s not in symbols]
    if missing:
        findings.append(
            Finding(
                "level-zero",
                ERROR,
                f"Level Zero loader {loader} ({version}) is too old: it lacks {', '.join(missing)}",
                "",
                WINDOWS_DRIVER_FIX if probes.windows else "Update libze1 and the Intel GPU driver.",
            )
        )
    else:
        findings.append(Finding("level-zero", OK, f"Level Zero loader {loader} ({version})"))
    if any(s not in symbols for s in ZE_ENUMERATION_SYMBOLS):
        return findings
    return findings + _level_zero_device_findings(probes, probes.level_zero_devices(loader), driver_names)


def _level_zero_device_findings(probes: Probes, found: Mapping[str, Any], driver_names: Sequence[str]) -> list[Finding]:
    if "probe_error" in found:
        return [
            Finding(
                "level-zero",
                WARNING,
                "cannot list the Level Zero devices",
                str(found["probe_error"]),
                "Run the doctor again; if it persists, reinstall the Intel GPU driver.",
            )
        ]
    alt = probes.env.get("ZE_ENABLE_ALT_DRIVERS")
    if "init_error" in found:
        code = str(found["init_error"])
        why = f"zeInit(0) returned {'ZE_RESULT_ERROR_UNINITIALIZED ' if code == '0x78000001' else ''}{code}."
        if alt:
            return [
                Finding(
                    "level-zero",
                    ERROR,
                    f"no driver named in ZE_ENABLE_ALT_DRIVERS={alt} initialized",
                    why,
                    "Check that each path is a Level Zero driver library, or unset ZE_ENABLE_ALT_DRIVERS.",
                )
            ]
        if probes.windows:
            # The driver lives in the DriverStore and installs the loader itself:
            # the two cases cannot be told apart from here.
            return [
                Finding(
                    "level-zero",
                    ERROR,
                    "no Level Zero GPU driver or no Intel GPU: zeInit found nothing to initialize",
                    why,
                    WINDOWS_DRIVER_FIX,
                )
            ]
        driver = probes.find_library(driver_names)
        if driver is None:
            return [
                Finding(
                    "level-zero",
                    ERROR,
                    f"no Level Zero GPU driver ({driver_names[0]} is not installed): "
                    "kernels cannot run on this machine",
                    why,
                    "Install the GPU driver: sudo apt-get install intel-level-zero-gpu (or libze-intel-gpu1).",
                )
            ]
        fix = (
            "Check that the machine has an Intel GPU (lspci | grep -i vga) and that this user may open "
            "/dev/dri/renderD* (sudo usermod -aG render $USER, then log in again)."
        )
        return [
            Finding(
                "level-zero", ERROR, f"the Intel GPU driver is installed ({driver}) but found no Intel GPU", why, fix
            )
        ]
    devices = list(found.get("devices", []))
    listing = "\n".join(describe_device(d) for d in devices)
    if not devices:
        return [
            Finding(
                "level-zero",
                ERROR,
                f"Level Zero driver present but no Intel GPU: {found.get('drivers', 0)} driver(s), no devices",
                "zeInit succeeded, but no driver reports a device.",
                "Check that the Intel GPU is present and enabled (BIOS, Device Manager, lspci).",
            )
        ]
    gpus = [d for d in devices if is_intel_gpu(d)]
    if not gpus:
        return [
            Finding(
                "level-zero",
                ERROR,
                "no Intel GPU: the Level Zero devices here are of another kind or vendor and cannot run zebins",
                listing,
                "Use a machine with an Intel GPU (Arc, Core Ultra graphics, Data Center GPU) and its driver.",
            )
        ]
    more = "Devices:\n" + listing if len(devices) > 1 else ""
    findings = [Finding("level-zero", OK, f"Intel GPU: {describe_device(gpus[0])}", more, data={"devices": devices})]
    # The launcher, like torch, counts XPU device indices within the first
    # driver that has a GPU; other drivers (Intel's NPU driver) are skipped.
    gpu_driver = next((d.get("driver", 0) for d in devices if d.get("type") == 1), 0)
    for device in devices:
        if device.get("driver", 0) == gpu_driver and not is_intel_gpu(device):
            findings.append(
                Finding(
                    "level-zero",
                    WARNING,
                    f"{describe_device(device)} is not an Intel GPU: kernels cannot load on it",
                    listing,
                    "Pass the index of an Intel GPU as the device.",
                )
            )
    return findings


# Checks whose error is a root cause, the most likely first. The first error
# among them is shown first; what it explains (data["explains"]) follows.
CAUSE_ORDER = ("torch", "xpu-device", "static-launcher", "level-zero", "long-paths")
FOLLOWS_NOTE = "follows from the first error"


def order_by_cause(findings: Sequence[Finding]) -> list[Finding]:
    """The most likely cause first, as an error; findings that merely follow
    from it become information without a fix of their own (their text says
    so), and the rest keep their order."""
    errors = [f for f in findings if f.severity == ERROR and f.check in CAUSE_ORDER]
    if not errors:
        return list(findings)
    cause = min(errors, key=lambda f: CAUSE_ORDER.index(f.check))
    explained = set(cause.data.get("explains", ()))
    ordered = [cause]
    for finding in findings:
        if finding is cause:
            continue
        if finding.check in explained and finding.severity in (ERROR, WARNING):
            finding = dataclasses.replace(
                finding,
                severity=INFO,
                title=f"{finding.title} ({FOLLOWS_NOTE})",
                detail=f"This follows from the first error ({cause.title}); fix that first."
                + (f"\n{finding.detail}" if finding.detail else ""),
                fix="",
                data=dict(finding.data, follows_from=cause.check, severity_alone=finding.severity),
            )
        ordered.append(finding)
    return ordered


def run_checks(
    probes: Probes, with_torch: bool = True, src: str | os.PathLike[str] | None = None, building: bool = False
) -> list[Finding]:
    """Every check, the most likely cause first (order_by_cause). `src`: a
    PyTorch checkout to read the Triton pin from when torch's own metadata and
    folder do not name it. `building`: the harness runs it before it builds
    torch (a Python without torch is expected)."""
    findings: list[Finding] = []
    # Level Zero first: without ocloc, its GPUs decide whether the driver can
    # compile zebins. The findings keep their order (ocloc first).
    level_zero = check_level_zero(probes)
    info = probe_torch(probes) if with_torch else {}
    findings += check_ocloc(
        probes,
        driver_gpus(level_zero),
        info.get("triton_driver_compiler"),
        spirv_launch=spirv_launch(info, probes.env),
    )
    if with_torch:
        add_source_pin(info, [info.get("source_root"), src])
        findings += check_static_launcher(info, probes.windows, building)
        findings += check_kernel_format(probes, info)
        findings += check_triton(info)
        findings += check_msvc(probes, info)
        findings += check_sycl_headers(probes, info)
    findings += check_path_length(probes)
    findings += check_long_paths(probes)
    findings += level_zero
    return order_by_cause(findings)


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
    follows = sum(FOLLOWS_NOTE in f.title for f in findings)
    if follows:
        out.append(f'  Fix the first error first: {follows} finding(s) marked "{FOLLOWS_NOTE}" depend on it.')
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
    parser.add_argument("--level-zero-probe", metavar="LOADER", help=argparse.SUPPRESS)
    parser.add_argument(
        "--src",
        help=f"PyTorch checkout torch was built from (its {TRITON_XPU_VERSION_FILE} names the Triton-XPU to install)",
    )
    args = parser.parse_args(argv)
    if args.level_zero_probe:
        print(ZE_PROBE_MARKER + json.dumps(enumerate_level_zero(args.level_zero_probe)))
        return 0
    probes = probes or Probes(python=args.python)
    findings = run_checks(probes, with_torch=not args.no_torch, src=args.src)
    print(render_json(findings, probes) if args.json else render_text(findings, probes))
    return 1 if any(f.severity == ERROR for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
