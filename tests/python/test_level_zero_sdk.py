"""scripts/level_zero_sdk.py: the pinned official SDK zip, checked against
the digest GitHub publishes for it, unpacked safely (no network: the
downloads are served from memory)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from patchset_support import REPO, load_script

sdk = load_script("level_zero_sdk")


def sdk_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


GOOD = sdk_zip({"include/level_zero/ze_api.h": b"/* ze_api */\n", "lib/ze_loader.lib": b"lib"})


def release(data: bytes, digest: str = "") -> bytes:
    digest = digest or "sha256:" + hashlib.sha256(data).hexdigest()
    return json.dumps(
        {
            "assets": [
                {"name": "other.zip", "digest": "sha256:" + "0" * 64},
                {"name": sdk.asset_name(sdk.VERSION), "digest": digest},
            ]
        }
    ).encode()


def server(data: bytes, release_json: bytes) -> tuple[sdk.Fetch, list[str]]:
    asked: list[str] = []

    def fetch(url: str) -> bytes:
        asked.append(url)
        if url == sdk.release_api_url(sdk.VERSION):
            return release_json
        assert url == sdk.asset_url(sdk.VERSION), url
        return data

    return fetch, asked


def test_the_pinned_asset_is_the_official_release_file():
    assert sdk.asset_url("1.28.2") == (
        "https://github.com/oneapi-src/level-zero/releases/download/v1.28.2/level-zero-win-sdk-1.28.2.zip"
    )
    assert sdk.release_api_url("1.28.2") == "https://api.github.com/repos/oneapi-src/level-zero/releases/tags/v1.28.2"


def test_unpacks_after_checking_the_published_digest(tmp_path: Path):
    fetch, asked = server(GOOD, release(GOOD))
    include = sdk.provide(tmp_path / "sdk", fetch=fetch, log=lambda _: None)
    assert include == tmp_path / "sdk" / "include"
    assert (include / "level_zero" / "ze_api.h").read_bytes() == b"/* ze_api */\n"
    assert asked == [sdk.release_api_url(sdk.VERSION), sdk.asset_url(sdk.VERSION)]
    assert not (tmp_path / sdk.asset_name(sdk.VERSION)).exists()  # the zip is not left behind
    # A second run finds it and downloads nothing.
    again, asked_again = server(b"", b"")
    assert sdk.provide(tmp_path / "sdk", fetch=again, log=lambda _: None) == include
    assert asked_again == []


def test_an_explicit_sha256_skips_the_api(tmp_path: Path):
    fetch, asked = server(GOOD, b"not used")
    sdk.provide(tmp_path / "sdk", sha256=hashlib.sha256(GOOD).hexdigest().upper(), fetch=fetch, log=lambda _: None)
    assert asked == [sdk.asset_url(sdk.VERSION)]


def test_a_download_that_is_not_the_official_file_is_refused(tmp_path: Path):
    fetch, _ = server(GOOD + b"x", release(GOOD))
    with pytest.raises(sdk.SdkError, match="not the official file"):
        sdk.provide(tmp_path / "sdk", fetch=fetch, log=lambda _: None)
    assert not (tmp_path / "sdk" / "include").exists()


@pytest.mark.parametrize(
    "release_json, message",
    [
        (json.dumps({"assets": [{"name": sdk.asset_name(sdk.VERSION), "digest": None}]}).encode(), "no SHA-256 digest"),
        (json.dumps({"assets": []}).encode(), "has no asset"),
        (b"<html>rate limited</html>", "no JSON"),
    ],
)
def test_no_usable_digest_says_what_to_do(tmp_path: Path, release_json: bytes, message: str):
    fetch, _ = server(GOOD, release_json)
    with pytest.raises(sdk.SdkError, match=message):
        sdk.provide(tmp_path / "sdk", fetch=fetch, log=lambda _: None)


@pytest.mark.parametrize(
    "files, message",
    [
        ({"lib/ze_loader.lib": b"lib"}, "has no include/level_zero/ze_api.h"),
        ({"include/level_zero/ze_api.h": b"x", "../evil.h": b"x"}, "unsafe path"),
        ({"include/level_zero/ze_api.h": b"x", "C:/evil.h": b"x"}, "unsafe path"),
    ],
)
def test_a_zip_of_another_layout_or_with_unsafe_paths_is_not_unpacked(tmp_path: Path, files, message: str):
    data = sdk_zip(files)
    fetch, _ = server(data, release(data))
    with pytest.raises(sdk.SdkError, match=message):
        sdk.provide(tmp_path / "dest" / "sdk", fetch=fetch, log=lambda _: None)
    assert not (tmp_path / "dest" / "evil.h").exists()


def test_the_command_prints_the_include_folder_or_one_error(tmp_path: Path, monkeypatch, capsys):
    fetch, _ = server(GOOD, release(GOOD))
    monkeypatch.setattr(sdk, "http_fetch", fetch)
    assert sdk.main(["--dest", str(tmp_path / "sdk")]) == 0
    assert capsys.readouterr().out.strip() == str((tmp_path / "sdk" / "include").resolve())
    bad, _ = server(GOOD, release(b"other"))
    monkeypatch.setattr(sdk, "http_fetch", bad)
    assert sdk.main(["--dest", str(tmp_path / "other")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("level_zero_sdk: ") and "not the official file" in err[-1]


def test_readme_and_workflows_use_the_pinned_version():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "scripts\\level_zero_sdk.py" in readme
    assert "vcpkg install level-zero" not in readme
    for workflow in sorted((REPO / ".github" / "workflows").glob("windows-*.yml")):
        text = workflow.read_text(encoding="utf-8")
        assert "vcpkg install level-zero" not in text and "level-zero:x64-windows" not in text, workflow.name
