"""The command line of find_sycl.py and find_torch.py: find one layout, then
print it as JSON, as NAME=value lines for CMake, or as text. Stdlib only."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any


def run(
    doc: str | None,
    argv: Sequence[str] | None,
    find: Callable[[], Any],
    not_found: type[Exception],
    cmake_file: str,
    cmake_lines: Callable[[Any], Mapping[str, object]],
    text_lines: Callable[[Any], Mapping[str, object]],
) -> int:
    """`find` returns a dataclass or raises `not_found` with one line;
    `cmake_lines` and `text_lines` name what each output prints."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the layout as JSON")
    out.add_argument("--cmake", action="store_true", help=f"print NAME=value lines for {cmake_file} (forward slashes)")
    args = parser.parse_args(argv)
    try:
        layout = find()
    except not_found as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(asdict(layout), indent=1))
        return 0
    lines = cmake_lines(layout) if args.cmake else text_lines(layout)
    for name, value in lines.items():
        print(f"{name}={value}" if args.cmake else f"{name} {value}")
    return 0
