#!/usr/bin/env python3
"""Build and test PyTorch with the Windows-capable XPU static launcher.

  python scripts/harness.py            default run: what this machine can do
  python scripts/harness.py doctor     why kernels are (not) launched statically
  python scripts/harness.py checkout   clone PyTorch at --ref with submodules
  python scripts/harness.py apply      apply the PR stack (patches/pytorch/<series>) to the clone
  python scripts/harness.py build      build PyTorch (USE_XPU=1, Ninja, MSVC + oneAPI)
  python scripts/harness.py test       install Triton-XPU, run the two tests, verify
  python scripts/harness.py all        prerequisites, checkout, apply, build, test, doctor

`all`, `build` and `test` first choose the GPU architecture (TORCH_XPU_ARCH_LIST):
without --arch the one of this machine's Intel GPU (its name from
Win32_VideoController); a --arch that matches no GPU here is refused with the
fix unless --force-arch is given; with no GPU the harness knows, --arch is
required. The `prerequisites` step then checks everything the later steps
need before the long clone. Each step prints a numbered line with what to
expect, and a running command a heartbeat line with its last output.

Every step logs to <work>/logs/<step>.log and records its result in
<work>/state.json; a finished step is skipped on the next run unless its
inputs changed or --force is given. On a machine without Windows or an Intel
GPU the default run builds and tests the portable C++ (CMake preset), compiles
the sample kernels with ocloc and prints zebin-info for them, checks the
patchset, and lists what it skipped and why.

The build installs torch into the Python that runs it: it refuses to replace
a torch it did not build from --src unless --force is given (use a fresh
venv). After the environment capture, <work>/activate.cmd and activate.ps1
set up a new shell for the built torch (cl.exe, the SYCL runtime, ocloc); the
final doctor of `all` runs in that environment.

Exit codes: 0 every step that ran passed, 1 a step failed, 2 nothing ran
(e.g. `all` on a machine that is not Windows).

Stdlib only; runs on a bare Windows Python (harness.cmd / harness.ps1).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

# Siblings: scripts/ is on sys.path when a script runs.
import doctor
import patchset
import winenv

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = REPO / "scripts"

DEFAULT_REF = "v2.15.0"
# The CPython versions (first, last) of PyPI's torch wheels for win_amd64, by
# torch release: a source build of that tag supports the same ones.
TORCH_PYTHON_RANGE = {"2.13": ("3.10", "3.14"), "2.14": ("3.10", "3.14"), "2.15": ("3.11", "3.15")}
# Memory one parallel compile of a PyTorch XPU build may take (SYCL sources
# are the largest); --jobs by default is cores, at most one job per this much.
GIB = 1024**3
MEMORY_PER_JOB = 4 * GIB
# Visual Studio 2022 (17.x) and 2026 (18.x).
VS_VERSIONS = "[17.0,19.0)"
VS_NAMES = "Visual Studio 2022 or 2026"
PYTORCH_URL = "https://github.com/pytorch/pytorch.git"
TRITON_XPU_URL = "https://github.com/intel/intel-xpu-backend-for-triton"
# In a PyTorch checkout: the Triton-XPU release and commit it was tested with.
TRITON_XPU_VERSION_FILE = doctor.TRITON_XPU_VERSION_FILE
TRITON_XPU_COMMIT_FILE = ".ci/docker/ci_commit_pins/triton-xpu.txt"
XPU_TESTS = [
    ("static_triton_launcher", ["test/inductor/test_static_triton_launcher.py"]),
    ("autotune_cache_warm_start", ["test/inductor/test_codecache.py", "-k", "test_autotune_cache_warm_start"]),
]
HEARTBEAT_SECONDS = 20.0

OK, FAILED, WARN, SKIPPED = "ok", "failed", "warn", "skipped"


# --------------------------------------------------------------------------
# Running commands with a log and a heartbeat


class StepFailed(Exception):
    """A step cannot finish; the message says what to do."""


@dataclasses.dataclass
class Context:
    work: Path
    ref: str
    src: Path
    arch: str
    python: str
    jobs: int
    preset: str
    probes: Any  # doctor.Probes
    build_dir: Path | None = None  # instead of the preset's binary dir
    force: bool = False
    launcher: str = "upstream"  # "project": this project's launcher instead of upstream's xpu.cpp
    series: str | None = None  # patches/pytorch/<series>; None: by the checkout's version.txt
    env: dict[str, str] | None = None  # captured build environment (Windows)
    out: Callable[[str], None] = print
    force_arch: bool = False  # build for --arch even when it is not this machine's GPU
    arch_finding: Any = None  # doctor.Finding: how --arch was chosen (choose_arch)

    @property
    def logs(self) -> Path:
        return self.work / "logs"

    @property
    def junit(self) -> Path:
        return self.work / "junit"


class StepLog:
    def __init__(self, path: Path, out: Callable[[str], None], label: str = ""):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.handle = path.open("w", encoding="utf-8", errors="replace")
        self.out = out
        self.label = label  # "[4/6] build": names the step in heartbeat lines
        self.last_line = ""

    def write(self, text: str) -> None:
        self.handle.write(text if text.endswith("\n") else text + "\n")
        self.handle.flush()
        stripped = text.strip()
        if stripped:
            self.last_line = stripped.splitlines()[-1]

    def close(self) -> None:
        self.handle.close()


def run_logged(
    argv: Sequence[str],
    log: StepLog,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> int:
    """Runs a command, streams its output to the log, prints a heartbeat."""
    log.write(f"$ {subprocess.list2cmdline(list(argv))}" + (f"   (in {cwd})" if cwd else ""))
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=str(cwd) if cwd else None,
            env=dict(env) if env is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
    except OSError as err:
        log.write(f"cannot start {argv[0]}: {err}")
        return 127

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line.rstrip("\n"))

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    started = time.monotonic()
    next_beat = started + HEARTBEAT_SECONDS
    while True:
        try:
            proc.wait(timeout=1.0)
            break
        except subprocess.TimeoutExpired:
            now = time.monotonic()
            if timeout is not None and now - started > timeout:
                proc.kill()
                log.write(f"timed out after {timeout:.0f} s")
                break
            if now >= next_beat:
                log.out(heartbeat_line(log.label, now - started, log.last_line))
                next_beat = now + HEARTBEAT_SECONDS
    reader.join(timeout=5)
    log.write(f"(exit {proc.returncode})")
    return proc.returncode if proc.returncode is not None else 1


def elapsed_text(seconds: float) -> str:
    """'45 s', '12 min 05 s', '2 h 05 min'."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def heartbeat_line(label: str, seconds: float, last_line: str) -> str:
    """What a running command prints every HEARTBEAT_SECONDS: the step, the
    time so far and the command's last output line (the full output is in
    the step's log)."""
    last = last_line[:100] if last_line else "(no output yet)"
    return f"      ... {label or 'running'}: {elapsed_text(seconds)} so far; last output: {last}"


# --------------------------------------------------------------------------
# Steps


@dataclasses.dataclass
class Outcome:
    status: str
    detail: str = ""


@dataclasses.dataclass
class Step:
    name: str
    title: str
    action: Callable[[Context, StepLog], Outcome]
    skip_reason: Callable[[Context], str | None] = lambda ctx: None
    fingerprint: Callable[[Context], str] = lambda ctx: ""
    fatal: bool = True  # a failure stops the remaining steps
    needs: tuple[str, ...] = ()  # steps of this run that must have passed
    resumable: bool = True  # False: cheap or environment-dependent, always rerun
    hint: Callable[[Context], str] = lambda ctx: ""  # on the step's line: what to expect


def _windows_only(ctx: Context) -> str | None:
    if not ctx.probes.windows:
        return (
            f"needs Windows with an Intel GPU (this is {ctx.probes.platform}); "
            "runs in .github/workflows/windows-xpu.yml"
        )
    return None


def _load_state(path: Path) -> dict[str, Any]:
    try:
        state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return state
    except (OSError, ValueError):
        return {"steps": {}}


def _save_state(path: Path, state: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2), encoding="utf-8")
    os.replace(tmp, path)


@dataclasses.dataclass
class StepResult:
    name: str
    status: str
    seconds: float
    detail: str
    log: str
    resumed: bool = False


def step_line(ctx: Context, step: Step, previous: Mapping[str, Any]) -> str:
    """The title, what to expect, and how long the step took last time."""
    parts = [step.hint(ctx)]
    seconds = previous.get("seconds")
    if isinstance(seconds, (int, float)) and seconds >= 60:
        parts.append(f"last run took {elapsed_text(seconds)}")
    expect = "; ".join(part for part in parts if part)
    return f"{step.title} - {expect}" if expect else step.title


