#!/usr/bin/env python3
"""Host cost of the PyTorch glue's _launch_kernel (the package's SYCL
backend, xpu_static_launcher._sycl_launcher) on the real SYCL runtime
(libsycl + the Unified Runtime's Level Zero adapter + the test driver, in
no-record mode), side by side in one process with:

- upstream_style: the same launch as PyTorch's upstream xpu.cpp and
  Triton-XPU's launcher submit it (tests/torch_glue/upstream_style.cpp):
  arguments converted per call, queue.submit, set_arg per argument,
  parallel_for over an nd_range, the default event;
- native_append: the same conversion, then the launch appended straight to
  the queue's native immediate command list, skipping SYCL (measured only:
  docs/launcher.md says why the glue does not do this);
- native_append_external_event: the direct append made to wait for the
  queue's last event and to signal an event of its own, which SYCL is given
  as the queue's external event (queue.wait() and the next SYCL command then
  wait for it); measured only, the candidate for adapter v1. The loop
  launches only these, so the last event is always the previous launch's own;
  after a SYCL command adapter v1 would wait on the host for that command's
  event (docs/launcher.md);
- floor: an empty METH_FASTCALL function taking the same 9 arguments.

The kernel has 8 arguments (7 pointers, 1 int). Times are CPU ns per call
(process time), the median of --repeat runs of --calls calls; each ratio is
the median over runs of that run's pair (bench_launch.py explains why).
The Level Zero driver is the project's test driver: a real GPU driver adds
its own cost under both launches alike. Last line:
    glue_vs_upstream_style: <median ratio>

Usage: python3 tests/bench/bench_glue_launch.py [--build-dir build/linux-gcc]
       [--adapter v1|v2]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from bench_launch import glue_bench_args, glue_bench_main, glue_runtime, make_loop, ns_per_call_runs, print_ratios


def measure(args: argparse.Namespace) -> int:
    _, support, glue = glue_runtime()
    from xpu_static_launcher import _sycl_launcher

    launcher = _sycl_launcher._StaticXpuLauncher
    path = str(support.compile_opencl(support.many_args_source(8)))
    function, _, _ = launcher._load_kernel(path, "many_8", 0, 0)
    reference = glue.upstream_style_load(path, "many_8", 0)
    buffer = glue.malloc_device(4096, 0)
    codes = "O" * 7 + "i"
    values = (buffer,) * 7 + (64,)
    stream = glue.current_raw_stream(0)

    def loop_of(target: Callable[..., Any], kernel: Any) -> Callable[[int], None]:
        return make_loop(kernel, target, codes, (values,), stream)

    loops: dict[str, Callable[[int], None]] = {
        "floor": loop_of(glue.fastcall_floor, function),
        "glue": loop_of(launcher._launch_kernel, function),
        "upstream_style": loop_of(glue.upstream_style_launch, reference),
        "native_append": loop_of(glue.native_append_launch, reference),
        "native_append_external_event": loop_of(glue.native_append_external_event_launch, reference),
    }
    runs = ns_per_call_runs(loops, args.calls, args.repeat)
    ns = {name: sorted(values)[len(values) // 2] for name, values in runs.items()}
    print(f"platform: {glue.platform_name()} (Level Zero test driver, no-record mode)")
    print(
        f"8 args: floor {ns['floor']:.0f} ns | glue {ns['glue']:.0f} ns | "
        f"upstream_style {ns['upstream_style']:.0f} ns | native_append {ns['native_append']:.0f} ns"
    )
    print(f"native_append_external_event {ns['native_append_external_event']:.0f} ns")
    print_ratios(
        runs,
        [
            ("native_append", "upstream_style"),
            ("native_append_external_event", "upstream_style"),
            ("glue", "floor"),
            ("upstream_style", "floor"),
            ("glue", "upstream_style"),
        ],
    )
    return 0


def main() -> int:
    args = glue_bench_args(
        __doc__ or "", "CMake build dir holding the glue runtime module and the test driver", "v1", "linux-gcc"
    )
    return glue_bench_main(__file__, args, measure)


if __name__ == "__main__":
    sys.exit(main())
