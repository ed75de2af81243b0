#!/usr/bin/env python3
"""Apply, check, reverse and export the PyTorch PR stacks.

patches/pytorch/<series>/ holds one stack of standard `git format-patch` files
per PyTorch base (v2.15.0, v2.13.0, a main commit) with a series.json that
records the upstream pre-image blobs. `apply` picks the series from the
checkout's version.txt (or --series). This tool is its own unified-diff
applier so that it runs on a bare Windows Python:

* exact context match, no fuzz (a hunk may move, never change);
* all-or-nothing: every hunk of every patch is verified in memory first and
  nothing is written unless all of them fit (never a half-patched tree);
* idempotent: a patch whose result is already in the tree is skipped;
* tolerant of CRLF checkouts (line endings are kept as the file has them);
* on drift it names the file, the expected text and the nearest match.

`--launcher project` installs this project's own launcher on top of the stack
instead of upstream's static_launcher/xpu.cpp. That patch is generated from
csrc/ when it is applied and never committed; it replaces the file as a
preimage-less delete followed by a new-file diff, guarded by the trailer
`Xsl-Replaces: <path> contains "<text>"`. `regen -o FILE` writes it on demand.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATCH_DIR = REPO_ROOT / "patches" / "pytorch"
MANIFEST_NAME = "project-launcher.json"
SERIES_FILE = "series.json"
LAUNCHERS = ("upstream", "project")
STATE_DIR_NAME = "xsl-patchset"  # under .git/ (or .xsl-patchset/ without git)

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
REPLACES_TRAILER = re.compile(r'^Xsl-Replaces: (\S+) contains "(.*)"\s*$')


class PatchError(Exception):
    """A patch cannot be parsed or does not fit the tree."""


# --------------------------------------------------------------------------
# Parsing


@dataclasses.dataclass
class Hunk:
    old_start: int
    new_start: int
    old_lines: list[str]
    new_lines: list[str]
    header: str
    old_no_eol: bool = False  # "\ No newline at end of file" on the old side
    new_no_eol: bool = False


@dataclasses.dataclass
class FileDiff:
    path: str
    kind: str  # "modify", "new", "delete"
    hunks: list[Hunk]


@dataclasses.dataclass
class Patch:
    name: str
    subject: str
    message: str  # full commit message (subject line + body)
    files: list[FileDiff]
    replaces: dict[str, str]  # path -> guard text (Xsl-Replaces trailers)


def _strip_prefix(path: str) -> str:
    for prefix in ("a/", "b/"):
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def parse_patch(text: str, name: str = "<patch>") -> Patch:
    """Parses one git format-patch file (or a plain git diff)."""
    lines = text.replace("\r\n", "\n").split("\n")
    subject = ""
    message_lines: list[str] = []
    i = 0
    in_headers = text.startswith("From ")
    # Mail headers, then the message up to the "---" separator or first diff.
    while i < len(lines) and not lines[i].startswith("diff --git "):
        line = lines[i]
        if in_headers:
            if line.startswith("Subject: "):
                folded = line[len("Subject: ") :]
                while i + 1 < len(lines) and lines[i + 1].startswith(" "):
                    i += 1
                    folded += lines[i]
                subject = re.sub(r"^\[PATCH[^\]]*\]\s*", "", folded)
            elif line == "":
                in_headers = False
        elif line == "---":
            while i < len(lines) and not lines[i].startswith("diff --git "):
                i += 1
            break
        else:
            message_lines.append(line)
        i += 1
    while message_lines and message_lines[-1] == "":
        message_lines.pop()
    message = subject + ("\n\n" + "\n".join(message_lines) if message_lines else "")
    replaces: dict[str, str] = {}
    for line in message_lines:
        m = REPLACES_TRAILER.match(line)
        if m:
            replaces[m.group(1)] = m.group(2)

    files: list[FileDiff] = []
    while i < len(lines):
        line = lines[i]
        if not line.startswith("diff --git "):
            i += 1
            continue
        parts = line[len("diff --git ") :].split(" ")
        if len(parts) != 2:
            raise PatchError(f"{name}: cannot read file names in '{line}'.")
        path = _strip_prefix(parts[1])
        kind = "modify"
        i += 1
        while i < len(lines) and not lines[i].startswith(("@@", "diff --git ")):
            header = lines[i]
            if header.startswith("new file mode"):
                kind = "new"
            elif header.startswith("deleted file mode"):
                kind = "delete"
            i += 1
        hunks: list[Hunk] = []
        while i < len(lines) and lines[i].startswith("@@"):
            m = HUNK_HEADER.match(lines[i])
            if not m:
                raise PatchError(f"{name}: bad hunk header '{lines[i]}' in {path}.")
            header = lines[i]
            old_count = int(m.group(2)) if m.group(2) is not None else 1
            new_count = int(m.group(4)) if m.group(4) is not None else 1
            hunk = Hunk(int(m.group(1)), int(m.group(3)), [], [], header)
            i += 1
            last = ""
            while (len(hunk.old_lines) < old_count or len(hunk.new_lines) < new_count) or (
                i < len(lines) and lines[i].startswith("\\")
            ):
                if i >= len(lines) or (i == len(lines) - 1 and lines[i] == ""):
                    raise PatchError(f"{name}: hunk '{header}' in {path} is truncated.")
                body = lines[i]
                tag, content = (body[:1], body[1:]) if body else (" ", "")
                if tag == " ":
                    hunk.old_lines.append(content)
                    hunk.new_lines.append(content)
                elif tag == "-":
                    hunk.old_lines.append(content)
                elif tag == "+":
                    hunk.new_lines.append(content)
                elif tag == "\\":
                    if last in (" ", "-"):
                        hunk.old_no_eol = True
                    if last in (" ", "+"):
                        hunk.new_no_eol = True
                else:
                    raise PatchError(f"{name}: unexpected line '{body[:40]}' in hunk '{header}' of {path}.")
                last = tag
                i += 1
            if len(hunk.old_lines) != old_count or len(hunk.new_lines) != new_count:
                raise PatchError(f"{name}: hunk '{header}' in {path} has wrong line counts.")
            hunks.append(hunk)
        files.append(FileDiff(path, kind, hunks))
    return Patch(name, subject, message, files, replaces)


def load_series(patch_dir: Path) -> list[Patch]:
    paths = sorted(p for p in patch_dir.glob("*.patch"))
    if not paths:
        raise PatchError(f"No *.patch files in {patch_dir}.")
    return [parse_patch(p.read_text(encoding="utf-8"), p.name) for p in paths]


@dataclasses.dataclass
class Series:
    """One PR stack: patches/pytorch/<name>/ with its series.json."""

    name: str
    directory: Path
    base: str  # upstream tag or commit the stack is written against
    versions: list[str]  # "2.15" matches a checkout whose version.txt starts 2.15.
    newer: bool  # also used for versions above every release series (main)
    preimages: dict[str, dict[str, object]]  # path -> blob, source, matches_base, note

    @staticmethod
    def load(directory: Path) -> Series:
        meta = directory / SERIES_FILE
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise PatchError(f"{meta}: cannot read the series metadata ({err}).") from err
        return Series(
            directory.name,
            directory,
            str(data["base"]),
            [str(v) for v in data.get("versions", [])],
            bool(data.get("newer", False)),
            dict(data.get("preimages", {})),
        )

    def patches(self) -> list[Patch]:
        return load_series(self.directory)

    def context_only(self) -> set[str]:
        """Paths whose exact upstream text was not available: no index line."""
        return {path for path, info in self.preimages.items() if info.get("blob") is None}


def list_series(patch_root: Path) -> list[Series]:
    dirs = sorted(d for d in patch_root.iterdir() if (d / SERIES_FILE).is_file()) if patch_root.is_dir() else []
    if not dirs:
        raise PatchError(f"No series in {patch_root} (expected <name>/{SERIES_FILE} folders).")
    return [Series.load(d) for d in dirs]


def checkout_version(root: Path) -> str | None:
    """PyTorch's version.txt (e.g. 2.15.0a0), or torch/version.py's __version__."""
    text = root / "version.txt"
    if text.is_file():
        first = text.read_text(encoding="utf-8").strip().splitlines()
        return first[0].strip() if first else None
    generated = root / "torch" / "version.py"
    if generated.is_file():
        m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", generated.read_text(encoding="utf-8"), re.M)
        return m.group(1) if m else None
    return None


def _major_minor(version: str) -> tuple[int, int] | None:
    m = re.match(r"^(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def select_series(patch_root: Path, checkout: Path | None, name: str | None) -> Series:
    """The series named `name`, else the one matching the checkout's version."""
    every = list_series(patch_root)
    names = ", ".join(s.name for s in every)
    if name:
        for series in every:
            if series.name == name:
                return series
        raise PatchError(f"--series {name}: no such series in {patch_root}; choose one of {names}.")
    version = checkout_version(checkout) if checkout is not None else None
    if version is None:
        raise PatchError(
            f"cannot tell the PyTorch version of {checkout} (no version.txt or torch/version.py): "
            f"pass --series ({names})."
        )
    wanted = _major_minor(version)
    for series in every:
        if any(version.startswith(v + ".") or version == v for v in series.versions):
            return series
    releases = [_major_minor(v) for s in every for v in s.versions]
    newest = max((r for r in releases if r is not None), default=None)
    if wanted is not None and newest is not None and wanted > newest:
        for series in every:
            if series.newer:
                return series
    raise PatchError(f"no series for PyTorch {version} in {patch_root}: pass --series ({names}).")


