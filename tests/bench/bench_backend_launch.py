#!/usr/bin/env python3
"""Host cost of the package's torch-free SYCL backend against the PyTorch
glue, side by side in one process with real torch tensors, on the real SYCL
runtime (libsycl + the Unified Runtime's Level Zero adapter + the test
driver, in no-record mode):

- glue: csrc/pytorch/xpu.cpp (the test module _xsl_glue_launcher), which
  reads a tensor's address in C++ (pytorch/tensor_address.h, needs
  libtorch_python);
- backend_full: the backend (csrc/python/sycl_launcher_module.cpp) built for
  the full API: torch.TensorBase.data_ptr, looked up once, vectorcalled;
- backend_abi3: the same source built for the limited API 3.10 (abi3), where
  the call is PyObject_CallFunctionObjArgs and tuples and floats are read
  through checked functions;
- backend_ints: backend_abi3 given the same addresses as ints (no data_ptr).

Both launch through the same sycl_launch code on the same queue, so the
difference is the argument reading. The kernel has 8 arguments (7 tensors,
1 int); the tensors are torch CPU tensors over device memory of the test
driver (torch.frombuffer), so data_ptr() is that memory's address. Times are
CPU ns per call (process time), the median of --repeat runs; each ratio is
the median over runs of that run's pair. A real GPU driver adds its own
cost under every launch alike. Last line:
    backend_abi3_vs_glue: <median ratio>

Usage: python3 tests/bench/bench_backend_launch.py [--build-dir build/linux-gcc]
       [--adapter v1|v2]
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from collections.abc import Callable
from typing import Any

from bench_launch import glue_bench_args, glue_bench_main, glue_runtime, make_loop, ns_per_call_runs, print_ratios


def measure(args: argparse.Namespace) -> int:
    torch, support, glue = glue_runtime()
    import _xsl_glue_launcher as project_glue
    import _xsl_sycl_backend_abi3 as backend_abi3
    import _xsl_sycl_backend_full as backend_full

    path = str(support.compile_opencl(support.many_args_source(8)))
    launchers = {
        "glue": project_glue._StaticXpuLauncher,
        "backend_full": backend_full._StaticXpuLauncher,
        "backend_abi3": backend_abi3._StaticXpuLauncher,
    }
    functions = {name: launcher._load_kernel(path, "many_8", 0, 0)[0] for name, launcher in launchers.items()}
    addresses = [glue.malloc_device(4096, 0) for _ in range(7)]
    tensors = tuple(torch.frombuffer((ctypes.c_char * 4096).from_address(a), dtype=torch.float32) for a in addresses)
    assert [t.data_ptr() for t in tensors] == addresses
    codes = "O" * 7 + "i"
    stream = glue.current_raw_stream(0)

    def loop_of(launch: Callable[..., Any], kernel: Any, values: Any) -> Callable[[int], None]:
        return make_loop(kernel, launch, codes, (values,), stream)

    loops: dict[str, Callable[[int], None]] = {
        name: loop_of(launchers[name]._launch_kernel, functions[name], tensors + (64,)) for name in launchers
    }
    loops["backend_ints"] = loop_of(
        launchers["backend_abi3"]._launch_kernel, functions["backend_abi3"], tuple(addresses) + (64,)
    )
    runs = ns_per_call_runs(loops, args.calls, args.repeat)
    ns = {name: sorted(values)[len(values) // 2] for name, values in runs.items()}
    print(
        f"platform: {glue.platform_name()} (Level Zero test driver, no-record mode); "
        f"torch {torch.__version__}, Python {sys.version.split()[0]}"
    )
    print("8 args (7 tensors): " + " | ".join(f"{name} {ns[name]:.0f} ns" for name in loops))
    print_ratios(
        runs,
        [
            ("backend_ints", "glue"),
            ("backend_full", "glue"),
            ("backend_abi3", "backend_full"),
            ("backend_abi3", "glue"),
        ],
    )
    return 0


def main() -> int:
    args = glue_bench_args(
        __doc__ or "", "CMake build dir holding the glue and backend test modules and the test driver", "v2"
    )
    return glue_bench_main(__file__, args, measure, "_xsl_sycl_backend_abi3")


if __name__ == "__main__":
    sys.exit(main())
