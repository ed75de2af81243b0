"""patches/triton-xpu: a `git format-patch` series made against the pinned
commit of intel/intel-xpu-backend-for-triton (BASE).

Always: the series is well formed (numbered, only diff syntax in its hunks),
applies in order to the context fixture, and its own upstream-style tests
pass against the patched files with stand-ins for Triton's compiled parts;
the fixture holds exactly the lines the hunks read.

With a clone or bare mirror of Triton-XPU named by XSL_TRITON_MIRROR: the
series applies with `git am -3`, in order, to a checkout of the pinned
commit; the fixture equals what triton_patch_support derives from that
commit; upstream's own extract_spill_size tests pass against the patched
compiler.py. CI has no mirror and skips this with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import triton_patch_support as series
from ocloc_support import TRITON_STUB_CONFTEST

PATCH_DIR = series.PATCH_DIR
# A clone (or bare mirror) of intel/intel-xpu-backend-for-triton, if any.
MIRROR_ENV = "XSL_TRITON_MIRROR"
NEW_TESTS = ["python/test/unit/intel/test_ocloc_discovery.py"]
ALL_TESTS = NEW_TESTS + ["python/test/unit/intel/test_extract_spill_size.py"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to apply the patch")


def git_apply(tree: Path, *args: str) -> subprocess.CompletedProcess:
    # Outside any repository git apply works as a plain patch tool.
    return subprocess.run(
        ["git", "apply", *args],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, GIT_CEILING_DIRECTORIES=str(tree.parent)),
    )


def apply_all(tree: Path) -> None:
    for patch in series.patches():
        check = git_apply(tree, "--check", "-v", str(patch))
        assert check.returncode == 0, check.stdout
        done = git_apply(tree, str(patch))
        assert done.returncode == 0, done.stdout


def run_patch_tests(tree: Path, tests: list[str]) -> None:
    (tree / "conftest.py").write_text(TRITON_STUB_CONFTEST)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={tree}", *tests],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert " passed" in proc.stdout


def test_base_and_series_are_well_formed():
    fields = series.base()
    assert len(fields["commit"]) == 40 and all(c in "0123456789abcdef" for c in fields["commit"])
    names = fields["patches"].split()
    assert sorted(names) == sorted(p.name for p in PATCH_DIR.glob("*.patch")), "BASE must list every patch"
    for number, patch in enumerate(series.patches(), start=1):
        text = patch.read_text()
        assert patch.name.startswith(f"{number:04d}-")
        assert re.match(r"From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n", text), patch.name
        assert f"\nSubject: [PATCH {number}/{len(names)}] [Intel] " in text, patch.name
        assert "\n-- \n" in text
        # Hunks hold diff lines only: no prose standing in for upstream lines.
        assert "(upstream lines" not in text, patch.name
        for path, (_, hunks) in series.file_hunks(patch).items():
            for hunk in hunks:
                old = sum(1 for line in hunk.body if line[0] in " -")
                new = sum(1 for line in hunk.body if line[0] in " +")
                assert (old, new) == (hunk.old_count, hunk.new_count), (patch.name, path, hunk.old_start)
        assert "third_party/intel/backend/compiler.py" in series.file_hunks(patch)
    # The first patch creates the ocloc module; the second changes it.
    first, second = (series.file_hunks(p) for p in series.patches())
    assert first["third_party/intel/backend/ocloc.py"][0] is True
    assert second["third_party/intel/backend/ocloc.py"][0] is False


def test_fixture_holds_only_the_lines_the_hunks_read():
    needed = series.needed_base_lines(series.patches())
    fixture = {str(p.relative_to(series.FIXTURE_DIR)): p for p in series.FIXTURE_DIR.rglob("*") if p.is_file()}
    assert sorted(fixture) == sorted(needed)
    for path, lines in needed.items():
        kept = [line for line in fixture[path].read_text().splitlines() if line != series.MARKER]
        assert len(kept) == len(lines), path


def test_patch_applies_to_the_context_fixture(tmp_path):
    tree = tmp_path / "fixture"
    shutil.copytree(series.FIXTURE_DIR, tree)
    apply_all(tree)
    compiler = (tree / "third_party/intel/backend/compiler.py").read_text()
    assert "'ocloc', 'compile'" not in compiler
    # ocloc when found, else the driver through xpu_static_launcher (patch 0002).
    assert "ocloc_cmd = zebin_compile_command(fsrc.name, fbin, cls.device_arch," in compiler
    assert "describe_returncode(e.returncode)" in compiler
    assert "spill_sizes_from_ze_info(" in compiler
    # The new module and its upstream-style tests run on their own.
    run_patch_tests(tree, NEW_TESTS)
    (tree / "conftest.py").unlink()
    for patch in reversed(series.patches()):
        assert git_apply(tree, "-R", "--check", str(patch)).returncode == 0
        assert git_apply(tree, "-R", str(patch)).returncode == 0
    for path in series.FIXTURE_DIR.rglob("*.py"):
        relative = path.relative_to(series.FIXTURE_DIR)
        assert (tree / relative).read_bytes() == path.read_bytes(), relative


def test_series_applies_to_the_pinned_commit(tmp_path):
    commit = series.base()["commit"]
    given = os.environ.get(MIRROR_ENV, "")
    if not given:
        pytest.skip(
            f"{MIRROR_ENV} is not set: set it to a clone or mirror of intel-xpu-backend-for-triton to "
            "apply the series to the pinned commit; the fixture test covers the patches' context"
        )
    mirror = Path(given)
    if not series.git_dir(mirror).exists():
        pytest.skip(f"{MIRROR_ENV}={mirror} does not exist; the fixture test covers the patches' context")
    git_dir = str(series.git_dir(mirror))
    has_commit = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if has_commit.returncode != 0:
        pytest.skip(f"the mirror at {mirror} does not contain the pinned commit {commit}")
    tree = tmp_path / "upstream"
    # A clone sharing the mirror's objects: the mirror itself is not written to.
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", git_dir, str(tree)], check=True)
    git = ["git", "-C", str(tree), "-c", "user.name=xsl-test", "-c", "user.email=xsl-test@example.invalid"]
    subprocess.run(git + ["checkout", "-q", "--detach", commit], check=True)
    am = subprocess.run(
        git + ["am", "-3", *map(str, series.patches())], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert am.returncode == 0, am.stdout
    log = subprocess.run(
        git + ["log", "--format=%s", f"{commit}..HEAD"], stdout=subprocess.PIPE, text=True, check=True
    ).stdout.splitlines()
    assert len(log) == len(series.patches())
    # The fixture is what the pinned commit gives, never the other way round.
    for path, text in series.fixture_from_mirror(mirror).items():
        assert (series.FIXTURE_DIR / path).read_text() == text, f"{path}: rerun triton_patch_support.py"
    # Upstream's own extract_spill_size tests, and the new ones, against the patched files.
    run_patch_tests(tree, ALL_TESTS)