def run_steps(ctx: Context, steps: Sequence[Step]) -> list[StepResult]:
    state_path = ctx.work / "state.json"
    state = _load_state(state_path)
    results: list[StepResult] = []
    total = len(steps)
    stop_reason = ""
    for index, step in enumerate(steps, start=1):
        log_path = ctx.logs / f"{step.name}.log"
        prefix = f"[{index}/{total}] {step.name:<14}"
        reason = step.skip_reason(ctx)
        if not reason and stop_reason:
            reason = stop_reason
        passed = {r.name for r in results if r.status in (OK, WARN)}
        if not reason and any(n not in passed for n in step.needs if n in {s.name for s in steps}):
            reason = f"needs {', '.join(step.needs)} to pass first"
        if reason:
            results.append(StepResult(step.name, SKIPPED, 0.0, reason, ""))
            ctx.out(f"{prefix} skipped: {reason}")
            continue
        fingerprint = step.fingerprint(ctx)
        previous = state["steps"].get(step.name, {})
        if (
            not ctx.force
            and step.resumable
            and previous.get("status") in (OK, WARN)
            and previous.get("fingerprint") == fingerprint
        ):
            results.append(
                StepResult(
                    step.name,
                    previous["status"],
                    0.0,
                    previous.get("detail", ""),
                    previous.get("log", ""),
                    resumed=True,
                )
            )
            ctx.out(f"{prefix} done earlier ({previous['status']}), skipped; --force reruns it")
            continue
        ctx.out(f"{prefix} {step_line(ctx, step, previous)}  (log: {log_path})")
        log = StepLog(log_path, ctx.out, f"[{index}/{total}] {step.name}")
        started = time.monotonic()
        try:
            outcome = step.action(ctx, log)
        except StepFailed as err:
            outcome = Outcome(FAILED, str(err))
        except Exception as err:  # report, do not hide: the log gets the traceback
            import traceback

            log.write(traceback.format_exc())
            outcome = Outcome(FAILED, f"{type(err).__name__}: {err}")
        finally:
            log.close()
        seconds = time.monotonic() - started
        results.append(StepResult(step.name, outcome.status, seconds, outcome.detail, str(log_path)))
        state["steps"][step.name] = {
            "status": outcome.status,
            "seconds": round(seconds, 1),
            "detail": outcome.detail,
            "log": str(log_path),
            "fingerprint": fingerprint,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
        _save_state(state_path, state)
        ctx.out(f"      {outcome.status} in {seconds:.1f} s" + (f": {outcome.detail}" if outcome.detail else ""))
        if outcome.status == FAILED and step.fatal:
            stop_reason = f"'{step.name}' failed"
    return results


def summary_table(results: Sequence[StepResult]) -> str:
    rows = [("step", "status", "time", "detail / log")]
    for r in results:
        when = "earlier" if r.resumed else (f"{r.seconds:.1f}s" if r.status != SKIPPED else "-")
        text = r.detail
        if r.status != SKIPPED and r.log and r.log not in r.detail:
            text += ("  " if text else "") + r.log
        rows.append((r.name, r.status, when, text))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}" for row in rows]
    lines.insert(1, "-" * min(100, max(len(line) for line in lines)))
    return "\n".join(lines)


def write_junit(results: Sequence[StepResult], path: Path, suite: str = "harness") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    failures = sum(r.status == FAILED for r in results)
    skipped = sum(r.status == SKIPPED for r in results)
    cases = []
    for r in results:
        body = ""
        if r.status == FAILED:
            body = f"<failure message={quoteattr(r.detail)}>{escape(r.log)}</failure>"
        elif r.status == SKIPPED:
            body = f"<skipped message={quoteattr(r.detail)}/>"
        cases.append(
            f'  <testcase classname="{suite}" name={quoteattr(r.name)} time="{r.seconds:.1f}">{body}</testcase>'
        )
    xml = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<testsuite name="{suite}" tests="{len(results)}" failures="{failures}" skipped="{skipped}">\n'
        + "\n".join(cases)
        + "\n</testsuite>\n"
    )
    path.write_text(xml, encoding="utf-8")


# --------------------------------------------------------------------------
# Windows toolchain discovery


def find_vcvarsall(probes: Any) -> str | None:
    """VS 2022 (17.x) or 2026 (18.x) x64 tools via vswhere; None if absent."""
    program_files = probes.env.get("ProgramFiles(x86)", r"C:\Program Files (x86)")
    vswhere = program_files + r"\Microsoft Visual Studio\Installer\vswhere.exe"
    if not probes.is_file(vswhere):
        return None
    rc, out, _ = probes.run(
        [
            vswhere,
            "-latest",
            "-products",
            "*",
            "-version",
            VS_VERSIONS,
            "-requires",
            "Microsoft.VisualStudio.Component.VC.Tools.x86.x64",
            "-property",
            "installationPath",
        ]
    )
    path = out.strip().splitlines()[0].strip() if rc == 0 and out.strip() else ""
    vcvars = path + r"\VC\Auxiliary\Build\vcvarsall.bat" if path else ""
    return vcvars if vcvars and probes.is_file(vcvars) else None


def oneapi_scripts(probes: Any) -> dict[str, str | None]:
    root = probes.env.get("ONEAPI_ROOT", r"C:\Program Files (x86)\Intel\oneAPI").rstrip("\\")
    found: dict[str, str | None] = {}
    for component in ("compiler", "ocloc"):
        script = rf"{root}\{component}\latest\env\vars.bat"
        found[component] = script if probes.is_file(script) else None
    return found


