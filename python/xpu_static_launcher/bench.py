"""``python -m xpu_static_launcher verify --bench``: what static launch buys on
this GPU and this torch, timed on a small compiled model.

The model returns four pointwise results of two small tensors; with
Inductor's ``max_fusion_size`` at 1 each becomes a kernel of its own, so one
call of the compiled model is four launches. Four runs:

1. static launch: the model compiled with Inductor's static launch on
   (``use_static_triton_launcher``; ``use_static_cuda_launcher`` in a torch
   without the alias) and the caches off, then ``--bench-calls`` calls timed
   with one synchronisation at the end: host time per launch;
2. Triton's launch: the same with Inductor's static launch off, so every
   kernel goes through Triton's own launcher;
3. cold start: a new Python process compiles the model with
   ``mode="max-autotune-no-cudagraphs"`` (each kernel's configs are tried on
   the GPU) and empty caches: Inductor's (``TORCHINDUCTOR_CACHE_DIR``, with its
   FX graph and autotune caches), Triton's (``TRITON_CACHE_DIR``) and the kept
   native binaries (``XSL_KERNEL_CACHE_DIR``), all in one new folder; the
   time of the first call (compile + autotune + one run) is measured inside;
4. warm start: the same in another new process with the caches the cold start
   left.

It prints one line per run as it starts (with the seconds since the bench
began, flushed), then a table and two ratios: static over Triton's host time
per launch, and warm over cold compile + autotune time. Every run counts the
launchers Inductor set up (``verify.launch_counter``); the bench fails when the
static run set up no static launch or the Triton run set one up, since the
ratio would then compare a launcher with itself.

``python -m xpu_static_launcher.bench start`` is the cold and warm starts'
child process. Stdlib only, apart from torch.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import verify

DEFAULT_CALLS = 2000
WARMUP_CALLS = 20
START_TIMEOUT = 1800.0  # seconds for one cold or warm start
# The child's result line on stdout: this marker, then JSON.
RESULT_MARKER = "XSL_BENCH_RESULT "
PACKAGE_PARENT = str(Path(__file__).resolve().parents[1])
COMPILE_MODE = "max-autotune-no-cudagraphs"
# Every output its own kernel: nothing is fused.
MODEL_SETTINGS: dict[str, Any] = {"max_fusion_size": 1}
STATIC_FLAGS = ("use_static_triton_launcher", "use_static_cuda_launcher")
MODEL_NAME = "the bench's model"


class BenchError(RuntimeError):
    """A run of the bench failed; the message is the one line to print."""


def model(x: Any, y: Any) -> Any:
    """Four pointwise results: four kernels with ``MODEL_SETTINGS``."""
    return (x * 2 + y).relu(), x.sin() + y, (x - y).abs(), x * y + 1


@dataclasses.dataclass
class LaunchTiming:
    """Runs 1 and 2: ``calls`` calls of the compiled model took ``seconds``."""

    launcher: str  # "static launch" or "Triton's launch"
    calls: int
    kernels: int  # per call
    seconds: float
    static: int = 0  # static launchers Inductor set up
    fallback: int = 0  # Triton launchers Inductor set up

    @property
    def launches(self) -> int:
        return self.calls * self.kernels

    @property
    def per_launch(self) -> float:
        return self.seconds / self.launches


@dataclasses.dataclass
class StartTiming:
    """Runs 3 and 4: one new process's first call of the compiled model."""

    label: str  # "cold start" or "warm start"
    seconds: float  # compile + autotune + one run, inside the process
    process_seconds: float  # the whole process, Python and torch start included
    fx_hits: int = 0
    fx_misses: int = 0
    static: int = 0
    fallback: int = 0


@dataclasses.dataclass
class Options:
    """verify --bench's options."""

    calls: int = DEFAULT_CALLS
    folder: str | None = None  # where the cold/warm caches' folder is made
    keep: bool = False
    install_first: bool = True
    device: str = "xpu"


def _out(line: str) -> None:
    print(line, flush=True)


class Progress:
    """One line per run, as it starts, with the seconds since the first."""

    def __init__(self, out: Callable[[str], None], clock: Callable[[], float]) -> None:
        self.out, self.clock, self.start = out, clock, clock()

    def __call__(self, text: str) -> None:
        self.out(f"bench [{self.clock() - self.start:7.1f} s] {text}")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us"


def _row(label: str, timing: LaunchTiming | StartTiming, timed: str, seconds: str) -> tuple[str, str, str, str]:
    return (label, f"{timing.static} static, {timing.fallback} Triton", timed, seconds)


