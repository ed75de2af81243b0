#!/usr/bin/env python3
"""Write the .def of an import library for torch's c10_xpu.dll.

torch's CPU wheels for Windows have no c10_xpu (c10_xpu.lib / c10_xpu.dll);
torch's XPU wheels ship both. The PyTorch glue calls c10::xpu functions
(devices, context, current stream), which its objects import as
__imp_<mangled name> (C10_XPU_API is __declspec(dllimport) outside c10_xpu).
This reads `dumpbin /symbols` of those objects and lists every imported
c10::xpu symbol as an export of c10_xpu.dll: what an XPU wheel's c10_xpu.lib
resolves them to. `lib /def:` makes the import library; the linked module then
imports c10_xpu.dll exactly as one linked against an XPU wheel does.
Stdlib only.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

# dumpbin /symbols: "... UNDEF  notype       External     | __imp_?name@xpu@c10@@..."
_IMPORTED = re.compile(r"\bUNDEF\b.*\bExternal\s+\|\s+__imp_(\S+)")
# c10::xpu and what is nested in it (XPUStream, impl): "@xpu@c10@@" ends
# the qualified name of each such symbol.
_C10_XPU = re.compile(r"^\?[^@]+@(?:[^@]+@)*xpu@c10@@")


def c10_xpu_imports(symbol_listings: Iterable[str]) -> list[str]:
    names = set()
    for listing in symbol_listings:
        for line in listing.splitlines():
            match = _IMPORTED.search(line)
            if match and _C10_XPU.match(match.group(1)):
                names.add(match.group(1))
    return sorted(names)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("listings", nargs="+", type=Path, help="`dumpbin /symbols` output of the glue's objects")
    parser.add_argument("--out", type=Path, required=True, help="the .def to write")
    args = parser.parse_args(argv)
    names = c10_xpu_imports(path.read_text(encoding="utf-8", errors="replace") for path in args.listings)
    if not names:
        print(f"c10_xpu_def: no imported c10::xpu symbol in {', '.join(map(str, args.listings))}", file=sys.stderr)
        return 1
    text = "LIBRARY c10_xpu.dll\nEXPORTS\n" + "".join(f"    {name}\n" for name in names)
    if not args.out.exists() or args.out.read_text(encoding="utf-8") != text:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