def reconstruct_preimages(patches: Sequence[Patch]) -> dict[str, TextFile]:
    """Pre-images built from the patches alone: context and removed lines at
    their line numbers, every other line a unique filler. Enough for the
    stack to apply, reverse and be exported; upstream text is never needed."""
    base: dict[str, list[str | None]] = {}
    current: dict[str, list[tuple[str | None, int | None]]] = {}  # (text, base index)
    for patch in patches:
        for fdiff in patch.files:
            if fdiff.kind != "modify":
                continue
            state = current.setdefault(fdiff.path, [])
            known = base.setdefault(fdiff.path, [])
            offset = 0
            for hunk in fdiff.hunks:
                start = hunk.old_start - 1 + offset if hunk.old_lines else hunk.old_start + offset
                while len(state) < start + len(hunk.old_lines):
                    known.append(None)
                    state.append((None, len(known) - 1))
                for k, line in enumerate(hunk.old_lines):
                    text, origin = state[start + k]
                    if text is None and origin is not None:
                        known[origin] = line
                        state[start + k] = (line, origin)
                    elif text != line:
                        raise PatchError(
                            f"{patch.name}: {fdiff.path}: hunk {hunk.header} contradicts an earlier patch."
                        )
                state[start : start + len(hunk.old_lines)] = [(line, None) for line in hunk.new_lines]
                offset += len(hunk.new_lines) - len(hunk.old_lines)
    return {
        path: TextFile(
            [line if line is not None else f"xsl-filler {path}:{i + 1}" for i, line in enumerate(lines)], False, True
        )
        for path, lines in base.items()
    }


