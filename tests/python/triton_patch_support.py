#!/usr/bin/env python3
"""patches/triton-xpu: the series as BASE lists it, and its context fixture
derived from the real tree at the pinned commit.

The fixture (patches/triton-xpu/fixture) holds, of each upstream file the
series changes, only the lines some hunk reads (context and removed lines,
every patch's hunks mapped back to the pinned file) and one marker line for
each run of lines left out. It lets the series be applied and its tests run
where no Triton-XPU tree is at hand; it is never what a patch is made
against. Regenerate it after changing the series:

    python3 tests/python/triton_patch_support.py write-fixture --mirror <clone or bare mirror>
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PATCH_DIR = REPO / "patches" / "triton-xpu"
FIXTURE_DIR = PATCH_DIR / "fixture"
# What stands for a run of upstream lines the fixture leaves out.
MARKER = "# ... (upstream lines no hunk of patches/triton-xpu reads are left out here)"

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Hunk:
    def __init__(self, old_start: int, old_count: int, new_start: int, new_count: int) -> None:
        self.old_start, self.old_count = old_start, old_count
        self.new_start, self.new_count = new_start, new_count
        self.body: list[str] = []  # ' ', '-' or '+' then the line


def base() -> dict[str, str]:
    fields = {}
    for line in (PATCH_DIR / "BASE").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def patches() -> list[Path]:
    """The series in order, as BASE lists it."""
    return [PATCH_DIR / name for name in base()["patches"].split()]


def file_hunks(patch: Path) -> dict[str, tuple[bool, list[Hunk]]]:
    """path -> (created by the patch, its hunks)."""
    result: dict[str, tuple[bool, list[Hunk]]] = {}
    lines = patch.read_text().splitlines()
    current: list[Hunk] | None = None
    for i, line in enumerate(lines):
        if line.startswith("+++ b/"):
            current = []
            result[line[6:]] = (lines[i - 1] == "--- /dev/null", current)
        elif line.startswith("diff --git ") or line == "-- ":
            current = None
        elif current is not None:
            match = HUNK_HEADER.match(line)
            if match:
                old_start, old_count, new_start, new_count = match.groups()
                current.append(Hunk(int(old_start), int(old_count or 1), int(new_start), int(new_count or 1)))
            elif current and line[:1] in (" ", "-", "+"):
                current[-1].body.append(line)
            elif current and line == "":
                current[-1].body.append(" ")  # a blank context line
    return result


def old_line_of(hunks: list[Hunk], new_line: int) -> int | None:
    """The line of the file before the patch that became `new_line` after it
    (1-based), or None if the patch added it."""
    delta = 0
    for hunk in hunks:
        if new_line < hunk.new_start:
            break
        if new_line < hunk.new_start + hunk.new_count:
            old, new = hunk.old_start, hunk.new_start
            for entry in hunk.body:
                kind = entry[0]
                if kind == "+":
                    if new == new_line:
                        return None
                    new += 1
                elif kind == "-":
                    old += 1
                else:
                    if new == new_line:
                        return old
                    old += 1
                    new += 1
            raise ValueError(f"hunk at +{hunk.new_start} is shorter than its header says")
        delta += hunk.new_count - hunk.old_count
    return new_line - delta


def needed_base_lines(series: Sequence[Path]) -> dict[str, set[int]]:
    """For each pinned file the series changes: the lines (1-based) that some
    hunk of some patch reads, as lines of the pinned file."""
    per_patch = [file_hunks(patch) for patch in series]
    needed: dict[str, set[int]] = {}
    created: set[str] = set()
    for index, files in enumerate(per_patch):
        for path, (is_new, hunks) in files.items():
            if is_new:
                created.add(path)
            if path in created:
                continue
            lines = needed.setdefault(path, set())
            for hunk in hunks:
                for line in range(hunk.old_start, hunk.old_start + hunk.old_count):
                    # Back through the earlier patches to the pinned file.
                    for earlier in reversed(per_patch[:index]):
                        if line is None:
                            break
                        if path in earlier:
                            line = old_line_of(earlier[path][1], line)
                    if line is not None:
                        lines.add(line)
    return needed


def fixture_text(upstream: str, lines: set[int]) -> str:
    source = upstream.splitlines(keepends=True)
    out: list[str] = []
    previous = 0
    for number in sorted(lines):
        if number != previous + 1:
            out.append(MARKER + "\n")
        out.append(source[number - 1])
        previous = number
    if previous != len(source):
        out.append(MARKER + "\n")
    return "".join(out)


def upstream_files(mirror: Path, commit: str, paths: Sequence[str]) -> dict[str, str]:
    """The files at `commit` of a clone (or bare mirror) of Triton-XPU."""
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir(mirror)}", "archive", commit, *paths], stdout=subprocess.PIPE, check=True
    ).stdout
    files: dict[str, str] = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                data = tar.extractfile(member)
                assert data is not None
                files[member.name] = data.read().decode("utf-8")
    return files


def git_dir(mirror: Path) -> Path:
    return mirror / ".git" if (mirror / ".git").exists() else mirror


def fixture_from_mirror(mirror: Path) -> dict[str, str]:
    """The fixture's files as derived from the pinned commit: path -> text."""
    needed = needed_base_lines(patches())
    upstream = upstream_files(mirror, base()["commit"], sorted(needed))
    return {path: fixture_text(upstream[path], lines) for path, lines in needed.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    write = sub.add_parser("write-fixture", help="rewrite patches/triton-xpu/fixture from the pinned commit")
    write.add_argument(
        "--mirror", type=Path, required=True, help="a clone or bare mirror of intel/intel-xpu-backend-for-triton"
    )
    args = parser.parse_args(argv)
    if not git_dir(args.mirror).exists():
        print(f"triton_patch_support: {args.mirror} is not a git clone or mirror", file=sys.stderr)
        return 2
    files = fixture_from_mirror(args.mirror)
    shutil.rmtree(FIXTURE_DIR, ignore_errors=True)
    for path, text in files.items():
        target = FIXTURE_DIR / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        print(f"wrote {target.relative_to(REPO)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
