"""The project's launcher (`patchset.py apply --launcher project`) as
installed in a PyTorch-shaped tree: includes resolve, it compiles.

The v2.13.0 stack plus the generated launcher patch is applied to a tree
rebuilt from the patches; the installed glue
(static_launcher/xpu.cpp) and helper sources (static_launcher/xsl/**) are then
compiled as C++20 with -fsyntax-only against the tree itself and the real
headers: the installed torch wheel's include dir (upstream's xpu.h, c10/xpu)
and the SYCL headers of intel-sycl-rt. This proves the include rewriting of
`patchset.py regen`.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from patchset_support import PATCH_DIR, REPO, load_script, make_checkout

patchset = load_script("patchset")
LAUNCHER = "torch/csrc/inductor/static_launcher"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    root = make_checkout(tmp_path_factory.mktemp("installed"))
    series = patchset.Series.load(PATCH_DIR / "v2.13.0")
    result = patchset.apply_stack(series, "project", PATCH_DIR, root)
    assert result.ok, result.lines
    return root


def _installed_sources(root: Path) -> list[Path]:
    return sorted((root / LAUNCHER / "xsl").rglob("*.cpp")) + sorted((root / LAUNCHER / "xsl").rglob("*.h"))


def test_no_project_relative_include_is_left(installed):
    manifest = patchset.Manifest.load(PATCH_DIR)
    if not (REPO / manifest.glue_source).is_file():
        pytest.skip(f"{manifest.glue_source} not written yet")
    quoted = re.compile(r'^\s*#\s*include\s+"')
    files = [installed / manifest.glue_dest] + _installed_sources(installed)
    offenders = [
        f"{p.relative_to(installed)}:{i + 1}"
        for p in files
        for i, line in enumerate(p.read_text().splitlines())
        if quoted.match(line)
    ]
    assert offenders == []


def test_installed_launcher_compiles_in_the_tree(installed, tmp_path):
    compiler = shutil.which("g++")
    manifest = patchset.Manifest.load(PATCH_DIR)
    find_sycl = load_script("find_sycl")
    try:
        sycl = Path(find_sycl.find_sycl().include_dir)
    except find_sycl.NotFound:
        sycl = None
    if compiler is None or sycl is None:
        pytest.skip("needs g++ and intel-sycl-rt (bash scripts/dev.sh setup)")
    spec = importlib.util.find_spec("torch")
    wheel_header = Path(list(spec.submodule_search_locations)[0]) / "include" / LAUNCHER / "xpu.h"
    assert wheel_header.is_file(), wheel_header
    # Upstream's own header (not in the fixture), as PyTorch has it.
    shutil.copyfile(wheel_header, installed / LAUNCHER / "xpu.h")
    generated = tmp_path / "generated"
    (generated / "c10" / "xpu" / "impl").mkdir(parents=True)
    (generated / "c10" / "xpu" / "impl" / "xpu_cmake_macros.h").write_text("#pragma once\n")
    torch_include = wheel_header.parents[4]
    system = [
        generated,
        torch_include,
        torch_include / "torch" / "csrc" / "api" / "include",
        sycl,
        Path(sysconfig.get_paths()["include"]),
    ]
    flags = [
        compiler,
        "-std=c++20",
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-DUSE_XPU",
        "-DSYCL_DISABLE_FSYCL_SYCLHPP_WARNING",
        f"-I{installed}",
    ]
    flags += [f"-isystem{d}" for d in system]
    units = [installed / manifest.glue_dest] + sorted((installed / LAUNCHER / "xsl").rglob("*.cpp"))

    def compile_unit(unit: Path) -> tuple[Path, subprocess.CompletedProcess]:
        return unit, subprocess.run(flags + [str(unit)], capture_output=True, text=True, timeout=300)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        failures = [
            f"{u.relative_to(installed)}:\n{p.stderr[-1500:]}"
            for u, p in pool.map(compile_unit, units)
            if p.returncode != 0
        ]
    assert failures == [], "\n".join(failures)
