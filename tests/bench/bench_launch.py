#!/usr/bin/env python3
"""Host cost of StaticXpuLauncher._launch_kernel against the Level Zero test
driver in no-record mode, next to the floor: _launch_floor, an empty
METH_FASTCALL static method of the same type taking the same 9 arguments,
called the same way in the same run.

Pointers are passed as int addresses of device allocations (a torch tensor's
data_ptr() call is Python-side cost that is the same for every launcher).
Each figure is the best of --repeat runs of --calls calls, in CPU ns per
call (process time, so other jobs on the machine do not inflate it), loop
overhead included on both sides; the floor and launch loops take turns in
every repetition, so load changes hit them alike. Last line:
    launch_overhead_vs_floor: <launch_8_args_ns / floor_ns>

Usage: python3 tests/bench/bench_launch.py [--build-dir build/linux-gcc]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Tuple

REPO = Path(__file__).resolve().parents[2]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=os.environ.get(
        "XSL_BUILD_DIR", str(REPO / "build" / "linux-gcc")),
        help="CMake build dir holding python/ and the test driver")
    parser.add_argument("--calls", type=int, default=200000, help="calls per timed run")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs; the best counts")
    return parser.parse_args()


def best_ns_per_call(loops: Dict[str, Callable[[int], None]], calls: int,
                     repeat: int) -> Dict[str, float]:
    """Best CPU ns per call of each loop. The loops take turns within every
    repetition, so a change in machine load hits all of them alike instead
    of whichever happened to run during it."""
    best = {name: float("inf") for name in loops}
    for loop in loops.values():
        loop(calls)  # warm-up, untimed: caches, allocator, branch history
    for _ in range(repeat):
        for name, loop in loops.items():
            elapsed = call_loop(loop, calls)
            best[name] = min(best[name], elapsed / calls * 1e9)
    return best


def call_loop(call: Callable[[], None], calls: int) -> float:
    # CPU time of this process, not wall time: the figure is host cost, and
    # it stays meaningful on a machine shared with other jobs.
    start = time.process_time()
    call(calls)  # type: ignore[call-arg]
    return time.process_time() - start


def make_loop(function: Any, target: Callable[..., None], codes: str,
              args_cycle: Tuple[Tuple[Any, ...], ...]) -> Callable[[int], None]:
    """A tight loop calling `target` like Inductor's run(): 9 positional args."""
    if len(args_cycle) == 1:
        args = args_cycle[0]

        def loop(count: int) -> None:
            for _ in range(count):
                target(function, 4, 1, 1, 4, 0, codes, args, 0)
        return loop
    first, second = args_cycle

    def alternating(count: int) -> None:
        for _ in range(count // 2):
            target(function, 4, 1, 1, 4, 0, codes, first, 0)
            target(function, 4, 1, 1, 4, 0, codes, second, 0)
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
    from xpu_static_launcher import launcher  # noqa: E402
    from xpu_static_launcher._launcher import StaticXpuLauncher as L  # noqa: E402

    results: Dict[str, float] = {}
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
            best = best_ns_per_call({
                f"floor_{count}": make_loop(function, L._launch_floor, codes, same),
                f"launch_{count}": make_loop(function, L._launch_kernel, codes, same),
                f"launch_{count}_changing": make_loop(
                    function, L._launch_kernel, codes, changing),
            }, options.calls, options.repeat)
            results.update(best)
    finally:
        for address in buffers:
            launcher.device_free(address)

    for count in (8, 64):
        floor = results[f"floor_{count}"]
        print(f"{count:2d} args: floor {floor:7.1f} ns | launch (same args) "
              f"{results[f'launch_{count}']:7.1f} ns = {results[f'launch_{count}'] / floor:4.2f}x | "
              f"launch (args change every call) {results[f'launch_{count}_changing']:7.1f} ns = "
              f"{results[f'launch_{count}_changing'] / floor:4.2f}x")
    floor_8 = results["floor_8"]
    print(f"launch_overhead_vs_floor: {results['launch_8'] / floor_8:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