# --------------------------------------------------------------------------
# The in-memory tree


@dataclasses.dataclass
class TextFile:
    lines: list[str]
    crlf: bool
    final_newline: bool

    @staticmethod
    def parse(data: bytes) -> TextFile:
        text = data.decode("utf-8")
        crlf = text.count("\r\n") * 2 > text.count("\n") and "\r\n" in text
        text = text.replace("\r\n", "\n")
        final_newline = text.endswith("\n")
        body = text[:-1] if final_newline else text
        lines = body.split("\n") if body else []
        return TextFile(lines, crlf, final_newline or not lines)

    def render(self) -> bytes:
        eol = "\r\n" if self.crlf else "\n"
        text = eol.join(self.lines)
        if self.lines and self.final_newline:
            text += eol
        return text.encode("utf-8")


def _prune_empty_dirs(directory: Path, root: Path) -> None:
    """Removes directories a deleted file leaves empty, up to the root."""
    root = root.resolve()
    current = directory.resolve()
    while current != root and root in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


class Tree:
    """A checkout seen through pending in-memory edits."""

    def __init__(self, root: Path):
        self.root = root
        self.pending: dict[str, TextFile | None] = {}  # None = deleted
        self.originals: dict[str, bytes | None] = {}

    def _disk(self, path: str) -> bytes | None:
        full = self.root / path
        return full.read_bytes() if full.is_file() else None

    def read(self, path: str) -> TextFile | None:
        if path in self.pending:
            return self.pending[path]
        data = self._disk(path)
        return TextFile.parse(data) if data is not None else None

    def write(self, path: str, content: TextFile | None) -> None:
        if path not in self.originals:
            self.originals[path] = self._disk(path)
        self.pending[path] = content

    def commit(self) -> list[str]:
        """Writes pending edits; on an I/O error restores what was written."""
        written: list[str] = []
        try:
            for path in sorted(self.pending):
                content = self.pending[path]
                full = self.root / path
                if content is None:
                    if full.exists():
                        full.unlink()
                    _prune_empty_dirs(full.parent, self.root)
                else:
                    full.parent.mkdir(parents=True, exist_ok=True)
                    tmp = full.with_name(full.name + ".xsl-tmp")
                    tmp.write_bytes(content.render())
                    os.replace(tmp, full)
                written.append(path)
        except OSError:
            for path in written:
                original = self.originals[path]
                full = self.root / path
                if original is None:
                    full.unlink(missing_ok=True)
                else:
                    full.write_bytes(original)
            raise
        return written


# --------------------------------------------------------------------------
# Matching and drift reports


def _find_all(lines: Sequence[str], block: Sequence[str]) -> list[int]:
    if not block:
        return []
    n = len(block)
    first = block[0]
    return [i for i in range(len(lines) - n + 1) if lines[i] == first and list(lines[i : i + n]) == list(block)]


def _nearest(candidates: list[int], hint: int) -> int | None:
    if not candidates:
        return None
    return min(candidates, key=lambda c: (abs(c - hint), c))


def nearest_match(lines: Sequence[str], block: Sequence[str]) -> tuple[int, float]:
    """Best window of len(block) lines by difflib ratio: (0-based index, ratio)."""
    if not lines or not block:
        return (0, 0.0)
    n = len(block)
    want = "\n".join(block)
    scored: list[tuple[float, int]] = []
    for i in range(max(1, len(lines) - n + 1)):
        window = "\n".join(lines[i : i + n])
        matcher = difflib.SequenceMatcher(None, want, window, autojunk=False)
        if matcher.real_quick_ratio() < 0.3:
            continue
        scored.append((matcher.quick_ratio(), i))
    scored.sort(reverse=True)
    best = (0.0, 0)
    for _, i in scored[:25]:
        window = "\n".join(lines[i : i + n])
        ratio = difflib.SequenceMatcher(None, want, window, autojunk=False).ratio()
        if ratio > best[0]:
            best = (ratio, i)
    return (best[1], best[0])


def drift_report(patch: Patch, fdiff: FileDiff, hunk_index: int, current: TextFile | None, why: str) -> str:
    hunk = fdiff.hunks[hunk_index] if fdiff.hunks else None
    out = [f"{patch.name}: {fdiff.path}: {why}"]
    if hunk is None or current is None:
        return "\n".join(out)
    out.append(f"  hunk {hunk_index + 1} ({hunk.header}) expects these lines:")
    out.extend(f"    | {line}" for line in hunk.old_lines)
    index, ratio = nearest_match(current.lines, hunk.old_lines)
    if ratio > 0:
        found = current.lines[index : index + len(hunk.old_lines)]
        out.append(f"  nearest match at line {index + 1} ({ratio:.0%} similar):")
        out.extend(f"    | {line}" for line in found)
        diff = difflib.unified_diff(hunk.old_lines, found, "expected", f"{fdiff.path}:{index + 1}", lineterm="", n=0)
        out.append("  difference:")
        out.extend(f"    {line}" for line in list(diff)[2:])
    else:
        out.append("  no similar lines found in the file.")
    return "\n".join(out)


# --------------------------------------------------------------------------
# Applying


APPLIED, UNAPPLIED, DRIFT = "applied", "unapplied", "drift"


@dataclasses.dataclass
class FilePlan:
    state: str
    result: TextFile | None = None  # content after this direction is applied
    problems: list[str] = dataclasses.field(default_factory=list)


