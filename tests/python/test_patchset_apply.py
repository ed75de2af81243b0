"""scripts/patchset.py against the fixture tree and the real utils.py files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patchset_support import (
    PATCH_DIR,
    REPO,
    load_script,
    make_checkout,
    snapshot,
    wheel_2141_utils,
)

patchset = load_script("patchset")


@pytest.fixture()
def series():
    return patchset.load_series(PATCH_DIR)


def test_series_has_the_four_changes_in_order(series):
    assert [p.name[:4] for p in series] == ["0001", "0002", "0003", "0004"]
    touched = {f.path for p in series for f in p.files}
    assert "torch/csrc/Module.cpp" in touched
    assert "torch/_inductor/utils.py" in touched
    assert "test/inductor/test_static_triton_launcher.py" in touched
    # CUDA paths stay untouched.
    for patch in series:
        for fdiff in patch.files:
            for hunk in fdiff.hunks:
                removed = set(hunk.old_lines) - set(hunk.new_lines)
                assert not any("CUDA" in line or "cuda" in line for line in removed), fdiff.path


def test_check_writes_nothing_and_apply_is_idempotent(tmp_path, series):
    root = make_checkout(tmp_path)
    before = snapshot(root)
    result = patchset.run_series(series, root, check=True)
    assert result.ok and result.written == []
    assert all(line.startswith("would apply") for line in result.lines[:4])
    assert snapshot(root) == before

    first = patchset.run_series(series, root)
    assert first.ok and first.written
    module_cpp = (root / "torch/csrc/Module.cpp").read_text()
    assert "#ifndef _WIN32" not in module_cpp
    assert "#if defined(USE_XPU)\n  ASSERT_TRUE(StaticXpuLauncher_init(module));" in module_cpp
    assert "#if defined(USE_CUDA)\n  ASSERT_TRUE(StaticCudaLauncher_init(module));" in module_cpp
    test_py = (root / "test/inductor/test_static_triton_launcher.py").read_text()
    assert "IS_WINDOWS" not in test_py and test_py.rstrip().endswith("    run_tests()")
    assert "def _xpu_kernel_format() -> str:" in (root / "torch/_inductor/utils.py").read_text()
    after = snapshot(root)

    second = patchset.run_series(series, root)
    assert second.ok and second.written == []
    assert sum("already applied" in line for line in second.lines) == 4
    assert "Nothing to do" in second.lines[-1]
    assert snapshot(root) == after


def test_reverse_restores_the_exact_bytes(tmp_path, series):
    root = make_checkout(tmp_path)
    before = snapshot(root)
    assert patchset.run_series(series, root).ok
    result = patchset.run_series(series, root, reverse=True)
    assert result.ok, result.lines
    assert snapshot(root) == before
    again = patchset.run_series(series, root, reverse=True)
    assert again.ok and again.written == [] and "not applied" in again.lines[0]


def test_crlf_checkout_keeps_crlf(tmp_path, series):
    root = make_checkout(tmp_path)
    for path in root.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    before = snapshot(root)
    assert patchset.run_series(series, root).ok
    module_cpp = (root / "torch/csrc/Module.cpp").read_bytes()
    assert b"#if defined(USE_XPU)\r\n" in module_cpp
    assert b"\n" not in module_cpp.replace(b"\r\n", b"")
    assert patchset.run_series(series, root).written == []
    assert patchset.run_series(series, root, reverse=True).ok
    assert snapshot(root) == before


def test_drift_names_file_expected_text_and_nearest_match(tmp_path, series):
    root = make_checkout(tmp_path)
    module_cpp = root / "torch/csrc/Module.cpp"
    # What a newer upstream might look like: the guard spelled differently.
    module_cpp.write_text(
        module_cpp.read_text().replace(
            "#if defined(USE_XPU) && !defined(_WIN32)", "#if defined(USE_XPU) && !defined(_MSC_VER)"
        )
    )
    before = snapshot(root)
    result = patchset.run_series(series, root)
    assert not result.ok
    assert snapshot(root) == before  # all-or-nothing: 0002..0004 were fine, still nothing written
    report = "\n".join(result.lines)
    assert result.lines[0].startswith("DRIFT") and result.lines[1].startswith("would apply")
    assert "torch/csrc/Module.cpp: expected text not found" in report
    assert "| #if defined(USE_XPU) && !defined(_WIN32)" in report
    lineno = module_cpp.read_text().split("\n").index("#if defined(USE_XPU) && !defined(_MSC_VER)") + 1
    assert f"nearest match at line {lineno} " in report
    assert "+#if defined(USE_XPU) && !defined(_MSC_VER)" in report


def test_drift_in_last_patch_blocks_the_whole_series(tmp_path, series):
    root = make_checkout(tmp_path)
    test_py = root / "test/inductor/test_static_triton_launcher.py"
    test_py.write_text(test_py.read_text().replace("IS_WINDOWS, skipIfRocm", "IS_WINDOWS, IS_LINUX, skipIfRocm"))
    before = snapshot(root)
    result = patchset.run_series(series, root)
    assert not result.ok and result.written == []
    assert snapshot(root) == before
    assert any(line.startswith("DRIFT") and "0004" in line for line in result.lines)


def test_partly_applied_series_completes(tmp_path, series):
    root = make_checkout(tmp_path)
    assert patchset.run_series(series[:1], root).ok
    result = patchset.run_series(series, root)
    assert result.ok
    assert "already applied" in result.lines[0]
    assert result.lines[1].startswith("applied")


def test_half_applied_file_is_reported_not_guessed(tmp_path, series):
    root = make_checkout(tmp_path)
    module_cpp = root / "torch/csrc/Module.cpp"
    text = module_cpp.read_text().replace("#if defined(USE_XPU) && !defined(_WIN32)", "#if defined(USE_XPU)")
    module_cpp.write_text(text)
    result = patchset.run_series(series, root)
    assert not result.ok
    assert "hunk already applied while others are not" in "\n".join(result.lines)


def test_bad_hunk_counts_are_a_parse_error():
    text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n"
    with pytest.raises(patchset.PatchError, match="truncated|wrong line counts"):
        patchset.parse_patch(text, "bad.patch")


def test_committed_launcher_patch_is_fresh():
    manifest = patchset.Manifest.load(PATCH_DIR)
    committed = (PATCH_DIR / manifest.patch_file).read_text(encoding="utf-8")
    assert committed == patchset.regen_text(REPO, manifest), (
        "patches/pytorch/0002 is stale: run python3 scripts/patchset.py regen"
    )


def _fake_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "csrc" / "torch_glue").mkdir(parents=True)
    (project / "csrc" / "common").mkdir()
    (project / "csrc" / "launcher").mkdir()
    (project / "csrc" / "common" / "expected.h").write_text("#pragma once\nnamespace xsl {}\n")
    (project / "csrc" / "launcher" / "plan.h").write_text('#pragma once\n#include "common/expected.h"\n')
    (project / "csrc" / "launcher" / "plan.cpp").write_text('#include "launcher/plan.h"\n#include <vector>\n')
    (project / "csrc" / "launcher" / "CMakeLists.txt").write_text("# not installed\n")
    (project / "csrc" / "torch_glue" / "xpu.cpp").write_text(
        '#include "launcher/plan.h"\nbool StaticXpuLauncher_init(PyObject* module) { return true; }\n'
    )
    return project


def _fake_manifest() -> "patchset.Manifest":
    manifest = patchset.Manifest.load(PATCH_DIR)
    manifest.helper_dirs = ["common", "launcher"]
    return manifest


def test_regen_is_deterministic_and_rewrites_includes(tmp_path):
    project = _fake_project(tmp_path)
    manifest = _fake_manifest()
    text = patchset.regen_text(project, manifest)
    assert text == patchset.regen_text(project, manifest)
    patch = patchset.parse_patch(text, "0002.patch")
    paths = [f.path for f in patch.files]
    dest = manifest.helper_dest
    assert paths.count(manifest.glue_dest) == 2  # irreversible delete + new file
    assert f"{dest}/launcher/plan.cpp" in paths and f"{dest}/common/expected.h" in paths
    assert not any(p.endswith("CMakeLists.txt") for p in paths)
    assert patch.replaces == {manifest.glue_dest: "StaticXpuLauncher_init"}
    assert f"+#include <{dest}/common/expected.h>" in text
    assert f'+    "{dest}/launcher/plan.cpp",' in text
    assert "+#include <vector>" in text
    plan_cpp = next(f for f in patch.files if f.path == f"{dest}/launcher/plan.cpp")
    body = plan_cpp.hunks[0].new_lines
    assert body[0] == "#if defined(USE_XPU)" and body[-1] == "#endif // defined(USE_XPU)"
    plan_h = next(f for f in patch.files if f.path == f"{dest}/launcher/plan.h")
    assert plan_h.hunks[0].new_lines[0] == "#pragma once"  # headers are not wrapped


def test_replaced_file_round_trip_and_guard(tmp_path):
    project = _fake_project(tmp_path)
    manifest = _fake_manifest()
    launcher_patch = patchset.parse_patch(patchset.regen_text(project, manifest), "0002.patch")
    root = make_checkout(tmp_path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    before = snapshot(root)
    assert patchset.run_series([launcher_patch], root).ok
    glue = (root / manifest.glue_dest).read_text()
    assert glue.startswith(f"#include <{manifest.helper_dest}/launcher/plan.h>")
    assert (root / ".git/xsl-patchset/originals" / manifest.glue_dest).read_bytes() == before[manifest.glue_dest]
    assert patchset.run_series([launcher_patch], root).written == []
    assert patchset.run_series([launcher_patch], root, reverse=True).ok
    assert snapshot(root) == before

    # A file that is not the launcher is never replaced.
    (root / manifest.glue_dest).write_text("// something else\n")
    result = patchset.run_series([launcher_patch], root)
    assert not result.ok
    assert 'expected a line containing "StaticXpuLauncher_init"' in "\n".join(result.lines)


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_export_gives_a_series_git_apply_accepts(tmp_path, series):
    root = make_checkout(tmp_path)
    pristine = tmp_path / "pristine"
    shutil.copytree(root, pristine)
    assert patchset.run_series(series, root).ok
    out = tmp_path / "export"
    written = patchset.export_series(series, root, out)
    assert [p.name[:4] for p in written] == ["0001", "0002", "0003", "0004"]
    subprocess.run(["git", "init", "-q", str(pristine)], check=True)
    for patch in written:
        subprocess.run(["git", "-C", str(pristine), "apply", str(patch)], check=True)
    assert snapshot(pristine) == snapshot(root)


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_hand_written_patches_are_plain_git_patches(tmp_path, series):
    root = make_checkout(tmp_path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name in ("0001", "0003", "0004"):
        path = next(PATCH_DIR.glob(f"{name}-*.patch"))
        subprocess.run(["git", "-C", str(root), "apply", "--check", str(path)], check=True)


def test_utils_patch_applies_to_torch_2_14_1():
    utils = wheel_2141_utils()
    if utils is None:
        pytest.skip("torch 2.14.1 utils.py not fetched: run scripts/dev.sh setup or set XSL_TORCH_2141_WHEEL")
    series = patchset.load_series(PATCH_DIR)
    utils_patch = next(p for p in series if p.name.startswith("0003"))
    current = patchset.TextFile.parse(utils)
    plan = patchset._apply_hunks(utils_patch, utils_patch.files[0], current, reverse=False)
    assert plan.state == patchset.UNAPPLIED and plan.problems == []
    assert "XPU_KERNEL_FORMAT = _xpu_kernel_format()" in plan.result.lines


def test_cli_apply_check_and_status(tmp_path):
    root = make_checkout(tmp_path)
    script = str(REPO / "scripts" / "patchset.py")
    run = lambda *a: subprocess.run([sys.executable, script, *a], capture_output=True, text=True)  # noqa: E731
    assert run("apply", "--check", str(root)).returncode == 0
    assert run("apply", str(root)).returncode == 0
    status = run("status", str(root))
    assert status.returncode == 0 and status.stdout.count("applied") == 4
    missing = run("apply", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "not a directory" in missing.stderr


def test_cli_refuses_a_folder_that_is_not_a_pytorch_checkout(tmp_path):
    script = str(REPO / "scripts" / "patchset.py")
    run = lambda *a: subprocess.run([sys.executable, script, *a], capture_output=True, text=True)  # noqa: E731
    other = tmp_path / "project"
    (other / "src").mkdir(parents=True)
    (other / "setup.py").write_text("")
    for command in (["status"], ["apply", "--check"], ["apply"], ["export", "-o", str(tmp_path / "out")]):
        result = run(*command, str(other))
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert result.stdout == ""  # no per-patch "drift" lines
        assert result.stderr.splitlines() == [
            f"error: {other} is not a PyTorch checkout (no torch/ folder next to build_variables.bzl or setup.py): "
            "pass the root folder of a PyTorch clone (git clone https://github.com/pytorch/pytorch)"
        ]
    assert sorted(p.name for p in other.iterdir()) == ["setup.py", "src"]  # nothing written


def test_cli_status_without_a_path_prints_usage_and_a_hint():
    script = str(REPO / "scripts" / "patchset.py")
    result = subprocess.run([sys.executable, script, "status"], capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: patchset.py status [-h] [checkout]")
    assert "give the PyTorch checkout to inspect, e.g. python3 scripts/patchset.py status ~/pytorch" in result.stderr
    assert json.loads((PATCH_DIR / "manifest.json").read_text())["glue_dest"].endswith("static_launcher/xpu.cpp")


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
    # A file to delete that differs is drift, not data loss.
    (root / "old.txt").write_bytes(b"one\nchanged\n")
    result = patchset.run_series([patch], root)
    assert not result.ok and "would delete this file but its content differs" in "\n".join(result.lines)
    assert (root / "old.txt").read_bytes() == b"one\nchanged\n"
