"""scripts/build_wheel.py: its checks on synthetic wheels, its ELF import
reader against readelf, and (when scripts/dev.sh built one, XSL_WHEEL) the
real wheel: tags, files, RECORD, metadata, one backend per libsycl major,
each importing only its libsycl and the C/C++ runtimes."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("build_wheel", REPO / "scripts" / "build_wheel.py")
build_wheel = importlib.util.module_from_spec(spec)
sys.modules["build_wheel"] = build_wheel
spec.loader.exec_module(build_wheel)

WHEEL = os.environ.get("XSL_WHEEL", "")
LIBSTDCXX = Path("/usr/lib/x86_64-linux-gnu/libstdc++.so.6")


def readelf_needed(path: Path) -> list:
    output = subprocess.run(["readelf", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    return [line.split("[", 1)[1].split("]", 1)[0] for line in output.splitlines() if "(NEEDED)" in line]


@pytest.mark.skipif(not LIBSTDCXX.exists() or shutil.which("readelf") is None,
                    reason="needs Debian's libstdc++.so.6 and readelf")
def test_elf_imports_are_read_as_readelf_reads_them():
    assert build_wheel.elf_needed(LIBSTDCXX.read_bytes()) == readelf_needed(LIBSTDCXX)


def python_files() -> dict:
    return {f"xpu_static_launcher/{name}": b"# stand-in\n" for name in
            ("__init__.py", "torch_install.py", "_sycl_launcher.py", "_backend_choice.py", "_version.py",
             "ocloc_discovery.py")}


def test_a_pure_wheel_without_backends_is_refused(tmp_path):
    wheel = build_wheel.write_wheel(tmp_path, python_files(), "1.2.3", "cp311-cp311-linux_x86_64")
    assert wheel.name == "xpu_static_launcher-1.2.3-cp311-cp311-linux_x86_64.whl"
    with pytest.raises(build_wheel.WheelError, match=r"backends for libsycl majors \[\], expected \[8, 9\]"):
        build_wheel.check_wheel(wheel)
    assert build_wheel.check_wheel(wheel, majors=()).tag == "cp311-cp311-linux_x86_64"


def test_a_file_changed_after_record_is_refused(tmp_path):
    wheel = build_wheel.write_wheel(tmp_path, python_files(), "1.2.3", "cp311-cp311-linux_x86_64")
    tampered = tmp_path / "out" / wheel.name
    tampered.parent.mkdir()
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(tampered, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, b"# changed\n" if name.endswith("__init__.py") else data)
    with pytest.raises(build_wheel.WheelError, match="RECORD's hash of xpu_static_launcher/__init__.py"):
        build_wheel.check_wheel(tampered, majors=())


def test_a_renamed_wheel_whose_tag_disagrees_is_refused(tmp_path):
    wheel = build_wheel.write_wheel(tmp_path, python_files(), "1.2.3", "cp311-cp311-linux_x86_64")
    renamed = wheel.with_name("xpu_static_launcher-1.2.3-cp311-cp311-manylinux_2_28_x86_64.whl")
    wheel.rename(renamed)
    with pytest.raises(build_wheel.WheelError, match="WHEEL's Tag lines"):
        build_wheel.check_wheel(renamed, majors=())


@pytest.mark.skipif(not LIBSTDCXX.exists(), reason="needs Debian's libstdc++.so.6")
def test_a_backend_importing_anything_but_its_libsycl_and_the_runtimes_is_refused(tmp_path):
    # libstdc++ stands in for a module: it imports libm, libc, ld-linux and
    # libgcc_s, all allowed; under a backend's name that is accepted, and a
    # module importing a library outside the list is not.
    files = python_files()
    files["xpu_static_launcher/_sycl_launcher_sycl9.abi3.so"] = LIBSTDCXX.read_bytes()
    wheel = build_wheel.write_wheel(tmp_path, files, "1.2.3", "cp311-cp311-linux_x86_64")
    assert build_wheel.check_wheel(wheel, majors=(9,)).backends[9] == readelf_needed(LIBSTDCXX)
    twice = dict(files)
    twice["xpu_static_launcher/_sycl_launcher_sycl9.cpython-311-x86_64-linux-gnu.so"] = LIBSTDCXX.read_bytes()
    wheel = build_wheel.write_wheel(tmp_path / "twice", twice, "1.2.3", "cp311-cp311-linux_x86_64")
    with pytest.raises(build_wheel.WheelError, match="two backends for libsycl major 9"):
        build_wheel.check_wheel(wheel, majors=(9,))
    monkey = dict(files)
    monkey["xpu_static_launcher/_sycl_launcher_sycl8.abi3.so"] = LIBSTDCXX.read_bytes()
    allowed = build_wheel.LINUX_RUNTIME
    try:
        build_wheel.LINUX_RUNTIME = {"libc.so.6"}
        wheel = build_wheel.write_wheel(tmp_path / "strict", monkey, "1.2.3", "cp311-cp311-linux_x86_64")
        with pytest.raises(build_wheel.WheelError, match="imports .*libm.so.6"):
            build_wheel.check_wheel(wheel, majors=(8, 9))
    finally:
        build_wheel.LINUX_RUNTIME = allowed


@pytest.mark.skipif(not WHEEL, reason="XSL_WHEEL is not set (scripts/dev.sh test builds the wheel)")
def test_the_built_wheel():
    report = build_wheel.check_wheel(Path(WHEEL))
    assert report.tag.split("-")[2].startswith("manylinux_")
    assert sorted(report.backends) == [8, 9]
    for major, needed in report.backends.items():
        assert f"libsycl.so.{major}" in needed
        assert not [name for name in needed if "torch" in name or "c10" in name or "python" in name]
    with zipfile.ZipFile(WHEEL) as archive:
        names = archive.namelist()
    for major in (8, 9):
        assert [n for n in names if n.startswith(f"xpu_static_launcher/_sycl_launcher_sycl{major}.")]