def _apply_hunks(patch: Patch, fdiff: FileDiff, current: TextFile, reverse: bool) -> FilePlan:
    """Returns the plan for one modified file in the given direction."""

    def sides(h: Hunk) -> tuple[list[str], list[str]]:
        return (h.new_lines, h.old_lines) if reverse else (h.old_lines, h.new_lines)

    states = []
    for hunk in fdiff.hunks:
        src, dst = sides(hunk)
        src_found = bool(_find_all(current.lines, src)) if src else True
        dst_found = bool(_find_all(current.lines, dst)) if dst else True
        if src_found and dst_found:
            # Both present: done when the target contains the source (pure
            # additions around existing lines), otherwise ambiguous.
            if not src or _find_all(dst, src):
                states.append(APPLIED)
            elif not dst or _find_all(src, dst):
                states.append(UNAPPLIED)
            else:
                states.append(DRIFT)
        elif dst_found:
            states.append(APPLIED)
        elif src_found:
            states.append(UNAPPLIED)
        else:
            states.append(DRIFT)
    if all(s == APPLIED for s in states):
        return FilePlan(APPLIED, current)
    problems = [
        drift_report(
            patch,
            fdiff,
            i,
            current,
            "expected text not found" if s == DRIFT else "hunk already applied while others are not",
        )
        for i, s in enumerate(states)
        if s == DRIFT or (s == APPLIED and UNAPPLIED in states)
    ]
    if problems:
        return FilePlan(DRIFT, None, problems)

    lines = list(current.lines)
    final_newline = current.final_newline
    offset = 0
    last_end = 0
    for index, hunk in enumerate(fdiff.hunks):
        src, dst = sides(hunk)
        hint = (hunk.new_start if reverse else hunk.old_start) - 1 + offset
        candidates = [c for c in _find_all(lines, src) if c >= last_end]
        pos = _nearest(candidates, hint)
        if pos is None:
            return FilePlan(
                DRIFT,
                None,
                [drift_report(patch, fdiff, index, current, "hunks overlap or are out of order")],
            )
        lines[pos : pos + len(src)] = dst
        offset += len(dst) - len(src)
        last_end = pos + len(dst)
        if pos + len(dst) == len(lines):
            no_eol = hunk.old_no_eol if reverse else hunk.new_no_eol
            final_newline = not no_eol
    return FilePlan(UNAPPLIED, TextFile(lines, current.crlf, final_newline))


def _content_of_side(fdiff: FileDiff, old_side: bool) -> TextFile:
    """The whole file a new-file (new side) or deleted-file (old side) diff holds."""
    lines: list[str] = []
    no_eol = False
    for hunk in fdiff.hunks:
        lines.extend(hunk.old_lines if old_side else hunk.new_lines)
        no_eol = hunk.old_no_eol if old_side else hunk.new_no_eol
    return TextFile(lines, False, not no_eol)


def _state_dir(root: Path) -> Path:
    git = root / ".git"
    return git / STATE_DIR_NAME if git.is_dir() else root / ".xsl-patchset"


def _saved_original(root: Path, path: str) -> Path:
    return _state_dir(root) / "originals" / path


def _git_head_version(root: Path, path: str) -> bytes | None:
    if not (root / ".git").exists():
        return None
    try:
        return subprocess.run(
            ["git", "-C", str(root), "show", f"HEAD:{path}"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


@dataclasses.dataclass
class FileStep:
    """What one file needs: its state, and on UNAPPLIED the new content."""

    state: str
    problems: list[str] = dataclasses.field(default_factory=list)
    content: TextFile | None = None
    save_original: bytes | None = None


def _plan_replacement(
    patch: Patch, root: Path, path: str, new: FileDiff, current: TextFile | None, reverse: bool
) -> FileStep:
    """A file this project replaces wholesale (Xsl-Replaces guard)."""
    target = _content_of_side(new, old_side=False)
    guard = patch.replaces.get(path)
    if guard is None:
        return FileStep(DRIFT, [f"{patch.name}: {path}: replaced without an Xsl-Replaces guard trailer."])
    ours = current is not None and current.lines == target.lines
    upstream = current is not None and any(guard in line for line in current.lines)
    if not reverse:
        if ours:
            return FileStep(APPLIED)
        if current is None:
            return FileStep(DRIFT, [f"{patch.name}: {path}: the file to replace does not exist."])
        if not upstream:
            idx, ratio = nearest_match(current.lines, [guard])
            nearest = current.lines[idx] if current.lines else ""
            return FileStep(
                DRIFT,
                [
                    f'{patch.name}: {path}: expected a line containing "{guard}" (the file this patch replaces); '
                    f"nearest is line {idx + 1} ({ratio:.0%} similar): {nearest}"
                ],
            )
        return FileStep(
            UNAPPLIED,
            content=TextFile(target.lines, current.crlf, target.final_newline),
            save_original=current.render(),
        )
    if not ours:
        if upstream:
            return FileStep(APPLIED)
        return FileStep(DRIFT, [f"{patch.name}: {path}: neither this project's file nor the upstream one is there."])
    saved = _saved_original(root, path)
    data = saved.read_bytes() if saved.is_file() else _git_head_version(root, path)
    if data is None:
        return FileStep(
            DRIFT,
            [
                f"{patch.name}: {path}: the upstream original was not saved and git cannot provide it; "
                f"restore it with 'git checkout -- {path}'."
            ],
        )
    return FileStep(UNAPPLIED, content=TextFile.parse(data))


def _plan_whole_file(patch: Patch, path: str, fdiff: FileDiff, current: TextFile | None, reverse: bool) -> FileStep:
    """A created or deleted file (with its full content in the diff)."""
    body = _content_of_side(fdiff, old_side=fdiff.kind == "delete")
    creating = (fdiff.kind == "new") != reverse
    if creating:
        if current is None:
            return FileStep(UNAPPLIED, content=body)
        if current.lines == body.lines:
            return FileStep(APPLIED)
        pairs = zip(current.lines, body.lines)
        first = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(current.lines), len(body.lines)))
        return FileStep(
            DRIFT,
            [
                f"{patch.name}: {path}: would create this file but a different one exists "
                f"(first difference at line {first + 1}).",
            ],
        )
    if current is None:
        return FileStep(APPLIED)
    if current.lines == body.lines:
        return FileStep(UNAPPLIED, content=None)
    return FileStep(DRIFT, [f"{patch.name}: {path}: would delete this file but its content differs."])


