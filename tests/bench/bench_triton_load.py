#!/usr/bin/env python3
"""Warm-start load cost per kernel: Triton-XPU's load_binary path against
the package's SYCL backend _load_kernel, on the same runtime (libsycl, the
Unified Runtime's Level Zero adapter, the test driver), for the first 10 and
all 100 kernels of a Triton cache made here.

The cache: 100 real Triton kernels (vector_add, softmax, add8, add24 with
other block sizes, warp counts and GRF modes, and the spilling kernel),
compiled by triton-xpu 3.3.0b1 and kept as its native-code cache keeps them
(<name>.json metadata + the pvc zebin, tests/triton_xpu/triton_cache.py),
under <build>/triton-xpu-bench (reused by later runs). Per kernel:

- triton_load_binary: the zebin file read, then driver.utils.load_binary
  (name, bytes, shared, build_flags, device), as CompiledKernel does:
  zeModuleCreate, zeKernelCreate, spillMemSize, n_regs from the build flags,
  the SYCL kernel bundle and kernel;
- ours: _sycl_launcher._StaticXpuLauncher._load_kernel(path, name, shared,
  device): file read, zebin metadata, module and kernel create, n_regs and
  n_spills, the SYCL kernel bundle and kernel;
- floor: the runtime calls any loader makes here and nothing else (the
  test helpers' load_floor: the file read with the buffer _load_kernel
  uses, zeModuleCreate, zeKernelCreate, zeKernelGetProperties, the SYCL
  kernel bundle and kernel), so ours - floor is what the static launcher
  adds (the `.ze_info` metadata, the Python object) and triton_load_binary
  - floor what Triton's adds (their ratio is printed too, paired by round;
  the goal is on the whole load);
- triton_warm_start (for scale): all of Triton's own per-kernel work on a
  cache hit: CompiledKernel over the cache entry, then _init_handles (the
  backend object, the launcher module from Triton's cache, device
  properties, load_binary).

Both loaders must report the same n_regs and n_spills for every kernel.
Times are CPU ns per kernel (process time), medians of --repeat rounds that
load every kernel once and then drop what was loaded. Each loader runs in a
process of its own: Triton's never free what they load (the resident memory
each keeps per kernel is printed), and whatever ran in their process would
run on the heap they grew. The processes take turns, one round each, so
every round of every loader sees the same machine load (the order turns by
one each round: each loader runs after each other one); the ratio is the
median of the per-round ratios. --compare-build adds the _load_kernel of
another build tree (its package and test driver) to the turns, e.g. a build
from before a change. The test driver creates modules without compiling
anything: a real GPU driver adds its own zeModuleCreate cost (decoding the
zebin, copying the ISA to the device) to both loaders alike. Last line:
    sycl_backend_load_vs_triton_load_binary: <ratio for 100 kernels>

Usage: python3 tests/bench/bench_triton_load.py [--build-dir build/linux-gcc]
       [--adapter v1|v2] [--compare-build DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_launch import SYCL_BUILD_HELP, bench_parser

REPO = Path(__file__).resolve().parents[2]
COUNTS = (10, 100)
GOAL = 0.5
LOADERS = ("ours", "triton_load_binary", "floor", "triton_warm_start")
# _load_kernel of another build's package (--compare-build), e.g. before a change.
COMPARED = "ours_compared"


def add_profile_argument(parser: argparse.ArgumentParser, loaders: tuple[str, ...]) -> None:
    parser.add_argument(
        "--profile",
        choices=loaders,
        help="instead of timing: load all kernels --repeat times with this loader "
        "under `perf record` and print the top shared objects and symbols",
    )


def parse_args() -> argparse.Namespace:
    parser = bench_parser(__doc__, SYCL_BUILD_HELP, ("v1", "v2"))
    parser.add_argument("--repeat", type=int, default=21, help="rounds of loading every kernel; medians are reported")
    add_profile_argument(parser, LOADERS)
    parser.add_argument(
        "--compare-build",
        metavar="DIR",
        help="also time _load_kernel of this other build tree's package (its test "
        "driver too), side by side: e.g. a build from before a change",
    )
    parser.add_argument("--worker", choices=LOADERS + (COMPARED,), help=argparse.SUPPRESS)
    return parser.parse_args()


def cache_sources(sources: dict[str, Any]) -> list[Any]:
    """The 100 kernels: the spilling kernel, then each of four kernels with
    five block sizes and four warp counts, then large-GRF variants."""
    chosen = [sources["spill"]]
    for name in ("vector_add", "softmax", "add8", "add24"):
        for block in (64, 128, 256, 512, 1024):
            for warps in (1, 2, 4, 8):
                chosen.append(_variant(sources[name], block, num_warps=warps))
    for name in ("vector_add", "softmax", "add8"):
        for block in (64, 128, 256, 512, 1024):
            for warps in (2, 4):
                chosen.append(_variant(sources[name], block, num_warps=warps, grf_mode="large"))
    return chosen[: max(COUNTS)]


def _variant(source: Any, block: int, **options: Any) -> Any:
    variant = source.with_options(**options)
    variant.constants = dict(source.constants, BLOCK_SIZE=block)
    return variant


def timed_round(load: Callable[[Any], Any], kernels: list[Any]) -> tuple[float, list[Any]]:
    """CPU ns per kernel of loading each once; the loaded objects are kept
    (dropped by the caller after the round) so nothing is freed in between."""
    kept = []
    start = time.process_time_ns()
    for kernel in kernels:
        kept.append(load(kernel))
    return (time.process_time_ns() - start) / len(kernels), kept


def prepare() -> tuple[dict[str, Callable[[Any], Any]], list[dict[str, Any]], str]:
    """The loaders and the 100 cache entries, in a child with triton-xpu's Python."""
    for folder in ("python", "triton_xpu"):
        sys.path.insert(0, str(REPO / "tests" / folder))
    import torch

    import glue_support
    import torch_xpu_standin

    sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
    import _xsl_torch_glue as glue

    torch_xpu_standin.install(torch, glue)
    from triton.runtime import driver

    import triton_cache
    from xpu_static_launcher import _sycl_launcher

    backend = _sycl_launcher._StaticXpuLauncher
    sources = cache_sources(triton_cache.kernel_sources())
    entries = triton_cache.make_cache(sources, Path(os.environ["XSL_TRITON_NATIVE_CACHE"]))
    os.environ[triton_cache.NATIVE_CODE_ENV] = "1"
    utils = driver.active.utils
    kernels = []
    for source, entry in zip(sources, entries):
        meta = json.loads(next(entry.glob("*.json")).read_text())
        kernels.append(
            {
                "source": source,
                "entry": entry,
                "name": meta["name"],
                "shared": meta["shared"],
                "build_flags": meta["build_flags"],
                "path": str(entry / f"{meta['name']}.spv"),
            }
        )

    def triton_load_binary(k: dict[str, Any]) -> Any:
        return utils.load_binary(k["name"], Path(k["path"]).read_bytes(), k["shared"], k["build_flags"], 0)

    def ours(k: dict[str, Any]) -> Any:
        return backend._load_kernel(k["path"], k["name"], k["shared"], 0)

    def floor(k: dict[str, Any]) -> Any:
        return glue.load_floor(k["path"], k["name"], 0)

    def triton_warm_start(k: dict[str, Any]) -> Any:
        compiled = triton_cache.load_entry(k["source"], k["entry"])
        compiled._init_handles()
        return compiled

    loaders = {
        "ours": ours,
        "triton_load_binary": triton_load_binary,
        "floor": floor,
        "triton_warm_start": triton_warm_start,
    }
    return loaders, kernels, glue.platform_name()


