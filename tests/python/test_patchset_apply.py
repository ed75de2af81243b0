"""scripts/patchset.py and the PR stacks, on trees rebuilt from the patches.

No upstream file is stored here: each series' pre-images are rebuilt from the
patches themselves (context and removed lines at their line numbers, unique
filler lines elsewhere), which is all `git am` and `git apply` need. The
recorded upstream blobs are checked through the patches' own index lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patchset_support import (
    BUILD_LIST_LINE,
    PATCH_DIR,
    REPO,
    SERIES_NAMES,
    load_script,
    make_checkout,
    snapshot,
    write_tree,
)

patchset = load_script("patchset")
INDEX = re.compile(r"^index ([0-9a-f]{40})\.\.([0-9a-f]{40}) 100644$", re.M)
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="needs git")
XPU = "torch/csrc/inductor/static_launcher/xpu.cpp"
MANIFEST = patchset.Manifest.load(PATCH_DIR)
CUDA = "torch/csrc/inductor/static_launcher/cuda.cpp"
MODULE = "torch/csrc/Module.cpp"
TEST_MODULE = "test/inductor/test_static_triton_launcher.py"
NEW_FILE = "new file mode 100644\nindex 0000000000000000000000000000000000000000.."
SUBJECTS = [
    "XPU static launcher: fix the capsule leak and the grid-size overflow",
    "Enable the XPU static Triton launcher on Windows",
    "XPU static launcher: load SPIR-V kernels",
    "Run test_static_triton_launcher on XPU Windows",
    "XPU static launcher: cut the per-launch host cost",
]


def blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def series(name: str):
    return patchset.Series.load(PATCH_DIR / name)


def sections(text: str) -> list[tuple[str, str]]:
    return patchset._sections(text)[1]


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_each_series_is_five_format_patch_prs(name):
    s = series(name)
    meta = json.loads((s.directory / "series.json").read_text())
    files = sorted(p.name for p in s.directory.glob("*.patch"))
    assert meta["patches"] == files and [f[:4] for f in files] == ["0001", "0002", "0003", "0004", "0005"]
    subjects = [p.subject for p in s.patches()]
    # The bug fix leads (a cherry-pick candidate); the Windows feature follows.
    assert subjects == SUBJECTS
    for number, path in enumerate(files, start=1):
        text = (s.directory / path).read_text()
        assert text.startswith("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n")
        assert f"Subject: [PATCH {number}/5] " in text
        for heading in ("Motivation\n----------", "Changes\n-------", "Test plan\n---------"):
            assert heading in text, (path, heading)
        assert "Xsl-Replaces" not in text
        for file_path, section in sections(text):
            if NEW_FILE in section:
                continue
            has_index = INDEX.search(section) is not None
            assert has_index == (file_path not in s.context_only()), (path, file_path)


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_the_fix_leads_and_stands_alone(name):
    fix = series(name).patches()[0]
    assert {f.path for f in fix.files} == {XPU, CUDA, TEST_MODULE}
    added = "\n".join(line for f in fix.files for h in f.hunks for line in h.new_lines)
    assert 'Py_BuildValue("(Nii)"' in added
    # Both launchers get the same grid and num_warps checks.
    for path in (XPU, CUDA):
        lines = "\n".join(line for f in fix.files if f.path == path for h in f.hunks for line in h.new_lines)
        assert "gridXArg <= 0 || gridYArg <= 0 || gridZArg <= 0" in lines and "gridX * gridY" not in lines
        assert "gridXArg <= INT32_MAX" in lines and "got num_warps=" in lines
    # Its tests use upstream's own helpers, not ones a later PR adds, and
    # are fast: no slow 2**31-work-group dispatch.
    assert "_write_binary" not in added and "_make_launcher" in added and "write_cubin_to_tmp" in added
    assert "@slowTest" not in added and "sys.getrefcount(baseline)" in added
    for test in (
        "launch_with_zero_num_warps_raises",
        "zero_grid_dimension_is_a_no_op",
        "grid_dimension_over_int32_max_raises",
    ):
        assert f"def test_{test}(self):" in added, test


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_launch_cost_pr_keeps_the_fix_and_touches_the_launch_path_only(name):
    cost = series(name).patches()[4]
    assert {f.path for f in cost.files} == {XPU, TEST_MODULE}
    added = "\n".join(line for f in cost.files for h in f.hunks for line in h.new_lines)
    removed = "\n".join(line for f in cost.files for h in f.hunks for line in h.old_lines)
    # Queried at load, not at launch; the pointer check on request; no event;
    # no argument tuple per launch; the tensor address without a Python call.
    assert "get_info<sycl::info::kernel::num_args>()" in added and "kernelPtr->get_info" in removed
    assert 'check_env("TORCHINDUCTOR_STATIC_LAUNCHER_CHECK_POINTERS")' in added
    assert "sycl::ext::oneapi::experimental::submit(*queuePtr, cgf);" in added
    assert "queuePtr->submit(cgf);" in removed
    assert "METH_FASTCALL" in added and '"OLLLiisOK"' in removed
    assert "THPVariable_Unpack(obj).data_ptr()" in added
    # PR 1's checks stay as they are.
    assert "gridXArg <= INT32_MAX" not in removed and "got num_warps=" not in removed
    assert "def test_pointer_check_on_request(self):" in added
    text = (series(name).directory / cost.name).read_text()
    assert "Release notes\n-------------" in text
    assert ("Series note" in text) == (name != "main-011ab45")


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_enable_pr_is_small_and_only_touches_guards_file_open_and_includes(name):
    patch = series(name).patches()[1]
    changed = [line for f in patch.files for h in f.hunks for line in h.old_lines + h.new_lines]
    removed = [line for f in patch.files for h in f.hunks for line in h.old_lines if line not in h.new_lines]
    added = [line for f in patch.files for h in f.hunks for line in h.new_lines if line not in h.old_lines]
    assert len(removed) + len(added) <= 100 and changed
    assert all("_WIN32" in line or "Windows" in line or "#endif" in line or "ifstream" in line for line in removed), (
        removed
    )
    touched = {f.path for f in patch.files}
    stub = {"aten/src/ATen/xpu/detail/LazyLevelZero.cpp", "aten/src/ATen/xpu/level_zero_stub/ATenLevelZero.h"}
    # Release bases carry the Level Zero stub's guards; main loads ze_loader.dll without one.
    assert touched == ({MODULE, XPU} | (stub if name != "main-011ab45" else set()))
    assert "  std::ifstream IFS(c10::u8u16(filePath).c_str(), std::ios::binary);" in added
    assert any("TORCH_CHECK(IFS.is_open()" in line for line in added)


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_enable_pr_touches_no_build_file(name):
    """PR 2 is source changes only: where Windows builds find the Level Zero
    headers is a separate build PR (described in the message, not written)."""
    patch = series(name).patches()[1]
    touched = {f.path for f in patch.files}
    build = {p for p in touched if p.startswith(".ci/") or p.rsplit("/", 1)[-1] == "CMakeLists.txt"}
    assert not build and all(not p.endswith((".cmake", ".bat", ".sh")) for p in touched), touched
    assert set(series(name).preimages) >= touched
    assert not any(p.startswith(".ci/") or p.endswith("CMakeLists.txt") for p in series(name).preimages)


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_index_lines_chain_from_the_recorded_blobs(name):
    s = series(name)
    current = {path: info["blob"] for path, info in s.preimages.items()}
    seen = set()
    for path in sorted(s.directory.glob("*.patch")):
        for file_path, section in sections(path.read_text()):
            if NEW_FILE in section:
                assert file_path not in current, (path.name, file_path)
                continue
            assert file_path in current, (path.name, file_path)
            m = INDEX.search(section)
            if m is None:
                assert current[file_path] is None
                continue
            assert m.group(1) == current[file_path], (path.name, file_path)
            current[file_path] = m.group(2)
            seen.add(file_path)
    assert seen == {p for p, info in s.preimages.items() if info["blob"] is not None}


def test_wheel_utils_are_the_recorded_blobs():
    from patchset_support import FETCHED, installed_torch_utils

    assert blob(installed_torch_utils()) == series("v2.13.0").preimages["torch/_inductor/utils.py"]["blob"]
    fetched = FETCHED / "2.15.0" / "_inductor" / "utils.py"
    if not fetched.is_file():
        pytest.skip("torch 2.15.0 utils.py not fetched: run scripts/dev.sh setup")
    assert blob(fetched.read_bytes()) == series("v2.15.0").preimages["torch/_inductor/utils.py"]["blob"]


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@localhost",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@localhost",
    )
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)


@needs_git
@pytest.mark.parametrize("name", SERIES_NAMES)
def test_git_am_3way_applies_and_git_apply_reverses(tmp_path, name):
    s = series(name)
    root = make_checkout(tmp_path, name)
    before = snapshot(root)
    assert _git(root, "init", "-q").returncode == 0
    _git(root, "add", "-A")
    assert _git(root, "commit", "-qm", "pre-images").returncode == 0
    patches = [str(p) for p in sorted(s.directory.glob("*.patch"))]
    result = _git(root, "am", "-3", *patches)
    assert result.returncode == 0, result.stderr
    log = _git(root, "log", "--format=%s", "-5").stdout.splitlines()
    assert log[::-1] == [p.subject for p in s.patches()]
    for patch in reversed(patches):
        result = _git(root, "apply", "-R", patch)
        assert result.returncode == 0, (patch, result.stderr)
    assert snapshot(root) == before


@pytest.mark.parametrize("name", SERIES_NAMES)
def test_apply_is_idempotent_and_reverses_to_the_same_bytes(tmp_path, name):
    root = make_checkout(tmp_path, name)
    before = snapshot(root)
    patches = series(name).patches()
    check = patchset.run_series(patches, root, check=True)
    assert check.ok and check.written == [] and snapshot(root) == before
    assert all(line.startswith("would apply") for line in check.lines[:5])
    first = patchset.run_series(patches, root)
    assert first.ok and first.written
    text = (root / XPU).read_text()
    assert "#ifndef _WIN32" not in text and "// TODO: enable on Windows." not in text
    assert 'Py_BuildValue("(Nii)"' in text and "gridX * gridY * gridZ" not in text
    assert "#if defined(USE_XPU)\n  ASSERT_TRUE(StaticXpuLauncher_init(module));" in (root / MODULE).read_text()
    again = patchset.run_series(patches, root)
    assert again.ok and again.written == []
    assert all(line.startswith("already applied") for line in again.lines[:5])
    back = patchset.run_series(patches, root, reverse=True)
    assert back.ok and snapshot(root) == before


def test_drift_names_the_patch_the_file_and_the_expected_text(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    module_cpp = root / MODULE
    module_cpp.write_text(
        module_cpp.read_text().replace(
            "#if defined(USE_XPU) && !defined(_WIN32)", "#if defined(USE_XPU) && !defined(_MSC_VER)"
        )
    )
    before = snapshot(root)
    result = patchset.run_series(series("v2.15.0").patches(), root)
    assert not result.ok and result.written == [] and snapshot(root) == before  # all-or-nothing
    report = "\n".join(result.lines)
    # Module.cpp is the Enable PR's (the second); the fix before it fits.
    assert result.lines[0].startswith("would apply") and result.lines[1].startswith("DRIFT")
    assert all(line.startswith("not checked") for line in result.lines[2:5])
    assert "0002-Enable-the-XPU-static-Triton-launcher-on-Windows.patch: it does not fit:" in report
    assert f"error: {MODULE}: patch does not apply" in report
    # git's "while searching for:" lists the hunk's expected lines.
    assert "  #if defined(USE_XPU) && !defined(_WIN32)" in report
    assert "no three-way merge: the checkout is no git repository" in report


def test_drift_in_the_last_patch_blocks_the_whole_stack(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    test_module = root / TEST_MODULE
    text = test_module.read_text()
    assert "    if not (HAS_XPU_AND_TRITON and IS_WINDOWS):" in text
    test_module.write_text(text.replace("    if not (HAS_XPU_AND_TRITON and IS_WINDOWS):", "    if not IS_WINDOWS:"))
    before = snapshot(root)
    result = patchset.run_series(series("v2.15.0").patches(), root)
    assert not result.ok and result.written == [] and snapshot(root) == before
    assert any(line.startswith("DRIFT") and "0004" in line for line in result.lines)


def test_partly_applied_stack_completes(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    patches = series("v2.15.0").patches()
    assert patchset.run_series(patches[:1], root).ok
    result = patchset.run_series(patches, root)
    assert result.ok and "already applied" in result.lines[0] and result.lines[1].startswith("applied")


def _expected_export(s, root: Path, tmp_path: Path) -> dict[str, str]:
    """The committed files with the index lines the rebuilt tree yields."""
    work = tmp_path / "expected"
    shutil.copytree(root, work)
    expected = {}
    for patch in s.patches():
        text = (s.directory / patch.name).read_text()
        before = {path: blob((work / path).read_bytes()) for path, _ in sections(text) if (work / path).is_file()}
        assert patchset.run_series([patch], work).ok
        for file_path, section in sections(text):
            m = INDEX.search(section)
            if m is not None:
                after = blob((work / file_path).read_bytes())
                text = text.replace(section, section.replace(m.group(0), f"index {before[file_path]}..{after} 100644"))
        expected[patch.name] = text
    return expected


@needs_git
@pytest.mark.parametrize("name", SERIES_NAMES)
def test_export_reproduces_the_committed_files(tmp_path, name):
    s = series(name)
    root = make_checkout(tmp_path, name)
    expected = _expected_export(s, root, tmp_path)
    assert patchset.run_series(s.patches(), root).ok
    out = tmp_path / "out"
    written = patchset.export_series(s, root, out)
    assert [p.name for p in written] == sorted(expected)
    for path in written:
        assert path.read_text() == expected[path.name], path.name


PREIMAGES = os.environ.get("XSL_PYTORCH_PREIMAGES", "")


@needs_git
@pytest.mark.skipif(
    not PREIMAGES, reason="needs the upstream pre-image files (XSL_PYTORCH_PREIMAGES=<dir>/<series>/<path>)"
)
@pytest.mark.parametrize("name", SERIES_NAMES)
def test_export_on_the_upstream_files_is_byte_identical(tmp_path, name):
    s = series(name)
    root = make_checkout(tmp_path, name)
    upstream = Path(PREIMAGES) / name
    for rel, info in s.preimages.items():
        if info["blob"] is None:
            continue
        data = (upstream / rel).read_bytes()
        assert blob(data) == info["blob"], rel
        write_tree(root, {rel: data})
    assert patchset.run_series(s.patches(), root).ok
    for path in patchset.export_series(s, root, tmp_path / "out"):
        assert path.read_bytes() == (s.directory / path.name).read_bytes(), path.name


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "patchset.py"), *args], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2.15.0", "v2.15.0"),
        ("2.15.1a0+git1234", "v2.15.0"),
        ("2.13.0", "v2.13.0"),
        ("2.16.0a0", "main-011ab45"),
        ("3.0.0", "main-011ab45"),
    ],
)
def test_series_is_picked_by_the_checkout_version(tmp_path, version, expected):
    (tmp_path / "version.txt").write_text(version + "\n")
    assert patchset.select_series(PATCH_DIR, tmp_path, None).name == expected


def test_unknown_version_asks_for_series(tmp_path):
    (tmp_path / "version.txt").write_text("2.14.1\n")
    with pytest.raises(
        patchset.PatchError,
        match=r"no series for PyTorch 2\.14\.1 .*pass --series \(main-011ab45, v2\.13\.0, v2\.15\.0\)",
    ):
        patchset.select_series(PATCH_DIR, tmp_path, None)
    with pytest.raises(patchset.PatchError, match="--series v9: no such series"):
        patchset.select_series(PATCH_DIR, tmp_path, "v9")
    (tmp_path / "version.txt").unlink()
    with pytest.raises(patchset.PatchError, match="no version.txt or torch/version.py"):
        patchset.select_series(PATCH_DIR, tmp_path, None)


def test_cli_apply_check_status_and_series_override(tmp_path):
    root = make_checkout(tmp_path, "v2.13.0")
    check = _run("apply", "--check", str(root))
    assert check.returncode == 0 and check.stdout.startswith("series v2.13.0 (base v2.13.0)")
    assert _run("apply", str(root)).returncode == 0
    status = _run("status", str(root))
    assert status.returncode == 0 and status.stdout.count("\napplied") == 5
    wrong = _run("status", "--series", "main-011ab45", str(root))
    assert wrong.returncode == 1 and "drift" in wrong.stdout
    missing = _run("apply", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "not a directory" in missing.stderr


def test_project_launcher_is_an_option_generated_at_apply_time(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    before = snapshot(root)
    result = _run("apply", "--launcher", "project", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "applied          0006-" in result.stdout
    installed = (root / XPU).read_text()
    assert f"<{MANIFEST.helper_dest}/" in installed and "StaticXpuLauncher_init" in installed
    assert "// TODO: enable on Windows." not in installed
    assert (root / MANIFEST.helper_dest).is_dir()
    assert (root / "build_variables.bzl").read_text().count(BUILD_LIST_LINE) == 1
    again = _run("apply", "--launcher", "project", str(root))
    assert again.returncode == 0 and "Nothing to do" in again.stdout
    assert _run("apply", "--launcher", "project", "--reverse", str(root)).returncode == 0
    assert snapshot(root) == before
    # Nothing generated is committed: the stacks hold only the five PRs.
    committed = [p.relative_to(PATCH_DIR).as_posix() for p in PATCH_DIR.rglob("*") if p.is_file()]
    assert not any("xsl/" in p or p.endswith(".cpp") or p.endswith(".h") for p in committed)
    assert all(not p.endswith(".patch") or re.match(r"^[^/]+/000[1-5]-", p) for p in committed), committed


def test_cli_names_the_other_launchers_stack_and_how_to_reverse_it(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    before = snapshot(root)
    assert _run("apply", "--launcher", "project", str(root)).returncode == 0
    applied_project = snapshot(root)
    refused = _run("apply", str(root))
    assert refused.returncode == 1
    assert refused.stdout.strip().splitlines()[-1] == (
        f"Nothing was written. The checkout holds the v2.15.0 stack with the project launcher: reverse it "
        f"first (patchset.py apply --reverse --launcher project {root})."
    )
    assert snapshot(root) == applied_project
    assert _run("apply", "--reverse", "--launcher", "project", str(root)).returncode == 0
    assert snapshot(root) == before
    applied = _run("apply", str(root))
    assert applied.returncode == 0 and "The checkout holds" not in applied.stdout
    # The other way round: upstream's stack in place, the project launcher asked for.
    other = _run("apply", "--launcher", "project", str(root))
    assert other.returncode == 1 and "with the upstream launcher: reverse it first" in other.stdout


def test_regen_writes_the_launcher_patch_only_where_asked(tmp_path):
    target = tmp_path / "gen" / "launcher.patch"
    result = _run("regen", "-o", str(target))
    assert result.returncode == 0 and target.is_file()
    patch = patchset.parse_patch(target.read_text(), target.name)
    assert patch.subject == "Install the xpu-static-launcher project's launcher"
    assert _run("regen", "-o", str(target)).returncode == 0
    assert target.read_text() == patchset.regen_text(REPO, patchset.Manifest.load(PATCH_DIR))
    usage = _run("regen")
    assert usage.returncode == 2 and "-o/--output" in usage.stderr


def test_cli_refuses_a_folder_that_is_not_a_pytorch_checkout(tmp_path):
    other = tmp_path / "project"
    (other / "src").mkdir(parents=True)
    (other / "setup.py").write_text("")
    for command in (["status"], ["apply", "--check"], ["apply"], ["export", "-o", str(tmp_path / "out")]):
        result = _run(*command, str(other))
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert result.stdout == ""
        assert result.stderr.splitlines() == [
            f"error: {other} is not a PyTorch checkout (no torch/ folder next to build_variables.bzl or setup.py): "
            "pass the root folder of a PyTorch clone (git clone https://github.com/pytorch/pytorch)"
        ]
    assert sorted(p.name for p in other.iterdir()) == ["setup.py", "src"]


def test_cli_status_without_a_path_prints_usage_and_a_hint():
    result = _run("status")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: patchset.py status [-h]")
    assert "give the PyTorch checkout to inspect, e.g. python3 scripts/patchset.py status ~/pytorch" in result.stderr


def test_bad_hunk_counts_are_a_parse_error():
    text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n"
    with pytest.raises(patchset.PatchError, match="truncated|wrong line counts"):
        patchset.parse_patch(text, "bad.patch")


def test_folded_subject_is_unfolded():
    text = (
        "From 0 Mon Sep 17 00:00:00 2001\n"
        "Subject: [PATCH 4/4] XPU static launcher: fix the capsule leak and the\n grid-size overflow\n\nBody\n"
    )
    assert patchset.parse_patch(text).subject == "XPU static launcher: fix the capsule leak and the grid-size overflow"


def test_plain_delete_and_create_round_trip(tmp_path):
    text = (
        "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n"
        "@@ -1,2 +0,0 @@\n-one\n-two\n"
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n"
        "@@ -0,0 +1 @@\n+last line without newline\n\\ No newline at end of file\n"
    )
    patch = patchset.parse_patch(text, "plain.patch")
    root = tmp_path / "tree"
    root.mkdir()
    (root / "old.txt").write_bytes(b"one\ntwo\n")
    assert patchset.run_series([patch], root).ok
    assert not (root / "old.txt").exists()
    assert (root / "new.txt").read_bytes() == b"last line without newline"
    assert patchset.run_series([patch], root).written == []
    assert patchset.run_series([patch], root, reverse=True).ok
    assert (root / "old.txt").read_bytes() == b"one\ntwo\n" and not (root / "new.txt").exists()
    (root / "old.txt").write_bytes(b"one\nchanged\n")
    result = patchset.run_series([patch], root)
    assert not result.ok and "error: old.txt: patch does not apply" in "\n".join(result.lines)
    assert (root / "old.txt").read_bytes() == b"one\nchanged\n"


def test_export_of_a_checkout_without_the_stack_says_apply_first(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    result = _run("export", str(root), "-o", str(tmp_path / "out"))
    assert result.returncode == 1 and result.stdout.startswith("series v2.15.0")
    assert result.stderr.strip().endswith(f"is not applied in {root}; run apply first.")
    assert not (tmp_path / "out").exists()


def _repo_with_a_patch(tmp_path: Path) -> tuple[Path, object]:
    """A git repository holding a 20-line file, and a patch of its line 10
    (with the index line git writes) that is not applied."""
    repo = tmp_path / "repo"
    repo.mkdir()
    text = "".join(f"line {n}\n" for n in range(1, 21))
    (repo / "a.txt").write_text(text)
    assert _git(repo, "init", "-q").returncode == 0
    _git(repo, "add", "-A")
    assert _git(repo, "commit", "-qm", "base").returncode == 0
    (repo / "a.txt").write_text(text.replace("line 10\n", "line ten\n"))
    diff = _git(repo, "diff", "--full-index").stdout
    _git(repo, "checkout", "--", "a.txt")
    return repo, patchset.parse_patch(diff, "0001-ten.patch")


@needs_git
def test_a_patch_whose_context_moved_is_merged_three_way(tmp_path):
    repo, patch = _repo_with_a_patch(tmp_path)
    # Upstream changes a context line of the hunk: the plain apply no longer fits.
    (repo / "a.txt").write_text((repo / "a.txt").read_text().replace("line 8\n", "line eight\n"))
    assert _git(repo, "commit", "-qam", "upstream").returncode == 0
    assert patchset.git_apply(repo, [patch], "--check").returncode != 0
    check = patchset.run_series([patch], repo, check=True)
    assert check.ok and check.lines == ["would apply      0001-ten.patch (three-way)"]
    result = patchset.run_series([patch], repo)
    assert result.ok and "merged three-way: git staged the merged files" in result.lines
    merged = (repo / "a.txt").read_text()
    assert "line eight\n" in merged and "line ten\n" in merged


@needs_git
def test_a_three_way_conflict_writes_nothing(tmp_path):
    repo, patch = _repo_with_a_patch(tmp_path)
    (repo / "a.txt").write_text((repo / "a.txt").read_text().replace("line 10\n", "line 10 upstream\n"))
    assert _git(repo, "commit", "-qam", "upstream").returncode == 0
    before = snapshot(repo)
    result = patchset.run_series([patch], repo)
    assert not result.ok and result.written == [] and snapshot(repo) == before
    assert result.lines[-1] == "a three-way merge conflicts in a.txt"
    assert _git(repo, "status", "--porcelain").stdout == ""


def test_a_launcher_patch_older_than_csrc_is_made_again(tmp_path, monkeypatch):
    project = tmp_path / "project"
    shutil.copytree(REPO / "csrc", project / "csrc")
    monkeypatch.setattr(patchset, "REPO_ROOT", project)
    root = make_checkout(tmp_path, "v2.15.0")
    before = snapshot(root)
    s = series("v2.15.0")
    assert patchset.apply_stack(s, "project", PATCH_DIR, root).ok
    header = project / "csrc" / "common" / "expected.h"
    header.write_text(header.read_text() + "// changed\n")
    again = patchset.apply_stack(s, "project", PATCH_DIR, root)
    assert again.ok and again.lines[-2].startswith("applied          0006-"), again.lines
    assert (root / MANIFEST.helper_dest / "common" / "expected.h").read_text().endswith("// changed\n")
    assert patchset.apply_stack(s, "project", PATCH_DIR, root, reverse=True).ok
    assert snapshot(root) == before


def test_a_reset_checkout_gets_the_launcher_patch_made_again(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    before = snapshot(root)
    s = series("v2.15.0")
    assert patchset.apply_stack(s, "project", PATCH_DIR, root).ok
    saved = root / ".xsl-patchset" / "launcher.patch"
    assert saved.is_file()
    # What `harness.py --force` does: the files go back, the state folder stays.
    for path in set(snapshot(root)) - set(before):
        (root / path).unlink()
    write_tree(root, before)
    saved.write_text(saved.read_text().replace("#pragma once", "#pragma once // older"))
    again = patchset.apply_stack(s, "project", PATCH_DIR, root)
    assert again.ok and "// older" not in saved.read_text()
    assert "// older" not in (root / MANIFEST.helper_dest / "common" / "expected.h").read_text()


def test_the_project_launcher_without_its_patch_is_one_error(tmp_path):
    root = make_checkout(tmp_path, "v2.15.0")
    s = series("v2.15.0")
    assert patchset.apply_stack(s, "project", PATCH_DIR, root).ok
    (root / ".xsl-patchset" / "launcher.patch").unlink()
    installed = snapshot(root)
    with pytest.raises(patchset.PatchError, match=r"is this project's launcher already, but the patch that installed"):
        patchset.apply_stack(s, "project", PATCH_DIR, root, reverse=True)
    assert snapshot(root) == installed
    result = _run("status", "--launcher", "project", str(root))
    assert result.returncode == 1 and f"git checkout -- {XPU}" in result.stderr


def test_git_gets_the_patch_as_bytes_with_lf_line_ends(monkeypatch, tmp_path):
    # A text pipe would write CRLF on Windows, where no context line matches.
    seen = {}

    def run(args, **kwargs):
        seen.update(kwargs)
        return subprocess.CompletedProcess(args, 0, b"", b"")

    monkeypatch.setattr(patchset.subprocess, "run", run)
    patch = series("v2.15.0").patches()[0]
    assert patchset.git_apply(tmp_path, [patch], "--check").returncode == 0
    assert seen["input"] == patch.text.encode("utf-8") and b"\r" not in seen["input"]
    assert "text" not in seen and "encoding" not in seen


@needs_git
def test_a_crlf_checkout_with_autocrlf_takes_the_stack_and_stays_crlf(tmp_path):
    # A Windows clone (core.autocrlf=true) holds CRLF files; git converts them
    # for matching and writes CRLF back.
    root = make_checkout(tmp_path, "v2.15.0")
    for path in root.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert _git(root, "init", "-q").returncode == 0
    assert _git(root, "config", "core.autocrlf", "true").returncode == 0
    _git(root, "add", "-A")
    assert _git(root, "commit", "-qm", "pre-images").returncode == 0
    before = snapshot(root)
    patches = series("v2.15.0").patches()
    result = patchset.run_series(patches, root)
    assert result.ok and "merged three-way" not in "\n".join(result.lines), result.lines
    for path in result.written:
        data = (root / path).read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n"), path
    assert patchset.run_series(patches, root).written == []
    assert patchset.run_series(patches, root, reverse=True).ok and snapshot(root) == before