def plan_patch(
    patch: Patch, tree: Tree, reverse: bool
) -> tuple[str, list[str], dict[str, TextFile | None], dict[str, bytes]]:
    """Returns (state, problems, new contents, originals to save)."""
    # Group the diffs by path: a replaced file has a delete and a new entry.
    by_path: dict[str, list[FileDiff]] = {}
    for fdiff in patch.files:
        by_path.setdefault(fdiff.path, []).append(fdiff)
    steps: dict[str, FileStep] = {}
    for path, diffs in by_path.items():
        kinds = [d.kind for d in diffs]
        current = tree.read(path)
        if kinds == ["delete", "new"] and not diffs[0].hunks:
            steps[path] = _plan_replacement(patch, tree.root, path, diffs[1], current, reverse)
        elif len(diffs) != 1:
            raise PatchError(f"{patch.name}: {path} appears {len(diffs)} times.")
        elif kinds[0] == "delete" and not diffs[0].hunks:
            raise PatchError(f"{patch.name}: {path}: a delete without content needs a matching new-file diff.")
        elif kinds[0] in ("new", "delete"):
            steps[path] = _plan_whole_file(patch, path, diffs[0], current, reverse)
        elif current is None:
            steps[path] = FileStep(DRIFT, [f"{patch.name}: {path}: file not found in the checkout."])
        else:
            plan = _apply_hunks(patch, diffs[0], current, reverse)
            steps[path] = FileStep(plan.state, plan.problems, plan.result)
    problems = [p for step in steps.values() for p in step.problems]
    states = [step.state for step in steps.values()]
    if problems or DRIFT in states:
        return DRIFT, problems, {}, {}
    if all(s == APPLIED for s in states):
        return APPLIED, [], {}, {}
    done = [path for path, step in steps.items() if step.state == APPLIED]
    if done:
        return (
            DRIFT,
            [f"{patch.name}: partly applied already ({', '.join(done)}); reverse or restore those files first."],
            {},
            {},
        )
    results = {path: step.content for path, step in steps.items()}
    saves = {path: step.save_original for path, step in steps.items() if step.save_original is not None}
    return UNAPPLIED, [], results, saves


@dataclasses.dataclass
class RunResult:
    ok: bool
    lines: list[str]
    written: list[str]


def applied_prefix(patches: Sequence[Patch], root: Path) -> int:
    """How many leading patches of the stack the checkout holds: the largest
    count whose patches reverse one after another from the last of them. A
    later patch may rewrite lines an earlier one added, so an earlier patch
    is only recognized with the later ones walked back."""
    for count in range(len(patches), 0, -1):
        tree = Tree(root)
        for patch in reversed(patches[:count]):
            state, _, results, _ = plan_patch(patch, tree, reverse=True)
            if state != UNAPPLIED:
                break
            for path, content in results.items():
                tree.write(path, content)
        else:
            return count
    return 0


def run_series(patches: Sequence[Patch], root: Path, reverse: bool = False, check: bool = False) -> RunResult:
    """Applies (or reverses) the series; writes nothing unless every patch fits."""
    tree = Tree(root)
    problems: list[str] = []
    saves: dict[str, bytes] = {}
    entries: list[tuple[str, str]] = []  # (DRIFT | APPLIED = in place | UNAPPLIED = to do, name)
    order = list(reversed(patches)) if reverse else list(patches)
    if not reverse:
        done = applied_prefix(patches, root)
        entries.extend((APPLIED, patch.name) for patch in patches[:done])
        order = order[done:]
    for patch in order:
        state, issues, results, to_save = plan_patch(patch, tree, reverse)
        entries.append((state, patch.name))
        if state == DRIFT:
            problems.extend(issues)
        elif state == UNAPPLIED:
            for path, content in results.items():
                tree.write(path, content)
            saves.update(to_save)
    verb = "reverse" if reverse else "apply"
    in_place = "not applied" if reverse else "already applied"
    dry = check or bool(problems)
    out = []
    for state, name in entries:
        if state == DRIFT:
            label = "DRIFT"
        elif state == APPLIED:
            label = in_place
        else:
            label = ("would " + verb) if dry else ("reversed" if reverse else "applied")
        out.append(f"{label:<16} {name}")
    changed = sum(state == UNAPPLIED for state, _ in entries)
    if problems:
        out.append("")
        out.append(f"Nothing was written: {len(problems)} problem(s) found.")
        out.extend(problems)
        return RunResult(False, out, [])
    if check or changed == 0:
        if changed == 0:
            out.append("Nothing to do: the tree is already in the requested state.")
        return RunResult(True, out, [])
    written = tree.commit()
    for path, data in saves.items():
        dest = _saved_original(root, path)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    out.append(f"{len(written)} file(s) written.")
    return RunResult(True, out, written)


# --------------------------------------------------------------------------
# Writing patches (export and regen)