def profile(args: argparse.Namespace) -> int:
    loaders, kernels, _ = prepare()
    from triton_xpu_support import perf_profile

    loader = loaders[args.profile]
    timed_round(loader, kernels[:4])
    perf_profile(
        lambda: [timed_round(loader, kernels) for _ in range(args.repeat)],
        Path(os.environ["XSL_TRITON_NATIVE_CACHE"]).parent / "perf-load.data",
    )
    return 0


def work(loader_name: str) -> int:
    """One loader in a process of its own, driven over stdin by measure():
    `round N` loads the first N kernels once, answers the CPU ns per kernel
    and drops them; `rss` answers the resident memory; `report` answers it
    and n_regs/n_spills per kernel (loading each once more); `quit` ends."""
    loaders, kernels, platform = prepare()
    import launcher_support as support

    load = loaders["ours" if loader_name == COMPARED else loader_name]
    timed_round(load, kernels[:4])  # warm-up: Triton's launcher modules, caches
    print("ready", flush=True)
    for line in sys.stdin:
        command = line.split()
        if command[0] == "round":
            per_kernel, kept = timed_round(load, kernels[: int(command[1])])
            del kept
            print(per_kernel, flush=True)
        elif command[0] == "rss":
            print(support.rss_bytes(), flush=True)
        elif command[0] == "report":
            rss = support.rss_bytes()  # before the loads below
            metadata = []
            if loader_name != "triton_warm_start":
                for k in kernels:
                    loaded = load(k)
                    if loader_name == "floor":
                        metadata.append([None, loaded[1]])  # n_spills only
                    else:
                        metadata.append(list(loaded[2:4] if loader_name == "triton_load_binary" else loaded[1:3]))
            print(json.dumps({"rss": rss, "metadata": metadata, "platform": platform}), flush=True)
        else:
            return 0
    return 0


