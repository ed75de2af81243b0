"""xpu_static_launcher.zebin against the ocloc corpus, with pyelftools and
readelf as independent oracles for the ELF layer."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from zebin_support import SPILL_REGEX, load_manifest, pyelftools_sections, pyelftools_ze_info, readelf_sections

zebin = pytest.importorskip("xpu_static_launcher.zebin")


@pytest.fixture(scope="module")
def manifest(zebin_corpus: Path) -> dict[str, Any]:
    return load_manifest(zebin_corpus)


def test_values_match_the_kernel_sources(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    assert len(manifest["files"]) >= 8
    inputs = {(e["input"], e["grf_mode"]) for e in manifest["files"]}
    assert ("spirv", 128) in inputs and ("opencl_c", 256) in inputs, inputs
    for entry in manifest["files"]:
        info = zebin.read_zebin((zebin_corpus / entry["file"]).read_bytes())
        # Newer IGC keys are reported, not fatal; nothing else may warn.
        assert all(w.startswith("unknown key '") for w in info["warnings"]), entry["file"]
        kernels = {k["name"]: k for k in info["kernels"]}
        for expected in entry["kernels"]:
            k = kernels[expected["name"]]
            where = f"{entry['file']}:{expected['name']}"
            assert k["grf_count"] == expected["grf_count"] == entry["grf_mode"], where
            assert k["slm_size"] == expected["slm_size"], where
            assert k["barrier_count"] == expected["barrier_count"], where
            assert k["required_sub_group_size"] == expected["required_sub_group_size"], where
            if expected["simd_size"] is not None:
                assert k["simd_size"] == expected["simd_size"], where
            assert k["threads_per_warp"] == (expected["required_sub_group_size"] or k["simd_size"]), where
            assert [a["kind"] for a in k["args"]] == [a["kind"] for a in expected["args"]], where
            assert [a["type_size"] for a in k["args"]] == [a["type_size"] for a in expected["args"]], where
            if expected["private_or_spill"] is not None:
                assert (k["spill_size"] + k["private_size"] > 0) == expected["private_or_spill"], where


def test_kernel_summary_agrees_with_read_zebin(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    for entry in manifest["files"]:
        data = (zebin_corpus / entry["file"]).read_bytes()
        full = zebin.read_zebin(data)
        assert zebin.kernel_summary(data) == [
            (k["name"], k["simd_size"], k["grf_count"], k["spill_size"]) for k in full["kernels"]
        ]


def test_section_table_matches_pyelftools(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    for entry in manifest["files"]:
        data = (zebin_corpus / entry["file"]).read_bytes()
        ours = zebin.read_zebin(data)["sections"]
        theirs = pyelftools_sections(data)
        assert [(s["name"], s["type"], s["size"]) for s in ours] == [
            (s["name"], s["type"], s["size"]) for s in theirs
        ], entry["file"]
        assert [s["offset"] for s in ours][1:] == [s["offset"] for s in theirs][1:]


@pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils readelf not installed")
def test_section_table_matches_readelf(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    for entry in manifest["files"][:12]:
        path = zebin_corpus / entry["file"]
        ours = zebin.read_zebin(path.read_bytes())["sections"]
        theirs = readelf_sections(path)
        assert theirs is not None and len(theirs) == len(ours), entry["file"]
        for index, (a, b) in enumerate(zip(ours, theirs)):
            assert (a["name"], a["size"]) == (b["name"], b["size"]), (entry["file"], index)
            if index:
                assert a["offset"] == b["offset"], (entry["file"], index)


def test_raw_ze_info_bytes_match_pyelftools(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    for entry in manifest["files"]:
        data = (zebin_corpus / entry["file"]).read_bytes()
        sections = {s["name"]: s for s in zebin.read_zebin(data)["sections"]}
        ze_info = sections[".ze_info"]
        assert ze_info["type"] == 0xFF000011
        raw = data[ze_info["offset"] : ze_info["offset"] + ze_info["size"]]
        assert raw == pyelftools_ze_info(data), entry["file"]


def test_spill_differs_from_tritons_regex_only_where_ze_info_has_no_spill_key(
    zebin_corpus: Path, manifest: dict[str, Any]
) -> None:
    # Triton's regex looks for `spill_size`; zeinfo < 1.39 has none, and then
    # the scratch slot 0 size is the spill space. Where the key exists the
    # two must agree.
    for entry in manifest["files"]:
        data = (zebin_corpus / entry["file"]).read_bytes()
        found = SPILL_REGEX.findall(pyelftools_ze_info(data))
        kernels = zebin.read_zebin(data)["kernels"]
        if found:
            assert [int(v) for v in found] == [k["execution_env_spill_size"] for k in kernels]
        else:
            assert all(k["execution_env_spill_size"] is None for k in kernels)


def test_notes_match_pyelftools(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    import io

    from elftools.elf.elffile import ELFFile

    data = (zebin_corpus / manifest["files"][0]["file"]).read_bytes()
    section = ELFFile(io.BytesIO(data)).get_section_by_name(".note.intelgt.compat")
    theirs = [
        (n["n_name"], n["n_type"] if isinstance(n["n_type"], int) else None, n["n_descsz"])
        for n in section.iter_notes()
    ]
    ours = zebin.read_zebin(data)["notes"]
    assert [(o, len(d)) for o, _, d in ours] == [(name, size) for name, _, size in theirs]
    assert {t for _, t, _ in ours} >= {1, 2, 4}
    assert all(o == "IntelGT" for o, _, _ in ours)


def test_accepts_any_bytes_like(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    data = (zebin_corpus / manifest["files"][0]["file"]).read_bytes()
    expected = zebin.kernel_summary(data)
    assert zebin.kernel_summary(bytearray(data)) == expected
    assert zebin.kernel_summary(memoryview(data)) == expected
    with pytest.raises(TypeError):
        zebin.kernel_summary("not bytes")  # type: ignore[arg-type]


def test_bad_input_raises_value_error_with_the_readers_message(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    data = (zebin_corpus / manifest["files"][0]["file"]).read_bytes()
    with pytest.raises(ValueError, match="not an ELF file"):
        zebin.read_zebin(b"")
    with pytest.raises(ValueError, match="truncated ELF header"):
        zebin.read_zebin(data[:40])
    with pytest.raises(ValueError, match="does not fit|past the end"):
        zebin.kernel_summary(data[: len(data) - 16])
    rng = random.Random(1234)
    for _ in range(300):  # corrupt bytes: errors or results, never a crash
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        try:
            zebin.read_zebin(bytes(mutated))
        except ValueError as error:
            assert str(error)


def test_read_file_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zebin"
    bad.write_bytes(b"\x7fELF" + b"\x02\x01" + bytes(58))
    with pytest.raises(ValueError, match=r"bad\.zebin: "):
        zebin.read_file(bad)


def test_legacy_patch_token_binary_gets_its_own_message(tmp_path: Path) -> None:
    ocloc = shutil.which("ocloc")
    if ocloc is None:
        pytest.skip("ocloc not installed")
    source = Path(__file__).resolve().parents[1] / "kernels" / "add.cl"
    # Without -ze-allow-zebin, ocloc 22.x writes the legacy format.
    subprocess.run(
        [
            ocloc,
            "compile",
            "-file",
            str(source),
            "-device",
            "tgllp",
            "-output",
            "legacy",
            "-output_no_suffix",
            "-out_dir",
            str(tmp_path),
            "-q",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    data = (tmp_path / "legacy").read_bytes()
    if int.from_bytes(data[16:18], "little") != 0xFF04:
        pytest.skip("this ocloc writes zebin by default")
    with pytest.raises(ValueError, match="legacy patch-token binary.*-ze-allow-zebin"):
        zebin.read_zebin(data)


def test_read_file_takes_only_str_or_pathlike() -> None:
    # An int would be taken as a file descriptor by open() (0 is stdin).
    for bad in (123, 0, b"k.zebin", None):
        with pytest.raises(TypeError, match="path must be a str"):
            zebin.read_file(bad)  # type: ignore[arg-type]


def test_read_file_messages_match_the_cpp_reader(tmp_path: Path) -> None:
    empty = tmp_path / "empty.zebin"
    empty.write_bytes(b"")
    with pytest.raises(OSError, match=r"empty\.zebin' is empty \(0 bytes\)"):
        zebin.read_file(empty)
    with pytest.raises(OSError, match="'/dev/zero' is not a regular file"):
        zebin.read_file("/dev/zero")
    huge = tmp_path / "huge.zebin"
    with open(huge, "wb") as f:
        f.truncate((1 << 30) + 1)  # sparse
    with pytest.raises(OSError, match="is larger than 1024 MiB"):
        zebin.read_file(huge)


def test_the_launch_metadata_matches_pyyaml(zebin_corpus: Path, manifest: dict[str, Any]) -> None:
    """The .ze_info fields a launch is planned and checked from (and that the
    Level Zero test driver sizes arguments with, through this same reader)
    against an independent reader: pyelftools for the section, PyYAML for
    the text."""
    yaml = pytest.importorskip("yaml")
    keys = ("arg_type", "offset", "size", "arg_index", "addrmode", "addrspace", "access_type")
    checked = 0
    for entry in manifest["files"]:
        data = (zebin_corpus / entry["file"]).read_bytes()
        document = yaml.safe_load(pyelftools_ze_info(data))
        ours = {k["name"]: k for k in zebin.read_zebin(data)["kernels"]}
        assert set(ours) == {k["name"] for k in document["kernels"]}, entry["file"]
        for kernel in document["kernels"]:
            mine = ours[kernel["name"]]
            env = kernel["execution_env"]
            assert (mine["simd_size"], mine["grf_count"]) == (env["simd_size"], env["grf_count"]), entry["file"]
            assert mine["slm_size"] == env.get("slm_size", 0), entry["file"]
            expected = [
                {key: p.get(key, None if key == "arg_index" else "") for key in keys}
                for p in kernel.get("payload_arguments", [])
            ]
            got = [{key: p[key] for key in keys} for p in mine["payload_arguments"]]
            assert got == expected, (entry["file"], kernel["name"])
            checked += 1
    assert checked >= 60
