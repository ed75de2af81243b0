"""Kernel metadata from Intel GPU native binaries (zebin).

A thin wrapper over the C++ reader (``xpu_static_launcher._zebin``): the
values come from the binary's ``.ze_info`` section, never from compiler
console output. Bad input raises ``ValueError`` with the reader's message.

    >>> from xpu_static_launcher import zebin
    >>> zebin.kernel_summary(open("add.zebin", "rb").read())
    [('add', 32, 128, 0)]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

try:
    from . import _zebin  # type: ignore[attr-defined]  # built by CMake, no stub
except ImportError as error:  # pragma: no cover - message for broken installs
    raise ImportError(
        "xpu_static_launcher._zebin is not built; build the project with CMake "
        "(XSL_BUILD_PYTHON=ON) and put <build>/python on PYTHONPATH, or "
        "`pip install .`"
    ) from error

BytesLike = bytes | bytearray | memoryview
PathLike = str | os.PathLike[str]

__all__ = ["read_zebin", "kernel_summary", "read_file", "main"]


def read_zebin(data: BytesLike) -> dict[str, Any]:
    """Everything the reader knows about a zebin held in memory.

    Returns a dict with ``version`` (zeinfo version text), ``kernels`` (one
    dict per kernel: name, simd_size, grf_count, spill_size (derived spill
    bytes), execution_env_spill_size, private_size, slm_size, barrier_count,
    required_sub_group_size, threads_per_warp, flags, args,
    payload_arguments, per_thread_memory_buffers), ``sections`` (name, type,
    flags, offset, size), ``notes`` ((owner, type, desc) from
    ``.note.intelgt.compat``) and ``warnings``.
    """
    info: dict[str, Any] = _zebin.read_zebin(data)
    return info


def kernel_summary(data: BytesLike) -> list[tuple[str, int, int, int]]:
    """``[(name, simd_size, grf_count, spill_bytes), ...]``: the fast path."""
    summary: list[tuple[str, int, int, int]] = _zebin.kernel_summary(data)
    return summary


def read_file(path: PathLike) -> dict[str, Any]:
    """``read_zebin`` of a file; the error message names the file.

    ``path`` is a ``str`` or ``os.PathLike``. The file is read by the
    launcher's own reader, so a missing, empty, oversized or non-regular file
    raises ``OSError`` with the same message as ``zebin-info`` and
    ``_load_kernel``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"path must be a str or os.PathLike of str, got {type(text).__name__}")
    data = _zebin.read_file_bytes(text)
    try:
        return read_zebin(data)
    except ValueError as error:
        raise ValueError(f"{os.fspath(path)}: {error}") from None


# (driver property, .ze_info key, what the .ze_info value is), as zebin-info --load.
LOAD_COMPARISONS = (
    ("numKernelArgs", "args", "user arguments"),
    ("spillMemSize", "spill_size", "spill bytes"),
    ("privateMemSize", "private_size", "private bytes"),
    ("localMemSize", "slm_size", "slm_size"),
    ("requiredSubgroupSize", "required_sub_group_size", "required_sub_group_size"),
    ("maxSubgroupSize", "simd_size", "simd_size"),
)
# Exit codes, as zebin-info's (docs/zebin.md).
EXIT_BAD_INPUT, EXIT_NO_LEVEL_ZERO, EXIT_BAD_DEVICE = 1, 3, 4


