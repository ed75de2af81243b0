"""The package's public face: __version__, help() of the launcher, and no
benchmark-only method on the class that becomes torch._C._StaticXpuLauncher."""

from __future__ import annotations

import inspect
import pydoc
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def package(xsl_build_dir: Path):
    pytest.importorskip("xpu_static_launcher._launcher", reason="the Python extensions are not built")
    import xpu_static_launcher

    return xpu_static_launcher


def test_version_is_pyproject_version(package) -> None:
    line = next(x for x in (REPO / "pyproject.toml").read_text().splitlines() if x.startswith("version = "))
    assert package.__version__ == line.split('"')[1]


def test_help_shows_the_launcher_methods(package) -> None:
    from xpu_static_launcher._launcher import StaticXpuLauncher

    text = pydoc.render_doc(StaticXpuLauncher, renderer=pydoc.plaintext)
    assert "_load_kernel(path, name, shared_mem_bytes, device[, build_flags])" in text
    assert "_launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared," in text
    assert str(inspect.signature(StaticXpuLauncher._load_kernel)) == (
        "(path, name, shared_mem_bytes, device, build_flags=None, /)"
    )
    assert str(inspect.signature(StaticXpuLauncher._launch_kernel)) == (
        "(function, grid_x, grid_y, grid_z, num_warps, shared, arg_types, args, stream, /)"
    )
    assert "zebin or SPIR-V at `path`" in StaticXpuLauncher._load_kernel.__doc__
    assert "build_flags: Triton's metadata.build_flags" in StaticXpuLauncher._load_kernel.__doc__
    from xpu_static_launcher import _zebin

    assert str(inspect.signature(_zebin.read_zebin)) == "(data, /)"


def test_launch_floor_is_not_on_the_launcher_class(package) -> None:
    from xpu_static_launcher import _launcher

    assert not hasattr(_launcher.StaticXpuLauncher, "_launch_floor")
    assert {name for name in vars(_launcher.StaticXpuLauncher) if not name.startswith("__")} == {
        "_load_kernel",
        "_launch_kernel",
    }
    assert _launcher._launch_floor(*([0] * 9)) is None
    with pytest.raises(TypeError, match="_launch_floor takes 9 arguments"):
        _launcher._launch_floor(0)
