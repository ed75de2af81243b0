"""Shared helpers for the patchset, harness and doctor tests."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import zipfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
FIXTURE_V213 = REPO / "tests" / "fixtures" / "pytorch" / "v2.13.0"
PATCH_DIR = REPO / "patches" / "pytorch"
UTILS_REL = "torch/_inductor/utils.py"

# torch 2.14.1's utils.py: from a wheel named by XSL_TORCH_2141_WHEEL, or as
# `scripts/dev.sh setup` unpacks it (tests/torch_glue/torch_headers.py fetch).
FETCHED_2141_UTILS = REPO / "build" / "torch-headers" / "2.14.1" / "_inductor" / "utils.py"


def load_script(name: str) -> ModuleType:
    """Imports scripts/<name>.py as a module (scripts/ is not a package)."""
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


def make_checkout(tmp: Path, utils: bytes | None = None) -> Path:
    """A fixture tree plus the real utils.py (2.13.0 unless given)."""
    root = tmp / "pytorch"
    shutil.copytree(FIXTURE_V213, root)
    target = root / UTILS_REL
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(utils if utils is not None else installed_torch_utils())
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts and ".xsl-patchset" not in p.relative_to(root).parts
    }
