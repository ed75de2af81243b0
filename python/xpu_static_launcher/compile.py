"""SPIR-V -> zebin through ocloc or the installed Intel GPU driver.

Which compiler (first that works): ``XSL_ZEBIN_COMPILER`` (``ocloc`` or
``driver`` forces one; ``auto`` or unset does not), then ocloc (``XSL_OCLOC``,
the ``intel_ocloc`` wheel in ``sys.path``, ``PATH``, oneAPI, system folders),
then the driver: the Level Zero driver compiles SPIR-V with its own IGC
(``zeModuleCreate``) and hands back the zebin (``zeModuleGetNativeBinary``).
The driver needs an Intel GPU of the target's architecture in the machine,
and nothing beyond the GPU driver installed.

    >>> from xpu_static_launcher import compile as xc
    >>> xc.find_compiler()["source"]          # "PATH", "wheel", "driver", ...
    >>> out = xc.compile_spirv(spirv, "pvc")  # out["zebin"], out["build_flags"]

``python -m xpu_static_launcher.compile`` takes ocloc's own arguments
(``compile -file k.spv -spirv_input -device pvc -options ... -o k.zebin``)
plus ``--backend``, so a tool that runs ocloc can run it instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

try:
    from . import _compile  # type: ignore[attr-defined]  # built by CMake, no stub
except ImportError as error:  # pragma: no cover - message for broken installs
    raise ImportError(
        "xpu_static_launcher._compile is not built; build the project with CMake "
        "(XSL_BUILD_PYTHON=ON) and put <build>/python on PYTHONPATH, or `pip install .`"
    ) from error

# auto, ocloc, ocloc-library, ocloc-executable, driver: ocloc-library and
# ocloc-executable run ocloc only in process, or only as a subprocess (ocloc
# alone picks the library when it loads). The module's table, which C++ parses.
BACKENDS: tuple[str, ...] = _compile.BACKENDS
BACKEND_ENV = "XSL_ZEBIN_COMPILER"

__all__ = ["BACKENDS", "BACKEND_ENV", "ZebinCompileError", "find_compiler", "compile_spirv", "main"]


class ZebinCompileError(RuntimeError):
    """No zebin compiler, or the build failed; the message says which and why
    (with the compiler's build log)."""


def _python_paths() -> str:
    return os.pathsep.join(p for p in sys.path if p)


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def find_compiler(backend: str = "auto") -> dict[str, Any]:
    """The compiler ``compile_spirv`` would use: ``source`` (environment,
    wheel, PATH, oneAPI, system or driver), ``origin``, ``executable``,
    ``library``, ``backend`` (what runs it), ``version`` and ``tried`` (every
    place looked at, the driver probe last when it was reached).

    Raises ``ZebinCompileError`` listing every place tried when there is none.
    """
    _check_backend(backend)
    try:
        description, tried = _compile.find(backend, _python_paths())
    except RuntimeError as error:
        raise ZebinCompileError(str(error)) from None
    info: dict[str, Any] = {}
    for line in description.splitlines():
        key, _, value = line.partition(": ")
        info[key] = value
    info["tried"] = list(tried)
    return info


def compile_spirv(
    spirv: bytes, device: str, build_flags: str = "", *, backend: str = "auto", retry_large_grf: bool = True
) -> dict[str, Any]:
    """Compiles SPIR-V for ``device`` (an ocloc device name such as ``pvc``,
    or an IP version ``12.60.7``) with ``build_flags``.

    ``retry_large_grf``: Triton's rule: when the default-GRF build spills (or
    fails), build again in large-GRF mode and keep the build with fewer spill
    bytes. Returns ``zebin`` (bytes), ``build_flags`` (of the kept build),
    ``spill_bytes``, ``large_grf``, ``log`` and ``source``.
    """
    _check_backend(backend)
    try:
        result: dict[str, Any] = _compile.compile(
            bytes(spirv), device, build_flags, retry_large_grf, backend, _python_paths()
        )
    except RuntimeError as error:
        raise ZebinCompileError(str(error)) from None
    description = dict(line.partition(": ")[::2] for line in result.pop("description").splitlines())
    result["source"] = description.get("source", "")
    return result


_USAGE = """usage: python -m xpu_static_launcher.compile compile -file K.spv -device DEVICE
           [-options FLAGS] [-o|-output OUT] [-spirv_input] [-q]
           [--backend BACKEND] [--retry-large-grf]

SPIR-V -> zebin with ocloc's arguments, through ocloc or the installed GPU
driver. -device: an ocloc device name (pvc, bmg, ...) or an IP version.
--backend: auto (XSL_ZEBIN_COMPILER, ocloc, then the driver), ocloc,
ocloc-library or ocloc-executable (ocloc only in process or only as a
subprocess), driver.
--retry-large-grf: apply Triton's large-GRF retry here (off by default: the
caller decides, as with ocloc). Exit 0 on success, 1 with the error and
build log on stdout when the build fails, 2 for bad arguments."""

_VALUE_OPTIONS = {
    "-file": "file",
    "-o": "output",
    "-output": "output",
    "-device": "device",
    "-options": "options",
    "--backend": "backend",
}


def _parse_ocloc_arguments(argv: Sequence[str]) -> dict[str, Any]:
    """ocloc-style parsing: values may start with '-' (``-options -cl-...``),
    which argparse would take for options."""
    args: dict[str, Any] = {"options": "", "backend": "auto", "retry": False}
    items = list(argv)
    if not items or items[0] != "compile":
        raise ValueError("the first argument must be `compile`")
    i = 1
    while i < len(items):
        item = items[i]
        if item in _VALUE_OPTIONS:
            if i + 1 >= len(items):
                raise ValueError(f"{item} needs a value")
            args[_VALUE_OPTIONS[item]] = items[i + 1]
            i += 2
            continue
        if item == "--retry-large-grf":
            args["retry"] = True
        elif item not in ("-spirv_input", "-q"):
            raise ValueError(f"unknown argument {item!r}")
        i += 1
    for needed in ("file", "device"):
        if needed not in args:
            raise ValueError(f"-{needed} is required")
    if args["backend"] not in BACKENDS:
        raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}")
    args.setdefault("output", os.path.splitext(args["file"])[0] + ".zebin")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """ocloc-compatible command line; exit 0 on success, 1 with the build
    log on stdout when the build fails, 2 for bad arguments."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(item in ("-h", "--help") for item in argv):
        print(_USAGE)
        return 0
    try:
        args = _parse_ocloc_arguments(argv)
    except ValueError as error:
        print(f"{error}\n\n{_USAGE}", file=sys.stderr)
        return 2
    try:
        with open(args["file"], "rb") as f:
            spirv = f.read()
    except OSError as error:
        print(f"cannot read {args['file']}: {error}; pass the SPIR-V file as -file")
        return 2
    try:
        result = compile_spirv(
            spirv, args["device"], args["options"], backend=args["backend"], retry_large_grf=args["retry"]
        )
    except (ZebinCompileError, ValueError) as error:
        print(error)
        return 1
    with open(args["output"], "wb") as f:
        f.write(result["zebin"])
    if result["log"].strip():
        print(result["log"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
