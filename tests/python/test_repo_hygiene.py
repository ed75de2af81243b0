"""The repository speaks of the project only.

No tracked text file names a machine path (``/work/...``, ``/root/...``), a
design document that lives outside the repository, or the history of how it
was written ("session", "in my ..."). This file is the only exception, since
it has to spell the patterns out.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
THIS_FILE = Path(__file__).resolve().relative_to(REPO).as_posix()

FORBIDDEN = [
    ("machine path", re.compile(r"/work/")),
    ("machine path", re.compile(r"/root/")),
    ("file outside the repository", re.compile(r"DESIGN\.md")),
    ("history wording", re.compile(r"\bsessions?\b", re.IGNORECASE)),
    ("first-person wording", re.compile(r"\bin my ", re.IGNORECASE)),
]
# pytest's fixture scope keyword is an API name, not history wording.
ALLOWED = re.compile(r"""scope=["']session["']""")


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout of the repository (the list of tracked files)")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, stdout=subprocess.PIPE, check=True).stdout
    return [name for name in out.decode("utf-8").split("\0") if name]


def findings(name: str, text: str) -> list[str]:
    """One "<file>:<line>: <what>: <text>" per forbidden match."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        checked = ALLOWED.sub("", line)
        for what, pattern in FORBIDDEN:
            if pattern.search(checked):
                found.append(f"{name}:{number}: {what}: {line.strip()[:120]}")
    return found


def test_patterns_catch_what_they_should() -> None:
    # Guards the guard: each pattern fires on a sample and the exemption is narrow.
    samples = ["see /work/main/x", "cd /root/src", "as DESIGN.md says", "in a later Session", "in my own build trees"]
    assert all(findings("sample", s) for s in samples)
    assert findings("sample", '@pytest.fixture(scope="session")  # session 2') != []
    assert findings("sample", '@pytest.fixture(scope="session")') == []
    assert findings("sample", "the work/ folder, my_variable, possession") == []


def test_tracked_files_speak_of_the_project_only() -> None:
    problems = []
    for name in tracked_files():
        if name == THIS_FILE:
            continue
        path = REPO / name
        if not path.is_file():
            continue  # deleted in the work tree, or a submodule
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        text = data.decode("utf-8", errors="replace")
        problems += findings(name, text)
    assert not problems, "reword these lines:\n" + "\n".join(problems)