def capture_build_env(probes: Any, scripts: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The environment after `call`ing each env script (cmd /u: UTF-16, see winenv.py)."""
    try:
        return winenv.capture(probes.run_bytes, scripts)
    except winenv.CaptureError as err:
        raise StepFailed(str(err)) from err


def msvc_environment(ctx: Context) -> tuple[dict[str, str], str]:
    """(environment, where it came from) for building with cl.exe."""
    if ctx.env is not None:
        return dict(ctx.env), "the captured build environment"
    if ctx.probes.env.get("VCToolsInstallDir"):
        return dict(ctx.probes.env), "this VS developer prompt"
    vcvars = find_vcvarsall(ctx.probes)
    if not vcvars:
        raise StepFailed(
            f"{VS_NAMES} with the x64 C++ tools not found (vswhere): install one (or its Build Tools) "
            "with 'Desktop development with C++', or run from an 'x64 Native Tools Command Prompt for VS'"
        )
    return capture_build_env(ctx.probes, [(vcvars, "x64")]), f'"{vcvars}" x64'


@dataclasses.dataclass
class LevelZeroHeaders:
    folder: str | None  # holds level_zero\ze_api.h
    source: str
    tried: list[str]


def find_level_zero_headers(probes: Any) -> LevelZeroHeaders:
    """The Level Zero headers on Windows: explicit variables, oneAPI, vcpkg (first hit wins)."""
    env = probes.env
    candidates: list[tuple[str, str]] = []
    if env.get("XSL_LEVEL_ZERO_INCLUDE_DIR"):
        candidates.append((env["XSL_LEVEL_ZERO_INCLUDE_DIR"], "XSL_LEVEL_ZERO_INCLUDE_DIR"))
    for var in ("LEVEL_ZERO_V1_SDK_PATH", "LEVEL_ZERO_SDK", "LEVEL_ZERO_ROOT"):
        if env.get(var):
            candidates.append((env[var].rstrip("\\/") + r"\include", f"the Level Zero SDK ({var})"))
    oneapi = env.get("ONEAPI_ROOT", r"C:\Program Files (x86)\Intel\oneAPI").rstrip("\\/")
    for sub in (r"compiler\latest\include", r"latest\include"):
        candidates.append(
            (rf"{oneapi}\{sub}", "oneAPI (ONEAPI_ROOT)" if env.get("ONEAPI_ROOT") else "oneAPI (default folder)")
        )
    for var in ("VCPKG_ROOT", "VCPKG_INSTALLATION_ROOT"):
        if env.get(var):
            candidates.append((env[var].rstrip("\\/") + r"\installed\x64-windows\include", f"vcpkg level-zero ({var})"))
    tried = []
    for folder, source in candidates:
        folder = folder.rstrip("\\/")
        header = folder + r"\level_zero\ze_api.h"
        tried.append(header)
        if probes.is_file(header):
            return LevelZeroHeaders(folder, source, tried)
    return LevelZeroHeaders(None, "", tried)


def git_longpaths_enabled(probes: Any) -> bool:
    rc, out, _ = probes.run(["git", "config", "--get", "core.longpaths"])
    return rc == 0 and out.strip().lower() in ("true", "1", "yes")


def python_range(ref: str) -> tuple[str, str]:
    """(first, last) CPython version torch `ref` (v2.15.0, a commit) supports;
    the default ref's range for a ref that names no known release."""
    release = ref.lstrip("v").split(".")
    key = ".".join(release[:2])
    return TORCH_PYTHON_RANGE.get(key, TORCH_PYTHON_RANGE[".".join(DEFAULT_REF.lstrip("v").split(".")[:2])])


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


# --------------------------------------------------------------------------
# The GPU's architecture (--arch, TORCH_XPU_ARCH_LIST)

# The --arch values the harness detects, by the GPUs they are for: ocloc
# device names, which TORCH_XPU_ARCH_LIST hands to the SYCL compiler.
ARCH_GPUS = {
    "bmg": "Arc B-series (Battlemage)",
    "dg2": "Arc A-series (Alchemist, ACM)",
    "mtl": "Core Ultra Series 1 graphics (Meteor Lake)",
    "lnl-m": "Core Ultra 200V graphics (Lunar Lake)",
    "arl-h": "Core Ultra 200H/U graphics (Arrow Lake)",
    "pvc": "Data Center GPU Max (Ponte Vecchio)",
}
# Other ocloc names of the same GPUs, as --arch may give them.
ARCH_ALIASES = {
    "acm-g10": "dg2",
    "acm-g11": "dg2",
    "acm-g12": "dg2",
    "dg2-g10": "dg2",
    "dg2-g11": "dg2",
    "dg2-g12": "dg2",
    "mtl-u": "mtl",
    "mtl-h": "mtl",
    "bmg-g21": "bmg",
    "bmg-g31": "bmg",
}
# The commands that build or test for --arch (the harness resolves it first).
ARCH_COMMANDS = ("all", "build", "test")
# One PowerShell run: every video controller's name, then the processor's
# (integrated graphics are named after no model; the processor tells them apart).
GPU_QUERY = (
    "Get-CimInstance Win32_VideoController | ForEach-Object { 'GPU ' + $_.Name }; "
    "Get-CimInstance Win32_Processor | ForEach-Object { 'CPU ' + $_.Name }"
)
_ARC_DISCRETE = re.compile(r"\bArc(?:\(TM\)|\u2122)?\s+(?:Pro\s+)?([AB])\d{2,3}", re.IGNORECASE)
_ARC_INTEGRATED = re.compile(r"\b1[34]0([VT])\b")
_UNNAMED_INTEGRATED = re.compile(r"\bIntel(?:\(R\)|\u00ae)?\s+(?:Arc(?:\(TM\)|\u2122)?\s+)?Graphics\b", re.IGNORECASE)
_CORE_ULTRA = re.compile(r"\bUltra\s+\d\s+(?:Processor\s+)?(\d)\d\d([A-Z]*)\b", re.IGNORECASE)


@dataclasses.dataclass
class GpuReport:
    gpus: list[str]  # every video controller's name
    cpu: str = ""  # the processor's name
    source: str = ""  # how the names were read
    error: str = ""  # why they could not be read


def _wmic_names(out: str) -> list[str]:
    """The values under wmic's `Name` header."""
    lines = [line.replace("\x00", "").strip() for line in out.splitlines()]
    return [line for line in lines if line and line.lower() != "name"]


def read_gpu_names(probes: Any) -> GpuReport:
    """The names of this machine's video controllers and of its processor
    (Windows), through probes.run: PowerShell's Get-CimInstance, else wmic."""
    rc, out, err = probes.run(["powershell", "-NoProfile", "-NonInteractive", "-Command", GPU_QUERY], timeout=60)
    if rc == 0:
        lines = [line.strip() for line in out.splitlines()]
        gpus = [line[4:].strip() for line in lines if line.startswith("GPU ") and line[4:].strip()]
        cpus = [line[4:].strip() for line in lines if line.startswith("CPU ") and line[4:].strip()]
        return GpuReport(gpus, cpus[0] if cpus else "", "Get-CimInstance Win32_VideoController")
    problems = [f"PowerShell: {(err.strip() or f'exit {rc}')[-200:]}"]
    rc, out, err = probes.run(["wmic", "path", "win32_VideoController", "get", "name"], timeout=60)
    if rc == 0:
        cpu_rc, cpu_out, _ = probes.run(["wmic", "cpu", "get", "name"], timeout=60)
        cpus = _wmic_names(cpu_out) if cpu_rc == 0 else []
        return GpuReport(_wmic_names(out), cpus[0] if cpus else "", "wmic path win32_VideoController get name")
    problems.append(f"wmic: {(err.strip() or f'exit {rc}')[-200:]}")
    return GpuReport([], error="; ".join(problems))


def gpu_arch(gpu: str, cpu: str = "") -> str | None:
    """The --arch value for a GPU by its marketing name; integrated graphics
    named after no model ("Intel(R) Arc(TM) Graphics", "Intel(R) Graphics")
    by the processor's. None: not a GPU the harness knows."""
    if "intel" not in gpu.lower():
        return None
    if "data center gpu max" in gpu.lower():
        return "pvc"
    discrete = _ARC_DISCRETE.search(gpu)
    if discrete:
        return "bmg" if discrete.group(1).upper() == "B" else "dg2"
    integrated = _ARC_INTEGRATED.search(gpu)
    if integrated:
        return "lnl-m" if integrated.group(1).upper() == "V" else "arl-h"
    core_ultra = _CORE_ULTRA.search(cpu) if _UNNAMED_INTEGRATED.search(gpu) else None
    if core_ultra:
        series, suffix = core_ultra.group(1), core_ultra.group(2).upper()
        if series == "1":
            return "mtl"
        if series == "2" and suffix == "V":
            return "lnl-m"
        if series == "2" and suffix in ("H", "U"):
            return "arl-h"
    return None


def arch_family(value: str) -> str:
    value = value.strip().lower()
    return ARCH_ALIASES.get(value, value)


@dataclasses.dataclass
class ArchChoice:
    arch: str  # TORCH_XPU_ARCH_LIST; "" when refused
    finding: Any  # doctor.Finding: what was chosen and why, or (ERROR) the refusal with its fix


def _known_values() -> str:
    return ", ".join(f"{value} ({gpus})" for value, gpus in ARCH_GPUS.items())


def choose_arch(requested: str, force: bool, report: GpuReport) -> ArchChoice:
    """--arch from this machine's GPU: without --arch the detected one(s);
    a given --arch must match a detected GPU unless `force`; with no GPU
    the harness knows, --arch must be given."""
    F = doctor.Finding
    intel = [gpu for gpu in report.gpus if "intel" in gpu.lower()]
    known = [(gpu, arch) for gpu in intel for arch in [gpu_arch(gpu, report.cpu)] if arch]

    def named(pairs: Sequence[tuple[str, str]]) -> str:
        return ", ".join(
            f"'{gpu}'" + (f" (with '{report.cpu}')" if gpu_arch(gpu) is None else "") + f" is {arch}"
            for gpu, arch in pairs
        )

    if report.error:
        unknown = f"the GPU names could not be read ({report.error})"
    elif intel:
        unknown = f"no --arch value is known for {', '.join(repr(g) for g in intel)}"
    elif report.gpus:
        unknown = f"no Intel GPU found (video controllers: {', '.join(repr(g) for g in report.gpus)})"
    else:
        unknown = "no Intel GPU found"
    if not requested:
        if known:
            arch = ",".join(dict.fromkeys(arch for _, arch in known))
            return ArchChoice(arch, F("gpu-arch", doctor.OK, f"--arch {arch}, detected: {named(known)}"))
        return ArchChoice(
            "",
            F(
                "gpu-arch",
                doctor.ERROR,
                f"no --arch given and {unknown}",
                "The harness builds PyTorch for the architecture of this machine's Intel GPU (TORCH_XPU_ARCH_LIST); "
                f"it knows {_known_values()}.",
                "Pass the architecture to build for: --arch <value> (several: comma-separated), e.g. --arch "
                + " or --arch ".join(ARCH_GPUS)
                + ".",
            ),
        )
    if not known:
        return ArchChoice(
            requested,
            F("gpu-arch", doctor.WARNING, f"--arch {requested} as given: {unknown}, so it is not compared with a GPU"),
        )
    wanted = {arch_family(value) for value in requested.split(",") if value.strip()}
    matching = [(gpu, arch) for gpu, arch in known if arch in wanted]
    if matching:
        return ArchChoice(
            requested, F("gpu-arch", doctor.OK, f"--arch {requested} matches this machine: {named(matching)}")
        )
    detected = ",".join(dict.fromkeys(arch for _, arch in known))
    if force:
        return ArchChoice(
            requested,
            F(
                "gpu-arch",
                doctor.WARNING,
                f"--arch {requested} --force-arch: building for another GPU than this machine's ({named(known)})",
                f"The test step runs on this machine's GPU, which a build for {requested} has no native code for: "
                "expect it to fail here.",
            ),
        )
    return ArchChoice(
        "",
        F(
            "gpu-arch",
            doctor.ERROR,
            f"--arch {requested} does not match this machine's GPU: {named(known)}",
            f"A torch built for {requested} has no native code for {detected}: nothing would run on this GPU, and the "
            "test step would fail after the long build.",
            f"Omit --arch (the harness then builds for {detected}), or pass --arch {detected}; to build for another "
            f"machine on purpose, keep --arch {requested} and add --force-arch.",
        ),
    )


def arch_finding(ctx: Context) -> Any:
    """How --arch is chosen on this machine (ctx.arch_finding once main() chose)."""
    if ctx.arch_finding is None:
        ctx.arch_finding = choose_arch(ctx.arch, ctx.force_arch, read_gpu_names(ctx.probes)).finding
    return ctx.arch_finding


def windows_prerequisites(probes: Any, ref: str = DEFAULT_REF) -> list[Any]:
    """Build prerequisites as doctor findings (Visual Studio, oneAPI, git, Python)."""
    F = doctor.Finding
    findings = []
    vcvars = find_vcvarsall(probes)
    findings.append(
        F("visual-studio", doctor.OK, f"Visual Studio x64 tools: {vcvars}")
        if vcvars
        else F(
            "visual-studio",
            doctor.ERROR,
            f"{VS_NAMES} with the x64 C++ tools not found (vswhere)",
            "",
            f"Install {VS_NAMES} (Community or Build Tools) with 'Desktop development with C++'.",
        )
    )
    scripts = oneapi_scripts(probes)
    for component, script in scripts.items():
        if script:
            findings.append(F(f"oneapi-{component}", doctor.OK, f"oneAPI {component} environment: {script}"))
        else:
            findings.append(
                F(
                    f"oneapi-{component}",
                    doctor.ERROR,
                    f"oneAPI {component} env script (%ONEAPI_ROOT%\\{component}\\latest\\env\\vars.bat) not found",
                    "",
                    "Install the Intel Deep Learning Essentials / oneAPI Base Toolkit (DPC++ compiler and ocloc), "
                    "or set ONEAPI_ROOT to its folder.",
                )
            )
    rc, out, _ = probes.run(["git", "--version"])
    if rc != 0:
        findings.append(F("git", doctor.ERROR, "git not found", "", "Install Git for Windows."))
    elif not git_longpaths_enabled(probes):
        findings.append(
            F(
                "git-longpaths",
                doctor.ERROR,
                "git core.longpaths is off: PyTorch's submodules have paths over 260 characters",
                "",
                "git config --global core.longpaths true",
            )
        )
    else:
        findings.append(F("git-longpaths", doctor.OK, "git core.longpaths=true"))
    rc, out, _ = probes.run(
        [probes.python, "-c", "import struct, sys; print('%d.%d' % sys.version_info[:2], 8 * struct.calcsize('P'))"]
    )
    version, _, bits = out.strip().partition(" ")
    first, last = python_range(ref)
    good = rc == 0 and bits == "64" and _version_key(first) <= _version_key(version or "0") <= _version_key(last)
    findings.append(
        F(
            "python",
            doctor.OK if good else doctor.ERROR,
            f"Python {version or '?'} ({bits or '?'}-bit) at {probes.python}",
            "",
            ""
            if good
            else f"Use a 64-bit Python {first}-{last} (the versions torch {ref} is built for; python.org, a venv "
            "or conda): activate it before harness.cmd, or pass it with --python C:\\path\\to\\python.exe.",
        )
    )
    return findings


# --------------------------------------------------------------------------
# Step actions


def _print_findings(ctx: Context, findings: Sequence[Any], log: StepLog) -> Outcome:
    log.write(doctor.render_text(findings, ctx.probes))
    for f in findings:
        if f.severity in (doctor.ERROR, doctor.WARNING):
            log.out(f"      {f.severity}: {f.title}")
            for number, line in enumerate(f.fix.split("\n") if f.fix else []):
                log.out(f"        {'fix: ' if number == 0 else '     '}{line}")
    errors = sum(f.severity == doctor.ERROR for f in findings)
    warnings = sum(f.severity == doctor.WARNING for f in findings)
    detail = f"{errors} error(s), {warnings} warning(s)"
    return Outcome(FAILED if errors else (WARN if warnings else OK), detail)


def all_findings(ctx: Context, building: bool = True) -> list[Any]:
    """The build prerequisites (Windows: toolchain, Python, the GPU's
    architecture), then the doctor's findings. `building`: before the build,
    a Python without torch is expected."""
    findings = doctor.run_checks(ctx.probes, src=ctx.src, building=building)
    if ctx.probes.windows:
        findings = windows_prerequisites(ctx.probes, ctx.ref) + [arch_finding(ctx)] + findings
    return findings


def step_doctor(ctx: Context, log: StepLog) -> Outcome:
    return _print_findings(ctx, all_findings(ctx), log)


def step_doctor_built(ctx: Context, log: StepLog) -> Outcome:
    """The doctor on the built torch, in the environment the tests ran in
    (the captured VS + oneAPI one, as activate.cmd sets it up)."""
    build_environment(ctx)
    assert ctx.env is not None
    probes = doctor.Probes(python=ctx.python, env=ctx.env)
    probes.platform = ctx.probes.platform
    log.write(f"environment: the captured build environment (as {ctx.work / 'activate.cmd'} sets it)")
    return _print_findings(ctx, all_findings(dataclasses.replace(ctx, probes=probes), building=False), log)


TORCH_PROBE = (
    "import importlib.metadata as m, importlib.util as u, json\n"
    "try:\n    version = m.version('torch')\nexcept m.PackageNotFoundError:\n    version = None\n"
    "spec = u.find_spec('torch') if version else None\n"
    "print('XSL-TORCH ' + json.dumps({'version': version, 'origin': getattr(spec, 'origin', None)}))\n"
)


def installed_torch(ctx: Context) -> dict[str, Any]:
    """The torch the build would replace in ctx.python, without importing
    it: {"version", "origin"} (version None when there is none)."""
    rc, out, err = ctx.probes.run([ctx.python, "-c", TORCH_PROBE])
    for line in out.splitlines():
        if line.startswith("XSL-TORCH "):
            return dict(json.loads(line[len("XSL-TORCH ") :]))
    raise StepFailed(f"cannot ask {ctx.python} for its torch (exit {rc}): {err.strip()[-200:] or 'no output'}")


def fresh_environment_finding(ctx: Context) -> Any:
    """ERROR when ctx.python already has a torch that this harness did not
    build from ctx.src: the build would replace it (--force allows it)."""
    found = installed_torch(ctx)
    origin = str(found.get("origin") or "")
    ours = bool(origin) and Path(origin).resolve().is_relative_to(ctx.src.resolve())
    if not found.get("version") or ours:
        what = "no torch yet" if not found.get("version") else f"torch {found['version']} built here from {ctx.src}"
        return doctor.Finding("fresh-environment", doctor.OK, f"{ctx.python}: {what}")
    title = f"{ctx.python} already has torch {found['version']} ({origin}); the build replaces it"
    if ctx.force:
        return doctor.Finding("fresh-environment", doctor.WARNING, title + " (--force)")
    return doctor.Finding(
        "fresh-environment",
        doctor.ERROR,
        title,
        "The PyTorch build installs into the Python that runs it (pip install -e), over any torch there.",
        "Build in a fresh virtual environment: py -3.12 -m venv C:\\xsl\\venv, "
        "then C:\\xsl\\venv\\Scripts\\activate.bat "
        "(PowerShell: C:\\xsl\\venv\\Scripts\\Activate.ps1) and run the harness again; or pass --force to replace it.",
    )


def level_zero_headers_finding(probes: Any, env: Mapping[str, str]) -> Any:
    """Whether the PyTorch build will get the Level Zero headers
    (level_zero_sdk_path), checked before the clone."""
    for key, value in env.items():
        if key.upper() == "LEVEL_ZERO_V1_SDK_PATH":
            return doctor.Finding(
                "level-zero-headers", doctor.OK, f"Level Zero SDK for the PyTorch build: {key}={value}"
            )
    headers = find_level_zero_headers(probes)
    if headers.folder:
        return doctor.Finding(
            "level-zero-headers",
            doctor.OK,
            f"Level Zero headers for the PyTorch build: {headers.folder} (from {headers.source})",
        )
    return doctor.Finding(
        "level-zero-headers",
        doctor.ERROR,
        "no Level Zero headers (level_zero\\ze_api.h) for the PyTorch build",
        "The PR stack's Windows build of c10/xpu includes level_zero\\ze_api.h. Looked at: " + ", ".join(headers.tried),
        "Run 'python scripts\\level_zero_sdk.py --dest C:\\xsl\\level-zero-sdk' (the official Level Zero SDK zip, "
        "checked against the SHA-256 GitHub publishes for it) and set LEVEL_ZERO_V1_SDK_PATH=C:\\xsl\\level-zero-sdk.",
    )


def build_environment_findings(ctx: Context) -> list[Any]:
    """Runs the env-script chain the build uses (vcvarsall.bat x64, then
    oneAPI's two vars.bat) once before the clone: it can fail on its own
    ("The input line is too long"). Nothing when a script is missing (the
    Visual Studio and oneAPI findings say so)."""
    if ctx.env is None and (find_vcvarsall(ctx.probes) is None or None in oneapi_scripts(ctx.probes).values()):
        return []
    try:
        build_environment(ctx)
    except StepFailed as err:
        return [
            doctor.Finding(
                "build-environment",
                doctor.ERROR,
                "the build environment cannot be set up (vcvarsall.bat x64, then oneAPI's compiler and ocloc vars.bat)",
                str(err),
                'Run those scripts one by one in a new cmd to see which fails; an over-long PATH ("The input line is '
                'too long") is the usual cause: see the PATH finding.',
            )
        ]
    return [
        doctor.Finding(
            "build-environment",
            doctor.OK,
            "build environment set up (vcvarsall.bat x64, oneAPI "
            f"compiler and ocloc vars.bat); later shells: {ctx.work / 'activate.cmd'}",
        )
    ]


def step_prerequisites(ctx: Context, log: StepLog) -> Outcome:
    """Everything the build and test steps need, checked before the long
    clone: toolchain, Python, the GPU's architecture, a fresh environment,
    the env-script chain, the Level Zero headers, and the machine."""
    findings = windows_prerequisites(ctx.probes, ctx.ref)
    findings.append(arch_finding(ctx))
    findings.append(fresh_environment_finding(ctx))
    findings += doctor.check_path_length(ctx.probes)
    findings += build_environment_findings(ctx)
    findings.append(level_zero_headers_finding(ctx.probes, ctx.env if ctx.env is not None else ctx.probes.env))
    findings += doctor.check_ocloc(ctx.probes)
    findings += doctor.check_long_paths(ctx.probes)
    findings += doctor.check_level_zero(ctx.probes)
    return _print_findings(ctx, findings, log)


def step_doctor_portable(ctx: Context, log: StepLog) -> Outcome:
    outcome = step_doctor(ctx, log)
    # On a machine without an XPU torch the findings are expected: report them
    # without failing the portable run.
    return Outcome(WARN if outcome.status == FAILED else outcome.status, outcome.detail)


def _run_or_fail(
    ctx: Context,
    log: StepLog,
    argv: Sequence[str],
    what: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> None:
    rc = run_logged(argv, log, cwd=cwd, env=env)
    if rc != 0:
        raise StepFailed(f"{what} failed (exit {rc}); see {log.path}")


def portable_build_dir(ctx: Context) -> Path:
    return ctx.build_dir or REPO / "build" / ctx.preset


def step_portable_build(ctx: Context, log: StepLog) -> Outcome:
    configure = ["cmake", "--preset", ctx.preset]
    build = ["cmake", "--build", "--preset", ctx.preset, "-j", str(ctx.jobs)]
    if ctx.build_dir:
        configure += ["-B", str(ctx.build_dir)]
        build = ["cmake", "--build", str(ctx.build_dir), "-j", str(ctx.jobs)]
    env: dict[str, str] | None = None
    if ctx.probes.windows:
        # From a plain cmd: cl.exe needs the VS environment, and Level Zero's
        # headers are in no default include path.
        env, env_source = msvc_environment(ctx)
        log.write(f"MSVC environment: {env_source}")
        headers = find_level_zero_headers(ctx.probes)
        if headers.folder is None:
            raise StepFailed(
                "Level Zero headers (level_zero\\ze_api.h) not found; looked at "
                + ", ".join(headers.tried)
                + ". Run 'python scripts\\level_zero_sdk.py --dest C:\\xsl\\level-zero-sdk' (the official Level Zero "
                "SDK zip) and set LEVEL_ZERO_V1_SDK_PATH=C:\\xsl\\level-zero-sdk, or set XSL_LEVEL_ZERO_INCLUDE_DIR "
                "to the folder that holds level_zero\\ze_api.h"
            )
        where = f"Level Zero headers: {headers.folder} (from {headers.source})"
        log.write(where)
        ctx.out(f"      {where}")
        configure.append(f"-DXSL_LEVEL_ZERO_INCLUDE_DIR={headers.folder}")
    _run_or_fail(ctx, log, configure, "cmake configure", cwd=REPO, env=env)
    _run_or_fail(ctx, log, build, "cmake build", cwd=REPO, env=env)
    return Outcome(OK, f"preset {ctx.preset} in {portable_build_dir(ctx)}")


def step_portable_test(ctx: Context, log: StepLog) -> Outcome:
    junit = ctx.junit / f"ctest-{ctx.preset}.xml"
    junit.parent.mkdir(parents=True, exist_ok=True)
    target = ["--test-dir", str(ctx.build_dir)] if ctx.build_dir else ["--preset", ctx.preset]
    argv = ["ctest", *target, "-j", str(ctx.jobs), "--output-junit", str(junit)]
    rc = run_logged(argv, log, cwd=REPO)
    counts = next(
        (line for line in reversed(log.path.read_text(encoding="utf-8").splitlines()) if "tests passed" in line), ""
    )
    if rc != 0:
        raise StepFailed(f"ctest failed: {counts or 'see log'}")
    return Outcome(OK, counts.strip())


def _zebin_info_binary(ctx: Context) -> Path | None:
    exe = "zebin-info.exe" if ctx.probes.windows else "zebin-info"
    tools = portable_build_dir(ctx) / "csrc" / "tools"
    for candidate in sorted(tools.rglob(exe)) if tools.is_dir() else []:
        if candidate.is_file():
            return candidate
    return None


def step_kernels(ctx: Context, log: StepLog) -> Outcome:
    report = ctx.probes.find_ocloc()
    if not report.path:
        return Outcome(SKIPPED, "no ocloc found (see the doctor)")
    out_dir = ctx.work / "kernels"
    _run_or_fail(
        ctx,
        log,
        [
            ctx.python,
            str(REPO / "tests" / "kernels" / "make_corpus.py"),
            "--out",
            str(out_dir),
            "--ocloc",
            report.path,
            "--devices",
            "pvc",
        ],
        "compiling tests/kernels with ocloc",
    )
    zebins = sorted(out_dir.glob("*.zebin"))
    if not zebins:
        raise StepFailed(f"ocloc produced no .zebin in {out_dir}")
    tool = _zebin_info_binary(ctx)
    if tool is None:
        return Outcome(WARN, f"{len(zebins)} zebins in {out_dir}; zebin-info not built, nothing inspected")
    shown = 0
    for zebin in zebins:
        rc = run_logged([str(tool), str(zebin)], log)
        if rc != 0:
            raise StepFailed(f"zebin-info failed on {zebin.name}")
        shown += 1
    # Print one report so the user sees what the launcher reads.
    text = log.path.read_text(encoding="utf-8").splitlines()
    first = [line for line in text if not line.startswith(("$", "(exit"))][:14]
    for line in first:
        ctx.out(f"      | {line}")
    return Outcome(OK, f"{shown} zebins compiled and inspected ({out_dir})")


PATCH_ROOT = REPO / "patches" / "pytorch"


def step_patchset_selfcheck(ctx: Context, log: StepLog) -> Outcome:
    """Applies every PR stack (and the project-launcher option) to trees rebuilt
    from the patches, re-applies (no-op) and reverses; the series matching
    this torch gets its real utils.py."""
    rc, out, _ = ctx.probes.run(
        [ctx.python, "-c", "import torch, os; print(torch.__version__); print(os.path.dirname(torch.__file__))"]
    )
    version, utils = (out.split() + ["", ""])[:2] if rc == 0 else ("", "")
    real_utils = Path(utils) / "_inductor" / "utils.py" if utils else None
    checked = []
    try:
        every = patchset.list_series(PATCH_ROOT)
        for series in every:
            for launcher in patchset.LAUNCHERS:
                with tempfile.TemporaryDirectory() as tmp:
                    root = Path(tmp)
                    for path, text in patchset.reconstruct_preimages(series.patches()).items():
                        (root / path).parent.mkdir(parents=True, exist_ok=True)
                        (root / path).write_bytes(text.render())
                    if (
                        real_utils is not None
                        and real_utils.is_file()
                        and any(version.startswith(v + ".") for v in series.versions)
                    ):
                        shutil.copyfile(real_utils, root / "torch" / "_inductor" / "utils.py")
                        checked.append(f"{series.name} with {real_utils}")
                    (root / "build_variables.bzl").write_text(
                        f'    "{patchset.Manifest.load(PATCH_ROOT).build_list_anchor}",\n', encoding="utf-8"
                    )
                    for reverse in (False, False, True):
                        result = patchset.apply_stack(series, launcher, PATCH_ROOT, root, reverse=reverse)
                        for line in result.lines:
                            log.write(line)
                        if not result.ok:
                            raise StepFailed(
                                f"the {series.name} stack ({launcher} launcher) does not apply to its rebuilt tree; "
                                "see the log"
                            )
    except patchset.PatchError as err:
        raise StepFailed(str(err)) from err
    real = (
        f"; real utils.py: {', '.join(sorted(set(checked)))}"
        if checked
        else "; no series matches this torch's utils.py"
    )
    return Outcome(
        OK, f"{len(every)} stacks x {len(patchset.LAUNCHERS)} launchers apply, re-apply as no-op, reverse{real}"
    )


def step_checkout(ctx: Context, log: StepLog) -> Outcome:
    src = ctx.src
    git = ["git", "-c", "core.longpaths=true"]
    if (src / ".git").exists():
        _run_or_fail(
            ctx,
            log,
            git + ["-C", str(src), "fetch", "--depth", "1", "origin", "tag", ctx.ref, "--no-tags"],
            "git fetch",
        )
        _run_or_fail(ctx, log, git + ["-C", str(src), "checkout", "--force", ctx.ref], "git checkout")
    else:
        src.parent.mkdir(parents=True, exist_ok=True)
        _run_or_fail(
            ctx,
            log,
            git
            + [
                "clone",
                "--depth",
                "1",
                "--branch",
                ctx.ref,
                "--recurse-submodules",
                "--shallow-submodules",
                "-j",
                str(ctx.jobs),
                PYTORCH_URL,
                str(src),
            ],
            "git clone",
        )
    _run_or_fail(
        ctx,
        log,
        git + ["-C", str(src), "submodule", "update", "--init", "--recursive", "--depth", "1", "-j", str(ctx.jobs)],
        "git submodule update",
    )
    return Outcome(OK, f"{ctx.ref} in {src}")


# What a reset before re-applying discards: `checkout HEAD -- .` (every tracked
# file) and `clean -fd` of these folders (untracked files, not ignored ones).
RESET_CLEAN_DIRS = ("torch", "test")


def local_changes(src: Path) -> list[str]:
    """`git status` lines (`M path`, `?? path`) a reset of `src` would discard."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(src), "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            capture_output=True,
        )
    except OSError as err:
        raise StepFailed(f"cannot run git to look for local changes in --src {src}: {err}") from err
    if proc.returncode != 0:
        raise StepFailed(f"git status failed in --src {src}: {proc.stderr.decode('utf-8', 'replace').strip()}")
    changes = []
    entries = iter(proc.stdout.decode("utf-8", "replace").split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code[0] in "RC":
            next(entries, None)  # the rename's source path
        if code == "??" and path.split("/", 1)[0] not in RESET_CLEAN_DIRS:
            continue
        changes.append(f"{code.strip()} {path}")
    return changes


def reverse_other_launcher(ctx: Context, chosen: patchset.Series, log: StepLog) -> None:
    """When the checkout holds this series with the other launcher in full (a
    switch of --launcher), reverses that stack before ours is applied: it
    takes back only text this patchset wrote, so no --force is needed, and
    the launchers' shared patches are never left half applied."""
    other = patchset.launcher_in_place(chosen, ctx.src, PATCH_ROOT, ctx.launcher)
    if other is None:
        return
    log.write(f"the checkout holds the {chosen.name} stack with the {other} launcher: reversing it first")
    undone = patchset.apply_stack(chosen, other, PATCH_ROOT, ctx.src, reverse=True)
    for line in undone.lines:
        log.write(line)


def _apply_stack(ctx: Context, chosen: patchset.Series, log: StepLog) -> str | None:
    """Applies the chosen stack; its last line, or None when it does not fit
    (the report is in the log)."""
    try:
        result = patchset.apply_stack(chosen, ctx.launcher, PATCH_ROOT, ctx.src)
    except patchset.PatchError as err:
        log.write(f"error: {err}")
        return None
    for line in result.lines:
        log.write(line)
    return result.lines[-1] if result.ok else None


def step_apply(ctx: Context, log: StepLog) -> Outcome:
    try:
        chosen = patchset.select_series(PATCH_ROOT, ctx.src, ctx.series)
        log.write(f"series {chosen.name} (base {chosen.base}), {ctx.launcher} launcher")
        reverse_other_launcher(ctx, chosen, log)
    except patchset.PatchError as err:
        raise StepFailed(str(err)) from err
    done = _apply_stack(ctx, chosen, log)
    changes = local_changes(ctx.src) if done is None and (ctx.src / ".git").exists() else []
    if changes:
        # Usually an older version of this patchset is applied: go back to the
        # tag (tracked files, and untracked files outside ignored build dirs),
        # but only when asked to: the changes may be the user's own edits.
        if not ctx.force:
            shown = ", ".join(changes[:8]) + (f" and {len(changes) - 8} more" if len(changes) > 8 else "")
            raise StepFailed(
                f"the patchset does not fit {ctx.src}, which has local changes ({shown}): "
                "commit or stash them, or pass --force to reset the checkout to its tag and discard them"
            )
        log.write(
            "--force: resetting the checkout to its tag (discarding: " + ", ".join(changes) + ") and applying again."
        )
        _run_or_fail(ctx, log, ["git", "-C", str(ctx.src), "checkout", "--force", "HEAD", "--", "."], "git checkout")
        _run_or_fail(ctx, log, ["git", "-C", str(ctx.src), "clean", "-fd", "--", *RESET_CLEAN_DIRS], "git clean")
        done = _apply_stack(ctx, chosen, log)
    if done is None:
        raise StepFailed(f"the {chosen.name} stack does not fit this checkout (drift report in the log)")
    return Outcome(OK, f"{chosen.name}, {ctx.launcher} launcher: {done}")


def build_environment(ctx: Context) -> dict[str, str]:
    if ctx.env is None:
        vcvars = find_vcvarsall(ctx.probes)
        scripts = oneapi_scripts(ctx.probes)
        compiler, ocloc = scripts["compiler"], scripts["ocloc"]
        missing = [
            name
            for name, path in (
                ("vcvarsall.bat", vcvars),
                ("compiler vars.bat", compiler),
                ("ocloc vars.bat", ocloc),
            )
            if not path
        ]
        if missing or not (vcvars and compiler and ocloc):
            raise StepFailed(f"missing {', '.join(missing)}: run 'harness.py doctor' for the fix")
        ctx.env = capture_build_env(ctx.probes, [(vcvars, "x64"), (compiler, ""), (ocloc, "")])
        write_activate_scripts(ctx.work, ctx.probes.env, ctx.env)
    env = dict(ctx.env)
    env.update(
        {
            "USE_XPU": "1",
            "USE_CUDA": "0",
            "CMAKE_GENERATOR": "Ninja",
            "MAX_JOBS": str(ctx.jobs),
            "BUILD_TEST": "0",
            "DISTUTILS_USE_SDK": "1",
        }
    )
    if ctx.arch:
        env["TORCH_XPU_ARCH_LIST"] = ctx.arch
    return env


ACTIVATE_NOTE = (
    "Generated by scripts/harness.py: the Visual Studio (cl.exe), oneAPI compiler (SYCL runtime and "
    "headers) and ocloc environment a source-built torch needs in a new shell."
)


def environment_changes(base: Mapping[str, str], captured: Mapping[str, str]) -> dict[str, str]:
    """The variables the env scripts set or changed (names compared as
    Windows does, without case)."""
    before = {key.upper(): value for key, value in base.items()}
    return {
        key: value
        for key, value in sorted(captured.items(), key=lambda kv: kv[0].upper())
        if before.get(key.upper()) != value
    }


def write_activate_scripts(work: Path, base: Mapping[str, str], captured: Mapping[str, str]) -> tuple[Path, Path]:
    """<work>/activate.cmd and activate.ps1: set what the captured build
    environment changed, so later shells need no vcvarsall/vars.bat chain
    (which can pass cmd's line limit)."""
    changes = environment_changes(base, captured)
    work.mkdir(parents=True, exist_ok=True)
    cmd = ["@echo off", f"rem {ACTIVATE_NOTE}"]
    cmd += ['set "{}={}"'.format(key, value.replace("%", "%%")) for key, value in changes.items()]
    ps1 = [f"# {ACTIVATE_NOTE}"]
    ps1 += [
        "Set-Item -LiteralPath 'Env:{}' -Value '{}'".format(key, value.replace("'", "''"))
        for key, value in changes.items()
    ]
    paths = (work / "activate.cmd", work / "activate.ps1")
    text = "\r\n".join(cmd) + "\r\n"
    try:  # cmd.exe reads a batch file in the console's OEM code page
        data = text.encode("oem")
    except (LookupError, UnicodeEncodeError):  # not Windows, or a name the OEM page lacks
        data = text.replace("@echo off\r\n", "@echo off\r\nchcp 65001 >nul\r\n", 1).encode("utf-8")
    paths[0].write_bytes(data)
    paths[1].write_bytes(("\r\n".join(ps1) + "\r\n").encode("utf-8-sig"))
    return paths


def level_zero_sdk_path(probes: Any, env: Mapping[str, str]) -> str:
    """LEVEL_ZERO_V1_SDK_PATH for the PyTorch build: the PR stack's "Enable
    ... on Windows" has c10/xpu find level_zero\\ze_api.h there (or in its
    include\\), as Inductor and Triton-XPU read it. Set already, it stays;
    else the headers found for the launcher serve."""
    for key, value in env.items():
        if key.upper() == "LEVEL_ZERO_V1_SDK_PATH":
            return value
    headers = find_level_zero_headers(probes)
    if headers.folder is None:
        raise StepFailed(
            "the PyTorch build needs the Level Zero headers (level_zero\\ze_api.h) and found none at "
            + ", ".join(headers.tried)
            + ": run 'python scripts\\level_zero_sdk.py --dest C:\\xsl\\level-zero-sdk' "
            "(the official Level Zero SDK zip) and set LEVEL_ZERO_V1_SDK_PATH=C:\\xsl\\level-zero-sdk"
        )
    parent, _, last = headers.folder.rpartition("\\")
    return parent if parent and last.lower() == "include" else headers.folder


def step_build(ctx: Context, log: StepLog) -> Outcome:
    if not ctx.arch:
        raise StepFailed("no architecture to build for: pass --arch (see the gpu-arch finding of 'harness.py doctor')")
    guard = fresh_environment_finding(ctx)
    if guard.severity == doctor.ERROR:
        raise StepFailed(f"{guard.title}: {guard.fix}")
    env = build_environment(ctx)
    env["LEVEL_ZERO_V1_SDK_PATH"] = level_zero_sdk_path(ctx.probes, env)
    for key in ("USE_XPU", "TORCH_XPU_ARCH_LIST", "CMAKE_GENERATOR", "MAX_JOBS", "LEVEL_ZERO_V1_SDK_PATH"):
        log.write(f"{key}={env[key]}")
    _run_or_fail(
        ctx,
        log,
        [ctx.python, "-m", "pip", "install", "-r", "requirements.txt"],
        "pip install requirements",
        cwd=ctx.src,
        env=env,
    )
    _run_or_fail(
        ctx,
        log,
        [ctx.python, "-m", "pip", "install", "--no-build-isolation", "-v", "-e", "."],
        "PyTorch build",
        cwd=ctx.src,
        env=env,
    )
    return Outcome(OK, f"USE_XPU=1 TORCH_XPU_ARCH_LIST={ctx.arch}")


def triton_requirement(src: Path) -> tuple[str, list[str]]:
    """(description, pip arguments) for the Triton-XPU this checkout pins."""
    version_file = src / TRITON_XPU_VERSION_FILE
    commit_file = src / TRITON_XPU_COMMIT_FILE
    if version_file.is_file():
        version = version_file.read_text(encoding="utf-8").strip()
        return (
            f"pytorch-triton-xpu=={version} ({TRITON_XPU_VERSION_FILE})",
            ["pytorch-triton-xpu==" + version, "--index-url", doctor.XPU_WHEEL_INDEX],
        )
    if commit_file.is_file():
        commit = commit_file.read_text(encoding="utf-8").strip()
        return (
            f"intel-xpu-backend-for-triton@{commit[:12]} ({TRITON_XPU_COMMIT_FILE})",
            [f"git+{TRITON_XPU_URL}@{commit}#subdirectory=python"],
        )
    raise StepFailed(
        f"neither {TRITON_XPU_VERSION_FILE} nor {TRITON_XPU_COMMIT_FILE} in {src}: is it a PyTorch checkout?"
    )


def verify_command(ctx: Context, env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """`python -m xpu_static_launcher verify --no-install` from this checkout's
    package sources (stdlib only until torch): the built torch must launch a
    compiled kernel through its own launcher, with no fallback."""
    run_env = dict(env)
    package = str(REPO / "python")
    key = next((k for k in run_env if k.upper() == "PYTHONPATH"), "PYTHONPATH")
    run_env[key] = package + (os.pathsep + run_env[key] if run_env.get(key) else "")
    return [ctx.python, "-m", "xpu_static_launcher", "verify", "--no-install"], run_env


def step_test(ctx: Context, log: StepLog) -> Outcome:
    # A source-built torch needs the oneAPI runtime (sycl*.dll) and ocloc on
    # PATH at run time too: use the captured build environment.
    env = build_environment(ctx)
    what, pip_args = triton_requirement(ctx.src)
    log.write(f"Triton-XPU: {what}")
    _run_or_fail(ctx, log, [ctx.python, "-m", "pip", "install", "--no-deps", *pip_args], f"installing {what}", env=env)
    _run_or_fail(
        ctx,
        log,
        [ctx.python, "-m", "pip", "install", "pytest", "expecttest", "hypothesis"],
        "installing test tools",
        env=env,
    )
    ctx.junit.mkdir(parents=True, exist_ok=True)
    failed = []
    for name, args in XPU_TESTS:
        junit = ctx.junit / f"{name}.xml"
        rc = run_logged([ctx.python, "-m", "pytest", "-v", *args, f"--junitxml={junit}"], log, cwd=ctx.src, env=env)
        if rc != 0:
            failed.append(name)
    argv, verify_env = verify_command(ctx, env)
    rc = run_logged(argv, log, cwd=ctx.work, env=verify_env)
    if rc != 0:
        failed.append("static-launch verification")
    if failed:
        raise StepFailed(f"failed: {', '.join(failed)} (JUnit XML in {ctx.junit})")
    return Outcome(OK, f"2 test files + verification passed; JUnit XML in {ctx.junit}")


# --------------------------------------------------------------------------
# Plans


def _fp(*parts: object) -> str:
    return hashlib.sha256("\0".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:16]


def _patch_digest(ctx: Context) -> str:
    """Changes when the stacks, the launcher choice or (project) csrc/ change."""
    digest = hashlib.sha256(f"{ctx.launcher}\0{ctx.series}".encode())
    for path in sorted(PATCH_ROOT.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(PATCH_ROOT).as_posix().encode("utf-8") + b"\0" + path.read_bytes())
    if ctx.launcher == "project":
        digest.update(patchset.regen_text(REPO, patchset.Manifest.load(PATCH_ROOT)).encode("utf-8"))
    return digest.hexdigest()[:16]


def windows_steps() -> list[Step]:
    return [
        Step(
            "prerequisites",
            "VS 2022, oneAPI, git, Python, GPU architecture, build environment, Level Zero, long paths",
            step_prerequisites,
            _windows_only,
            hint=lambda c: "all checked before the clone",
        ),
        Step(
            "checkout",
            "clone PyTorch with submodules",
            step_checkout,
            _windows_only,
            lambda c: _fp(c.ref, c.src),
            hint=lambda c: f"a long download: PyTorch {c.ref} and all its submodules",
        ),
        Step(
            "apply",
            "apply the PR stack (patches/pytorch)",
            step_apply,
            _windows_only,
            lambda c: _fp(c.src, _patch_digest(c)),
        ),
        Step(
            "build",
            "build PyTorch (USE_XPU=1, Ninja)",
            step_build,
            _windows_only,
            lambda c: _fp(c.src, c.arch, _patch_digest(c)),
            hint=lambda c: f"TORCH_XPU_ARCH_LIST={c.arch or '?'}, {c.jobs} jobs; the long step: expect hours",
        ),
        Step(
            "test",
            "Triton-XPU, tests, static-launch check",
            step_test,
            _windows_only,
            lambda c: _fp(c.src, c.arch, _patch_digest(c)),
            hint=lambda c: "compiles and runs the tests' kernels on the GPU",
        ),
    ]


def portable_steps() -> list[Step]:
    return [
        Step(
            "doctor",
            "doctor (findings are expected without an XPU)",
            step_doctor_portable,
            fatal=False,
            resumable=False,
        ),
        Step(
            "portable-build", "build the portable C++ (CMake preset)", step_portable_build, fatal=False, resumable=False
        ),
        Step("portable-test", "ctest", step_portable_test, fatal=False, needs=("portable-build",), resumable=False),
        Step("kernels", "compile tests/kernels with ocloc, zebin-info", step_kernels, fatal=False, resumable=False),
        Step(
            "patchset", "PR stacks on rebuilt trees + this torch", step_patchset_selfcheck, fatal=False, resumable=False
        ),
    ] + [dataclasses.replace(s, fatal=False) for s in windows_steps()]


# Commands that only run on Windows, and the exit code when nothing could run.
WINDOWS_COMMANDS = ("all", "checkout", "apply", "build", "test")
NOTHING_RAN = 2


def plan_for(command: str | None) -> list[Step]:
    steps = {s.name: s for s in windows_steps()}
    if command in (None, "run"):
        return portable_steps()
    if command == "all":
        return windows_steps() + [
            Step("doctor", "doctor on the built torch, in the build environment", step_doctor_built, resumable=False)
        ]
    if command == "doctor":
        return [Step("doctor", "doctor", step_doctor, resumable=False)]
    return [steps[command]]


# --------------------------------------------------------------------------
# Command line


def physical_memory() -> int | None:
    """Bytes of RAM, or None when it cannot be read."""
    if sys.platform == "win32":  # pragma: no cover - Windows only
        import ctypes

        class MemoryStatus(ctypes.Structure):
            _fields_ = [("dwLength", ctypes.c_uint32), ("dwMemoryLoad", ctypes.c_uint32)] + [
                (name, ctypes.c_uint64)
                for name in ("total", "avail", "page_total", "page_avail", "virt_total", "virt_avail", "ext_avail")
            ]

        status = MemoryStatus()
        status.dwLength = ctypes.sizeof(status)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined,unused-ignore]  # Windows only
            return int(status.total)
        return None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def default_jobs(cores: int, memory: int | None, windows: bool) -> int:
    """Cores, at most one job per MEMORY_PER_JOB (SYCL compiles are large);
    off Windows at most 2 (the portable run on small CI machines)."""
    jobs = cores
    if memory:  # Windows reports a little less than the installed memory
        jobs = min(jobs, (memory + GIB // 2) // MEMORY_PER_JOB)
    if not windows:
        jobs = min(jobs, 2)
    return max(1, jobs)


def default_src(probes: Any) -> Path:
    # Short on purpose: PyTorch's build tree is deep (MAX_PATH).
    return Path(r"C:\xsl\pt") if probes.windows else REPO / "build" / "pytorch-src"


def make_context(args: argparse.Namespace, probes: Any | None = None) -> Context:
    probes = probes or doctor.Probes(python=args.python)
    work = Path(args.work) if args.work else REPO / "build" / "harness"
    preset = args.preset or ("windows-msvc" if probes.windows else "linux-gcc")
    return Context(
        work=work,
        ref=args.ref,
        src=Path(args.src) if args.src else default_src(probes),
        arch=(args.arch or "").strip(),
        python=args.python or sys.executable,
        jobs=args.jobs,
        preset=preset,
        probes=probes,
        force=args.force,
        build_dir=Path(args.build_dir).resolve() if args.build_dir else None,
        launcher=args.launcher,
        series=args.series,
        force_arch=args.force_arch,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Build and test PyTorch with the Windows-capable XPU static launcher.",
        epilog="Without a command: the default run for this machine (see the module help).",
    )
    parser.add_argument(
        "command",
        nargs="?",
        choices=["doctor", "checkout", "apply", "build", "test", "all", "run"],
        help="'doctor'; one Windows step or 'all' (Windows with an Intel GPU only; elsewhere exit 2, "
        "nothing runs); or nothing/'run' for this machine's default run",
    )
    parser.add_argument("--work", help="state, logs and JUnit XML (default: build/harness)")
    parser.add_argument("--src", help=r"PyTorch checkout (default: C:\xsl\pt on Windows)")
    parser.add_argument("--ref", default=DEFAULT_REF, help="PyTorch tag (default: %(default)s)")
    parser.add_argument(
        "--arch",
        help="TORCH_XPU_ARCH_LIST: the GPU architecture(s) to build for, comma-separated ocloc device names ("
        + ", ".join(f"{value}: {gpus}" for value, gpus in ARCH_GPUS.items())
        + "); default: detected from this machine's Intel GPU. A value that matches no GPU here is refused "
        "unless --force-arch is given",
    )
    parser.add_argument(
        "--force-arch",
        action="store_true",
        help="build for --arch even when it does not match this machine's GPU (a build for another machine; "
        "the test step needs this machine's architecture)",
    )
    parser.add_argument(
        "--launcher",
        choices=patchset.LAUNCHERS,
        default="upstream",
        help="upstream: the PR stack, i.e. upstream's launcher made Windows-capable (default); "
        "project: the stack plus this project's launcher instead of upstream's xpu.cpp",
    )
    parser.add_argument(
        "--series", help="patches/pytorch/<series> to apply (default: chosen by the checkout's version.txt)"
    )
    parser.add_argument("--python", help="interpreter to build and test with (default: this one)")
    parser.add_argument("--preset", help="CMake preset for the portable build (default per platform)")
    parser.add_argument("--build-dir", help="binary dir for the portable build (default: the preset's)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(os.cpu_count() or 2, physical_memory(), sys.platform == "win32"),
        help=f"parallel build/test jobs (default: %(default)s: the cores, at most one per "
        f"{MEMORY_PER_JOB // GIB} GiB of memory; 2 at most off Windows)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="rerun steps that finished earlier; apply: reset a --src checkout with local changes to its tag first "
        "(discards them); build: replace a torch in this Python that was not built from --src",
    )
    parser.add_argument("--json", action="store_true", help="doctor only: machine-readable output")
    return parser


def main(argv: Sequence[str] | None = None, probes: Any | None = None, steps: Sequence[Step] | None = None) -> int:
    args = build_parser().parse_args(argv)
    ctx = make_context(args, probes)
    if args.command == "doctor":
        findings = all_findings(ctx)
        print(doctor.render_json(findings, ctx.probes) if args.json else doctor.render_text(findings, ctx.probes))
        return 1 if any(f.severity == doctor.ERROR for f in findings) else 0
    if steps is None and args.command in WINDOWS_COMMANDS and not ctx.probes.windows:
        ctx.out(
            f"harness.py {args.command}: builds and tests PyTorch on Windows with an Intel GPU; this machine is "
            f"{ctx.probes.platform}, so nothing runs. Here, run `python3 scripts/harness.py` (the default run: "
            "portable build and tests, kernels, patchset) or `python3 scripts/harness.py doctor`."
        )
        return NOTHING_RAN
    plan = list(steps) if steps is not None else plan_for(args.command)
    ctx.out(
        f"xpu-static-launcher harness: {args.command or 'default run'} on {ctx.probes.platform}; work dir {ctx.work}"
    )
    if args.command in ARCH_COMMANDS and ctx.probes.windows:
        # Before any step: a wrong architecture would only show after hours.
        choice = choose_arch(ctx.arch, ctx.force_arch, read_gpu_names(ctx.probes))
        ctx.arch_finding = choice.finding
        if choice.finding.severity == doctor.ERROR:
            ctx.out(f"harness.py {args.command}: {choice.finding.title}")
            ctx.out(f"  why: {choice.finding.detail}")
            ctx.out(f"  fix: {choice.finding.fix}")
            return NOTHING_RAN
        ctx.arch = choice.arch
        ctx.out(f"GPU architecture: {choice.finding.title}")
    results = run_steps(ctx, plan)
    write_junit(results, ctx.junit / "harness.xml")
    ctx.out("")
    ctx.out(summary_table(results))
    skipped = [r for r in results if r.status == SKIPPED]
    if skipped:
        ctx.out("")
        ctx.out("Skipped here:")
        for r in skipped:
            ctx.out(f"  - {r.name}: {r.detail}")
    failed = [r for r in results if r.status == FAILED]
    ran = len(results) - len(skipped)
    ctx.out("")
    if failed:
        ctx.out("FAILED: " + ", ".join(r.name for r in failed))
        return 1
    if ran == 0:
        ctx.out("Nothing ran: every step was skipped (reasons above).")
        return NOTHING_RAN
    ctx.out(
        f"All {ran} step(s) that can run here passed"
        + (f"; {len(skipped)} skipped (listed above)." if skipped else ".")
    )
    activate = ctx.work / "activate.cmd"
    if args.command in ("all", "build", "test") and activate.is_file():
        ctx.out(
            f'To use this torch in a new shell, set it up first: cmd: call "{activate}"; '
            f'PowerShell: . "{activate.with_suffix(".ps1")}"'
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
