"""scripts/build_wheel.py: its checks on synthetic wheels, its ELF import
reader against readelf, its PE import reader against mingw-w64's objdump,
the Windows wheel's checks on DLLs mingw-w64 links here, the win_amd64 wheel
scripts/dev.sh built with MSVC under wine (XSL_WINDOWS_WHEEL), and (when
scripts/dev.sh built one, XSL_WHEEL) the
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
WINDOWS_WHEEL = os.environ.get("XSL_WINDOWS_WHEEL", "")
MINGW_GCC = shutil.which("x86_64-w64-mingw32-gcc")
MINGW_OBJDUMP = shutil.which("x86_64-w64-mingw32-objdump")
# Wine's own PE DLLs (Debian's wine64): real images with real import tables.
WINE_DLLS = sorted(Path("/usr/lib").glob("*/wine/x86_64-windows/msvcp140.dll"))
LIBSTDCXX = Path("/usr/lib/x86_64-linux-gnu/libstdc++.so.6")


def readelf_needed(path: Path) -> list:
    output = subprocess.run(["readelf", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    return [line.split("[", 1)[1].split("]", 1)[0] for line in output.splitlines() if "(NEEDED)" in line]


@pytest.mark.skipif(
    not LIBSTDCXX.exists() or shutil.which("readelf") is None, reason="needs Debian's libstdc++.so.6 and readelf"
)
def test_elf_imports_are_read_as_readelf_reads_them():
    assert build_wheel.elf_needed(LIBSTDCXX.read_bytes()) == readelf_needed(LIBSTDCXX)


def python_files() -> dict:
    return {f"xpu_static_launcher/{name}": b"# stand-in\n" for name in build_wheel.REQUIRED_MODULES}


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


def objdump_imports(path: Path) -> list:
    output = subprocess.run([MINGW_OBJDUMP, "-p", str(path)], check=True, capture_output=True, text=True).stdout
    return [line.split("DLL Name:", 1)[1].strip() for line in output.splitlines() if "DLL Name:" in line]


@pytest.mark.skipif(not MINGW_OBJDUMP or not WINE_DLLS, reason="needs mingw-w64's objdump and wine64's PE DLLs")
def test_pe_imports_are_read_as_objdump_reads_them():
    folder = WINE_DLLS[0].parent
    for name in ("msvcp140.dll", "shell32.dll", "kernelbase.dll"):
        assert build_wheel.pe_imports((folder / name).read_bytes()) == objdump_imports(folder / name), name


def test_a_file_that_is_no_pe_image_is_one_error():
    with pytest.raises(build_wheel.WheelError, match="not a PE file"):
        build_wheel.pe_imports(b"\x7fELF" + bytes(60))
    with pytest.raises(build_wheel.WheelError, match="no PE signature"):
        build_wheel.pe_imports(b"MZ" + bytes(58) + b"\x00\x01\x00\x00")  # e_lfanew past the end


@pytest.mark.skipif(not WINE_DLLS, reason="needs wine64's PE DLLs")
def test_a_truncated_pe_image_is_one_error():
    data = WINE_DLLS[0].read_bytes()
    for size in (0x200, 0x1000):  # within the headers; before the import table
        with pytest.raises(build_wheel.WheelError, match="malformed PE image|outside every section|past the end"):
            build_wheel.pe_imports(data[:size])


@pytest.fixture
def kernel32_only_dll(tmp_path) -> bytes:
    """A DLL that imports KERNEL32 only, as the package's modules may."""
    if not MINGW_GCC:
        pytest.skip("needs mingw-w64 (Debian package g++-mingw-w64-x86-64-posix)")
    source = tmp_path / "k.c"
    source.write_text(
        "__declspec(dllimport) unsigned long __stdcall GetTickCount(void);\n"
        "int __stdcall DllMain(void *h, unsigned long r, void *p) {\n"
        "  (void)h; (void)r; (void)p; return GetTickCount() != 0;\n}\n"
    )
    subprocess.run(
        [MINGW_GCC, "-shared", "-nostdlib", "-e", "DllMain", "-o", str(tmp_path / "k.dll"), str(source), "-lkernel32"],
        check=True,
    )
    return (tmp_path / "k.dll").read_bytes()