PATCH_AUTHOR = "xpu-static-launcher <xpu-static-launcher@users.noreply.github.com>"
PATCH_DATE = "Thu, 1 Jan 2026 00:00:00 +0000"


def format_patch(number: int, total: int, message: str, diff: str) -> str:
    subject, _, body = message.partition("\n")
    body = body.strip("\n")
    digest = hashlib.sha1((message + diff).encode("utf-8")).hexdigest()
    head = [
        f"From {digest} Mon Sep 17 00:00:00 2001",
        f"From: {PATCH_AUTHOR}",
        f"Date: {PATCH_DATE}",
        f"Subject: [PATCH {number}/{total}] {subject}",
        "",
    ]
    if body:
        head += [body, ""]
    return "\n".join(head) + "---\n" + diff + "-- \n2.43.0\n\n"


def _hunks_text(old: list[str], new: list[str], context: int) -> str:
    out = []
    for line in difflib.unified_diff(old, new, lineterm="", n=context):
        if line.startswith(("---", "+++")):
            continue
        out.append(line)
    return "\n".join(out) + ("\n" if out else "")


def file_diff_text(path: str, old: TextFile | None, new: TextFile | None, context: int = 3) -> str:
    a = f"a/{path}"
    b = f"b/{path}"
    if old is None and new is not None:
        head = f"diff --git {a} {b}\nnew file mode 100644\n--- /dev/null\n+++ {b}\n"
        return head + _hunks_text([], new.lines, context)
    if new is None and old is not None:
        head = f"diff --git {a} {b}\ndeleted file mode 100644\n--- {a}\n+++ /dev/null\n"
        return head + _hunks_text(old.lines, [], context)
    assert old is not None and new is not None
    body = _hunks_text(old.lines, new.lines, context)
    return f"diff --git {a} {b}\n--- {a}\n+++ {b}\n" + body if body else ""


# What `git format-patch` is run with, here and when the committed stacks
# were made: full blob names, no commit ids, diffstat or version signature,
# and no function names in hunk headers (they depend on lines outside the
# hunk). The same flags make `export` reproduce the committed files. The
# histogram algorithm aligns a hunk by the changed region alone; Myers also
# weighs how often a line (e.g. a blank one) occurs in the whole file, which
# differs between upstream files and trees rebuilt from the patches.
FORMAT_PATCH_ARGS = (
    "format-patch",
    "-q",
    "--full-index",
    "--zero-commit",
    "--no-signature",
    "--no-stat",
    "--diff-algorithm=histogram",
)
NO_FUNCNAME = ("-c", "diff.xsl.xfuncname=^xsl-no-funcname$")
PATCH_HEADER = re.compile(r"^From: (.*) <(.*)>$|^Date: (.*)$")


def _git(repo: Path, args: Sequence[str], env: dict[str, str] | None = None) -> str:
    try:
        proc = subprocess.run(["git", *NO_FUNCNAME, "-C", str(repo), *args], capture_output=True, text=True, env=env)
    except OSError as err:
        raise PatchError(f"export needs git on PATH: {err}") from err
    if proc.returncode != 0:
        raise PatchError(f"git {' '.join(args[:2])} failed: {proc.stderr.strip()}")
    return proc.stdout


