"""Helpers for the zebin tests (test_zebin_*.py) and tests/bench/bench_zebin.py:
the corpus manifest, the zebin-info executable, and independent oracles
(pyelftools, readelf) for the ELF layer."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

SPILL_REGEX = re.compile(rb"spill_size\s*[:=]\s*(\d+)")


def load_manifest(corpus: Path) -> dict[str, Any]:
    return json.loads((corpus / "manifest.json").read_text())


def zebin_info_exe(build_dir: Path) -> Path | None:
    for name in ("zebin-info", "zebin-info.exe"):
        path = build_dir / "csrc" / "tools" / name
        if path.is_file():
            return path
    return None


def run_zebin_info(exe: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60, check=False)


def pyelftools_sections(data: bytes) -> list[dict[str, Any]]:
    """Section table per pyelftools: name, type (int), offset, size."""
    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(data))
    sections = []
    for section in elf.iter_sections():
        sh_type = section["sh_type"]
        if not isinstance(sh_type, int):
            sh_type = _ELF_SECTION_TYPES.get(sh_type, -1)
        sections.append(
            {"name": section.name, "type": sh_type, "offset": section["sh_offset"], "size": section["sh_size"]}
        )
    return sections


def pyelftools_ze_info(data: bytes) -> bytes:
    from elftools.elf.elffile import ELFFile

    section = ELFFile(io.BytesIO(data)).get_section_by_name(".ze_info")
    return section.data() if section is not None else b""


_ELF_SECTION_TYPES = {
    "SHT_NULL": 0,
    "SHT_PROGBITS": 1,
    "SHT_SYMTAB": 2,
    "SHT_STRTAB": 3,
    "SHT_RELA": 4,
    "SHT_HASH": 5,
    "SHT_DYNAMIC": 6,
    "SHT_NOTE": 7,
    "SHT_NOBITS": 8,
    "SHT_REL": 9,
}


def readelf_sections(path: Path) -> list[dict[str, Any]] | None:
    """Section table per binutils readelf -SW (None without readelf)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        return None
    out = subprocess.run([readelf, "-SW", str(path)], capture_output=True, text=True, check=True).stdout
    rows = []
    pattern = re.compile(
        r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]{16})\s+"
        r"([0-9a-f]+)\s+([0-9a-f]+)"
    )
    for line in out.splitlines():
        # The null section has an empty name: readelf prints "NULL" right
        # after the index.
        line = re.sub(r"^(\s*\[\s*0\])\s+NULL", r"\1  <null> NULL", line)
        match = pattern.match(line)
        if match:
            name = "" if match.group(2) == "<null>" else match.group(2)
            rows.append(
                {
                    "index": int(match.group(1)),
                    "name": name,
                    "offset": int(match.group(5), 16),
                    "size": int(match.group(6), 16),
                }
            )
    return rows
