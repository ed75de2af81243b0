#!/usr/bin/env python3
"""Fuzzer seeds from the zebin corpus: every *.zebin as it is, plus the
`.ze_info` text of each as <name>.yaml, so the YAML parser gets seeds of its
own (mutating a whole ELF rarely reaches deep into the YAML). Stdlib only;
a missing corpus gives an empty seed folder. Inputs that once crashed the
reader (regressions/ beside this script) are always seeds, so the ctest
smoke run replays them on every build."""

from __future__ import annotations

import argparse
import shutil
import struct
import sys
from pathlib import Path


def ze_info_text(data: bytes) -> bytes | None:
    """The .ze_info section of an ELF64 LE file, or None."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        return None
    (shoff,) = struct.unpack_from("<Q", data, 40)
    shnum, shstrndx = struct.unpack_from("<HH", data, 60)
    if shoff + shnum * 64 > len(data) or shstrndx >= shnum:
        return None

    def header(i: int) -> tuple:
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * 64)

    names = header(shstrndx)
    for i in range(shnum):
        name_offset, _, _, _, offset, size = header(i)[:6]
        start = names[4] + name_offset
        if data[start : start + 9] == b".ze_info\0":
            return data[offset : offset + size]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="zebin corpus folder")
    parser.add_argument("--out", type=Path, required=True, help="seed folder to fill")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for zebin in sorted(args.corpus.glob("*.zebin")):
        shutil.copyfile(zebin, args.out / zebin.name)
        text = ze_info_text(zebin.read_bytes())
        if text:
            (args.out / (zebin.stem + ".yaml")).write_bytes(text)
    for crash in sorted((Path(__file__).parent / "regressions").glob("*")):
        shutil.copyfile(crash, args.out / ("regression-" + crash.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