def _load_report(path: str, kernels: list[dict[str, Any]], device: int, device_name: str, as_json: bool) -> bool:
    """Loads each kernel through the launcher and prints the driver's
    properties next to .ze_info like ``zebin-info --load``; True if all agree."""
    from . import _launcher

    rows: list[dict[str, Any]] = []
    for kernel in kernels:
        try:
            function, _, _ = _launcher.StaticXpuLauncher._load_kernel(path, kernel["name"], 0, device)
        except RuntimeError as error:
            rows.append({"name": kernel["name"], "loaded": False, "error": str(error)})
            continue
        info = _launcher._kernel_info(function)
        properties = []
        for prop, key, _ in LOAD_COMPARISONS:
            expected = len(kernel[key]) if key == "args" else kernel[key]
            properties.append({"property": prop, "ze_info": expected, "driver": info["driver_properties"][prop]})
        rows.append(
            {
                "name": kernel["name"],
                "loaded": True,
                "agree": all(p["ze_info"] == p["driver"] for p in properties),
                "properties": properties,
            }
        )
    failed = [row for row in rows if not row["loaded"]]
    # Every kernel failing the same way is the module failing, as zebin-info reports it.
    module_error = (
        failed[0]["error"] if rows and len(failed) == len(rows) and len({row["error"] for row in failed}) == 1 else None
    )
    if as_json:
        head = {"file": path, "device": device, "device_name": device_name}
        body = {"loaded": False, "error": module_error} if module_error else {"loaded": True, "kernels": rows}
        print(json.dumps({**head, **body}, separators=(",", ":")))
    elif module_error:
        print(f"  load on device {device} ({device_name}): FAILED\n    {module_error}")
    else:
        print(f"  load on device {device} ({device_name}):")
        for row in rows:
            if not row["loaded"]:
                print(f"    kernel {row['name']}: FAILED: {row['error']}")
                continue
            verdict = "driver agrees with .ze_info" if row["agree"] else "DRIVER DISAGREES with .ze_info"
            print(f"    kernel {row['name']}: loaded, {verdict}")
            for prop, (_, _, what) in zip(row["properties"], LOAD_COMPARISONS):
                line = f"      {prop['property']:<22}driver {prop['driver']:<13}.ze_info {prop['ze_info']} ({what})"
                print(line + ("  <-- disagree" if prop["driver"] != prop["ze_info"] else ""))
    return all(row["loaded"] and row["agree"] for row in rows)


def main(argv: Sequence[str] | None = None) -> int:
    """``zebin-info-py [--json] [--kernel NAME] [--load [--device N]] FILE...``
    (like zebin-info, with the same exit codes)."""
    parser = argparse.ArgumentParser(
        prog="zebin-info-py",
        description="Print kernel metadata of zebin files.",
        epilog="exit codes: 0 all good; 1 a bad file, a failed load or a driver that disagrees with "
        ".ze_info; 2 usage error; 3 --load without Level Zero (no loader, no driver, or no Intel "
        "GPU); 4 --load with a --device that does not exist or is not an Intel GPU",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per file (zebin-info's schema)")
    parser.add_argument("--kernel", help="only this kernel")
    parser.add_argument(
        "--load",
        action="store_true",
        help="after the metadata, load each kernel through Level Zero and compare "
        "driver properties with .ze_info (docs/level_zero.md)",
    )
    parser.add_argument("--device", type=int, default=0, help="device index for --load (default 0)")
    parser.add_argument("files", nargs="+", help="zebin files")
    args = parser.parse_args(argv)
    if args.device < 0:
        parser.error("--device needs a device index >= 0")
    problem, device_text = None, ""
    if args.load:
        from . import _launcher

        problem, device_text = _launcher._device_status(args.device)
    status = 0
    for path in args.files:
        try:
            info = read_file(path)
        except (OSError, ValueError) as error:
            print(error, file=sys.stderr)  # every message names the file
            status = EXIT_BAD_INPUT
            continue
        kernels = [k for k in info["kernels"] if args.kernel is None or k["name"] == args.kernel]
        if args.kernel is not None and not kernels:
            names = ", ".join(k["name"] for k in info["kernels"])
            print(f"{path}: kernel '{args.kernel}' not found; the zebin has: {names}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        if args.json:
            keys = (
                "name",
                "simd_size",
                "grf_count",
                "spill_size",
                "private_size",
                "slm_size",
                "barrier_count",
                "required_sub_group_size",
                "threads_per_warp",
                "args",
            )
            print(
                json.dumps(
                    {
                        "file": path,
                        "version": info["version"],
                        "kernels": [{k: kernel[k] for k in keys} for kernel in kernels],
                        "warnings": info["warnings"],
                    },
                    separators=(",", ":"),
                )
            )
        else:
            print(f"{path}: zeinfo {info['version']}, {len(info['kernels'])} kernel(s)")
            for k in kernels:
                print(
                    f"  kernel {k['name']}: simd {k['simd_size']}, grf {k['grf_count']}, "
                    f"spill {k['spill_size']}, private {k['private_size']}, "
                    f"slm {k['slm_size']}, barriers {k['barrier_count']}, "
                    f"threads_per_warp {k['threads_per_warp']}, args {len(k['args'])}"
                )
        if args.load and problem is None and not _load_report(path, kernels, args.device, device_text, args.json):
            status = EXIT_BAD_INPUT
    if problem is not None:
        sys.stdout.flush()
        print(f"zebin-info-py: --load: {device_text}", file=sys.stderr)
        return EXIT_BAD_DEVICE if problem == "bad-device" else EXIT_NO_LEVEL_ZERO
    return status


if __name__ == "__main__":
    sys.exit(main())
