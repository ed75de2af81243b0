#!/usr/bin/env python3
"""SPIR-V -> zebin three ways, per kernel, in one run: the driver backend
(Level Zero zeModuleCreate + zeModuleGetNativeBinary), ocloc as a subprocess,
and ocloc in-process (libocloc), through the package's compile_spirv with
backend driver, ocloc-executable and ocloc-library. Same kernels, same
device, default GRF, no retry.

Here the "driver" is the project's test driver, which compiles with the same
libocloc in-process, so all three use the same IGC: the figures compare the
paths (Level Zero round trip vs process start vs direct call), not
compilers. A real GPU driver embeds its own IGC build.

Each kernel is compiled --runs times per path, the paths alternating, after
one warm-up compile per path (the first loads IGC). Needs XSL_BUILD_DIR
(default build/linux-gcc) with the package's _compile module, the test driver
and the SPIR-V corpus; on Linux the Level Zero loader (libze1) loads the test driver through
ZE_ENABLE_ALT_DRIVERS, which this script sets for itself.

Last line (the headline): `driver_vs_subprocess: <ratio> driver_vs_inprocess:
<ratio> inprocess_vs_subprocess: <ratio>` (sums of per-kernel medians of
wall time; the last has the target <= 0.5). The line before it gives the
same ratio of CPU time (this process and its finished ocloc children).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1] / "python"))
from ocloc_support import build_dir, corpus_spirv  # noqa: E402

KERNELS = ["add", "no_args", "many_args", "slm_reduce", "subgroup16"]
# Each path and the package backend that takes it.
PATHS = {"driver": "driver", "subprocess": "ocloc-executable", "in-process": "ocloc-library"}


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (ocloc subprocesses)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="compiles per kernel and path (>= 5)")
    parser.add_argument("--device", default="pvc", help="target device (the test driver reports pvc)")
    parser.add_argument("--kernels", nargs="*", default=KERNELS, help="corpus SPIR-V names")
    args = parser.parse_args()
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    driver = build_dir() / "tests" / "ze_test_driver" / "libxsl_ze_test_driver.so"
    sys.path.insert(0, str(build_dir() / "python"))
    try:
        from xpu_static_launcher import compile as xc
    except ImportError as error:
        print(f"{error} (XSL_BUILD_DIR={build_dir()})", file=sys.stderr)
        return 2
    if not driver.is_file():
        print(f"the test driver is not built: {driver}", file=sys.stderr)
        return 2
    os.environ.pop("XSL_TEST_DRIVER_COMPILE_CACHE", None)  # time IGC's compiles, not the test driver's cache
    # Read by the Level Zero loader at its first zeInit, below.
    os.environ.setdefault("ZE_ENABLE_ALT_DRIVERS", str(driver))
    spirvs: dict[str, bytes] = {}
    for name in args.kernels:
        spirv = corpus_spirv(name)
        if spirv is None:
            print(f"no {name}.spv in XSL_BUILD_DIR/corpus", file=sys.stderr)
            return 2
        spirvs[name] = spirv

    def compile_once(spirv: bytes, path: str) -> None:
        xc.compile_spirv(spirv, args.device, backend=PATHS[path], retry_large_grf=False)

    info = xc.find_compiler(PATHS["in-process"])
    print(f"ocloc {info.get('version')} ({info.get('library')}); driver: {xc.find_compiler('driver')['backend']}")
    print(f"device {args.device}, {args.runs} runs per kernel and path; all three paths use the same IGC here")
    first = next(iter(spirvs.values()))
    for path in PATHS:
        start = time.perf_counter()
        compile_once(first, path)
        print(f"first {path} compile: {time.perf_counter() - start:.3f} s")
    totals = dict.fromkeys(PATHS, 0.0)
    cpu_totals = dict.fromkeys(PATHS, 0.0)
    print(f"{'kernel':<12}" + "".join(f"{p:>13}" for p in PATHS))
    for name, spirv in spirvs.items():
        runs: dict[str, list[float]] = {p: [] for p in PATHS}
        cpu_runs: dict[str, list[float]] = {p: [] for p in PATHS}
        for _ in range(args.runs):
            for path in PATHS:
                cpu, start = cpu_seconds(), time.perf_counter()
                compile_once(spirv, path)
                runs[path].append(time.perf_counter() - start)
                cpu_runs[path].append(cpu_seconds() - cpu)
        medians = {p: statistics.median(runs[p]) for p in PATHS}
        for path in PATHS:
            totals[path] += medians[path]
            cpu_totals[path] += statistics.median(cpu_runs[path])
        print(f"{name:<12}" + "".join(f"{medians[p] * 1e3:11.1f}ms" for p in PATHS))
    print("total       " + "".join(f"{totals[p] * 1e3:11.1f}ms" for p in PATHS))
    print(f"cpu_inprocess_vs_subprocess: {cpu_totals['in-process'] / cpu_totals['subprocess']:.3f}")
    print(
        f"driver_vs_subprocess: {totals['driver'] / totals['subprocess']:.3f} "
        f"driver_vs_inprocess: {totals['driver'] / totals['in-process']:.3f} "
        f"inprocess_vs_subprocess: {totals['in-process'] / totals['subprocess']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
