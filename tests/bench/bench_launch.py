#!/usr/bin/env python3
"""Host cost of StaticXpuLauncher._launch_kernel against the Level Zero test
driver in no-record mode, next to the floor: _launcher._launch_floor, an
empty METH_FASTCALL function of the extension module taking the same 9
arguments, called the same way in the same run.

Pointers are passed as int addresses of device allocations (a torch tensor's
data_ptr() call is Python-side cost that is the same for every launcher).
Times are CPU ns per call (process time, so other jobs on the machine do not
inflate them), loop overhead included on both sides, the median of --repeat
runs of --calls calls. The floor and launch loops run back to back in every
repetition, and each ratio is the median over repetitions of that
repetition's launch/floor: on a shared VM the floor itself moves by 50%
between processes and minutes, which a ratio of two separate minima does not
cancel (it swung 1.6-2.4x between runs of the same build; this estimator
stays within +-0.05). Last line:
    launch_overhead_vs_floor: <median of launch_8_args / floor_8 ratios>

Usage: python3 tests/bench/bench_launch.py [--build-dir build/linux-gcc]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SYCL_BUILD_HELP = "CMake build dir holding the SYCL backend, the test helpers and the test driver"


def bench_parser(
    doc: str, build_help: str, adapters: tuple[str, ...] = (), adapter: str = "v1", build: str = "linux-gcc"
) -> argparse.ArgumentParser:
    """The options the benchmarks share: --build-dir (default $XSL_BUILD_DIR,
    else build/<build>) and, given `adapters`, --adapter."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument(
        "--build-dir", default=os.environ.get("XSL_BUILD_DIR", str(REPO / "build" / build)), help=build_help
    )
    if adapters:
        parser.add_argument(
            "--adapter",
            choices=adapters,
            default=adapter,
            help=f"Unified Runtime Level Zero adapter to run on (default {adapter})",
        )
    return parser


def parse_args() -> argparse.Namespace:
    parser = bench_parser(__doc__, "CMake build dir holding python/ and the test driver")
    parser.add_argument("--calls", type=int, default=50000, help="calls per timed run")
    parser.add_argument("--repeat", type=int, default=31, help="timed runs of each loop; medians are reported")
    return parser.parse_args()


def glue_bench_args(doc: str, build_help: str, adapter: str, build: str = "linux-gcc") -> argparse.Namespace:
    """The options of the benchmarks that run on the real SYCL runtime in a
    child (glue_bench_main): build dir, adapter, calls and repetitions."""
    parser = bench_parser(doc, build_help, ("v1", "v2"), adapter, build)
    parser.add_argument("--calls", type=int, default=20000, help="calls per timed run")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs of each loop; medians are reported")
    return parser.parse_args()


def glue_bench_main(
    script: str,
    args: argparse.Namespace,
    measure: Callable[[argparse.Namespace], int],
    modules: str = "_xsl_torch_glue",
) -> int:
    """Measures in the child the parent starts with the glue's environment
    (glue_support.run_bench_in_child: the library path is read at process
    start); in the parent, starts that child if the test modules matching
    the glob `modules` are built."""
    if os.environ.get("XSL_GLUE_RUNTIME") == "1":
        return measure(args)
    os.environ["XSL_BUILD_DIR"] = args.build_dir  # read when glue_support loads
    sys.path.insert(0, str(REPO / "tests" / "python"))
    import glue_support

    built = list(glue_support.RUNTIME_MODULE_DIR.glob(modules + "*"))
    missing = None if built else f"{modules} is not built under {glue_support.RUNTIME_MODULE_DIR}"
    return glue_support.run_bench_in_child(script, args.adapter, missing)


def glue_runtime() -> tuple[Any, Any, Any]:
    """In glue_bench_main's child: torch (its libtorch_python before the glue
    module), the test helpers (launcher_support) and the glue module; the
    test modules' folder is then on sys.path."""
    sys.path.insert(0, str(REPO / "tests" / "python"))
    import torch

    import glue_support
    import launcher_support

    sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
    import _xsl_torch_glue

    return torch, launcher_support, _xsl_torch_glue


def ns_per_call_runs(loops: dict[str, Callable[[int], None]], calls: int, repeat: int) -> dict[str, list[float]]:
    """CPU ns per call of each loop, one value per repetition. The loops take
    turns within every repetition, so a change in machine load hits all of
    them alike instead of whichever happened to run during it."""
    runs: dict[str, list[float]] = {name: [] for name in loops}
    for loop in loops.values():
        loop(calls)  # warm-up, untimed: caches, allocator, branch history
    for _ in range(repeat):
        for name, loop in loops.items():
            runs[name].append(call_loop(loop, calls) / calls * 1e9)
    return runs