def _author(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in text.replace("\r\n", "\n").split("\n"):
        if line == "":
            break
        m = PATCH_HEADER.match(line)
        if m and m.group(1) is not None:
            env["GIT_AUTHOR_NAME"], env["GIT_AUTHOR_EMAIL"] = m.group(1), m.group(2)
        elif m and m.group(3) is not None:
            env["GIT_AUTHOR_DATE"] = m.group(3)
    return env


def _sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Splits a patch into its head and (path, section) pairs."""
    parts = re.split(r"(?m)^(?=diff --git )", text)
    head, sections = parts[0], []
    for part in parts[1:]:
        first = part.split("\n", 1)[0]
        sections.append((_strip_prefix(first[len("diff --git ") :].split(" ")[1]), part))
    return head, sections


def export_series(series: Series, root: Path, out_dir: Path) -> list[Path]:
    """Writes the stack applied in `root` as `git format-patch` files.

    Each patch's pre- and post-images come from the checkout (the stack is
    walked back in memory), so the hunks and index lines are the checkout's
    own. Files listed without a blob in series.json keep their committed
    sections, after checking that those are applied in the checkout."""
    patches = series.patches()
    texts = {p.name: (series.directory / p.name).read_text(encoding="utf-8") for p in patches}
    done = applied_prefix(patches, root)
    if done < len(patches):
        raise PatchError(f"{patches[done].name} is not applied in {root}; run apply first.")
    tree = Tree(root)
    stages: list[dict[str, TextFile | None]] = []
    for patch in reversed(patches):
        state, issues, results, _ = plan_patch(patch, tree, reverse=True)
        if state == DRIFT:
            raise PatchError("\n".join(issues))
        if state == APPLIED:  # reversing is a no-op: the patch is not in the tree
            raise PatchError(f"{patch.name} is not applied in {root}; run apply first.")
        before = {path: tree.read(path) for path in results}
        for path, content in results.items():
            tree.write(path, content)
        stages.append(before)
    stages.reverse()
    kept = series.context_only()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        env = dict(os.environ, GIT_COMMITTER_NAME="xsl", GIT_COMMITTER_EMAIL="xsl@localhost")
        env["GIT_COMMITTER_DATE"] = "2000-01-01T00:00:00+00:00"
        _git(repo, ["init", "-q"])
        (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
        (repo / ".git" / "info" / "attributes").write_text("* diff=xsl\n", encoding="utf-8")
        touched = sorted({path for stage in stages for path in stage} - kept)
        for path in touched:
            content = tree.read(path)
            if content is not None:
                (repo / path).parent.mkdir(parents=True, exist_ok=True)
                (repo / path).write_bytes(content.render())
        _git(repo, ["add", "-A"])
        _git(repo, ["commit", "-q", "--allow-empty", "-m", "pre-images"], env)
        for patch, after in zip(patches, stages):
            for path, content in after.items():
                if path in kept:
                    continue
                target = repo / path
                if content is None:
                    target.unlink(missing_ok=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(content.render())
            message = "\n".join(line for line in patch.message.split("\n") if not REPLACES_TRAILER.match(line))
            _git(repo, ["add", "-A"])
            _git(
                repo,
                ["commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", message],
                dict(env, **_author(texts[patch.name])),
            )
        made = Path(tmp) / "out"
        _git(repo, [*FORMAT_PATCH_ARGS, "-o", str(made), f"HEAD~{len(patches)}"])
        written: list[Path] = []
        for patch, produced in zip(patches, sorted(made.glob("*.patch"))):
            head, sections = _sections(produced.read_text(encoding="utf-8"))
            for path, section in _sections(texts[patch.name])[1]:
                if path in kept:
                    sections.append((path, section))
            sections.sort(key=lambda item: item[0])
            target = out_dir / patch.name
            target.write_text(head + "".join(section for _, section in sections), encoding="utf-8", newline="\n")
            written.append(target)
    return written


# --------------------------------------------------------------------------
# regen: the launcher patch is generated from csrc/

INCLUDE_LINE = re.compile(r'^(\s*#\s*include\s+)"([^"]+)"(.*)$')


@dataclasses.dataclass
class Manifest:
    patch_file: str
    number: int
    total: int
    message: str
    glue_source: str
    glue_dest: str
    replaces_guard: str
    helpers: list[str]  # folders and files under csrc/
    helper_patterns: list[str]
    helper_dest: str
    build_list_file: str
    build_list_anchor: str
    build_list_indent: str
    source_guard: str

    @staticmethod
    def load(patch_dir: Path) -> Manifest:
        data = json.loads((patch_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
        data["message"] = "\n".join(data["message"])
        return Manifest(**data)


def _helper_files(repo: Path, manifest: Manifest) -> list[str]:
    found: list[str] = []
    for helper in manifest.helpers:
        base = repo / "csrc" / helper
        if base.is_file():
            found.append(helper)
            continue
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(repo / "csrc").as_posix()
            if path.is_file() and any(fnmatch.fnmatch(path.name, pat) for pat in manifest.helper_patterns):
                found.append(rel)
    return found


def _rewrite_includes(text: str, installed: set[str], dest: str) -> list[str]:
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        m = INCLUDE_LINE.match(line)
        if m and m.group(2) in installed:
            line = f"{m.group(1)}<{dest}/{m.group(2)}>{m.group(3)}"
        out.append(line)
    if out and out[-1] == "":
        out.pop()
    return out


def regen_text(repo: Path, manifest: Manifest) -> str:
    helpers = _helper_files(repo, manifest)
    installed = set(helpers)
    diffs: list[str] = []
    glue = repo / manifest.glue_source
    message = manifest.message
    if glue.is_file():
        glue_lines = _rewrite_includes(glue.read_text(encoding="utf-8"), installed, manifest.helper_dest)
        diffs.append(f"diff --git a/{manifest.glue_dest} b/{manifest.glue_dest}\ndeleted file mode 100644\n")
        diffs.append(file_diff_text(manifest.glue_dest, None, TextFile(glue_lines, False, True)))
        message += f'\n\nXsl-Replaces: {manifest.glue_dest} contains "{manifest.replaces_guard}"'
    else:
        message += f"\n\n(Generated without {manifest.glue_source}: it did not exist yet.)"
    sources = []
    for rel in helpers:
        lines = _rewrite_includes((repo / "csrc" / rel).read_text(encoding="utf-8"), installed, manifest.helper_dest)
        if rel.endswith(".cpp"):
            # torch_python compiles its source list in every build, like
            # xpu.cpp itself: CPU/CUDA builds have no Level Zero headers.
            lines = [f"#if defined({manifest.source_guard})"] + lines + [f"#endif // defined({manifest.source_guard})"]
        dest = f"{manifest.helper_dest}/{rel}"
        diffs.append(file_diff_text(dest, None, TextFile(lines, False, True)))
        if rel.endswith(".cpp"):
            sources.append(dest)
    if sources:
        anchor = manifest.build_list_anchor
        added = [f'{manifest.build_list_indent}"{s}",' for s in sources]
        old_line = f'{manifest.build_list_indent}"{anchor}",'
        hunk = f"@@ -1 +1,{1 + len(added)} @@\n-{old_line}\n+{old_line}\n" + "".join(f"+{a}\n" for a in added)
        diffs.append(
            f"diff --git a/{manifest.build_list_file} b/{manifest.build_list_file}\n"
            f"--- a/{manifest.build_list_file}\n+++ b/{manifest.build_list_file}\n" + hunk
        )
    return format_patch(manifest.number, manifest.total, message, "".join(diffs))


# --------------------------------------------------------------------------
# Command line


def _print(lines: Iterable[str]) -> None:
    for line in lines:
        print(line)


# Files at the root of every PyTorch checkout, one of which must be there
# next to the torch/ package folder.
CHECKOUT_MARKERS = ("build_variables.bzl", "setup.py")
CHECKOUT_HINT = "pass the root folder of a PyTorch clone (git clone https://github.com/pytorch/pytorch)"


def checkout_problem(root: Path) -> str | None:
    """Why `root` is not a PyTorch checkout, or None if it is one."""
    if not root.is_dir():
        return f"checkout {root} is not a directory: {CHECKOUT_HINT}"
    if not (root / "torch").is_dir() or not any((root / name).is_file() for name in CHECKOUT_MARKERS):
        return (
            f"{root} is not a PyTorch checkout (no torch/ folder next to {' or '.join(CHECKOUT_MARKERS)}): "
            f"{CHECKOUT_HINT}"
        )
    return None


def launcher_patch(repo: Path, patch_root: Path) -> Patch:
    """This project's launcher as a patch, generated from csrc/ now."""
    manifest = Manifest.load(patch_root)
    return parse_patch(regen_text(repo, manifest), manifest.patch_file)


