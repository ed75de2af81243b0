"""patches/triton-xpu: the patch parses and applies to the committed context
fixture (always) and to the pinned upstream commit (when a local mirror of
intel/intel-xpu-backend-for-triton is named by XSL_TRITON_MIRROR); its own
upstream-style tests then run against the patched files with stand-ins for
Triton's compiled parts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from ocloc_support import REPO, TRITON_STUB_CONFTEST

PATCH_DIR = REPO / "patches" / "triton-xpu"
# A clone (or bare mirror) of intel/intel-xpu-backend-for-triton, if any.
MIRROR_ENV = "XSL_TRITON_MIRROR"
NEW_TESTS = ["python/test/unit/intel/test_ocloc_discovery.py"]
ALL_TESTS = NEW_TESTS + ["python/test/unit/intel/test_extract_spill_size.py"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to apply the patch")


def base() -> Dict[str, str]:
    fields = {}
    for line in (PATCH_DIR / "BASE").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def patches() -> List[Path]:
    names = base()["patches"].split()
    assert sorted(names) == sorted(p.name for p in PATCH_DIR.glob("*.patch")), "BASE must list every patch"
    return [PATCH_DIR / name for name in names]


def touched_files(patch: Path) -> Dict[str, bool]:
    """path -> True if the patch creates it."""
    result: Dict[str, bool] = {}
    lines = patch.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("+++ b/"):
            result[line[6:]] = lines[i - 1] == "--- /dev/null"
    return result


def git_apply(tree: Path, *args: str) -> subprocess.CompletedProcess:
    # Outside any repository git apply works as a plain patch tool.
    return subprocess.run(["git", "apply", *args], cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=dict(os.environ, GIT_CEILING_DIRECTORIES=str(tree.parent)))


def apply_all(tree: Path) -> None:
    for patch in patches():
        check = git_apply(tree, "--check", "-v", str(patch))
        assert check.returncode == 0, check.stdout
        done = git_apply(tree, str(patch))
        assert done.returncode == 0, done.stdout


def run_patch_tests(tree: Path, tests: List[str]) -> None:
    (tree / "conftest.py").write_text(TRITON_STUB_CONFTEST)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={tree}",
                           *tests], cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert " passed" in proc.stdout


def test_base_and_patch_are_well_formed():
    fields = base()
    assert len(fields["commit"]) == 40 and all(c in "0123456789abcdef" for c in fields["commit"])
    for patch in patches():
        text = patch.read_text()
        assert text.startswith("From ") and "\nSubject: [PATCH]" in text and "\n-- \n" in text
        files = touched_files(patch)
        assert "third_party/intel/backend/compiler.py" in files
    # The first patch creates the ocloc module; later ones change it.
    assert touched_files(patches()[0])["third_party/intel/backend/ocloc.py"] is True
    assert touched_files(patches()[1])["third_party/intel/backend/ocloc.py"] is False


def test_patch_applies_to_the_context_fixture(tmp_path):
    tree = tmp_path / "fixture"
    shutil.copytree(PATCH_DIR / "fixture", tree)
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
    for patch in reversed(patches()):
        assert git_apply(tree, "-R", "--check", str(patch)).returncode == 0
        assert git_apply(tree, "-R", str(patch)).returncode == 0
    for path in (PATCH_DIR / "fixture").rglob("*.py"):
        relative = path.relative_to(PATCH_DIR / "fixture")
        assert (tree / relative).read_bytes() == path.read_bytes(), relative


def test_patch_applies_to_the_pinned_commit(tmp_path):
    commit = base()["commit"]
    given = os.environ.get(MIRROR_ENV, "")
    if not given:
        pytest.skip(f"{MIRROR_ENV} is not set: set it to a clone of intel-xpu-backend-for-triton to check "
                    "the patch against the pinned commit; the fixture test covers the patch's context")
    mirror = Path(given)
    if not mirror.exists():
        pytest.skip(f"{MIRROR_ENV}={mirror} does not exist; the fixture test covers the patch's context")
    has_commit = subprocess.run(["git", f"--git-dir={mirror}", "cat-file", "-e", f"{commit}^{{commit}}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if has_commit.returncode != 0:
        pytest.skip(f"the mirror at {mirror} does not contain the pinned commit {commit}")
    existing = [path for patch in patches() for path, created in touched_files(patch).items() if not created]
    tree = tmp_path / "upstream"
    tree.mkdir()
    archive = subprocess.run(["git", f"--git-dir={mirror}", "archive", commit, *existing], stdout=subprocess.PIPE,
                             check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    apply_all(tree)
    # Includes upstream's own extract_spill_size tests against the patched compiler.py.
    run_patch_tests(tree, ALL_TESTS)
