"""Real Triton kernels compiled here by triton-xpu 3.3.0b1 and kept as
Triton's native-code cache keeps them, then Triton's own objects over them.

Triton-XPU 3.3 with TRITON_XPU_GEN_NATIVE_CODE=1 compiles each kernel to
SPIR-V, runs `ocloc compile ... -o <file> -device pvc` and keeps the zebin
under the SPIR-V stage's name: a cache entry is <name>.json (the metadata)
and <name>.spv (the zebin); load_binary then creates the module as native
code. Debian's ocloc 22.43 rejects `-o`, so this module makes the same
entry in two steps: Triton compiles to SPIR-V (its own compile, the
committed SPIR-V of tests/kernels/triton byte for byte), and the package's
ocloc front end (xpu_static_launcher.compile, backend "ocloc": the same
ocloc, with the options 22.43 needs to write a zebin) builds the pvc zebin
with the kernel's build flags. Everything after that is Triton's code:
CompiledKernel reads the entry, its launcher is generated and compiled by
runtime/build.py, load_binary loads the zebin.

Needs triton and the served torch.xpu (torch_xpu_standin) in this process.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TRITON_KERNELS = REPO / "tests" / "kernels" / "triton"
TRITON_VERSION = "3.3.0b1"
# The device Triton-XPU 3.3's native path compiles for (make_spv passes
# `-device pvc`), and the one ocloc 22.43 knows among Triton's targets.
ZEBIN_DEVICE = "pvc"
NATIVE_CODE_ENV = "TRITON_XPU_GEN_NATIVE_CODE"
LARGE_GRF_FLAG = "-cl-intel-256-GRF-per-thread"


class KernelSource:
    """One Triton kernel to compile: the JIT function, its signature (every
    parameter in order, 'constexpr' for constexprs), constexpr values and
    compile options."""

    def __init__(
        self, name: str, fn: Any, signature: dict[str, str], constants: dict[str, Any], options: dict[str, Any]
    ) -> None:
        self.name = name
        self.fn = fn
        self.signature = signature
        self.constants = constants
        self.options = options

    def ast_source(self) -> Any:
        from triton.compiler import ASTSource

        return ASTSource(self.fn, dict(self.signature), dict(self.constants))

    def runtime_types(self) -> list[str]:
        return [t for t in self.signature.values() if t != "constexpr"]

    def with_options(self, **options: Any) -> KernelSource:
        return KernelSource(self.name, self.fn, self.signature, self.constants, dict(self.options, **options))


def kernel_sources() -> dict[str, KernelSource]:
    """The committed test kernels (tests/kernels/triton/kernels.py) and the 8-
    and 24-argument kernels (launch_kernels.py), by name."""
    for folder in (TRITON_KERNELS, Path(__file__).resolve().parent):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    import kernels

    import launch_kernels

    found = {
        spec.name: KernelSource(spec.name, spec.fn, spec.signature, spec.constants, spec.options)
        for spec in kernels.KERNELS
    }
    for fn in (launch_kernels.add8, launch_kernels.add24):
        types = ["*fp32"] * (len(fn.arg_names) - 2) + ["i32", "constexpr"]
        found[fn.__name__] = KernelSource(
            fn.__name__, fn, dict(zip(fn.arg_names, types)), {"BLOCK_SIZE": 256}, {"num_warps": 4}
        )
    return found


def committed_spirv_sha256(name: str) -> str | None:
    """The sha256 of tests/kernels/triton/<name>.spv, if committed."""
    path = TRITON_KERNELS / f"{name}.json"
    return json.loads(path.read_text())["spv_sha256"] if path.is_file() else None


def compile_spirv(source: KernelSource) -> Any:
    """triton.compile for the served device: a CompiledKernel holding SPIR-V
    (the process must not have TRITON_XPU_GEN_NATIVE_CODE set: that would
    run ocloc with -o)."""
    import triton
    from triton.runtime import driver

    assert os.environ.get(NATIVE_CODE_ENV, "") in ("", "0"), (
        f"{NATIVE_CODE_ENV} is set: Triton would run ocloc -o, which ocloc 22.43 rejects"
    )
    target = driver.active.get_current_target()
    return triton.compile(source.ast_source(), target=target, options=dict(source.options))


def write_native_entry(compiled: Any, root: Path) -> Path:
    """The cache entry Triton's native path would have written for
    `compiled`: root/<hash>/<name>.json (generate_native_code true) and
    <name>.spv holding the pvc zebin. Returns the entry's folder."""
    from xpu_static_launcher import compile as zebin_compile

    metadata = json.loads(_metadata_text(compiled))
    metadata["generate_native_code"] = True
    flags = compiled.metadata.build_flags
    built = zebin_compile.compile_spirv(
        compiled.asm["spv"], ZEBIN_DEVICE, flags, backend="ocloc", retry_large_grf=False
    )
    # Triton-XPU 3.3's make_spv: when ocloc's log says "spilled", build again
    # with large GRF and keep that flag in the metadata (load_binary's n_regs
    # reads it).
    if "spilled" in built["log"] and LARGE_GRF_FLAG not in flags:
        flags += " " + LARGE_GRF_FLAG
        built = zebin_compile.compile_spirv(
            compiled.asm["spv"], ZEBIN_DEVICE, flags, backend="ocloc", retry_large_grf=False
        )
    metadata["build_flags"] = flags
    entry = root / compiled.hash
    entry.mkdir(parents=True, exist_ok=True)
    name = compiled.metadata.name
    (entry / f"{name}.spv").write_bytes(built["zebin"])
    (entry / f"{name}.json").write_text(json.dumps(metadata))
    return entry


def _metadata_text(compiled: Any) -> str:
    from triton.runtime.cache import get_cache_manager

    manager = get_cache_manager(compiled.hash)
    path = manager.get_file(f"{compiled.metadata.name}.json")
    assert path is not None, f"Triton's cache has no metadata for {compiled.metadata.name}"
    return Path(path).read_text()


def entry_files(entry: Path) -> dict[str, str]:
    """The metadata group of a cache entry, as Triton's cache hands it to
    CompiledKernel: file name -> path."""
    return {path.name: str(path) for path in sorted(entry.iterdir()) if path.suffix in (".json", ".spv")}


def load_entry(source: KernelSource, entry: Path) -> Any:
    """CompiledKernel over a native cache entry, as a Triton cache hit makes
    it (triton.compile returns CompiledKernel(src, group, hash) there). Its
    zebin is kept as `_cubin_path`, where Inductor looks for it."""
    from triton.compiler import CompiledKernel

    assert os.environ.get(NATIVE_CODE_ENV) == "1", (
        f"set {NATIVE_CODE_ENV}=1 before loading zebins: load_binary reads it"
    )
    kernel = CompiledKernel(source.ast_source(), entry_files(entry), entry.name)
    kernel._cubin_path = str(entry / f"{kernel.metadata.name}.spv")
    return kernel


def make_cache(sources: list[KernelSource], root: Path) -> list[Path]:
    """Compile each source (SPIR-V, then the pvc zebin) into native entries
    under root; entries already there are reused (the entry's folder is the
    SPIR-V compile's hash). Returns them in order."""
    entries = []
    for source in sources:
        compiled = compile_spirv(source)
        entry = root / compiled.hash
        if not (entry / f"{compiled.metadata.name}.spv").is_file():
            entry = write_native_entry(compiled, root)
        entries.append(entry)
    return entries
