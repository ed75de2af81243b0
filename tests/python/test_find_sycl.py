"""scripts/find_sycl.py on faked intel-sycl-rt installs (the Linux and the
Windows wheel layouts) and on the environment's real one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from patchset_support import REPO, load_script

fs = load_script("find_sycl")

LINUX_RECORD = [
    "../../../include/sycl/sycl.hpp",
    "../../../include/sycl/CL/sycl.hpp",
    "../../libsycl.so",
    "../../libsycl.so.9",
    "../../libsycl.so.9.0.0",
    "../../libsycl.so.9.0.0-gdb.py",
    "../../libsycl-preview.so.9",
    "../../libsycl-jit.so.23.1",
]
# Windows wheels write their RECORD with backslashes.
WINDOWS_RECORD = [
    "..\\..\\Library\\include\\sycl\\sycl.hpp",
    "..\\..\\Library\\include\\sycl\\CL\\sycl.hpp",
    "..\\..\\Library\\bin\\sycl8.dll",
    "..\\..\\Library\\bin\\sycl8d.dll",
    "..\\..\\Library\\lib\\sycl8.lib",
    "..\\..\\Library\\lib\\sycl8d.lib",
]


def fake_install(root: Path, site: str, record: list[str], version: str = "2026.2.0") -> str:
    site_dir = root / site
    info = site_dir / f"intel_sycl_rt-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: intel-sycl-rt\nVersion: {version}\n")
    (info / "RECORD").write_text("".join(f"{line},,\n" for line in record))
    return str(site_dir)


def test_linux_wheel_layout(tmp_path):
    site = fake_install(tmp_path, "lib/python3.11/site-packages", LINUX_RECORD)
    layout = fs.find_sycl([site], windows=False)
    assert layout.include_dir == str(tmp_path / "include")
    assert layout.lib_dir == layout.runtime_dir == str(tmp_path / "lib")
    assert layout.library == str(tmp_path / "lib" / "libsycl.so")
    assert layout.runtime == str(tmp_path / "lib" / "libsycl.so.9")
    assert (layout.major, layout.version) == (9, "2026.2.0")


def test_windows_wheel_layout(tmp_path):
    site = fake_install(tmp_path, "Lib/site-packages", WINDOWS_RECORD, "2025.0.5")
    layout = fs.find_sycl([site], windows=True)
    assert layout.include_dir == str(tmp_path / "Library" / "include")
    assert layout.lib_dir == str(tmp_path / "Library" / "lib")
    assert layout.library == str(tmp_path / "Library" / "lib" / "sycl8.lib")
    # The folder a Python process must give os.add_dll_directory.
    assert layout.runtime_dir == str(tmp_path / "Library" / "bin")
    assert layout.runtime == str(tmp_path / "Library" / "bin" / "sycl8.dll")
    assert layout.major == 8


def test_windows_plain_sycl_lib(tmp_path):
    record = [r for r in WINDOWS_RECORD if not r.endswith(".lib")] + ["..\\..\\Library\\lib\\sycl.lib"]
    layout = fs.find_sycl([fake_install(tmp_path, "Lib/site-packages", record)], windows=True)
    assert layout.library == str(tmp_path / "Library" / "lib" / "sycl.lib") and layout.major == 8


@pytest.mark.parametrize(
    "drop, message",
    [
        (".lib", "intel-sycl-rt 2026.2.0 has sycl8.dll but no sycl8.lib or sycl.lib to link against"),
        (".dll", "intel-sycl-rt 2026.2.0 has no sycl<N>.dll"),
        ("sycl.hpp", "intel-sycl-rt 2026.2.0 has no sycl/sycl.hpp; install a release that ships the headers"),
    ],
)
def test_windows_incomplete_layouts_say_what_is_missing(tmp_path, drop, message):
    record = [r for r in WINDOWS_RECORD if not r.endswith(drop)]
    site = fake_install(tmp_path, "Lib/site-packages", record)
    with pytest.raises(fs.NotFound, match="^" + message.replace(".", r"\.")):
        fs.find_sycl([site], windows=True)


def test_windows_lib_of_another_major_is_refused(tmp_path):
    record = [r.replace("sycl8.lib", "sycl7.lib") for r in WINDOWS_RECORD if not r.endswith("d.lib")]
    with pytest.raises(fs.NotFound, match="has sycl8.dll but no sycl8.lib or sycl.lib"):
        fs.find_sycl([fake_install(tmp_path, "Lib/site-packages", record)], windows=True)


def test_linux_without_runtime(tmp_path):
    record = [r for r in LINUX_RECORD if "libsycl.so" not in r]
    with pytest.raises(fs.NotFound, match=r"^intel-sycl-rt 2026\.2\.0 has no libsycl\.so\.<N>$"):
        fs.find_sycl([fake_install(tmp_path, "lib/python3.11/site-packages", record)], windows=False)


def test_not_installed_names_the_fix(tmp_path):
    with pytest.raises(
        fs.NotFound,
        match=r"^intel-sycl-rt is not installed in this Python environment \(.*\); "
        r"pip install intel-sycl-rt \(a PyTorch XPU wheel brings it\), or pass "
        r"-DXSL_SYCL_INCLUDE_DIR and -DXSL_SYCL_LIBRARY_DIR to CMake$",
    ):
        fs.find_sycl([str(tmp_path)], windows=False)


def test_real_environment():
    import importlib.metadata

    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "find_sycl.py"), "--cmake"], capture_output=True, text=True, timeout=60
    )
    try:
        importlib.metadata.version("intel-sycl-rt")
    except importlib.metadata.PackageNotFoundError:
        assert proc.returncode == 1 and proc.stderr.startswith("error: intel-sycl-rt is not installed")
        return
    assert proc.returncode == 0, proc.stderr
    values = dict(line.split("=", 1) for line in proc.stdout.splitlines())
    assert set(values) == {
        "XSL_SYCL_INCLUDE_DIR",
        "XSL_SYCL_LIBRARY_DIR",
        "XSL_SYCL_LIBRARY",
        "XSL_SYCL_RUNTIME_DIR",
        "XSL_SYCL_MAJOR",
    }
    assert (Path(values["XSL_SYCL_INCLUDE_DIR"]) / "sycl" / "sycl.hpp").is_file()
    assert (Path(values["XSL_SYCL_RUNTIME_DIR"]) / f"libsycl.so.{values['XSL_SYCL_MAJOR']}").exists()
    assert Path(values["XSL_SYCL_LIBRARY"]).exists()


def test_help():
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "find_sycl.py"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "--cmake" in proc.stdout and "os.add_dll_directory" in proc.stdout


def test_layout_check_loads_the_runtime_and_the_probe_sees_its_major(xsl_build_dir):
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("sycl_layout_check.py"))],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(xsl_build_dir / "python"), "PATH": "/usr/bin:/bin"},
    )
    try:
        fs.find_sycl()
    except fs.NotFound:
        assert proc.returncode != 0
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("install()'s probe sees libsycl major(s) [") and lines[-1] == "ok"
