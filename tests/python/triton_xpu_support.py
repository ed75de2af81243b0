"""Where triton-xpu's Python is and the environment Triton-XPU's launch path
runs in (tests/python/test_triton_xpu_launch.py, tests/bench/
bench_triton_launch.py, tests/bench/bench_triton_load.py).

triton-xpu 3.3.0b1 lives in a venv of its own, .venv-triton in the
repository root (scripts/dev.sh test makes it from
tests/triton_xpu/requirements.txt), which sees the project venv's torch,
intel-sycl-rt and pytest; XSL_TRITON_PYTHON names another interpreter. It
runs in a child process with the glue's environment (the stand-in loader
first on the library path) and a Triton cache, where Triton keeps the native
modules it builds (they do not depend on the adapter).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import glue_support
import launcher_support as support

REPO = Path(__file__).resolve().parents[2]
TRITON_DIR = REPO / "tests" / "triton_xpu"
TRITON_VERSION = "3.3.0b1"

# The adapter under test, chosen by the devices' IP version.
ADAPTERS: dict[str, dict[str, str]] = {
    "v1": {"XSL_TEST_DRIVER_IP_VERSION": glue_support.XE_HPC, "XSL_TRITON_EXPECT_ADAPTER": "v1"},
    "v2": {"XSL_TEST_DRIVER_IP_VERSION": glue_support.XE2, "XSL_TRITON_EXPECT_ADAPTER": "v2"},
}


def triton_python() -> Path:
    given = os.environ.get("XSL_TRITON_PYTHON")
    return Path(given) if given else REPO / ".venv-triton" / "bin" / "python3"


def _triton_missing() -> str | None:
    python = triton_python()
    if not python.is_file():
        return f"no triton-xpu Python at {python}: scripts/dev.sh test makes .venv-triton, or set XSL_TRITON_PYTHON"
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('triton-xpu'))"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = probe.stdout.strip()
    if probe.returncode != 0 or found != TRITON_VERSION:
        return f"{python} has no triton-xpu {TRITON_VERSION} ({found or probe.stderr.strip()[-200:]})"
    return None


def _runtime_missing() -> str | None:
    """The parts of the glue's runtime build used here: the package's SYCL
    backend, the test helpers module (queues, device memory) and the stand-in
    loader."""
    if sys.platform != "linux":
        return "Triton-XPU's launch path runs on the Linux test driver only"
    package = support.PACKAGE_DIR / "xpu_static_launcher"
    if not [path for path in package.glob("_sycl_launcher*") if path.suffix != ".py"]:
        return f"the SYCL backend _sycl_launcher is not built under {support.PACKAGE_DIR}"
    if not list(glue_support.RUNTIME_MODULE_DIR.glob("_xsl_torch_glue*")):
        return f"test helpers module _xsl_torch_glue not built under {glue_support.RUNTIME_MODULE_DIR}"
    if not (glue_support.LOADER_DIR / "libze_loader.so.1").is_file():
        return f"stand-in loader not built under {glue_support.LOADER_DIR}"
    return None


def missing() -> str | None:
    """Why Triton-XPU's launch path cannot run here, or None."""
    return _runtime_missing() or support.missing_prerequisites() or _triton_missing()


def triton_tests() -> pytest.MarkDecorator:
    """The mark of tests that run Triton-XPU's launch path: skipped, with the
    reason, when a part is missing; where scripts/dev.sh test sets
    XSL_REQUIRE_TRITON_XPU=1 a missing part is a failure instead."""
    why = missing()
    if os.environ.get("XSL_REQUIRE_TRITON_XPU") == "1" and why is not None:
        raise RuntimeError(f"XSL_REQUIRE_TRITON_XPU=1 but Triton-XPU's launch path cannot run: {why}")
    return pytest.mark.skipif(why is not None, reason=why or "")


def environment(adapter: str, triton_cache: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: the glue's (stand-in loader first), the
    adapter's device, a Triton cache, and Triton's SPIR-V path by default."""
    env = glue_support.glue_environment(
        dict(
            ADAPTERS[adapter],
            XSL_TRITON_XPU_RUNTIME="1",
            TRITON_CACHE_DIR=str(triton_cache),
            # No line information: the SPIR-V committed under tests/kernels/triton.
            TRITON_DISABLE_LINE_INFO="1",
            **(extra or {}),
        )
    )
    env.pop("TRITON_XPU_GEN_NATIVE_CODE", None)
    return env


RESULT_PREFIX = "result: "


def bench_in_child(
    script: str,
    argv: list[str],
    build_dir: str,
    adapter: str,
    extra: dict[str, str] | None = None,
    expect_result: bool = True,
) -> dict[str, Any] | None:
    """Runs a benchmark script's measurement in a child with triton-xpu's
    Python (the library search path is read at process start); prints its
    lines and returns its result line's JSON, or None (with the reason on
    stderr) when it cannot run or fails. XSL_BUILD_DIR must name build_dir
    before this module is imported."""
    why = missing()
    if why is not None:
        print(f"cannot run: {why}", file=sys.stderr)
        return None
    # Kept between runs: Triton's native modules and the kernels' zebins.
    cache = Path(build_dir) / "triton-xpu-bench"
    env = environment(adapter, cache / "triton", dict(extra or {}, XSL_TRITON_NATIVE_CACHE=str(cache / "native")))
    child = subprocess.run([str(triton_python()), script] + argv, env=env, stdout=subprocess.PIPE, text=True)
    result = None
    for line in child.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            result = json.loads(line[len(RESULT_PREFIX) :])
        else:
            print(f"[{adapter}] {line}")
    if child.returncode != 0 or (result is None and expect_result):
        print(f"the {adapter} run failed (exit {child.returncode})", file=sys.stderr)
        return None
    return result


def perf_profile(run: Callable[[], None], output: Path) -> None:
    """`perf record` of this process while `run` runs, then the top shared
    objects and symbols by share of samples (for the benchmarks' --profile)."""
    recorder = subprocess.Popen(["perf", "record", "-q", "-F", "2999", "-o", str(output), "-p", str(os.getpid())])
    time.sleep(1.0)  # perf attaches
    run()
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    for keys, rows in (("dso", 12), ("dso,sym", 25)):
        report = subprocess.run(
            ["perf", "report", "-i", str(output), "--stdio", "--no-children", "--sort", keys, "--percent-limit", "0.5"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        ).stdout
        lines = [line for line in report.splitlines() if line.strip() and not line.startswith("#")]
        print(f"profile by {keys}:")
        for line in lines[:rows]:
            print("  " + line.strip())