def stack(series: Series, launcher: str, patch_root: Path) -> list[Patch]:
    """The series, or with launcher "project" the series without its hunks
    for the file the project's launcher replaces, plus that launcher."""
    patches = series.patches()
    if launcher != "project":
        return patches
    ours = launcher_patch(REPO_ROOT, patch_root)
    replaced = set(ours.replaces)
    kept = [dataclasses.replace(p, files=[f for f in p.files if f.path not in replaced]) for p in patches]
    return [p for p in kept if p.files] + [ours]


def launcher_in_place(series: Series, root: Path, patch_root: Path, besides: str) -> str | None:
    """The launcher other than `besides` whose stack of this series the
    checkout holds in full (every patch would reverse), or None."""
    for launcher in LAUNCHERS:
        if launcher == besides:
            continue
        theirs = stack(series, launcher, patch_root)
        probe = run_series(theirs, root, reverse=True, check=True)
        if probe.ok and sum(line.startswith("would reverse") for line in probe.lines) == len(theirs):
            return launcher
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--patches", type=Path, default=DEFAULT_PATCH_DIR, help="folder of the series folders (default: %(default)s)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def with_series(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--series", help="series folder name, e.g. v2.15.0 (default: chosen by the checkout's version.txt)"
        )

    def with_launcher(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--launcher",
            choices=LAUNCHERS,
            default="upstream",
            help="upstream: the PR stack only (default); "
            "project: the stack plus this project's launcher, generated from csrc/",
        )

    p_apply = sub.add_parser("apply", help="apply a PR stack to a PyTorch checkout (all-or-nothing, idempotent)")
    p_apply.add_argument("checkout", type=Path)
    p_apply.add_argument("--check", action="store_true", help="only verify; write nothing")
    p_apply.add_argument("--reverse", action="store_true", help="remove the stack again")
    with_series(p_apply)
    with_launcher(p_apply)
    p_status = sub.add_parser("status", help="show per-patch state of a checkout")
    p_status.add_argument("checkout", type=Path, nargs="?", help="root folder of a PyTorch clone")
    with_series(p_status)
    with_launcher(p_status)
    p_export = sub.add_parser("export", help="write the applied stack as git format-patch files (needs git)")
    p_export.add_argument("checkout", type=Path)
    p_export.add_argument("-o", "--output", type=Path, required=True)
    with_series(p_export)
    sub.add_parser("list", help="list the series and the versions each one is for")
    p_regen = sub.add_parser("regen", help="write this project's launcher patch (generated from csrc/) to a file")
    p_regen.add_argument("-o", "--output", type=Path, required=True, help="file to write, e.g. build/launcher.patch")
    args = parser.parse_args(argv)
    if args.command == "status" and args.checkout is None:
        p_status.error(
            "give the PyTorch checkout to inspect, e.g. python3 scripts/patchset.py status ~/pytorch "
            "(the folder holding setup.py and torch/)"
        )

    try:
        if args.command == "regen":
            text = regen_text(REPO_ROOT, Manifest.load(args.patches))
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {args.output}")
            return 0
        if args.command == "list":
            for series in list_series(args.patches):
                which = ", ".join(series.versions) or (
                    "versions newer than every release series" if series.newer else ""
                )
                print(f"{series.name:<14} base {series.base}; for PyTorch {which or '(by name only)'}")
            return 0
        problem = checkout_problem(args.checkout)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        series = select_series(args.patches, args.checkout, args.series)
        print(f"series {series.name} (base {series.base})")
        if args.command == "export":
            written = export_series(series, args.checkout, args.output)
            _print(f"wrote {p}" for p in written)
            return 0
        patches = stack(series, args.launcher, args.patches)
        if args.command == "status":
            tree = Tree(args.checkout)
            ok = True
            done = applied_prefix(patches, args.checkout)
            for patch in patches[:done]:
                print(f"{APPLIED:<10} {patch.name}")
            for patch in patches[done:]:
                state, issues, results, _ = plan_patch(patch, tree, reverse=False)
                print(f"{state:<10} {patch.name}")
                _print(issues)
                ok = ok and state != DRIFT
                for path, content in results.items():
                    tree.write(path, content)
            return 0 if ok else 1
        if not args.reverse:
            # The launchers share the series' other PRs: one applied over the other would
            # leave a mix that neither reverses cleanly.
            other = launcher_in_place(series, args.checkout, args.patches, args.launcher)
            if other is not None:
                print(
                    f"Nothing was written. The checkout holds the {series.name} stack with the {other} "
                    f"launcher: reverse it first (patchset.py apply --reverse --launcher {other} {args.checkout})."
                )
                return 1
        result = run_series(patches, args.checkout, reverse=args.reverse, check=args.check)
        _print(result.lines)
        return 0 if result.ok else 1
    except PatchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
