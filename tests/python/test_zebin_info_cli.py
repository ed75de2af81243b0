"""The zebin-info command line: JSON schema, --kernel, exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from zebin_support import load_manifest, run_zebin_info

KERNEL_KEYS = {
    "name",
    "simd_size",
    "grf_count",
    "spill_size",
    "private_size",
    "slm_size",
    "barrier_count",
    "required_sub_group_size",
    "threads_per_warp",
    "args",
}
ARG_KEYS = {"index", "kind", "size", "type_size", "name", "type_name"}


@pytest.fixture(scope="module")
def files(zebin_corpus: Path) -> list[dict[str, Any]]:
    return load_manifest(zebin_corpus)["files"]


def pick(files: list[dict[str, Any]], **want: Any) -> dict[str, Any]:
    for entry in files:
        if all(entry.get(k) == v or entry["kernels"][0].get(k) == v for k, v in want.items()):
            return entry
    pytest.skip(f"no corpus file with {want}")


def test_json_schema_and_pvc_256_grf(exe: Path, zebin_corpus: Path, files: list[dict[str, Any]]) -> None:
    entry = pick(files, device="pvc", grf_mode=256, name="add", input="opencl_c")
    result = run_zebin_info(exe, "--json", str(zebin_corpus / entry["file"]))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert set(doc) == {"file", "version", "kernels", "warnings"}
    assert doc["file"] == str(zebin_corpus / entry["file"])
    assert doc["version"].count(".") == 1
    assert len(doc["kernels"]) == 1
    kernel = doc["kernels"][0]
    assert set(kernel) == KERNEL_KEYS
    assert kernel["grf_count"] == 256
    assert kernel["name"] == "add"
    assert [a["kind"] for a in kernel["args"]] == ["global_pointer", "global_pointer", "global_pointer", "by_value"]
    assert all(set(a) == ARG_KEYS for a in kernel["args"])
    assert [a["name"] for a in kernel["args"]] == ["a", "b", "out", "n"]


def test_text_output(exe: Path, zebin_corpus: Path, files: list[dict[str, Any]]) -> None:
    entry = pick(files, name="slm_reduce", grf_mode=128)
    result = run_zebin_info(exe, str(zebin_corpus / entry["file"]))
    assert result.returncode == 0, result.stderr
    assert "kernel slm_reduce: simd " in result.stdout
    assert "slm 1024, barriers 1" in result.stdout
    assert "arg 2: local_pointer, 0 bytes, scratch" in result.stdout


def test_several_files_one_json_line_each(exe: Path, zebin_corpus: Path, files: list[dict[str, Any]]) -> None:
    paths = [str(zebin_corpus / e["file"]) for e in files[:5]]
    result = run_zebin_info(exe, "--json", *paths)
    assert result.returncode == 0, result.stderr
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d["file"] for d in docs] == paths


def test_kernel_filter(exe: Path, zebin_corpus: Path, files: list[dict[str, Any]]) -> None:
    entry = pick(files, name="many_args")
    path = str(zebin_corpus / entry["file"])
    result = run_zebin_info(exe, "--json", "--kernel", "many_args", path)
    assert result.returncode == 0
    assert len(json.loads(result.stdout)["kernels"][0]["args"]) == 40
    missing = run_zebin_info(exe, "--kernel", "nope", path)
    assert missing.returncode == 1
    assert missing.stdout == ""
    assert missing.stderr.strip() == (f"{path}: kernel 'nope' not found; the zebin has: many_args")


def test_bad_files_exit_1_with_one_line(
    exe: Path, tmp_path: Path, zebin_corpus: Path, files: list[dict[str, Any]]
) -> None:
    good = zebin_corpus / files[0]["file"]
    data = good.read_bytes()
    cases = {
        "empty.zebin": b"",
        "text.zebin": b"hello",
        "truncated.zebin": data[: len(data) // 2],
        "spv.zebin": (zebin_corpus / "add.spv").read_bytes(),
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        result = run_zebin_info(exe, str(path))
        assert result.returncode == 1, name
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and str(path) in lines[0], (name, result.stderr)
    assert "is empty" in run_zebin_info(exe, str(tmp_path / "empty.zebin")).stderr
    assert run_zebin_info(exe, str(tmp_path / "text.zebin")).stderr.startswith(
        f"{tmp_path / 'text.zebin'}: not an ELF file"
    )
    missing = run_zebin_info(exe, str(tmp_path / "missing.zebin"))
    assert missing.returncode == 1
    assert len(missing.stderr.splitlines()) == 1
    assert f"'{tmp_path / 'missing.zebin'}' not found" in missing.stderr
    # One bad file among good ones: the good ones still print, exit 1.
    mixed = run_zebin_info(exe, "--json", str(good), str(tmp_path / "text.zebin"))
    assert mixed.returncode == 1
    assert len(mixed.stdout.splitlines()) == 1


def test_usage_errors_exit_2(exe: Path) -> None:
    assert run_zebin_info(exe).returncode == 2
    assert run_zebin_info(exe, "--bogus", "x").returncode == 2
    assert run_zebin_info(exe, "--kernel").returncode == 2
    assert run_zebin_info(exe, "--help").returncode == 0


def test_help_shows_every_option_and_the_exit_codes(exe: Path) -> None:
    text = run_zebin_info(exe, "--help").stdout
    assert text.startswith("usage: zebin-info [--json] [--kernel NAME] [--load [--device N]] [--] FILE...\n")
    for option in ("--json", "--kernel NAME", "--load", "--device N", "--version", "--  "):
        assert f"\n  {option}" in text, option
    assert "2 usage error; 3 --load without Level Zero" in text
    assert "4 --load with a --device that\n  does not exist or is not an Intel GPU" in text
    # A usage error shows the same usage line.
    assert "usage: zebin-info [--json] [--kernel NAME] [--load [--device N]]" in run_zebin_info(exe).stderr


def test_version_comes_from_pyproject(exe: Path) -> None:
    version = next(
        line.split('"')[1]
        for line in (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text().splitlines()
        if line.startswith("version = ")
    )
    result = run_zebin_info(exe, "--version")
    assert result.returncode == 0 and result.stdout == f"zebin-info {version}\n"


def test_dash_is_refused_and_double_dash_ends_options(
    exe: Path, tmp_path: Path, zebin_corpus: Path, files: list[dict[str, Any]]
) -> None:
    stdin = run_zebin_info(exe, "-")
    assert stdin.returncode == 2 and stdin.stdout == ""
    assert stdin.stderr.startswith("zebin-info: reading stdin is not supported ('-'): pass the zebin's file name")
    alone = run_zebin_info(exe, "--")
    assert alone.returncode == 2 and alone.stderr.startswith("zebin-info: no input files\n")
    # After --, a name that starts with '-' is a file, not an option.
    dashed = tmp_path / "--json"
    dashed.write_bytes((zebin_corpus / files[0]["file"]).read_bytes())
    result = subprocess.run([str(exe), "--", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("--json: zeinfo ")
    missing = run_zebin_info(exe, "--", "-x.zebin")
    assert missing.returncode == 1 and "'-x.zebin' not found" in missing.stderr


def test_never_killed_by_a_signal(exe: Path, tmp_path: Path, zebin_corpus: Path, files: list[dict[str, Any]]) -> None:
    data = (zebin_corpus / files[0]["file"]).read_bytes()
    paths = []
    for i, cut in enumerate(range(0, len(data), max(1, len(data) // 64))):
        path = tmp_path / f"cut{i}.zebin"
        path.write_bytes(data[:cut])
        paths.append(str(path))
    result = run_zebin_info(exe, *paths)
    assert result.returncode == 1  # not negative: no signal
    assert len(result.stderr.splitlines()) == len(paths)
