#!/usr/bin/env python3
"""ocloc SPIR-V -> zebin: in-process (libocloc / ocloc64.dll through
xsl_compile_capi) against a subprocess of the ocloc executable, same process,
same kernels, same flags (default GRF, no retry).

Each kernel is compiled --runs times per mode after one warm-up compile per
mode (the first in-process call loads IGC, ~0.3 s); the figure is the sum of
the per-kernel medians in-process divided by the same sum for the
subprocess. Needs XSL_BUILD_DIR (default build/linux-gcc) with the
xsl_compile_capi library and the SPIR-V corpus (xsl_zebin_corpus).

Last line: `inprocess_vs_subprocess: <ratio>` (target <= 0.5).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from ocloc_support import BACKEND_EXECUTABLE, BACKEND_LIBRARY, OclocCapi, capi_library_path, corpus_spirv  # noqa: E402

KERNELS = ["add", "no_args", "many_args", "slm_reduce", "subgroup16"]


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (ocloc subprocesses)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def time_compile(compiler: OclocCapi, spirv: bytes, device: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one compile."""
    cpu = cpu_seconds()
    start = time.perf_counter()
    compiler.compile(spirv, device, retry_large_grf=False)
    return time.perf_counter() - start, cpu_seconds() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="compiles per kernel and mode (>= 10)")
    parser.add_argument("--device", default="pvc", help="ocloc -device")
    parser.add_argument("--kernels", nargs="*", default=KERNELS, help="corpus SPIR-V names")
    args = parser.parse_args()
    if args.runs < 10:
        parser.error("--runs must be at least 10")
    library = capi_library_path()
    if library is None:
        print("xsl_compile_capi not built in XSL_BUILD_DIR", file=sys.stderr)
        return 2
    spirvs: dict[str, bytes] = {}
    for name in args.kernels:
        spirv = corpus_spirv(name)
        if spirv is None:
            print(f"no {name}.spv in XSL_BUILD_DIR/corpus", file=sys.stderr)
            return 2
        spirvs[name] = spirv
    in_process = OclocCapi(library, BACKEND_LIBRARY)
    subprocess_ = OclocCapi(library, BACKEND_EXECUTABLE)
    info = in_process.describe()
    print(f"ocloc {info.get('version')} ({info.get('library')}), device {args.device}, {args.runs} runs")
    start = time.perf_counter()
    in_process.compile(next(iter(spirvs.values())), args.device, retry_large_grf=False)
    print(f"first in-process compile (loads IGC): {time.perf_counter() - start:.3f} s")
    subprocess_.compile(next(iter(spirvs.values())), args.device, retry_large_grf=False)
    total_in = total_sub = cpu_in = cpu_sub = 0.0
    print(f"{'kernel':<12} {'in-process':>11} {'subprocess':>11} {'ratio':>6}   CPU: in-process subprocess")
    for name, spirv in spirvs.items():
        # Alternating runs, so changing machine load affects both modes alike.
        runs_in: list[tuple[float, float]] = []
        runs_sub: list[tuple[float, float]] = []
        for _ in range(args.runs):
            runs_in.append(time_compile(in_process, spirv, args.device))
            runs_sub.append(time_compile(subprocess_, spirv, args.device))
        med_in = statistics.median(r[0] for r in runs_in)
        med_sub = statistics.median(r[0] for r in runs_sub)
        med_cpu_in = statistics.median(r[1] for r in runs_in)
        med_cpu_sub = statistics.median(r[1] for r in runs_sub)
        total_in += med_in
        total_sub += med_sub
        cpu_in += med_cpu_in
        cpu_sub += med_cpu_sub
        print(
            f"{name:<12} {med_in * 1e3:9.1f}ms {med_sub * 1e3:9.1f}ms {med_in / med_sub:6.2f}"
            f"   {med_cpu_in * 1e3:9.0f}ms {med_cpu_sub * 1e3:9.0f}ms"
        )
    in_process.close()
    subprocess_.close()
    print(f"cpu_inprocess_vs_subprocess: {cpu_in / cpu_sub:.3f}")
    print(f"inprocess_vs_subprocess: {total_in / total_sub:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