class Workers:
    """One process per loader (`script --worker NAME` with its environment),
    asked one line at a time; each answers "ready" once started, and ends on
    "quit"."""

    def __init__(self, script: str, envs: dict[str, dict[str, str]]) -> None:
        self.processes = {
            name: subprocess.Popen(
                [sys.executable, script, "--worker", name],
                env=env,
                text=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            for name, env in envs.items()
        }

    def __enter__(self) -> Workers:
        try:
            for name, process in self.processes.items():
                assert process.stdout is not None
                if process.stdout.readline().strip() != "ready":
                    raise RuntimeError(f"the {name} loader's process did not start (exit {process.wait()})")
        except BaseException:
            self.__exit__()
            raise
        return self

    def ask(self, name: str, command: str) -> str:
        process = self.processes[name]
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(command + "\n")
        process.stdin.flush()
        answer = process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the {name} loader's process ended (exit {process.wait()})")
        return answer.strip()

    def __exit__(self, *_: object) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.close()
                process.wait()


def measure(args: argparse.Namespace) -> int:
    """Each loader runs in its own process (Triton's never free what they
    load, so no loader runs on a heap another one grew), and the processes
    take turns: every round runs each loader once over the same kernels,
    in an order that turns by one each round, so all see the same machine
    load, and ratios are paired by round."""
    names = list(LOADERS) + ([COMPARED] if args.compare_build else [])
    envs = {}
    for name in names:
        env = dict(os.environ)
        if name == COMPARED:
            own = os.environ["XSL_BUILD_DIR"]  # absolute: main() resolves both
            # The other build's package, test helpers and test driver; the
            # same kernel and Triton caches.
            env = {
                key: (
                    value
                    if key in ("XSL_TRITON_NATIVE_CACHE", "TRITON_CACHE_DIR")
                    else value.replace(own, args.compare_build)
                )
                for key, value in env.items()
            }
        envs[name] = env
    with Workers(__file__, envs) as workers:
        runs: dict[int, dict[str, list[float]]] = {c: {n: [] for n in names} for c in COUNTS}
        rss: dict[str, list[int]] = {name: [] for name in names}
        for count in COUNTS:
            for round_index in range(args.repeat):
                # The order turns by one each round: a loader's place in the
                # round (after Triton's heavy warm start, say) must not
                # favour it.
                turn = round_index % len(names)
                for name in names[turn:] + names[:turn]:
                    runs[count][name].append(float(workers.ask(name, f"round {count}")))
                if count == max(COUNTS) and round_index == 0:
                    # After one round the heap holds what a round needs at once.
                    for name in names:
                        rss[name].append(int(workers.ask(name, "rss")))
        reports = {name: json.loads(workers.ask(name, "report")) for name in names}
    # Same n_regs / n_spills from both loaders, kernel by kernel.
    print(f"platform: {reports['ours']['platform']} (Level Zero test driver)")
    theirs, mine = reports["triton_load_binary"]["metadata"], reports["ours"]["metadata"]
    mismatches = [(i, t, m) for i, (t, m) in enumerate(zip(theirs, mine)) if t != m]
    print(
        f"n_regs/n_spills: {len(mine) - len(mismatches)} of {len(mine)} kernels agree; "
        f"n_regs seen {sorted({m[0] for m in mine})}, kernels with spills "
        f"{sum(1 for m in mine if m[1] > 0)} (n_spills up to {max(m[1] for m in mine)} bytes)"
    )
    for index, t, m in mismatches:
        print(f"  MISMATCH kernel {index}: triton {t} ours {m}")
    floor_spills = [f[1] for f in reports["floor"]["metadata"]]
    if floor_spills != [t[1] for t in theirs]:
        print("  MISMATCH: the floor's n_spills differ from load_binary's")
        mismatches.append((-1, "floor", floor_spills))
    loads_after_first = max(COUNTS) * (args.repeat - 1)
    print(
        "resident memory growth per kernel loaded and dropped: "
        + " | ".join(
            f"{name} {(reports[name]['rss'] - rss[name][0]) / loads_after_first / 1024:.1f} KiB"
            for name in names
            if name != "triton_warm_start"
        )
    )
    results: dict[str, Any] = {
        "adapter": os.environ["XSL_TRITON_EXPECT_ADAPTER"],
        "mismatches": len(mismatches),
        "counts": {},
    }
    for count in COUNTS:
        ns = {name: statistics.median(values) for name, values in runs[count].items()}
        paired = [o / t for o, t in zip(runs[count]["ours"], runs[count]["triton_load_binary"])]
        ratio = statistics.median(paired)
        floor_ratio = statistics.median(f / t for f, t in zip(runs[count]["floor"], runs[count]["triton_load_binary"]))
        # What each loader adds to the runtime's calls, paired by round.
        above = statistics.median(
            (o - f) / (t - f)
            for o, t, f in zip(runs[count]["ours"], runs[count]["triton_load_binary"], runs[count]["floor"])
            if t > f
        )
        results["counts"][count] = {
            "ns": ns,
            "ours_vs_triton_load_binary": ratio,
            "floor_vs_triton_load_binary": floor_ratio,
            "ours_vs_triton_above_floor": above,
        }
        line = (
            f"{count} kernels, per kernel: triton_load_binary {ns['triton_load_binary'] / 1e3:.1f} us | "
            f"ours {ns['ours'] / 1e3:.1f} us | floor {ns['floor'] / 1e3:.1f} us | "
            f"triton_warm_start {ns['triton_warm_start'] / 1e3:.1f} us | "
            f"ours/triton_load_binary {ratio:.3f} (rounds {min(paired):.3f}-{max(paired):.3f}) | "
            f"floor/triton_load_binary {floor_ratio:.3f} | above the floor: "
            f"ours {(ns['ours'] - ns['floor']) / 1e3:.1f} us, "
            f"triton_load_binary {(ns['triton_load_binary'] - ns['floor']) / 1e3:.1f} us "
            f"(ours/triton_load_binary {above:.3f})"
        )
        if args.compare_build:
            compared = [c / t for c, t in zip(runs[count][COMPARED], runs[count]["triton_load_binary"])]
            results["counts"][count]["compared_vs_triton_load_binary"] = statistics.median(compared)
            line += f" | compared build {ns[COMPARED] / 1e3:.1f} us, {statistics.median(compared):.3f}"
        print(line)
    print("result: " + json.dumps(results))
    return 0 if not mismatches else 1


def main() -> int:
    args = parse_args()
    os.environ.pop("XSL_TEST_DRIVER_COMPILE_CACHE", None)  # time IGC's compiles, not the test driver's cache
    if os.environ.get("XSL_TRITON_XPU_RUNTIME") == "1":
        if args.worker:
            return work(args.worker)
        return profile(args) if args.profile else measure(args)
    args.build_dir = str(Path(args.build_dir).resolve())
    os.environ["XSL_BUILD_DIR"] = args.build_dir  # read when the support modules load
    sys.path.insert(0, str(REPO / "tests" / "python"))
    import triton_xpu_support as triton_xpu

    # The child gets the options as absolute paths (it runs the other build's
    # loader with paths of this build replaced by that build's).
    argv = ["--adapter", args.adapter, "--repeat", str(args.repeat)]
    if args.profile:
        argv += ["--profile", args.profile]
    if args.compare_build:
        argv += ["--compare-build", str(Path(args.compare_build).resolve())]
    result = triton_xpu.bench_in_child(__file__, argv, args.build_dir, args.adapter, expect_result=not args.profile)
    if args.profile or result is None:
        return 0 if args.profile and result is None else 1
    ratio = result["counts"][str(max(COUNTS))]["ours_vs_triton_load_binary"]
    print(f"goal: ours <= {GOAL}x Triton's load_binary per kernel: {'met' if ratio <= GOAL else 'missed'}")
    print(f"sycl_backend_load_vs_triton_load_binary: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
