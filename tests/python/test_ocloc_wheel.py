"""scripts/ocloc_wheel.py: wheel format (fast, synthetic files) and the real
thing on Linux: Debian's ocloc -> wheel -> fresh venv (pip --no-index) ->
compile with the system ocloc out of PATH, bundled libraries loaded."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from launcher_support import PACKAGE_DIR
from ocloc_support import DISCOVERY, REPO, SCRIPTS, corpus_spirv, ze_info

sys.path.insert(0, str(SCRIPTS))
sys.path.insert(0, str(DISCOVERY.parent))
import ocloc_discovery  # noqa: E402

import ocloc_wheel  # noqa: E402


def check_record(zf: zipfile.ZipFile) -> dict:
    """Every entry is in RECORD with the right sha256 and size; returns RECORD rows."""
    record_name = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
    rows = {row[0]: row for row in csv.reader(io.StringIO(zf.read(record_name).decode()))}
    assert set(rows) == set(zf.namelist())
    for name, digest, size in rows.values():
        if name == record_name:
            assert digest == "" and size == ""
            continue
        data = zf.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == "sha256=" + expected, name
        assert int(size) == len(data), name
    return rows


def test_wheel_layout_metadata_and_record(tmp_path):
    files = []
    for name in ("ocloc.exe", "ocloc64.dll", "igc64.dll"):
        (tmp_path / name).write_bytes(name.encode() * 100)
        files.append(ocloc_wheel.BundleFile(tmp_path / name, name, executable=name.endswith(".exe")))
    (tmp_path / "LICENSE.txt").write_text("licence text")
    bundle = ocloc_wheel.Bundle(
        version="25.18.33578",
        platform_tag="win_amd64",
        executable_name="ocloc.exe",
        library_name="ocloc64.dll",
        files=files,
        licenses=[(tmp_path / "LICENSE.txt", "ocloc/LICENSE.txt")],
    )
    staged = {f.name: f.source for f in files}
    for compression, level in ((zipfile.ZIP_STORED, None), (zipfile.ZIP_DEFLATED, 9)):
        wheel = ocloc_wheel.write_wheel(bundle, staged, tmp_path / "out", compression, level)
        assert wheel.name == "xsl_intel_ocloc-25.18.33578-py3-none-win_amd64.whl"
        with zipfile.ZipFile(wheel) as zf:
            assert zf.testzip() is None
            check_record(zf)
            dist = "xsl_intel_ocloc-25.18.33578.dist-info"
            wheel_text = zf.read(f"{dist}/WHEEL").decode()
            assert "Root-Is-Purelib: false" in wheel_text and "Tag: py3-none-win_amd64" in wheel_text
            metadata = zf.read(f"{dist}/METADATA").decode()
            assert "Name: xsl-intel-ocloc" in metadata and "Version: 25.18.33578" in metadata
            assert zf.read(f"{dist}/entry_points.txt").decode() == "[console_scripts]\nocloc = intel_ocloc:main\n"
            assert zf.read(f"{dist}/licenses/ocloc/LICENSE.txt") == b"licence text"
            info = zf.getinfo("intel_ocloc/bin/ocloc.exe")
            assert (info.external_attr >> 16) & 0o777 == 0o755
            assert info.compress_type == compression
            init = zf.read("intel_ocloc/__init__.py").decode()
            assert '"ocloc.exe"' in init and '"ocloc64.dll"' in init
            compile(init, "intel_ocloc/__init__.py", "exec")


def test_platform_tag_version_and_pe_reader(tmp_path):
    (tmp_path / "a.so").write_bytes(b"\0GLIBC_2.14\0GLIBC_2.34\0GLIBCXX_3.4.30\0")
    (tmp_path / "b.so").write_bytes(b"\0GLIBC_2.2.5\0")
    assert ocloc_wheel.linux_platform_tag([tmp_path / "a.so", tmp_path / "b.so"]) == "manylinux_2_34_x86_64"
    assert ocloc_wheel.linux_platform_tag([tmp_path / "b.so"]) == "manylinux_2_17_x86_64"
    assert ocloc_wheel.normalise_version("22.43.24595\0") == "22.43.24595"
    with pytest.raises(ocloc_wheel.WheelError):
        ocloc_wheel.normalise_version("unknown")
    assert ocloc_wheel.pe_imports(b"") == []
    assert ocloc_wheel.pe_imports(b"MZ" + b"\xff" * 100) == []
    dlls = sorted(REPO.glob("build/*mingw*/tests/ze_test_driver/ze_loader.dll"))
    if dlls:  # a real PE32+ from the mingw build
        imports = [name.lower() for name in ocloc_wheel.pe_imports(dlls[0].read_bytes())]
        assert "kernel32.dll" in imports


def test_windows_collection_finds_runtime_dlls_in_oneapi(tmp_path):
    ocloc_bin = tmp_path / "oneAPI" / "ocloc" / "latest" / "bin"
    compiler_bin = tmp_path / "oneAPI" / "compiler" / "latest" / "bin"
    for folder, names in (
        (ocloc_bin, ["ocloc.exe", "ocloc64.dll"]),
        (compiler_bin, ["igc64.dll", "igdfcl64.dll", "common_clang64.dll", "unrelated.dll"]),
    ):
        folder.mkdir(parents=True)
        for name in names:
            (folder / name).write_bytes(b"not a PE file")
    env = {"ONEAPI_ROOT": str(tmp_path / "oneAPI"), "PATH": ""}
    dirs = ocloc_wheel.windows_search_dirs(ocloc_bin / "ocloc.exe", env)
    files = ocloc_wheel.collect_windows(ocloc_bin / "ocloc.exe", ocloc_bin / "ocloc64.dll", dirs)
    names = sorted(f.name for f in files)
    assert names == ["common_clang64.dll", "igc64.dll", "igdfcl64.dll", "ocloc.exe", "ocloc64.dll"]
    (compiler_bin / "igc64.dll").unlink()
    with pytest.raises(ocloc_wheel.WheelError, match="igc64.dll was not found"):
        ocloc_wheel.collect_windows(ocloc_bin / "ocloc.exe", ocloc_bin / "ocloc64.dll", dirs)


def test_windows_wheel_end_to_end_from_a_fake_oneapi(tmp_path):
    root = tmp_path / "oneAPI"
    ocloc_bin = root / "ocloc" / "latest" / "bin"
    ocloc_bin.mkdir(parents=True)
    for name in ("ocloc.exe", "ocloc64.dll", "igc64.dll", "igdfcl64.dll", "common_clang64.dll"):
        (ocloc_bin / name).write_bytes(b"MZ fake " + name.encode())
    (root / "ocloc" / "latest" / "licensing").mkdir()
    (root / "ocloc" / "latest" / "licensing" / "third-party-programs.txt").write_text("third party")

    def build(dist: str) -> Path:
        return ocloc_wheel.build(
            ocloc_bin / "ocloc.exe",
            ocloc_bin / "ocloc64.dll",
            tmp_path / dist,
            version="2025.1.0",
            windows=True,
            search_dirs=[ocloc_bin],
            log=lambda *_: None,
        )

    wheel = build("dist")
    assert wheel.name == "xsl_intel_ocloc-2025.1.0-py3-none-win_amd64.whl"
    with zipfile.ZipFile(wheel) as zf:
        rows = check_record(zf)
        names = {n.split("/")[-1] for n in rows if n.startswith("intel_ocloc/bin/")}
        assert names == {"ocloc.exe", "ocloc64.dll", "igc64.dll", "igdfcl64.dll", "common_clang64.dll"}
        assert any(n.endswith("licenses/licensing/third-party-programs.txt") for n in rows)
    # No licence at all is refused unless explicitly allowed.
    shutil.rmtree(root / "ocloc" / "latest" / "licensing")
    with pytest.raises(ocloc_wheel.WheelError, match="no licence files"):
        build("dist2")


def make_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    # --without-pip + the host pip's --python: seconds instead of ensurepip's ~15 s.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv


@pytest.mark.skipif(sys.platform != "linux", reason="the end-to-end wheel test packages Debian's ocloc")
def test_wheel_from_debian_ocloc_works_in_a_fresh_venv(tmp_path):
    found = ocloc_discovery.find_ocloc(with_version=False)
    if not found.found or not found.library or found.source == "wheel":
        pytest.skip(f"needs a system ocloc with its library: {found.describe()}")
    if shutil.which("patchelf") is None or shutil.which("ldd") is None:
        pytest.skip("needs patchelf and ldd (scripts/dev.sh setup installs patchelf)")
    spirv = corpus_spirv("add")
    if spirv is None:
        pytest.skip("no SPIR-V corpus in XSL_BUILD_DIR/corpus")

    wheel = ocloc_wheel.build(
        Path(found.path),
        Path(found.library),
        tmp_path / "dist",
        compression=zipfile.ZIP_STORED,
        level=None,
        log=lambda *_: None,
    )
    assert wheel.name.startswith("xsl_intel_ocloc-") and "-py3-none-manylinux_2_" in wheel.name
    with zipfile.ZipFile(wheel) as zf:
        rows = check_record(zf)
        assert "intel_ocloc/bin/libigc.so.1" in rows and "intel_ocloc/bin/libocloc.so" in rows
        assert not any(n.startswith("intel_ocloc/bin/libc.so") or "libstdc++" in n for n in rows)
        assert any("/licenses/intel-opencl-icd/copyright" in n for n in rows)

    venv = make_venv(tmp_path)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index", "--no-deps", str(wheel)],
        check=True,
    )
    site = subprocess.run(
        [str(python), "-c", "import intel_ocloc as o; print(o.bin_dir()); print(o.version())"],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout.split()
    bin_dir = Path(site[0])
    assert bin_dir.is_relative_to(venv) and site[1] == wheel.name.split("-")[1]

    # The system ocloc is out of reach: PATH is the venv only.
    work = tmp_path / "work"
    work.mkdir()
    (work / "add.spv").write_bytes(spirv)
    env = {"PATH": str(venv / "bin"), "HOME": str(tmp_path), "LD_DEBUG": "libs"}
    proc = subprocess.run(
        [
            "ocloc",
            "compile",
            "-file",
            "add.spv",
            "-spirv_input",
            "-device",
            "pvc",
            "-internal_options",
            "-ze-allow-zebin",
            "-output",
            "add",
            "-output_no_suffix",
        ],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    loaded = {line.split()[-1] for line in proc.stdout.splitlines() if "calling init:" in line}
    ocloc_libs = [p for p in loaded if any(k in p for k in ("libocloc", "libigc", "LLVM", "libz3"))]
    assert len(ocloc_libs) >= 4 and all(p.startswith(str(bin_dir)) for p in ocloc_libs), ocloc_libs
    assert b"kernels:" in ze_info((work / "add").read_bytes())

    # ldd agrees: the bundled libraries resolve to each other.
    ldd = subprocess.run(["ldd", str(bin_dir / "libigc.so.1")], stdout=subprocess.PIPE, text=True).stdout
    assert f"libLLVM-14.so.1 => {bin_dir}/libLLVM-14.so.1" in ldd or "libLLVM" not in ldd, ldd

    # Discovery finds the wheel first, in Python and in the package's C++.
    venv_env = {"PATH": str(venv / "bin"), "VIRTUAL_ENV": str(venv)}
    found_py = ocloc_discovery.find_ocloc(env=venv_env, with_version=False)
    assert found_py.source == "wheel" and found_py.path == str(bin_dir / "ocloc")
    assert found_py.library == str(bin_dir / "libocloc.so")
    if list((PACKAGE_DIR / "xpu_static_launcher").glob("_compile*")):
        script = (
            "from xpu_static_launcher import compile as xc; d = xc.find_compiler('ocloc-library'); "
            f"r = xc.compile_spirv(open({str(work / 'add.spv')!r}, 'rb').read(), 'pvc', backend='ocloc-library'); "
            "print(d['source'], d['library'], len(r['zebin']))"
        )
        # The venv's interpreter, no VIRTUAL_ENV: the wheel is found through the sys.path it passes.
        env = {"PATH": str(venv / "bin"), "PYTHONPATH": str(PACKAGE_DIR)}
        out = subprocess.run(
            [str(python), "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert out.returncode == 0, out.stdout
        source, library, size = out.stdout.split()
        assert source == "wheel" and library == str(bin_dir / "libocloc.so") and int(size) > 1000
