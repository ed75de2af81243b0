"""The layers of csrc/ as the includes draw them (docs/internals.md, "Layers").

Each folder of csrc/ may include from the folders listed for it and from no
other: a new include across folders fails here until the table (and the
picture in docs/internals.md) says it is meant. The table is exact, so an
edge that goes away must leave it too. CPython code is held to the same
rule at file level: only the files listed may include Python.h or use the
CPython API.
"""

from __future__ import annotations

import re
from pathlib import Path

CSRC = Path(__file__).resolve().parents[2] / "csrc"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)

# folder -> the folders its files include from. The order of the layers,
# lowest first: common; file_io, zebin, level_zero; launcher, ocloc;
# sycl_launch, compile; python, tools; pytorch. The zebin reader and the driver layer
# know nothing of each other: the launcher puts them together.
LAYERS: dict[str, set[str]] = {
    "common": set(),
    "file_io": {"common"},
    "zebin": {"common"},
    "level_zero": {"common"},
    "launcher": {"common", "file_io", "level_zero", "zebin"},
    "ocloc": {"common", "file_io", "zebin"},
    "compile": {"common", "level_zero", "ocloc"},
    "sycl_launch": {"common", "launcher", "level_zero"},
    "python": {"common", "compile", "file_io", "launcher", "level_zero", "ocloc", "sycl_launch", "zebin"},
    "pytorch": {"python"},
    "tools": {"common", "file_io", "launcher", "level_zero", "zebin"},
}
RANK = {
    "common": 0,
    "file_io": 1,
    "zebin": 1,
    "level_zero": 1,
    "launcher": 3,
    "ocloc": 3,
    "sycl_launch": 4,
    "compile": 4,
    "python": 5,
    "pytorch": 6,
    "tools": 5,
}
# The files outside csrc/python that hold CPython code: the glue, which
# becomes torch's own xpu.cpp, and its tensor read.
CPYTHON_OUTSIDE_PYTHON = {
    "pytorch/xpu.cpp",
    "pytorch/xpu.h",
    "pytorch/tensor_address.h",
}
CPYTHON = re.compile(r"#\s*include\s+<Python\.h>|\bPyObject\b")


def _sources() -> list[Path]:
    return sorted(p for p in CSRC.rglob("*") if p.suffix in (".h", ".cpp") and p.is_file())


def test_every_folder_is_in_the_table():
    folders = {p.relative_to(CSRC).parts[0] for p in _sources()}
    assert folders == set(LAYERS), "add the new folder to LAYERS and RANK (and to docs/internals.md)"
    assert set(RANK) == set(LAYERS)


def test_includes_follow_the_layers():
    found: dict[str, set[str]] = {folder: set() for folder in LAYERS}
    where: dict[tuple[str, str], str] = {}
    for path in _sources():
        folder = path.relative_to(CSRC).parts[0]
        for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if target != folder and (CSRC / target).is_dir():
                found[folder].add(target)
                where.setdefault((folder, target), str(path.relative_to(CSRC)))
    for folder, targets in found.items():
        unexpected = targets - LAYERS[folder]
        assert not unexpected, {t: where[(folder, t)] for t in unexpected}
        assert targets == LAYERS[folder], f"{folder} no longer includes {LAYERS[folder] - targets}: update LAYERS"


def test_the_table_points_down_only():
    for folder, targets in LAYERS.items():
        for target in targets:
            assert RANK[target] < RANK[folder], (folder, target)


def test_cpython_code_stays_where_it_is_listed():
    holders = {
        str(path.relative_to(CSRC))
        for path in _sources()
        if path.relative_to(CSRC).parts[0] != "python" and CPYTHON.search(path.read_text(encoding="utf-8"))
    }
    assert holders == CPYTHON_OUTSIDE_PYTHON
