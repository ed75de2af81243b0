#!/usr/bin/env python3
"""Host cost per launch of PyTorch's own static_launcher/xpu.cpp, before and
after the launch-cost PR of the PR stack (patches/pytorch/README.md), side
by side in one process on the real SYCL runtime (libsycl, the Unified
Runtime's Level Zero adapter v1 or v2, the test driver in no-record mode):

- upstream: xpu.cpp as pytorch/pytorch main has it (011ab457), the
  submodule `baseline` of _xsl_upstream_launcher;
- patched: the same file with the stack applied through the launch-cost PR,
  _xsl_upstream_launcher itself;
- floor: an empty METH_FASTCALL function taking the same 9 arguments.

Both modules are built from upstream source trees outside this repository
(tests/torch_glue/CMakeLists.txt: XSL_PYTORCH_UPSTREAM_SOURCES and
XSL_PYTORCH_UPSTREAM_BASELINE_SOURCES; patches/pytorch/README.md gives the
commands). Each kernel takes count-1 pointers, passed as torch tensors over
device memory as Inductor passes them, and one int; 4, 8 and 24 arguments.
Times are CPU ns per call, the median of --repeat runs of --calls calls,
the loops taking turns; ratios are medians of per-run pairs
(bench_launch.py). A real GPU driver adds its own cost to both alike. Last
line:
    patched_vs_upstream_8_args: <median ratio> (goal 0.5)

Usage: python3 tests/bench/bench_upstream_launch.py --build-dir B [--adapter v1|v2]
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ARG_COUNTS = (4, 8, 24)


def loop_of(
    target: Callable[..., Any], kernel: Any, codes: str, values: tuple[Any, ...], stream: int
) -> Callable[[int], None]:
    """`calls` launches of a 4-group grid, 4 warps, no shared memory."""

    def loop(calls: int) -> None:
        for _ in range(calls):
            target(kernel, 4, 1, 1, 4, 0, codes, values, stream)

    return loop


def measure(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(REPO / "tests" / "python"))
    sys.path.insert(0, str(REPO / "tests" / "bench"))
    import glue_support

    sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
    # Before torch: the module registers the XPU hooks that serve upstream's
    # Level Zero stub.
    import _xsl_upstream_launcher as patched_module

    # isort: split
    import _xsl_torch_glue as glue
    import torch

    import launcher_support as support
    from bench_launch import median_ratio, ns_per_call_runs

    if not hasattr(patched_module, "baseline"):
        print(
            "cannot run: _xsl_upstream_launcher has no baseline; configure with "
            "-DXSL_PYTORCH_UPSTREAM_BASELINE_SOURCES=<tree>",
            file=sys.stderr,
        )
        return 2
    launchers = {
        "upstream": patched_module.baseline._StaticXpuLauncher,
        "patched": patched_module._StaticXpuLauncher,
    }
    stream = glue.current_raw_stream(0)
    print(f"platform: {glue.platform_name()} (Level Zero test driver, no-record mode)")
    headline = 0.0
    for count in ARG_COUNTS:
        name = f"many_{count}"
        path = str(support.compile_opencl(support.many_args_source(count)))
        address = glue.malloc_device(4096, 0)
        tensor = torch.frombuffer((ctypes.c_char * 4096).from_address(address), dtype=torch.float32)
        codes = "O" * (count - 1) + "i"
        values = (tensor,) * (count - 1) + (64,)

        loops: dict[str, Callable[[int], None]] = {"floor": loop_of(glue.fastcall_floor, None, codes, values, stream)}
        for label, launcher in launchers.items():
            kernel, _, _ = launcher._load_kernel(path, name, 0, 0)
            loops[label] = loop_of(launcher._launch_kernel, kernel, codes, values, stream)
        runs = ns_per_call_runs(loops, args.calls, args.repeat)
        ns = {label: sorted(values)[len(values) // 2] for label, values in runs.items()}
        ratio = median_ratio(runs["patched"], runs["upstream"])
        above_floor = median_ratio(
            [p - f for p, f in zip(runs["patched"], runs["floor"])],
            [u - f for u, f in zip(runs["upstream"], runs["floor"])],
        )
        print(
            f"{count} args: floor {ns['floor']:.0f} ns | upstream {ns['upstream']:.0f} ns | "
            f"patched {ns['patched']:.0f} ns | patched/upstream {ratio:.2f} ({above_floor:.2f} above the floor)"
        )
        if count == 8:
            headline = ratio
    print(f"patched_vs_upstream_8_args: {headline:.2f} (goal 0.5)")
    return 0


def main() -> int:
    sys.path.insert(0, str(REPO / "tests" / "bench"))
    from bench_launch import glue_bench_args, glue_bench_main

    args = glue_bench_args(
        __doc__ or "",
        "CMake build dir configured with both upstream trees (see the module docstring)",
        "v2",
        "upstream-launch",
    )
    return glue_bench_main(__file__, args, measure)


if __name__ == "__main__":
    sys.exit(main())
