"""scripts/find_torch.py on faked torch installs and on the environment's
real one (what cmake/SyclBackend.cmake builds the SYCL backend against)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from patchset_support import REPO, load_script

ft = load_script("find_torch")


def fake_torch(site: Path, version: str = "2.15.0+xpu", headers: bool = True, lib: bool = True) -> str:
    package = site / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('find_torch must not import torch')\n")
    if headers:
        (package / "include" / "torch" / "csrc").mkdir(parents=True)
    if lib:
        (package / "lib").mkdir()
    info = site / f"torch-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
    return str(site)


def test_layout_and_release_without_the_local_version(tmp_path):
    site = fake_torch(tmp_path / "site-packages")
    layout = ft.find_torch([site])
    assert layout.version == "2.15.0"
    assert Path(layout.include_dir) == tmp_path / "site-packages" / "torch" / "include"
    assert Path(layout.lib_dir) == tmp_path / "site-packages" / "torch" / "lib"


def test_not_installed_names_the_fix(tmp_path):
    with pytest.raises(
        ft.NotFound,
        match=r"^torch is not installed in this Python environment \(.*\); "
        r"install the PyTorch XPU wheel first, and build with "
        r"--no-build-isolation so that the build sees it$",
    ):
        ft.find_torch([str(tmp_path)])


def test_torch_without_headers_or_libraries(tmp_path):
    with pytest.raises(ft.NotFound, match=r"has no C\+\+ headers \(torch/include/torch/csrc\)$"):
        ft.find_torch([fake_torch(tmp_path / "a", headers=False)])
    with pytest.raises(ft.NotFound, match=r"has no library folder \(torch/lib\)$"):
        ft.find_torch([fake_torch(tmp_path / "b", lib=False)])


def test_real_environment_for_cmake():
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "find_torch.py"), "--cmake"], capture_output=True, text=True, timeout=60
    )
    spec = importlib.util.find_spec("torch")
    if spec is None:
        assert proc.returncode == 1 and proc.stderr.startswith("error: torch is not installed")
        return
    assert proc.returncode == 0, proc.stderr
    values = dict(line.split("=", 1) for line in proc.stdout.splitlines())
    root = Path(list(spec.submodule_search_locations)[0])
    assert values == {
        "XSL_TORCH_VERSION": importlib.metadata.version("torch").split("+")[0],
        "XSL_TORCH_INCLUDE": (root / "include").as_posix(),
        "XSL_TORCH_LIB": (root / "lib").as_posix(),
    }


def test_help():
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "find_torch.py"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "--cmake" in proc.stdout and "not imported" in proc.stdout
