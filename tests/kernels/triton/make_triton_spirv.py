#!/usr/bin/env python3
"""Compile the project's real Triton test kernels to SPIR-V.

Needs triton-xpu 3.3.0b1 (``pip install --pre triton-xpu==3.3.0b1``, best in
a virtual environment of its own so that the torch environment is left
alone). Developers run this script when a kernel here changes and commit what
it writes; CI never runs it: CI builds zebins from the committed SPIR-V with
ocloc (tests/kernels/make_corpus.py).

No GPU, SYCL or oneAPI install is needed: the kernels are compiled for an
explicit target (``GPUTarget("xpu", <device properties>, 32)``) and Triton
stops at its SPIR-V stage. The device properties describe a generic Intel
GPU without DPAS or 2D block loads, so that one SPIR-V file builds for pvc,
dg2 and acm-g10 alike.

For each kernel it writes <name>.spv and <name>.json: what launching needs
from Triton's metadata (kernel name, the signature in order with constexprs,
constexpr values, num_warps, threads_per_warp, shared memory, build flags,
the Triton version).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
TRITON_VERSION = "3.3.0b1"

# The target's device properties, as Triton-XPU's XPUBackend.parse_target
# reads them.
TARGET_PROPERTIES: Dict[str, Any] = {
    "name": "generic Intel GPU (no DPAS, no 2D block IO)",
    "sub_group_sizes": [16, 32],
    "has_fp64": True,
    "has_subgroup_matrix_multiply_accumulate": False,
    "has_subgroup_matrix_multiply_accumulate_tensor_float32": False,
    "has_subgroup_2d_block_io": False,
    "has_bfloat16_conversions": True,
}


def patch_backend_for_cpu_only() -> None:
    """XPUBackend.__init__ builds a SYCL helper to name the device
    architecture; with an explicit properties dict nothing needs it. Give the
    backend a stand-in that names no architecture (so it also runs no
    `ocloc query`)."""
    from triton.backends import backends

    class _NoArch:
        @staticmethod
        def parse_device_arch(_arch: int) -> str:
            return ""

    init_globals = backends["intel"].compiler.__init__.__globals__
    init_globals["compile_module_from_src"] = lambda _src, _name: _NoArch()


def compile_kernel(spec: Any) -> Tuple[bytes, Dict[str, Any]]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    source = ASTSource(spec.fn, spec.signature, spec.constants)
    target = GPUTarget("xpu", dict(TARGET_PROPERTIES), 32)
    compiled = triton.compile(source, target=target, options=dict(spec.options))
    spirv = compiled.asm["spv"]
    md = compiled.metadata
    info: Dict[str, Any] = {
        "name": md.name,
        "purpose": spec.purpose,
        "triton_version": md.triton_version,
        # Every parameter in order; constexprs have the type "constexpr".
        "signature": {name: spec.signature[name] for name in spec.fn.arg_names},
        "constants": spec.constants,
        "num_warps": md.num_warps,
        "threads_per_warp": md.threads_per_warp,
        "num_ctas": md.num_ctas,
        "shared": md.shared,
        # Triton passes these to ocloc / zeModuleCreate; "" is Triton's
        # default GRF mode. The large-GRF zebins are built from the same
        # SPIR-V with -cl-intel-256-GRF-per-thread.
        "build_flags": md.build_flags,
        # Triton-XPU 3.3 has no scratch arguments: its metadata has no
        # global_scratch_size or profile_scratch_size.
        "scratch_sizes_in_metadata": hasattr(md, "global_scratch_size"),
        # fp64 parameters: devices without fp64 (dg2) cannot build it.
        "needs_fp64": any(t.lstrip("*") == "fp64" for t in spec.signature.values()),
        "target": TARGET_PROPERTIES,
        "spv_sha256": hashlib.sha256(spirv).hexdigest(),
    }
    return spirv, info


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Needs triton-xpu " + TRITON_VERSION + ".")
    parser.add_argument("--out", type=Path, default=HERE,
                        help="folder for <kernel>.spv and <kernel>.json "
                        "(default: this script's folder)")
    parser.add_argument("--kernel", action="append",
                        help="compile only this kernel (repeatable; default: all)")
    args = parser.parse_args(argv)

    try:
        import triton
    except ImportError:
        print(f"make_triton_spirv: triton is not importable; run with a Python that has "
              f"triton-xpu {TRITON_VERSION} (pip install --pre triton-xpu=={TRITON_VERSION})",
              file=sys.stderr)
        return 1
    if triton.__version__ != TRITON_VERSION:
        print(f"make_triton_spirv: triton {triton.__version__} found, {TRITON_VERSION} "
              f"needed (pip install --pre triton-xpu=={TRITON_VERSION})", file=sys.stderr)
        return 1
    patch_backend_for_cpu_only()
    sys.path.insert(0, str(HERE))
    import kernels  # needs triton

    specs = kernels.KERNELS
    known = [s.name for s in specs]
    for name in args.kernel or []:
        if name not in known:
            print(f"make_triton_spirv: unknown kernel '{name}'; known: {', '.join(known)}",
                  file=sys.stderr)
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    # A private cache: never reuse results of another Triton install.
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        # No debug line information: smaller SPIR-V without machine paths.
        os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
        for spec in specs:
            if args.kernel and spec.name not in args.kernel:
                continue
            spirv, info = compile_kernel(spec)
            (args.out / f"{spec.name}.spv").write_bytes(spirv)
            (args.out / f"{spec.name}.json").write_text(json.dumps(info, indent=1) + "\n")
            print(f"make_triton_spirv: {spec.name}.spv ({len(spirv)} bytes, "
                  f"num_warps {info['num_warps']}, threads_per_warp "
                  f"{info['threads_per_warp']}, shared {info['shared']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
