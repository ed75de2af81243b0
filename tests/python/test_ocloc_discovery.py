"""xpu_static_launcher.ocloc_discovery: the order (Windows on Linux via fake probes),
the error listing every place, and the real machine."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable

import pytest

from ocloc_support import DISCOVERY

sys.path.insert(0, str(DISCOVERY.parent))
import ocloc_discovery as od  # noqa: E402


def fake(
    windows: bool,
    env: dict[str, str],
    files: Iterable[str] = (),
    dirs: Iterable[str] = (),
    listings: dict[str, list[str]] = None,
    python_paths: list[str] = (),
) -> od.Probes:
    files, dirs, listings = set(files), set(dirs), listings or {}
    return od.Probes(
        windows=windows,
        env=env,
        is_file=files.__contains__,
        is_dir=dirs.__contains__,
        list_dir=lambda p: listings.get(p, []),
        python_paths=list(python_paths),
        query_version=lambda exe, lib: ("1.2.3", None),
    )


WINDOWS_ENV = {
    "PYTHONPATH": "C:\\py\\site",
    "VIRTUAL_ENV": "C:\\venv",
    "PATH": 'C:\\Windows;;"C:\\My Tools"',
    "ONEAPI_ROOT": "D:\\oneAPI\\",
    "CMPLR_ROOT": "D:\\oneAPI\\compiler\\2025.1",
}


def test_windows_order_matches_the_cpp_order():
    env = dict(WINDOWS_ENV, XSL_OCLOC="E:\\ocloc\\ocloc.exe")
    paths = [c.path for c in od.ocloc_candidates(fake(True, env))]
    # The same list as tests/cpp/ocloc/discovery_test.cpp WindowsOrderIsEnvWheelPathOneApi.
    assert paths == [
        "E:\\ocloc\\ocloc.exe",
        "C:\\py\\site\\intel_ocloc\\bin\\ocloc.exe",
        "C:\\venv\\Lib\\site-packages\\intel_ocloc\\bin\\ocloc.exe",
        "C:\\Windows\\ocloc.exe",
        "C:\\My Tools\\ocloc.exe",
        "D:\\oneAPI\\ocloc\\latest\\bin\\ocloc.exe",
        "C:\\Program Files (x86)\\Intel\\oneAPI\\ocloc\\latest\\bin\\ocloc.exe",
        "D:\\oneAPI\\compiler\\2025.1\\bin\\ocloc.exe",
        "D:\\oneAPI\\compiler\\latest\\bin\\ocloc.exe",
        "C:\\Program Files (x86)\\Intel\\oneAPI\\compiler\\latest\\bin\\ocloc.exe",
    ]


def test_linux_order_matches_the_cpp_order():
    probes = fake(
        False,
        {"PATH": "/home/u/bin:/usr/bin", "VIRTUAL_ENV": "/venv"},
        listings={"/venv/lib": ["python3.11", "other"]},
        python_paths=[""],
    )
    assert [c.path for c in od.ocloc_candidates(probes)] == [
        "/venv/lib/python3.11/site-packages/intel_ocloc/bin/ocloc",
        "/home/u/bin/ocloc",
        "/usr/bin/ocloc",
        "/usr/bin/ocloc",
        "/usr/local/bin/ocloc",
        "/opt/intel/oneapi/ocloc/latest/bin/ocloc",
        "/opt/intel/oneapi/compiler/latest/bin/ocloc",
    ]


def test_oneapi_hit_reports_source_library_and_version():
    folder = "C:\\Program Files (x86)\\Intel\\oneAPI\\ocloc\\latest\\bin"
    found = od.find_ocloc(probes=fake(True, WINDOWS_ENV, files=[folder + "\\ocloc.exe", folder + "\\ocloc64.dll"]))
    assert found.found
    assert (found.source, found.path, found.library) == ("oneAPI", folder + "\\ocloc.exe", folder + "\\ocloc64.dll")
    assert found.version == "1.2.3"
    assert len(found.tried) == 6 and folder in found.tried[-1]


def test_wheel_wins_over_path():
    wheel = "C:\\venv\\Lib\\site-packages\\intel_ocloc\\bin"
    found = od.find_ocloc(probes=fake(True, WINDOWS_ENV, files=["C:\\Windows\\ocloc.exe", wheel + "\\ocloc.exe"]))
    assert found.source == "wheel" and found.path == wheel + "\\ocloc.exe"


def test_environment_folder_library_and_missing():
    files = ["/opt/o/ocloc", "/opt/o/libocloc.so", "/usr/bin/ocloc"]
    found = od.find_ocloc(probes=fake(False, {"XSL_OCLOC": "/opt/o"}, files=files, dirs=["/opt/o"]))
    assert (found.source, found.path, found.library) == ("environment", "/opt/o/ocloc", "/opt/o/libocloc.so")
    found = od.find_ocloc(probes=fake(False, {"XSL_OCLOC": "/opt/o/libocloc.so"}, files=files))
    assert (found.path, found.library) == ("/opt/o/ocloc", "/opt/o/libocloc.so")
    missing = od.find_ocloc(probes=fake(False, {"XSL_OCLOC": "/nowhere/ocloc"}, files=files))
    assert not missing.found and "XSL_OCLOC=/nowhere/ocloc" in missing.error


def test_nothing_found_lists_every_place():
    probes = fake(True, WINDOWS_ENV)
    found = od.find_ocloc(probes=probes)
    assert not found.found
    for candidate in od.ocloc_candidates(probes):
        assert candidate.path in found.error
    assert "ocloc_wheel.py" in found.describe()


def test_real_machine_and_cli():
    found = od.find_ocloc()
    if not found.found:
        pytest.skip(f"no ocloc here: {found.error}")
    assert found.version and found.version[0].isdigit() and found.version == found.version.strip(), found.version
    proc = subprocess.run([sys.executable, str(DISCOVERY), "--json"], stdout=subprocess.PIPE, check=True)
    report = json.loads(proc.stdout)
    assert report["path"] == found.path and report["version"] == found.version


def test_cli_fails_with_the_places_tried(tmp_path):
    env = {"PATH": str(tmp_path), "XSL_OCLOC": str(tmp_path / "missing")}
    proc = subprocess.run([sys.executable, str(DISCOVERY), "--no-version"], stdout=subprocess.PIPE, env=env)
    assert proc.returncode == 1
    assert b"does not exist" in proc.stdout
