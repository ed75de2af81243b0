#!/usr/bin/env python3
"""Apply, check, reverse and export the PyTorch PR stacks.

patches/pytorch/<series>/ holds one stack of standard `git format-patch` files
per PyTorch base (v2.15.0, v2.13.0, a main commit) with a series.json that
records the upstream pre-image blobs. `apply` picks the series from the
checkout's version.txt (or --series) and hands the stack to `git apply` as
one input, so git matches and writes it: all or nothing, exact context, and
git's own line-end conversion on Windows checkouts. When it does not fit as
it stands, `git apply --3way` merges it where the checkout has the blobs the
index lines name (git stages what it merged); a merge with conflicts writes
nothing. What git does not do is kept here: choosing the series, skipping
the patches the checkout already holds (so `apply` is idempotent), trees
rebuilt from the patches alone for the tests, `export`, and the project's
own launcher.

`--launcher project` installs this project's launcher on top of the stack
instead of upstream's static_launcher/xpu.cpp. That patch is generated from
csrc/ and the checkout's xpu.cpp when it is applied, never committed, and
kept in the checkout's state folder (.git/xsl-patchset/) so that `--reverse`
takes back exactly what it wrote. `regen -o FILE` writes it on demand.
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
    text: str  # what git applies


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
                elif tag != "\\":  # "\ No newline at end of file"
                    raise PatchError(f"{name}: unexpected line '{body[:40]}' in hunk '{header}' of {path}.")
                i += 1
            if len(hunk.old_lines) != old_count or len(hunk.new_lines) != new_count:
                raise PatchError(f"{name}: hunk '{header}' in {path} has wrong line counts.")
            hunks.append(hunk)
        files.append(FileDiff(path, kind, hunks))
    return Patch(name, subject, message, files, text)


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


# --------------------------------------------------------------------------
# Applying: git apply does the matching and writing


APPLIED, UNAPPLIED, DRIFT = "applied", "unapplied", "drift"


def _git_env(root: Path) -> dict[str, str]:
    """Keeps git from taking a folder above a tree that is no repository
    (a rebuilt test tree) for its work tree."""
    env = dict(os.environ)
    if not (root / ".git").exists():
        env["GIT_CEILING_DIRECTORIES"] = str(root.resolve().parent)
    return env


def git_apply(root: Path, patches: Sequence[Patch], *options: str) -> subprocess.CompletedProcess[str]:
    """`git apply` of the patches as one input: git chains diffs of one file
    and writes nothing unless every hunk fits (with -R, still in stack order)."""
    # Bytes, not text: a text pipe on Windows would turn each LF into CRLF,
    # and no context line would match.
    data = "".join(patch.text for patch in patches).encode("utf-8")
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "apply", "-v", *options], input=data, capture_output=True, env=_git_env(root)
        )
    except OSError as err:
        raise PatchError(f"patchset.py needs git on PATH (https://git-scm.com/downloads): {err}") from err
    out, err_text = (stream.decode("utf-8", "replace") for stream in (proc.stdout, proc.stderr))
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err_text)


def _fits(root: Path, patches: Sequence[Patch], *options: str) -> bool:
    return not patches or git_apply(root, patches, "--check", *options).returncode == 0


def applied_count(patches: Sequence[Patch], root: Path) -> int:
    """How many leading patches of the stack the checkout holds: the largest
    count that reverses as a whole (a later patch may rewrite lines an earlier
    one added, so an earlier patch is only seen with the later ones undone)."""
    for count in range(len(patches), 0, -1):
        if _fits(root, patches[:count], "-R"):
            return count
    return 0


def _git_report(patch: Patch, stderr: str) -> str:
    """git's own words on a patch that does not fit (the file, the line and
    the text it searched for), without its progress lines."""
    kept = [line for line in stderr.splitlines() if not line.startswith(("Checking patch", "Applied patch"))]
    return "\n".join([f"{patch.name}: it does not fit:", *(f"  {line}" for line in kept if line.strip())])


def _first_drift(root: Path, todo: Sequence[Patch]) -> tuple[int, str]:
    """The first patch of `todo` that does not fit after those before it."""
    for index in range(len(todo)):
        proc = git_apply(root, todo[: index + 1], "--check")
        if proc.returncode != 0:
            return index, _git_report(todo[index], proc.stderr)
    return len(todo), ""


def _three_way(root: Path, todo: Sequence[Patch]) -> str | None:
    """None when `git apply --3way` merges the patches without conflicts
    (the checkout has the blobs their index lines name); else why not."""
    if not (root / ".git").exists():
        return "no three-way merge: the checkout is no git repository"
    proc = git_apply(root, todo, "--check", "--3way")
    conflicts = sorted({m.group(1) for m in re.finditer(r"^Applied patch to '(.+)' with conflicts", proc.stderr, re.M)})
    if proc.returncode == 0 and not conflicts:
        return None
    if conflicts:
        return f"a three-way merge conflicts in {', '.join(conflicts)}"
    reason = next((line for line in proc.stderr.splitlines() if line.startswith("error:")), proc.stderr.strip())
    return f"no three-way merge: {reason}"


@dataclasses.dataclass
class RunResult:
    ok: bool
    lines: list[str]
    written: list[str]


def _touched(patches: Sequence[Patch]) -> list[str]:
    return sorted({fdiff.path for patch in patches for fdiff in patch.files})


def run_series(patches: Sequence[Patch], root: Path, reverse: bool = False, check: bool = False) -> RunResult:
    """Applies (or reverses) the stack with git; writes nothing unless all of
    it fits. Patches the checkout already holds are skipped."""
    done = applied_count(patches, root)
    if reverse:
        lines = [f"{'not applied':<16} {p.name}" for p in patches[done:]]
        if done == 0:
            return RunResult(True, lines + ["Nothing to do: the tree is already in the requested state."], [])
        undo = patches[:done]
        if not check:
            proc = git_apply(root, undo, "-R")
            if proc.returncode != 0:
                return RunResult(False, [_git_report(undo[-1], proc.stderr), "Nothing was written."], [])
        verb = "would reverse" if check else "reversed"
        lines = [f"{verb:<16} {p.name}" for p in undo] + lines
        written = [] if check else _touched(undo)
        return RunResult(True, lines + ([f"{len(written)} file(s) written."] if written else []), written)
    lines = [f"{'already applied':<16} {p.name}" for p in patches[:done]]
    todo = patches[done:]
    if not todo:
        return RunResult(True, lines + ["Nothing to do: the tree is already in the requested state."], [])
    options: tuple[str, ...] = ()
    if not _fits(root, todo):
        index, report = _first_drift(root, todo)
        why = _three_way(root, todo)
        if why is not None:
            lines += [f"{'would apply':<16} {p.name}" for p in todo[:index]]
            lines.append(f"{'DRIFT':<16} {todo[index].name}")
            lines += [f"{'not checked':<16} {p.name}" for p in todo[index + 1 :]]
            return RunResult(False, [*lines, "", "Nothing was written.", report, why], [])
        options = ("--3way",)
    if check:
        merge = " (three-way)" if options else ""
        return RunResult(True, lines + [f"{'would apply':<16} {p.name}{merge}" for p in todo], [])
    proc = git_apply(root, todo, *options)
    if proc.returncode != 0:
        return RunResult(False, [*lines, _git_report(todo[-1], proc.stderr)], [])
    lines += [f"{'applied':<16} {p.name}" for p in todo]
    if options:
        lines.append("merged three-way: git staged the merged files")
    written = _touched(todo)
    return RunResult(True, [*lines, f"{len(written)} file(s) written."], written)


def series_status(patches: Sequence[Patch], root: Path) -> list[tuple[str, Patch, str]]:
    """(state, patch, git's report) for each patch, in stack order."""
    done = applied_count(patches, root)
    todo = patches[done:]
    index, report = _first_drift(root, todo)
    states = [(APPLIED, p, "") for p in patches[:done]] + [(UNAPPLIED, p, "") for p in todo[:index]]
    if index < len(todo):
        states.append((DRIFT, todo[index], report))
        states += [("unchecked", p, "") for p in todo[index + 1 :]]
    return states


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


def _read_tree(root: Path, paths: Iterable[str]) -> dict[str, bytes | None]:
    return {path: (root / path).read_bytes() if (root / path).is_file() else None for path in paths}


def _write_tree(root: Path, files: dict[str, bytes | None]) -> None:
    for path, data in files.items():
        target = root / path
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def export_series(series: Series, root: Path, out_dir: Path) -> list[Path]:
    """Writes the stack applied in `root` as `git format-patch` files.

    Each patch's pre- and post-images come from the checkout (the stack is
    walked back with `git apply -R` in a scratch repository), so the hunks and
    index lines are the checkout's own. Files listed without a blob in
    series.json keep their committed sections, after checking that the
    whole stack is applied in the checkout."""
    patches = series.patches()
    texts = {p.name: (series.directory / p.name).read_text(encoding="utf-8") for p in patches}
    done = applied_count(patches, root)
    if done < len(patches):
        raise PatchError(f"{patches[done].name} is not applied in {root}; run apply first.")
    kept = series.context_only()
    touched = [path for path in _touched(patches) if path not in kept]
    excluded = [f"--exclude={path}" for path in sorted(kept)]
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        env = dict(os.environ, GIT_COMMITTER_NAME="xsl", GIT_COMMITTER_EMAIL="xsl@localhost")
        env["GIT_COMMITTER_DATE"] = "2000-01-01T00:00:00+00:00"
        _git(repo, ["init", "-q"])
        (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
        (repo / ".git" / "info" / "attributes").write_text("* diff=xsl\n", encoding="utf-8")
        _write_tree(repo, _read_tree(root, touched))
        stages = [_read_tree(repo, touched)]  # after the last patch, then walking back
        for patch in reversed(patches):
            proc = git_apply(repo, [patch], "-R", *excluded)
            if proc.returncode != 0:
                raise PatchError(_git_report(patch, proc.stderr))
            stages.append(_read_tree(repo, touched))
        stages.reverse()
        _git(repo, ["add", "-A"])
        _git(repo, ["commit", "-q", "--allow-empty", "-m", "pre-images"], env)
        for patch, after in zip(patches, stages[1:]):
            _write_tree(repo, after)
            _git(repo, ["add", "-A"])
            _git(
                repo,
                ["commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", patch.message],
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


def _replacement_diff(path: str, old: bytes, new_lines: list[str]) -> str:
    """One hunk that takes every line of `old` out and puts `new_lines` in."""
    before = TextFile.parse(old)
    head = f"@@ -{1 if before.lines else 0},{len(before.lines)} +1,{len(new_lines)} @@\n"
    removed = "".join(f"-{line}\n" for line in before.lines)
    if before.lines and not before.final_newline:
        removed += "\\ No newline at end of file\n"
    added = "".join(f"+{line}\n" for line in new_lines)
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n" + head + removed + added


def regen_text(repo: Path, manifest: Manifest, checkout: Path | None = None) -> str:
    """The launcher patch against the checkout's xpu.cpp and build list (without
    a checkout, xpu.cpp is a new file and the list one line: for reading)."""
    helpers = _helper_files(repo, manifest)
    installed = set(helpers)
    diffs: list[str] = []
    glue = repo / manifest.glue_source
    message = manifest.message
    if glue.is_file():
        glue_lines = _rewrite_includes(glue.read_text(encoding="utf-8"), installed, manifest.helper_dest)
        replaced = checkout / manifest.glue_dest if checkout is not None else None
        if replaced is None:
            diffs.append(file_diff_text(manifest.glue_dest, None, TextFile(glue_lines, False, True)))
        elif not replaced.is_file():
            raise PatchError(f"{checkout}: {manifest.glue_dest} is missing: the project launcher replaces it.")
        else:
            diffs.append(_replacement_diff(manifest.glue_dest, replaced.read_bytes(), glue_lines))
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
        anchor = f'{manifest.build_list_indent}"{manifest.build_list_anchor}",'
        added = [f'{manifest.build_list_indent}"{s}",' for s in sources]
        listed = checkout / manifest.build_list_file if checkout is not None else None
        build_list = TextFile.parse(listed.read_bytes()) if listed is not None and listed.is_file() else None
        if build_list is None or anchor not in build_list.lines:
            if checkout is not None:
                raise PatchError(f"{checkout}: {manifest.build_list_file} has no line {anchor.strip()}")
            build_list = TextFile([anchor], False, True)
        at = build_list.lines.index(anchor) + 1
        grown = TextFile(build_list.lines[:at] + added + build_list.lines[at:], False, build_list.final_newline)
        diffs.append(file_diff_text(manifest.build_list_file, build_list, grown))
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


def _state_dir(root: Path) -> Path:
    git = root / ".git"
    return git / STATE_DIR_NAME if git.is_dir() else root / ".xsl-patchset"


def _saved_launcher(root: Path) -> Path:
    """The launcher patch applied to the checkout, while it is applied."""
    return _state_dir(root) / "launcher.patch"


def launcher_patch(patch_root: Path, root: Path) -> Patch:
    """This project's launcher as a patch: the one the checkout holds (kept
    when it was applied; a reset checkout no longer holds it), else generated
    from csrc/ against the checkout."""
    manifest = Manifest.load(patch_root)
    saved = _saved_launcher(root)
    if saved.is_file():
        applied = parse_patch(saved.read_text(encoding="utf-8"), manifest.patch_file)
        if _fits(root, [applied], "-R"):
            return applied
    made = parse_patch(regen_text(REPO_ROOT, manifest, root), manifest.patch_file)
    replacement = next((f for f in made.files if f.path == manifest.glue_dest), None)
    if replacement is not None and replacement.hunks[0].old_lines == replacement.hunks[0].new_lines:
        raise PatchError(
            f"{root}: {manifest.glue_dest} is this project's launcher already, but the patch that installed it "
            f"is not in {saved.parent}: restore upstream's file (git checkout -- {manifest.glue_dest}) and apply again."
        )
    return made


def _without(patch: Patch, paths: set[str]) -> Patch:
    head, sections = _sections(patch.text)
    return parse_patch(head + "".join(text for path, text in sections if path not in paths), patch.name)


def stack(series: Series, launcher: str, patch_root: Path, root: Path) -> list[Patch]:
    """The series, or with launcher "project" the series without its hunks
    for the file the project's launcher replaces, plus that launcher."""
    patches = series.patches()
    if launcher != "project":
        return patches
    replaced = {Manifest.load(patch_root).glue_dest}
    kept = [_without(p, replaced) for p in patches]
    return [p for p in kept if p.files] + [launcher_patch(patch_root, root)]


def _launcher_is_stale(patch_root: Path, root: Path, applied: Patch) -> bool:
    """Whether csrc/ now makes another launcher patch than the applied one:
    regenerated against the files the applied patch took in."""
    manifest = Manifest.load(patch_root)
    files = (manifest.glue_dest, manifest.build_list_file)
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp)
        _write_tree(before, _read_tree(root, files))
        if git_apply(before, [applied], "-R", *(f"--include={path}" for path in files)).returncode != 0:
            return False
        return regen_text(REPO_ROOT, manifest, before) != applied.text


def apply_stack(
    series: Series, launcher: str, patch_root: Path, root: Path, reverse: bool = False, check: bool = False
) -> RunResult:
    """run_series for a launcher's stack. The project launcher's patch is kept
    in the state folder while it is applied; one older than csrc/ is taken
    back and made again."""
    saved = _saved_launcher(root)
    patches = stack(series, launcher, patch_root, root)
    if launcher == "project" and saved.is_file() and not reverse and not check:
        applied = patches[-1]
        if applied_count(patches, root) == len(patches) and _launcher_is_stale(patch_root, root, applied):
            if git_apply(root, [applied], "-R").returncode == 0:
                saved.unlink()
                patches = stack(series, launcher, patch_root, root)
    result = run_series(patches, root, reverse=reverse, check=check)
    if launcher == "project" and result.written:
        if reverse:
            saved.unlink(missing_ok=True)
        else:
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_text(patches[-1].text, encoding="utf-8", newline="\n")
    return result


def launcher_in_place(series: Series, root: Path, patch_root: Path, besides: str) -> str | None:
    """The launcher other than `besides` whose stack of this series the
    checkout holds in full, or None."""
    for launcher in LAUNCHERS:
        if launcher == besides:
            continue
        try:
            theirs = stack(series, launcher, patch_root, root)
        except PatchError:
            continue
        if applied_count(theirs, root) == len(theirs):
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
        if args.command == "status":
            states = series_status(stack(series, args.launcher, args.patches, args.checkout), args.checkout)
            for state, patch, report in states:
                print(f"{state:<10} {patch.name}")
                _print([report] if report else [])
            return 1 if any(state == DRIFT for state, _, _ in states) else 0
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
        result = apply_stack(series, args.launcher, args.patches, args.checkout, args.reverse, args.check)
        _print(result.lines)
        return 0 if result.ok else 1
    except PatchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
