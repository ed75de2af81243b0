#!/usr/bin/env python3
"""Host cost of one launch: Triton-XPU's own path against Inductor's static
launch with the package's SYCL backend, one process, one kernel, side by
side, for Triton kernels with 4, 8 and 24 runtime arguments (vector_add,
add8, add24 compiled here by triton-xpu 3.3.0b1, pvc zebins):

- (a)  CompiledKernel.run: what Inductor calls for a Triton kernel (its
       `runner`, bound once): Triton's XPULauncher, which calls the launcher
       module Triton generated (driver.py) and built (runtime/build.py);
- (a') that launcher module's `launch` called directly with a ready
       argument tuple: the part of (a) that is C (ctypes call included);
- (b)  Inductor's StaticallyLaunchedXpuKernel.run with
       torch._C._StaticXpuLauncher = xpu_static_launcher._sycl_launcher;
- (b') the SYCL backend's _launch_kernel called directly: the C part of (b);
- (c)  upstream's xpu.cpp with the PR stack (_xsl_upstream_launcher), where
       the build has it (configured with XSL_PYTORCH_UPSTREAM_SOURCES);
       skipped with the reason otherwise;
- (s)  a plain SYCL submit of the same kernel (the test helpers'
       upstream_style_launch: queue.submit, set_arg per argument,
       parallel_for): the runtime's own cost of one command;
- (d)  the floor: an empty METH_FASTCALL function taking (b')'s 9 arguments;
- jit: a whole @triton.jit call of the 4-argument kernel (SPIR-V path: the
       test driver compiles through libocloc, which ocloc 22.43 cannot do for
       adapter v2's Xe2 device), for scale.

Pointer arguments are addresses (ints) of one device allocation, which
every launcher above checks with zeMemGetAllocProperties per launch; torch
tensors would add a data_ptr() call per pointer to every path alike. Times
are CPU ns per call (process time), medians of --repeat runs of --calls
calls; ratios are medians of per-run ratios (bench_launch.py). The Level
Zero driver is the project's test driver in no-record mode: a real GPU
driver adds its own append/submit cost to every path alike. Last line:
    sycl_backend_vs_compiled_kernel_run: <worst (b)/(a) over adapters and argument counts>

Usage: python3 tests/bench/bench_triton_launch.py [--build-dir build/linux-gcc]
       [--adapter v1|v2|both]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_launch import SYCL_BUILD_HELP, bench_parser

REPO = Path(__file__).resolve().parents[2]
ARG_COUNTS = {4: "vector_add", 8: "add8", 24: "add24"}
GRID = (4, 1, 1)
GOAL = 0.25


def parse_args() -> argparse.Namespace:
    parser = bench_parser(__doc__, SYCL_BUILD_HELP, ("v1", "v2", "both"), "both")
    parser.add_argument("--calls", type=int, default=20000, help="calls per timed run")
    parser.add_argument("--repeat", type=int, default=11, help="timed runs of each loop; medians are reported")
    parser.add_argument(
        "--profile",
        metavar="LOOP",
        help="instead of timing: run only this loop (a, a', b, b', d) of the 4-argument "
        "kernel for --calls x --repeat calls under `perf record` and print the top "
        "shared objects and symbols",
    )
    return parser.parse_args()


def upstream_module() -> tuple[Any | None, str]:
    """(c)'s launcher, imported before torch as its module requires, or the
    reason it is not there."""
    import glue_support

    if not list(glue_support.RUNTIME_MODULE_DIR.glob("_xsl_upstream_launcher*")):
        return None, (
            "no upstream build: configure with -DXSL_PYTORCH_UPSTREAM_SOURCES=<PyTorch "
            "tree with the PR stack applied> and build xsl_upstream_launcher_test"
        )
    sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
    import _xsl_upstream_launcher

    return _xsl_upstream_launcher._StaticXpuLauncher, ""


def measure(args: argparse.Namespace) -> int:
    for folder in ("python", "bench", "triton_xpu"):
        sys.path.insert(0, str(REPO / "tests" / folder))
    upstream, upstream_why = upstream_module()
    import torch

    import glue_support
    import torch_xpu_standin
    from bench_launch import median_ratio, ns_per_call_runs
    from triton_xpu_support import perf_profile

    sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
    import _xsl_torch_glue as glue

    torch_xpu_standin.install(torch, glue)
    from torch._inductor.runtime import static_triton_launcher as stl
    from triton.runtime import driver

    import triton_cache
    from xpu_static_launcher import _sycl_launcher

    backend = _sycl_launcher._StaticXpuLauncher
    torch._C._StaticXpuLauncher = backend
    sources = triton_cache.kernel_sources()
    entries = triton_cache.make_cache(
        [sources[n] for n in ARG_COUNTS.values()], Path(os.environ["XSL_TRITON_NATIVE_CACHE"])
    )
    os.environ[triton_cache.NATIVE_CODE_ENV] = "1"
    compiled = {}
    for name, entry in zip(ARG_COUNTS.values(), entries):
        compiled[name] = triton_cache.load_entry(sources[name], entry)
        compiled[name]._init_handles()
    del os.environ[triton_cache.NATIVE_CODE_ENV]

    buffer = glue.malloc_device(1 << 20, 0)
    stream = driver.active.get_current_stream(0)
    adapter = os.environ["XSL_TRITON_EXPECT_ADAPTER"]
    print(f"platform: {glue.platform_name()} (Level Zero test driver, no-record mode)")
    results: dict[str, Any] = {"adapter": adapter, "counts": {}}
    for count, name in ARG_COUNTS.items():
        kernel = compiled[name]
        source = sources[name]
        static = stl.statically_launched_kernel_by_device(kernel, "xpu")
        static.load_kernel(0)
        runtime = tuple(buffer if t.startswith("*") else 256 for t in source.runtime_types())
        values = iter(runtime)  # Triton 3.3's launcher takes the constexprs too
        every = tuple(source.constants[p] if t == "constexpr" else next(values) for p, t in source.signature.items())
        assert len(runtime) == count, (name, len(runtime))
        loops = launch_loops(kernel, static, backend, upstream, glue, stream, every, runtime)
        jit_why = ""
        if count == 4:
            jit_why = add_jit_loop(loops, source, every)
        if args.profile:
            loop = loops[args.profile]
            loop(1000)  # warm-up
            perf_profile(
                functools.partial(loop, args.calls * args.repeat),
                Path(os.environ["XSL_TRITON_NATIVE_CACHE"]).parent / f"perf-{adapter}.data",
            )
            return 0
        runs = ns_per_call_runs(loops, args.calls, args.repeat)
        ns = {key: sorted(values)[len(values) // 2] for key, values in runs.items()}
        ratios = {key: median_ratio(runs[key], runs["a"]) for key in runs}
        results["counts"][count] = {"ns": ns, "ratio_to_a": ratios}
        row = " | ".join(f"{key} {ns[key]:.0f} ns ({ratios[key]:.2f}x)" for key in runs)
        print(f"{count} args ({name}): {row}")
        if upstream is None:
            print(f"  (c) skipped: {upstream_why}")
        if jit_why:
            print(f"  jit skipped: {jit_why}")
        static.close()
    print("result: " + json.dumps(results))
    return 0


def launch_loops(
    kernel: Any,
    static: Any,
    backend: Any,
    upstream: Any | None,
    glue: Any,
    stream: int,
    every: tuple[Any, ...],
    runtime: tuple[Any, ...],
) -> dict[str, Callable[[int], None]]:
    gx, gy, gz = GRID
    run = kernel.run  # Inductor binds the runner once
    function, packed = kernel.function, kernel.packed_metadata
    launch = run.mod.launch
    launch_args = (gx, gy, gz, stream, function, packed, None, None, None, *every)
    static_run = static.run
    codes, num_warps, shared = static.arg_tys, static.num_warps, static.shared
    ours = static.function
    backend_launch = backend._launch_kernel
    floor = glue.fastcall_floor

    def compiled_kernel_run(calls: int) -> None:
        for _ in range(calls):
            run(gx, gy, gz, stream, function, packed, None, None, None, *every)

    def generated_launcher(calls: int) -> None:
        for _ in range(calls):
            launch(launch_args)

    def inductor_static_run(calls: int) -> None:
        for _ in range(calls):
            static_run(gx, gy, gz, stream, *runtime)

    def backend_direct(calls: int) -> None:
        for _ in range(calls):
            backend_launch(ours, gx, gy, gz, num_warps, shared, codes, runtime, stream)

    def empty_call(calls: int) -> None:
        for _ in range(calls):
            floor(ours, gx, gy, gz, num_warps, shared, codes, runtime, stream)

    loops = {"a": compiled_kernel_run, "a'": generated_launcher, "b": inductor_static_run, "b'": backend_direct}
    if upstream is not None:
        theirs, _, _ = upstream._load_kernel(static_path(kernel), kernel.metadata.name, shared, 0)
        upstream_launch = upstream._launch_kernel

        def upstream_direct(calls: int) -> None:
            for _ in range(calls):
                upstream_launch(theirs, gx, gy, gz, num_warps, shared, codes, runtime, stream)

        loops["c"] = upstream_direct
    if hasattr(glue, "upstream_style_load"):
        # A plain SYCL submit of the same kernel (tests/torch_glue/upstream_style.cpp):
        # what one command costs in SYCL and the adapter, beneath any launcher.
        reference = glue.upstream_style_load(static_path(kernel), kernel.metadata.name, 0)
        submit = glue.upstream_style_launch

        def sycl_submit(calls: int) -> None:
            for _ in range(calls):
                submit(reference, gx, gy, gz, num_warps, shared, codes, runtime, stream)

        loops["s"] = sycl_submit
    loops["d"] = empty_call
    return loops


def static_path(kernel: Any) -> str:
    return kernel._cubin_path


def add_jit_loop(loops: dict[str, Callable[[int], None]], source: Any, every: tuple[Any, ...]) -> str:
    """The whole @triton.jit call (SPIR-V path), or why it cannot run."""
    import torch

    class Buffer:  # what the JIT reads of a tensor: data_ptr() and dtype
        dtype = torch.float32

        def __init__(self, address: int) -> None:
            self.address = address

        def data_ptr(self) -> int:
            return self.address

    fn = source.fn
    grid = (GRID[0],)
    types = list(source.signature.values())
    positional = tuple(Buffer(v) if ty.startswith("*") else v for v, ty in zip(every[:-1], types))
    block = every[-1]
    try:
        fn[grid](*positional, BLOCK_SIZE=block, num_warps=4)
    except RuntimeError as error:
        return (
            f"the test driver compiles SPIR-V with Debian's ocloc 22.43, which does not know "
            f"this device ({str(error).splitlines()[0][:120]})"
        )

    def jit_call(calls: int) -> None:
        for _ in range(calls):
            fn[grid](*positional, BLOCK_SIZE=block, num_warps=4)

    loops["jit"] = jit_call
    return ""


def report(results: list[dict[str, Any]]) -> int:
    worst = 0.0
    for result in results:
        for count, row in result["counts"].items():
            ratios = row["ratio_to_a"]
            worst = max(worst, ratios["b"])
            shares = ", ".join(f"({key})/(a) {ratios[key]:.3f}" for key in ratios if key != "a")
            print(f"{result['adapter']} {count} args: {shares}")
    print(f"goal: (b) <= {GOAL}x (a) on every adapter and argument count: {'met' if worst <= GOAL else 'missed'}")
    print(f"sycl_backend_vs_compiled_kernel_run: {worst:.3f}")
    return 0


def main() -> int:
    args = parse_args()
    if os.environ.get("XSL_TRITON_XPU_RUNTIME") == "1":
        return measure(args)
    os.environ["XSL_BUILD_DIR"] = args.build_dir  # read when the support modules load
    sys.path.insert(0, str(REPO / "tests" / "python"))
    import triton_xpu_support as triton_xpu

    results = []
    for adapter in ["v1", "v2"] if args.adapter == "both" else [args.adapter]:
        result = triton_xpu.bench_in_child(
            __file__,
            sys.argv[1:],
            args.build_dir,
            adapter,
            {"XSL_TEST_DRIVER_NO_RECORD": "1"},
            expect_result=not args.profile,
        )
        if result is None and not args.profile:
            return 1
        results.append(result)
    return 0 if args.profile else report(results)


if __name__ == "__main__":
    sys.exit(main())