def median_ratio(numerators: list[float], denominators: list[float]) -> float:
    """Median over repetitions of numerator/denominator (paired by run)."""
    return statistics.median(n / d for n, d in zip(numerators, denominators))


def print_ratios(runs: Mapping[str, list[float]], pairs: Sequence[tuple[str, str]]) -> None:
    """One `<a>_vs_<b>: <median ratio>` line for each pair of runs, in order."""
    for a, b in pairs:
        print(f"{a}_vs_{b}: {median_ratio(runs[a], runs[b]):.2f}")


def call_loop(call: Callable[[], None], calls: int) -> float:
    # CPU time of this process, not wall time: the figure is host cost, and
    # it stays meaningful on a machine shared with other jobs.
    start = time.process_time()
    call(calls)  # type: ignore[call-arg]
    return time.process_time() - start


def make_loop(
    function: Any, target: Callable[..., None], codes: str, args_cycle: tuple[tuple[Any, ...], ...], stream: Any = 0
) -> Callable[[int], None]:
    """A tight loop calling `target` like Inductor's run(): 9 positional args."""
    if len(args_cycle) == 1:
        args = args_cycle[0]

        def loop(count: int) -> None:
            for _ in range(count):
                target(function, 4, 1, 1, 4, 0, codes, args, stream)

        return loop
    first, second = args_cycle

    def alternating(count: int) -> None:
        for _ in range(count // 2):
            target(function, 4, 1, 1, 4, 0, codes, first, stream)
            target(function, 4, 1, 1, 4, 0, codes, second, stream)

    return alternating


def main() -> int:
    options = parse_args()
    build_dir = Path(options.build_dir).resolve()
    os.environ["XSL_BUILD_DIR"] = str(build_dir)
    os.environ["XSL_TEST_DRIVER_NO_RECORD"] = "1"
    sys.path.insert(0, str(REPO / "tests" / "python"))
    import launcher_support as support  # noqa: E402

    support.setup_environment()
    missing = support.missing_prerequisites()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    from xpu_static_launcher._launcher import StaticXpuLauncher as L  # noqa: E402

    from xpu_static_launcher import (
        _launcher,  # noqa: E402
        launcher,  # noqa: E402
    )

    runs: dict[str, list[float]] = {}
    buffers = [launcher.device_alloc(0, 4096) for _ in range(64)]
    try:
        for count in (8, 64):
            # count-1 pointers (two of them Triton's scratch, passed None) + 1 int.
            path = support.compile_opencl(support.many_args_source(count), arg_info=False)
            function, _, _ = L._load_kernel(str(path), f"many_{count}", 0, 0)
            codes = "O" * (count - 1) + "i"
            pointers = tuple(buffers[: count - 3]) + (None, None)
            same = ((*pointers, 1000),)
            changing = ((*pointers, 1000), (*pointers[::-1][2:], None, None, 2000))
            # The floor and the launches in the same process, interleaved.
            runs.update(
                ns_per_call_runs(
                    {
                        f"floor_{count}": make_loop(function, _launcher._launch_floor, codes, same),
                        f"launch_{count}": make_loop(function, L._launch_kernel, codes, same),
                        f"launch_{count}_changing": make_loop(function, L._launch_kernel, codes, changing),
                    },
                    options.calls,
                    options.repeat,
                )
            )
    finally:
        for address in buffers:
            launcher.device_free(address)

    def ns(name: str) -> float:
        return statistics.median(runs[name])

    for count in (8, 64):
        floor = runs[f"floor_{count}"]
        same_args = runs[f"launch_{count}"]
        changing_args = runs[f"launch_{count}_changing"]
        print(
            f"{count:2d} args: floor {ns(f'floor_{count}'):7.1f} ns | launch (same args) "
            f"{ns(f'launch_{count}'):7.1f} ns = {median_ratio(same_args, floor):4.2f}x | "
            f"launch (args change every call) {ns(f'launch_{count}_changing'):7.1f} ns = "
            f"{median_ratio(changing_args, floor):4.2f}x"
        )
    print(f"launch_overhead_vs_floor: {median_ratio(runs['launch_8'], runs['floor_8']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
