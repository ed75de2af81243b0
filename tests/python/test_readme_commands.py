"""README.md and docs/*.md: the Quick start block CI runs, Windows command
blocks that work as written in their shell, and facts that must equal the
harness's own (PyTorch tag, Python range, architecture, folders, jobs)."""

from __future__ import annotations

import re

import pytest

from docs_support import CMD_LANGS, DOCS, POWERSHELL_LANGS, README, blocks, command_lines, package_python_ranges
from patchset_support import REPO, load_script

harness = load_script("harness")
level_zero_sdk = load_script("level_zero_sdk")


def windows_blocks() -> list[tuple[str, str, str]]:
    found = []
    for path in [README] + DOCS:
        for lang, body, line in blocks(path):
            if lang in CMD_LANGS + POWERSHELL_LANGS:
                found.append((f"{path.relative_to(REPO)}:{line}", lang, body))
    return found


def problems_in(lang: str, body: str) -> list[str]:
    """What would not work as written in that shell."""
    found = []
    for line in command_lines(body):
        if re.search(r"(^|[\s&|])python3(\s|$)", line):
            found.append(f"python3 opens the Microsoft Store stub on Windows: {line}")
        if re.search(r"[*?]", line):
            found.append(f"neither cmd nor PowerShell expands globs for pip and python: {line}")
        if lang in CMD_LANGS:
            if "#" in line:
                found.append(f"cmd passes a trailing '# ...' as arguments: {line}")
            if "$env:" in line:
                found.append(f"$env: is PowerShell, not cmd: {line}")
        else:
            if re.match(r"(?i)^set\s+\w+=", line):
                found.append(f"`set` in PowerShell is Set-Variable and changes no environment variable: {line}")
            if re.search(r"%\w+%", line):
                found.append(f"%VAR% is cmd syntax, PowerShell leaves it as text: {line}")
    return found


def test_quick_start_block_comes_first_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert re.findall(r"^## .*$", text, re.MULTILINE)[0] == "## Quick start"
    lang, body, _ = blocks(README)[0]
    assert lang == "bash" and command_lines(body) == ["bash scripts/dev.sh run", "bash scripts/dev.sh test"]


def test_the_first_screen_answers_the_windows_wheel_user():
    text = README.read_text(encoding="utf-8")
    head = text[: text.index("### Route (a)")]
    assert "## Windows" in head and "route (a)" in head and "route (b)" in head
    assert "python -m xpu_static_launcher verify" in head


@pytest.mark.parametrize(
    "sample, lang, expected",
    [
        ("python3 scripts\\ocloc_wheel.py", "bat", "python3"),
        ("pip install dist\\xsl_intel_ocloc-*.whl", "bat", "globs"),
        ("set TORCHINDUCTOR_CACHE_DIR=C:\\tic   # short", "bat", "trailing"),
        ("set TORCHINDUCTOR_CACHE_DIR=C:\\tic", "powershell", "Set-Variable"),
        ('$env:X = "%VCPKG_ROOT%\\installed"', "powershell", "%VAR%"),
        ("$env:X = 'C:\\tic'", "bat", "$env:"),
    ],
)
def test_the_checks_catch_what_the_issue_found(sample, lang, expected):
    assert any(expected in problem for problem in problems_in(lang, sample))


def test_the_checks_pass_good_commands():
    assert problems_in("bat", "set TRITON_CACHE_DIR=C:\\tic\\tr\nsetx TRITON_CACHE_DIR C:\\tic\\tr") == []
    assert problems_in("powershell", "$env:TRITON_CACHE_DIR = 'C:\\tic\\tr'\n. .\\build\\harness\\activate.ps1") == []


def test_windows_command_blocks_work_as_written():
    found = windows_blocks()
    assert any(where.startswith("README.md") for where, _, _ in found)
    assert any(lang in POWERSHELL_LANGS for where, lang, _ in found if where.startswith("README.md"))
    problems = [f"{where}: {p}" for where, lang, body in found for p in problems_in(lang, body)]
    assert not problems, "\n".join(problems)


def test_each_readme_cmd_block_that_sets_variables_has_a_powershell_twin():
    readme = blocks(README)
    for index, (lang, body, line) in enumerate(readme):
        if lang in CMD_LANGS and re.search(r"(?im)^set \w+=", body):
            following = readme[index + 1] if index + 1 < len(readme) else ("", "", 0)
            assert following[0] in POWERSHELL_LANGS, f"README.md:{line}: no PowerShell form follows"


def texts() -> list[tuple[str, str]]:
    paths = [README, REPO / "docs" / "harness.md", *sorted((REPO / ".github" / "workflows").glob("*.yml"))]
    return [(str(p.relative_to(REPO)), p.read_text(encoding="utf-8")) for p in paths if p.is_file()]


def test_pytorch_tag_is_the_harness_default():
    found = []
    for name, text in texts():
        for match in re.finditer(r"(?:clones? PyTorch `?|--ref `?|default: |\|\| ')(v\d+\.\d+\.\d+)", text):
            found.append((name, match.group(1)))
    assert found and all(tag == harness.DEFAULT_REF for _, tag in found), found
    # Every other tag README names is the Level Zero SDK's pinned release.
    readme_tags = set(re.findall(r"\bv\d+\.\d+\.\d+\b", README.read_text(encoding="utf-8")))
    assert readme_tags == {harness.DEFAULT_REF, f"v{level_zero_sdk.VERSION}"}
    # Route (a)'s workflow installs the wheel of the same release.
    wheel_route = (REPO / ".github" / "workflows" / "windows-wheel-route.yml").read_text(encoding="utf-8")
    release = harness.DEFAULT_REF.lstrip("v")
    assert f'default: "{release}"' in wheel_route and f"|| '{release}'" in wheel_route


def test_python_range_is_the_harness_one():
    # The package's own range (its wheels) is pyproject's: test_release.py.
    first, last = harness.python_range(harness.DEFAULT_REF)
    found = [
        (name, m.group(1), m.group(2))
        for name, text in texts()
        for m in re.finditer(r"Python (\d\.\d+)\s*-\s*(\d\.\d+)", text)
        if not any(m.group(0) in sentence for _, sentence in package_python_ranges(text))
    ]
    assert any(name == "README.md" for name, _, _ in found)
    assert all((a, b) == (first, last) for _, a, b in found), found
    readme = README.read_text(encoding="utf-8")
    assert f"outside\n{first}-{last}" in readme or f"outside {first}-{last}" in readme


def test_other_readme_facts_are_the_harness_defaults():
    readme = README.read_text(encoding="utf-8")
    # No default architecture: the harness detects the GPU's (test_harness_steps.py).
    assert "--arch" in readme and "detected" in readme and "`--force-arch`" in readme
    assert not hasattr(harness, "DEFAULT_ARCH")
    assert f"`{harness.default_src(type('P', (), {'windows': True})())}`" in readme
    assert f"one per {harness.MEMORY_PER_JOB // harness.GIB} GiB" in readme
    assert "Visual Studio 2022 or 2026" in readme and harness.VS_NAMES == "Visual Studio 2022 or 2026"


def test_readme_links_point_at_files():
    readme = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert links
    missing = [link for link in links if not link.startswith("http") and not (REPO / link).exists()]
    assert not missing, missing
