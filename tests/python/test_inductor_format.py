"""xpu_static_launcher.inductor_format: enable_zebin on the real Inductor code
of torch 2.13.0 (installed), 2.14.1 and 2.15.0 (fetched by `scripts/dev.sh
setup`), with Windows faked.

Two levels:
* The installed torch (2.13.0; in a second run the latest release) is
  imported for real in a fresh interpreter (inductor_format_support.py), as
  on Windows, and switched and undone.
* For every release, the Inductor modules that name the kernel format (the
  fetch index lists them; for 2.13.0 the installed tree is scanned) are read:
  every use must be one enable_zebin covers, and the real statements that
  define and bind the format, and the real ``get_kernel_bin_format``, are
  executed in stand-in modules with ``sys.platform`` = "win32".
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from conftest import BUILD_DIR, REPO
from xpu_static_launcher import inductor_format as fmt

HEADERS = REPO / "build" / "torch-headers"
VERSIONS = ("2.13.0", "2.14.1", "2.15.0")
NAMES = ("XPU_KERNEL_FORMAT", "GPU_KERNEL_BIN_EXTS")
# The readers found in every release checked (module -> names it imports).
EXPECTED_READERS = {
    "_inductor/codecache.py": {"XPU_KERNEL_FORMAT"},
    "_inductor/codegen/cpp_wrapper_gpu.py": {"XPU_KERNEL_FORMAT"},
    "_inductor/runtime/triton_heuristics.py": {"XPU_KERNEL_FORMAT", "GPU_KERNEL_BIN_EXTS"},
    "_inductor/triton_bundler.py": {"GPU_KERNEL_BIN_EXTS"},
}
OCLOC = ("C:\\Intel\\ocloc\\bin", "ocloc C:\\Intel\\ocloc\\bin\\ocloc.exe (fake)")


def _installed_torch_root() -> Path | None:
    try:
        import importlib.metadata

        if importlib.metadata.version("torch").split("+")[0] != "2.13.0":
            return None
    except importlib.metadata.PackageNotFoundError:
        return None
    import importlib.util

    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations
    return Path(list(spec.submodule_search_locations)[0])


def inductor_sources(version: str) -> tuple[Path, list[str], int]:
    """(root holding _inductor/, reader files, modules scanned)."""
    if version == "2.13.0":
        root = _installed_torch_root()
        if root is None:
            pytest.skip("torch 2.13.0 is not the installed torch")
        files = sorted(p.relative_to(root).as_posix() for p in (root / "_inductor").rglob("*.py"))
        readers = [f for f in files if any(n in (root / f).read_text(encoding="utf-8") for n in NAMES)]
        return root, readers, len(files)
    index_path = HEADERS / version / "_inductor" / "xpu_kernel_format_index.json"
    if not index_path.is_file():
        pytest.skip(f"no {index_path.relative_to(REPO)}: run `bash scripts/dev.sh setup`")
    index = json.loads(index_path.read_text(encoding="utf-8"))
    assert index["torch"] == version and index["names"] == list(NAMES)
    return HEADERS / version, index["files"], index["scanned_inductor_modules"]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_reader_of_the_format_is_one_enable_zebin_covers(version):
    root, readers, scanned = inductor_sources(version)
    assert scanned > 300  # the whole Inductor tree was looked at
    assert sorted(readers) == sorted(["_inductor/utils.py", *EXPECTED_READERS])
    for rel, names in EXPECTED_READERS.items():
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        imported = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("utils"):
                for alias in node.names:
                    if alias.name in NAMES:
                        assert alias.asname is None, f"{version} {rel} renames {alias.name}"
                        imported.add(alias.name)
                continue
            # Anywhere else at module level a use would be a copy made at
            # import time, which enable_zebin could not reach.
            used = {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name)
                and n.id in NAMES
                and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            }
            assert not used, f"{version} {rel}: module-level use of {used} at line {node.lineno}"
        assert imported == names, f"{version} {rel}"
        # Nothing reads the environment variable on its own.
        assert "TORCHINDUCTOR_XPU_KERNEL_FORMAT" not in (root / rel).read_text(encoding="utf-8")
    # No function rebinds the format later (which would undo the switch).
    for rel in ["_inductor/utils.py", *EXPECTED_READERS]:
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        rebinds = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Global) and set(n.names) & set(NAMES)]
        assert rebinds == [], f"{version} {rel}"


def _statements(source: str, wanted) -> list[ast.stmt]:
    return [node for node in ast.parse(source).body if wanted(node)]


def _assigns(*targets: str):
    def wanted(node: ast.stmt) -> bool:
        return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in targets for t in node.targets)

    return wanted


def _run(nodes: list[ast.stmt], module: types.ModuleType, name: str) -> None:
    code = compile(ast.Module(body=nodes, type_ignores=[]), name, "exec")
    exec(code, module.__dict__)  # noqa: S102 - torch's own statements


@pytest.fixture
def stand_in(monkeypatch):
    """Builds torch._inductor stand-in modules from a release's real source
    lines, with Windows faked; removes every real torch._inductor module from
    sys.modules for the test."""
    for name in [n for n in sys.modules if n == "torch._inductor" or n.startswith("torch._inductor.")]:
        monkeypatch.delitem(sys.modules, name)

    def build(version: str, windows: bool = True) -> dict[str, types.ModuleType]:
        root, _, _ = inductor_sources(version)
        monkeypatch.setattr(sys, "platform", "win32" if windows else "linux")
        mods: dict[str, types.ModuleType] = {}
        utils = types.ModuleType("torch._inductor.utils")
        utils.__dict__.update(os=os, sys=sys)
        text = (root / "_inductor/utils.py").read_text(encoding="utf-8")
        _run(
            _statements(text, _assigns("_IS_WINDOWS", "XPU_KERNEL_FORMAT", "GPU_KERNEL_BIN_EXTS")),
            utils,
            str(root / "_inductor/utils.py"),
        )
        monkeypatch.setitem(sys.modules, utils.__name__, utils)
        mods["utils"] = utils
        for rel, _names in EXPECTED_READERS.items():
            name = "torch." + rel[:-3].replace("/", ".")
            module = types.ModuleType(name)
            module.__dict__["torch"] = types.SimpleNamespace(version=types.SimpleNamespace(hip=None))
            src = (root / rel).read_text(encoding="utf-8")
            # The real `from ..utils import (...)`, cut to the format's names.
            imports = _statements(
                src,
                lambda n: (
                    isinstance(n, ast.ImportFrom)
                    and bool(n.module)
                    and n.module.endswith("utils")
                    and any(a.name in NAMES for a in n.names)
                ),
            )
            assert imports, f"{version} {rel}"
            for node in imports:
                node.names = [a for a in node.names if a.name in NAMES]
                node.module, node.level = "torch._inductor.utils", 0
            _run(imports, module, str(root / rel))
            if rel.endswith("codecache.py"):
                _run(
                    _statements(src, lambda n: isinstance(n, ast.FunctionDef) and n.name == "get_kernel_bin_format"),
                    module,
                    str(root / rel),
                )
            monkeypatch.setitem(sys.modules, name, module)
            mods[rel.split("/")[-1][:-3]] = module
        return mods

    yield build
    while fmt.disable_zebin() is not None:
        pass


def formats(mods: dict[str, types.ModuleType]) -> dict[str, str]:
    return {name: m.XPU_KERNEL_FORMAT for name, m in mods.items() if hasattr(m, "XPU_KERNEL_FORMAT")}


@pytest.mark.parametrize("version", VERSIONS)
def test_stock_windows_is_spv_and_enable_zebin_switches_every_reader_and_undo_restores(version, stand_in):
    mods = stand_in(version)
    stock = {"utils": "spv", "codecache": "spv", "cpp_wrapper_gpu": "spv", "triton_heuristics": "spv"}
    assert formats(mods) == stock
    assert mods["codecache"].get_kernel_bin_format("xpu") == "spv"
    assert mods["triton_bundler"].GPU_KERNEL_BIN_EXTS["xpu"] == ".spv"
    environ = {"PATH": "C:\\Windows"}
    change = fmt.enable_zebin(environ=environ, find_ocloc=lambda: OCLOC)
    assert (change.format, change.previous) == ("zebin", "spv")
    assert formats(mods) == {k: "zebin" for k in stock}
    assert fmt.current_format() == "zebin"
    assert mods["codecache"].get_kernel_bin_format("xpu") == "zebin"
    assert mods["triton_bundler"].GPU_KERNEL_BIN_EXTS["xpu"] == ".zebin"
    assert mods["triton_heuristics"].GPU_KERNEL_BIN_EXTS is mods["utils"].GPU_KERNEL_BIN_EXTS
    assert environ["PATH"] == OCLOC[0] + ";C:\\Windows"
    assert "ocloc.exe" in change.reason and "put first on PATH" in change.reason
    # A reader imported after the switch binds zebin from utils; undo resets it too.
    late = types.ModuleType("torch._inductor.late_reader")
    late.XPU_KERNEL_FORMAT = mods["utils"].XPU_KERNEL_FORMAT
    sys.modules[late.__name__] = late
    try:
        assert fmt.disable_zebin() is change
        assert late.XPU_KERNEL_FORMAT == "spv"
    finally:
        del sys.modules[late.__name__]
    assert formats(mods) == stock
    assert mods["codecache"].get_kernel_bin_format("xpu") == "spv"
    assert mods["utils"].GPU_KERNEL_BIN_EXTS["xpu"] == ".spv"
    assert environ == {"PATH": "C:\\Windows"}
    assert fmt.disable_zebin() is None
    change.undo()  # a second undo changes nothing
    assert formats(mods) == stock


@pytest.mark.parametrize("version", VERSIONS)
def test_users_format_wins_even_on_windows(version, stand_in):
    mods = stand_in(version)
    change = fmt.enable_zebin(environ={fmt.ENV_VAR: "spv"}, find_ocloc=lambda: OCLOC)
    assert change.format == "spv" and not change.changed
    assert change.reason == f"{fmt.ENV_VAR}=spv; unset it for zebin"
    assert set(formats(mods).values()) == {"spv"}
    environ = {fmt.ENV_VAR: "zebin"}
    change = fmt.enable_zebin(environ=environ, find_ocloc=lambda: (None, "no ocloc anywhere"))
    assert change.format == "zebin" and set(formats(mods).values()) == {"zebin"}
    assert "PATH" not in environ


NO_DRIVER = (False, "this Triton-XPU cannot compile with the GPU driver")
DRIVER = (True, "the GPU driver (Level Zero, pvc)")


def test_windows_without_ocloc_keeps_spv_and_says_why(stand_in):
    mods = stand_in("2.15.0")
    change = fmt.enable_zebin(
        environ={}, find_ocloc=lambda: (None, "ocloc was not found"), find_driver=lambda: NO_DRIVER
    )
    assert change.format == "spv" and not change.changed
    assert change.reason.startswith(
        "kept SPIR-V (.spv), which cannot be launched statically: "
        f"ocloc was not found; {NO_DRIVER[1]}; install the intel_ocloc wheel"
    )
    assert set(formats(mods).values()) == {"spv"}
    assert fmt.disable_zebin() is None


@pytest.mark.parametrize("version", VERSIONS)
def test_windows_without_ocloc_uses_zebin_when_triton_compiles_with_the_driver(version, stand_in):
    mods = stand_in(version)
    environ = {"PATH": "C:\\Windows"}
    change = fmt.enable_zebin(
        environ=environ, find_ocloc=lambda: (None, "ocloc was not found"), find_driver=lambda: DRIVER
    )
    assert change.format == "zebin" and set(formats(mods).values()) == {"zebin"}
    assert change.reason == f"zebin: Triton-XPU makes it with {DRIVER[1]} (ocloc was not found)"
    assert environ == {"PATH": "C:\\Windows"}  # nothing to put on PATH
    assert fmt.disable_zebin() is change


def test_the_driver_probe_needs_triton_xpu_with_the_driver_fallback(monkeypatch):
    import types as _types

    monkeypatch.setitem(sys.modules, "triton.backends.intel", _types.ModuleType("triton_xpu"))
    monkeypatch.setitem(sys.modules, "triton.backends.intel.ocloc", _types.ModuleType("ocloc_without_0002"))
    found, why = fmt.find_driver_compiler()
    assert not found and "patches/triton-xpu 0002" in why
    monkeypatch.setitem(sys.modules, "triton.backends.intel.ocloc", None)  # stock Triton-XPU: no such module
    found, why = fmt.find_driver_compiler()
    assert not found and "patches/triton-xpu 0002" in why
    monkeypatch.setitem(sys.modules, "triton.backends.intel", None)  # no Triton-XPU at all
    found, why = fmt.find_driver_compiler()
    assert not found and "not installed" in why


def test_ocloc_already_on_path_is_not_added_again(stand_in):
    stand_in("2.14.1")
    environ = {"PATH": "C:\\Windows;c:\\intel\\OCLOC\\bin\\"}  # Windows compares case-blind
    change = fmt.enable_zebin(environ=environ, find_ocloc=lambda: OCLOC)
    assert change.format == "zebin" and "PATH" not in change.reason
    assert environ["PATH"] == "C:\\Windows;c:\\intel\\OCLOC\\bin\\"


@pytest.mark.parametrize("version", VERSIONS)
def test_linux_is_zebin_already_and_nothing_changes(version, stand_in):
    mods = stand_in(version, windows=False)
    assert set(formats(mods).values()) == {"zebin"}
    change = fmt.enable_zebin(environ={}, find_ocloc=lambda: pytest.fail("ocloc looked up off Windows"))
    assert change.format == "zebin" and not change.changed


def test_bad_format_in_the_environment_is_one_clear_error(stand_in):
    stand_in("2.15.0")
    with pytest.raises(
        ValueError,
        match=r"^TORCHINDUCTOR_XPU_KERNEL_FORMAT='ptx' is not a kernel "
        r"format Inductor knows; set it to 'zebin' or 'spv', or unset it$",
    ):
        fmt.enable_zebin(environ={fmt.ENV_VAR: "ptx"}, find_ocloc=lambda: OCLOC)


def test_without_torch_nothing_changes(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch._inductor.utils", None)  # import fails
    monkeypatch.setattr(sys, "platform", "win32")
    change = fmt.enable_zebin(environ={}, find_ocloc=lambda: OCLOC)
    assert change.format is None and not change.changed
    assert change.reason.startswith("torch's Inductor cannot be imported")
    assert fmt.current_format() is None


@pytest.mark.parametrize(
    "platform, ocloc, driver, expected",
    [
        ("win32", OCLOC, NO_DRIVER, True),
        ("win32", (None, "none"), NO_DRIVER, False),
        ("win32", (None, "none"), DRIVER, True),
        ("linux", OCLOC, DRIVER, False),
    ],
)
def test_zebin_by_default_on_windows_with_a_zebin_compiler(monkeypatch, platform, ocloc, driver, expected):
    monkeypatch.setattr(sys, "platform", platform)
    assert fmt.zebin_by_default(lambda: ocloc, lambda: driver) is expected


def test_package_ocloc_discovery_is_the_source_one():
    from xpu_static_launcher import ocloc_discovery

    source = REPO / "python" / "xpu_static_launcher" / "ocloc_discovery.py"
    assert Path(ocloc_discovery.__file__).read_bytes() == source.read_bytes()
    folder, where = fmt.find_ocloc_folder()
    found = ocloc_discovery.find_ocloc(with_version=False)
    assert (folder is None) == (not found.path)
    assert where


def _installed_torch_version() -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None


@pytest.mark.parametrize("requested", ["-", "spv"])
def test_real_torch_imported_as_on_windows(requested):
    # torch 2.13.0 in the main test run; scripts/dev.sh runs this again with
    # the latest release's wheel installed.
    installed = _installed_torch_version()
    if installed not in VERSIONS:
        pytest.skip(f"the installed torch ({installed}) is none of {VERSIONS}")
    proc = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).with_name("inductor_format_support.py")),
            str(BUILD_DIR / "python"),
            requested,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    readers = {
        "torch._inductor." + m for m in ("utils", "codecache", "runtime.triton_heuristics", "codegen.cpp_wrapper_gpu")
    }

    def expect(state: dict[str, object], value: str) -> None:
        assert set(state["readers"]) == readers
        assert set(state["readers"].values()) == {value}
        assert state["utils"] == state["get_kernel_bin_format"] == value
        assert state["extension"] == "." + value and "." + value in state["bundler_extensions"]

    assert out["torch"].split("+")[0] == installed
    expect(out["stock"], "spv")
    expect(out["enabled"], "zebin" if requested == "-" else "spv")
    expect(out["undone"], "spv")
    assert out["path_after_undo"] == "C:\\Windows"
    if requested == "-":
        assert out["undo_returned_change"] is True
        assert out["path"] == "C:\\oneAPI\\ocloc\\latest\\bin;C:\\Windows"