def table(runs: Sequence[LaunchTiming], starts: Sequence[StartTiming]) -> list[str]:
    """The short table of the four runs."""
    rows = [("run", "launchers set up", "timed", "seconds")]
    for run in runs:
        timed = f"{run.calls} calls x {run.kernels} kernels: {_us(run.per_launch)} per launch"
        rows.append(_row(run.launcher, run, timed, f"{run.seconds:.3f}"))
    for start in starts:
        timed = f"compile + autotune, FX graph cache {start.fx_hits} hit, {start.fx_misses} miss"
        rows.append(_row(start.label, start, timed, f"{start.seconds:.2f} (process {start.process_seconds:.2f})"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return ["  ".join(row[i].ljust(widths[i]) for i in range(3)) + "  " + row[3] for row in rows]


def ratios(static: LaunchTiming, triton: LaunchTiming, cold: StartTiming, warm: StartTiming) -> list[str]:
    """The two ratios, one line each."""
    return [
        f"bench: static launch vs Triton's launch: {static.per_launch / triton.per_launch:.2f}x the host time "
        f"per launch ({_us(static.per_launch)} vs {_us(triton.per_launch)})",
        f"bench: warm start vs cold start: {warm.seconds / cold.seconds:.2f}x the compile + autotune time "
        f"({warm.seconds:.2f} s vs {cold.seconds:.2f} s)",
    ]


def run_bench(
    time_launches: Callable[[bool], LaunchTiming],
    time_start: Callable[[str], StartTiming],
    *,
    out: Callable[[str], None] = _out,
    clock: Callable[[], float] = time.perf_counter,
    calls: int = DEFAULT_CALLS,
    flag: str = STATIC_FLAGS[0],
) -> int:
    """The four runs (``time_launches(static)``, ``time_start(label)``), with
    progress, then the table and the ratios; 0, or 1 with one line saying
    why."""
    progress = Progress(out, clock)
    try:
        progress(f"1/4 static launch: compile the model (4 kernels), then time {calls} calls")
        static = time_launches(True)
        progress(f"2/4 Triton's launch: the same with Inductor's static launch off ({flag}=False)")
        triton = time_launches(False)
        progress(f"3/4 cold start: compile + autotune ({COMPILE_MODE}) in a new Python process with empty caches")
        cold = time_start("cold start")
        progress("4/4 warm start: the same in a new Python process with the caches the cold start left")
        warm = time_start("warm start")
    except BenchError as err:
        out(f"verify --bench: FAILED: {err}")
        return 1
    progress("done")
    if min(static.seconds, triton.seconds, cold.seconds) <= 0 or min(static.kernels, triton.kernels) <= 0:
        out("verify --bench: FAILED: a run measured no time or no kernel, so no ratio can be taken")
        return 1
    for line in table([static, triton], [cold, warm]):
        out(line)
    if not static.static:
        out(
            f"verify --bench: FAILED: the static run set up no static launch ({static.fallback} Triton), so there "
            "is nothing to compare; verify without --bench says why"
        )
        return 1
    if triton.static:
        out(
            f"verify --bench: FAILED: the Triton run still set up {triton.static} static launch(es) with "
            f"{flag}=False, so there is nothing to compare"
        )
        return 1
    if not warm.fx_hits:
        out(
            "bench: note: the warm start missed the FX graph cache, so it compiled again (is "
            "TORCHINDUCTOR_FORCE_DISABLE_CACHES or TORCHINDUCTOR_FX_GRAPH_CACHE=0 set?)"
        )
    for line in ratios(static, triton, cold, warm):
        out(line)
    return 0


def static_flag(config: Any) -> str:
    """The name of Inductor's static launch switch in this torch."""
    return next((name for name in STATIC_FLAGS if hasattr(config, name)), STATIC_FLAGS[-1])


def _synchronize(torch: Any, device: str) -> None:
    if device != "cpu":
        getattr(torch, device).synchronize()


def _inputs(torch: Any, device: str) -> list[Any]:
    return [torch.randn(4096, device=device), torch.randn(4096, device=device)]


def time_launches(
    torch: Any,
    static: bool,
    *,
    calls: int = DEFAULT_CALLS,
    device: str = "xpu",
    clock: Callable[[], float] = time.perf_counter,
) -> LaunchTiming:
    """Runs 1 and 2, in this process: compile the model with static launch
    on or off and the caches off, run it ``WARMUP_CALLS`` times, then time
    ``calls`` calls with one synchronisation at the end."""
    config = importlib.import_module("torch._inductor.config")
    metrics = importlib.import_module("torch._inductor.metrics")
    launches = verify.Launches()
    settings = dict(MODEL_SETTINGS, force_disable_caches=True, compile_threads=1)
    settings[static_flag(config)] = static
    x, y = _inputs(torch, device)
    try:
        with verify.launch_counter(launches), config.patch(settings), warnings.catch_warnings():
            # torch says force_disable_caches turned its profile-guided cache off.
            warnings.filterwarnings("ignore", message=".*force_disable_caches")
            torch._dynamo.reset()
            metrics.reset()
            compiled = torch.compile(model)
            compiled(x, y)
            kernels = metrics.generated_kernel_count
            for _ in range(WARMUP_CALLS):
                compiled(x, y)
            _synchronize(torch, device)
            start = clock()
            for _ in range(calls):
                compiled(x, y)
            _synchronize(torch, device)
            seconds = clock() - start
    except Exception as err:  # one line, as verify says it
        raise BenchError(verify.compile_failure(err, MODEL_NAME)) from err
    finally:
        torch._dynamo.reset()
    if kernels <= 0:
        raise BenchError("Inductor made no kernel for the bench's model")
    return LaunchTiming(
        "static launch" if static else "Triton's launch",
        calls,
        kernels,
        seconds,
        len(launches.static),
        len(launches.fallback),
    )


def _site_folders() -> list[str]:
    """The folders a new process of this Python imports installed packages
    from."""
    paths = sysconfig.get_paths()
    folders = [paths["purelib"], paths["platlib"], *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [os.path.normcase(os.path.abspath(folder)) for folder in folders]


def child_environment(
    folder: str, environ: Mapping[str, str] | None = None, site_folders: Sequence[str] | None = None
) -> dict[str, str]:
    """The cold and warm starts' environment: every cache in ``folder``; and
    this package first on PYTHONPATH unless it is installed (a site folder
    there would come before the standard library)."""
    env = dict(os.environ if environ is None else environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = folder
    env["TRITON_CACHE_DIR"] = os.path.join(folder, "tr")
    env["XSL_KERNEL_CACHE_DIR"] = os.path.join(folder, "k")
    installed = _site_folders() if site_folders is None else site_folders
    if os.path.normcase(os.path.abspath(PACKAGE_PARENT)) not in installed:
        rest = env.get("PYTHONPATH")
        env["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + rest if rest else "")
    return env


def parse_child(label: str, stdout: str, stderr: str, returncode: int, process_seconds: float) -> StartTiming:
    """The child's result line, or BenchError with its error or, when it
    printed none, its last words."""
    lines = [line for line in stdout.splitlines() if line.startswith(RESULT_MARKER)]
    data: dict[str, Any] = json.loads(lines[-1][len(RESULT_MARKER) :]) if lines else {}
    if "error" in data:
        raise BenchError(f"the {label} process failed: {data['error']}")
    if returncode != 0 or not data:
        said = [line.strip() for line in (stdout + "\n" + stderr).splitlines() if line.strip()]
        last = said[-1][:400] if said else "no output"
        raise BenchError(f"the {label} process failed (exit code {returncode}) and said: {last}")
    return StartTiming(
        label,
        float(data["seconds"]),
        process_seconds,
        int(data["fx_hits"]),
        int(data["fx_misses"]),
        int(data["static"]),
        int(data["fallback"]),
    )


def time_start(
    label: str,
    folder: str,
    *,
    install_first: bool = True,
    device: str = "xpu",
    python: str = sys.executable,
    timeout: float = START_TIMEOUT,
) -> StartTiming:
    """Runs 3 and 4: ``python -m xpu_static_launcher.bench start`` with every
    cache in ``folder``."""
    cmd = [python, "-m", "xpu_static_launcher.bench", "start", "--device", device]
    if not install_first:
        cmd.append("--no-install")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, env=child_environment(folder), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as err:
        raise BenchError(f"the {label} process did not finish in {timeout:.0f} s") from err
    return parse_child(label, proc.stdout, proc.stderr, proc.returncode, time.perf_counter() - start)


def start_once(
    device: str = "xpu", install_first: bool = True, clock: Callable[[], float] = time.perf_counter
) -> dict[str, Any]:
    """The child: compile the model once with the caches on and
    ``COMPILE_MODE``; what it measured, for its result line."""
    import torch

    if install_first:
        from .torch_install import install

        result = install(verbose=False)
        if device != "cpu" and result.status not in ("installed", "present"):
            return {"error": f"install() gave {result.status}: {result.message}"}
    config = importlib.import_module("torch._inductor.config")
    counters = importlib.import_module("torch._dynamo.utils").counters
    launches = verify.Launches()
    settings = dict(
        MODEL_SETTINGS, fx_graph_cache=True, autotune_local_cache=True, force_disable_caches=False, compile_threads=1
    )
    settings[static_flag(config)] = True
    x, y = _inputs(torch, device)
    _synchronize(torch, device)
    try:
        with verify.launch_counter(launches), config.patch(settings):
            start = clock()
            torch.compile(model, mode=COMPILE_MODE)(x, y)
            _synchronize(torch, device)
            seconds = clock() - start
    except Exception as err:  # one line, as verify says it
        return {"error": verify.compile_failure(err, MODEL_NAME)}
    return {
        "seconds": seconds,
        "fx_hits": counters["inductor"]["fxgraph_cache_hit"],
        "fx_misses": counters["inductor"]["fxgraph_cache_miss"],
        "static": len(launches.static),
        "fallback": len(launches.fallback),
    }


def make_folder(parent: str | None) -> str:
    """A new empty folder for the cold and warm starts' caches."""
    if parent:
        os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix="xslbench-", dir=parent or None)


def runner(options: Options, out: Callable[[str], None] = _out) -> Callable[[Any], int]:
    """What ``verify.run`` calls with torch once verify passed."""

    def bench(torch: Any) -> int:
        try:
            folder = make_folder(options.folder)
        except OSError as err:
            out(
                f"verify --bench: FAILED: cannot make a folder for the caches in "
                f"{options.folder or tempfile.gettempdir()}: {err.strerror}; name another with --bench-dir"
            )
            return 1
        config = importlib.import_module("torch._inductor.config")
        try:
            return run_bench(
                lambda static: time_launches(torch, static, calls=options.calls, device=options.device),
                lambda label: time_start(label, folder, install_first=options.install_first, device=options.device),
                out=out,
                calls=options.calls,
                flag=static_flag(config),
            )
        finally:
            if options.keep:
                out(f"bench: the cold and warm starts' caches are kept in {folder}")
            else:
                shutil.rmtree(folder, ignore_errors=True)

    return bench


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """verify's --bench options."""
    parser.add_argument(
        "--bench",
        action="store_true",
        help="once verify passes, time a small compiled model (4 pointwise kernels) on this GPU: "
        "static launch vs Triton's launch (host time per launch) and a cold vs a warm start "
        "(compile + autotune, each in a new Python process); prints a line per run, a table "
        "and the two ratios (about a minute or two)",
    )
    parser.add_argument(
        "--bench-calls",
        type=_positive,
        default=DEFAULT_CALLS,
        metavar="N",
        help=f"with --bench: calls of the compiled model timed per launcher (default "
        f"{DEFAULT_CALLS}; each call is 4 launches)",
    )
    parser.add_argument(
        "--bench-dir",
        metavar="DIR",
        help="with --bench: where to make the new folder for the cold and warm starts' caches "
        "(default: the temp folder; keep it short on Windows, as TORCHINDUCTOR_CACHE_DIR)",
    )
    parser.add_argument(
        "--bench-keep", action="store_true", help="with --bench: keep that folder afterwards (it is removed by default)"
    )


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def from_arguments(args: argparse.Namespace, install_first: bool) -> Callable[[Any], int] | None:
    """The bench ``verify.run`` runs after the check, or None without
    --bench (the other --bench-* options then change nothing)."""
    if not args.bench:
        return None
    return runner(Options(args.bench_calls, args.bench_dir, args.bench_keep, install_first))


def main(argv: list[str] | None = None) -> int:
    """``python -m xpu_static_launcher.bench start``: one cold or warm start
    (the caches are the environment's), its result as one line."""
    parser = argparse.ArgumentParser(
        prog="python -m xpu_static_launcher.bench",
        description="The child process of verify --bench's cold and warm starts: "
        "compiles the bench's model once and prints what it measured as "
        f"one line starting with {RESULT_MARKER.strip()}.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser(
        "start",
        help="compile the model once with the caches of this environment "
        "(TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR, XSL_KERNEL_CACHE_DIR)",
    )
    start.add_argument("--device", default="xpu", help="torch device to compile for (default xpu)")
    start.add_argument("--no-install", action="store_true", help="do not run install() first")
    args = parser.parse_args(argv)
    result = start_once(args.device, not args.no_install)
    print(RESULT_MARKER + json.dumps(result), flush=True)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    raise SystemExit(main())
