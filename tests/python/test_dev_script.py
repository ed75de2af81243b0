"""scripts/dev.sh's free-space check, run in bash with a stand-in `df`.

A run that fills the disk half-way fails in the linker with "No space left
on device"; the check refuses first, with one line that says how much more
space the run needs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GIB_KIB = 1024 * 1024

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _function(name: str) -> str:
    text = (ROOT / "scripts" / "dev.sh").read_text(encoding="utf-8")
    match = re.search(rf"^{name}\(\) \{{\n.*?^\}}\n", text, re.M | re.S)
    assert match, f"scripts/dev.sh has no function {name}"
    return match.group(0)


def _check(tmp_path: Path, free_kib: int, total_gib: int) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake_df = bin_dir / "df"
    fake_df.write_text(
        "#!/bin/sh\n"
        "echo 'Filesystem 1024-blocks Used Available Capacity Mounted on'\n"
        f"echo '/dev/test 999999999 1 {free_kib} 1% /mnt/test'\n",
        encoding="utf-8",
    )
    fake_df.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    script = (
        "set -euo pipefail\n"  # as scripts/dev.sh runs
        f"{_function('check_free_space')}\n"
        f'root="$1"; PATH="$2:$PATH"; HOME="$3"\n'
        f"check_free_space {total_gib}\n"
        "echo passed\n"
    )
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return subprocess.run(
        ["bash", "-c", script, "check", str(project), str(bin_dir), str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_enough_space_passes(tmp_path: Path) -> None:
    result = _check(tmp_path, free_kib=25 * GIB_KIB, total_gib=20)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "passed"


def test_too_little_space_refuses_with_the_shortfall(tmp_path: Path) -> None:
    result = _check(tmp_path, free_kib=2 * GIB_KIB, total_gib=20)
    assert result.returncode == 2
    assert "passed" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "needs about 18 GiB more free disk space on /mnt/test" in lines[0]
    assert "2.0 GiB free" in lines[0]
    assert "free some" in lines[0]


def test_what_is_on_disk_already_counts(tmp_path: Path) -> None:
    # 64 KiB short of 1 GiB free: refused on an empty tree, passes once the
    # tree holds more than that (a build tree from an earlier run).
    short = GIB_KIB - 64
    assert _check(tmp_path, free_kib=short, total_gib=1).returncode == 2
    build = tmp_path / "project" / "build"
    build.mkdir(parents=True)
    (build / "object.o").write_bytes(b"\1" * (256 * 1024))
    result = _check(tmp_path, free_kib=short, total_gib=1)
    assert result.returncode == 0, result.stderr