def test_a_windows_wheel_takes_pyd_modules_with_windows_imports_only(tmp_path, kernel32_only_dll):
    tag = "cp311-cp311-win_amd64"
    files = python_files()
    files["xpu_static_launcher/_sycl_launcher_sycl9.cp311-win_amd64.pyd"] = kernel32_only_dll
    files["xpu_static_launcher/_zebin.cp311-win_amd64.pyd"] = kernel32_only_dll
    report = build_wheel.check_wheel(build_wheel.write_wheel(tmp_path / "good", files, "1.2.3", tag), majors=(9,))
    assert report.backends == {9: ["KERNEL32.dll"]}
    linux_module = dict(files)
    linux_module["xpu_static_launcher/_zebin.cpython-311-x86_64-linux-gnu.so"] = b"\x7fELF"
    wheel = build_wheel.write_wheel(tmp_path / "so", linux_module, "1.2.3", tag)
    with pytest.raises(build_wheel.WheelError, match="_zebin.cpython-311-x86_64-linux-gnu.so does not belong"):
        build_wheel.check_wheel(wheel, majors=(9,))
    broken = dict(files)
    broken["xpu_static_launcher/_zebin.cp311-win_amd64.pyd"] = b"MZ" + bytes(100)
    wheel = build_wheel.write_wheel(tmp_path / "broken", broken, "1.2.3", tag)
    with pytest.raises(build_wheel.WheelError, match="_zebin.cp311-win_amd64.pyd: not a PE file"):
        build_wheel.check_wheel(wheel, majors=(9,))


@pytest.mark.skipif(not WINE_DLLS, reason="needs wine64's PE DLLs")
def test_a_windows_module_importing_beyond_python_sycl_and_the_crt_is_refused(tmp_path):
    # Wine's msvcp140.dll imports ntdll.dll and ucrtbase.dll: neither is
    # allowed (a module links the api-ms-win-crt set, never ntdll).
    files = python_files()
    files["xpu_static_launcher/_launcher.cp311-win_amd64.pyd"] = WINE_DLLS[0].read_bytes()
    wheel = build_wheel.write_wheel(tmp_path, files, "1.2.3", "cp311-cp311-win_amd64")
    with pytest.raises(
        build_wheel.WheelError,
        match=r"_launcher.cp311-win_amd64.pyd imports ntdll.dll, "
        r"ucrtbase.dll \(allowed: python311.dll, KERNEL32",
    ):
        build_wheel.check_wheel(wheel, majors=())


def test_tree_arguments_name_a_pinned_major():
    assert build_wheel.parse_tree("9=build/x") == (9, Path("build/x"))
    for bad in ("7=build/x", "nine=build/x", "build/x"):
        with pytest.raises(Exception, match="not MAJOR=DIR"):
            build_wheel.parse_tree(bad)


@pytest.mark.skipif(
    not WINDOWS_WHEEL,
    reason="XSL_WINDOWS_WHEEL is not set (scripts/dev.sh test builds the win_amd64 wheel with MSVC under wine)",
)
def test_the_built_windows_wheel():
    report = build_wheel.check_wheel(Path(WINDOWS_WHEEL))
    assert report.tag == "cp311-cp311-win_amd64"
    assert sorted(report.backends) == [8, 9]
    for major, needed in report.backends.items():
        lowered = [name.lower() for name in needed]
        assert f"sycl{major}.dll" in lowered and "python311.dll" in lowered
        assert not [name for name in lowered if "torch" in name or "c10" in name or name == "ze_loader.dll"]
    with zipfile.ZipFile(WINDOWS_WHEEL) as archive:
        names = archive.namelist()
    for module in ("_launcher", "_zebin", "_compile", "_sycl_launcher_sycl8", "_sycl_launcher_sycl9"):
        assert f"xpu_static_launcher/{module}.cp311-win_amd64.pyd" in names
    assert not [n for n in names if n.endswith(".so")]
