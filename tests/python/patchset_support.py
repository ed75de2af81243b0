"""Shared helpers for the patchset, harness and doctor tests."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
PATCH_DIR = REPO / "patches" / "pytorch"
UTILS_REL = "torch/_inductor/utils.py"

# Release utils.py files: from a wheel named by XSL_TORCH_2141_WHEEL, or as
# `scripts/dev.sh setup` unpacks them (tests/torch_glue/torch_headers.py fetch).
FETCHED = REPO / "build" / "torch-headers"
FETCHED_2141_UTILS = FETCHED / "2.14.1" / "_inductor" / "utils.py"
SERIES_NAMES = ("v2.15.0", "v2.13.0", "main-011ab45")
# What each series' checkout reports in version.txt.
SERIES_VERSIONS = {"v2.15.0": "2.15.0", "v2.13.0": "2.13.0", "main-011ab45": "2.16.0a0"}
# The one build_variables.bzl line the project-launcher option extends.
BUILD_LIST_LINE = '    "torch/csrc/inductor/static_launcher/xpu.cpp",'


def load_script(name: str) -> ModuleType:
    """Imports scripts/<name>.py as a module (scripts/ is not a package; its
    modules import each other as top-level modules, as when run)."""
    if str(REPO / "scripts") not in sys.path:
        sys.path.insert(0, str(REPO / "scripts"))
    path = REPO / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"xsl_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def installed_torch_utils() -> bytes:
    """utils.py of the installed torch 2.13.0 wheel (located, not imported: fast)."""
    spec = importlib.util.find_spec("torch")
    assert spec and spec.submodule_search_locations, "torch is not installed"
    return (Path(list(spec.submodule_search_locations)[0]) / "_inductor" / "utils.py").read_bytes()


def wheel_2141_utils() -> bytes | None:
    wheel_path = os.environ.get("XSL_TORCH_2141_WHEEL", "")
    if wheel_path and Path(wheel_path).is_file():
        with zipfile.ZipFile(wheel_path) as wheel:
            return wheel.read(UTILS_REL)
    if FETCHED_2141_UTILS.is_file():
        return FETCHED_2141_UTILS.read_bytes()
    return None


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def make_checkout(tmp: Path, series: str = "v2.13.0", utils: bytes | None = None) -> Path:
    """A PyTorch-shaped tree whose touched files are rebuilt from the series'
    patches alone (no upstream text is stored in this repository), plus
    version.txt, and for v2.13.0 the installed wheel's real utils.py."""
    patchset = load_script("patchset")
    root = tmp / "pytorch"
    root.mkdir(parents=True)
    patches = patchset.Series.load(PATCH_DIR / series).patches()
    write_tree(root, {path: text.render() for path, text in patchset.reconstruct_preimages(patches).items()})
    if utils is None and series == "v2.13.0":
        utils = installed_torch_utils()
    if utils is not None:
        (root / UTILS_REL).write_bytes(utils)
    (root / "version.txt").write_text(SERIES_VERSIONS[series] + "\n")
    (root / "build_variables.bzl").write_text("sources = [\n" + BUILD_LIST_LINE + "\n]\n")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts and ".xsl-patchset" not in p.relative_to(root).parts
    }


def apply_to_file(patch, path: str, before: bytes | None) -> bytes:
    """`path` after `patch` (its other files left out), given its bytes before."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if before is not None:
            write_tree(root, {path: before})
        patchset = sys.modules.get("xsl_patchset") or load_script("patchset")
        proc = patchset.git_apply(root, [patch], f"--include={path}")
        assert proc.returncode == 0, proc.stderr
        return (root / path).read_bytes()
