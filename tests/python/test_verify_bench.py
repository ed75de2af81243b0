"""python -m xpu_static_launcher verify --bench: the four runs' timing,
ratios, table and progress with injected runs; the options; the child
process's result line; and every real run (in-process launches, cold and
warm starts in new processes) end to end through torch.compile on the CPU,
where Inductor makes C++ kernels: no XPU, so no launcher is counted."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import xpu_static_launcher
from xpu_static_launcher import __main__ as cli
from xpu_static_launcher import bench, verify

PACKAGE_PARENT = str(Path(xpu_static_launcher.__file__).resolve().parents[1])


def static_run(**kw: Any) -> bench.LaunchTiming:
    return bench.LaunchTiming(
        **dict(dict(launcher="static launch", calls=1000, kernels=4, seconds=0.02, static=4, fallback=0), **kw)
    )


def triton_run(**kw: Any) -> bench.LaunchTiming:
    return bench.LaunchTiming(
        **dict(dict(launcher="Triton's launch", calls=1000, kernels=4, seconds=0.05, static=0, fallback=4), **kw)
    )


def start(label: str, **kw: Any) -> bench.StartTiming:
    cold = label == "cold start"
    base = dict(
        label=label,
        seconds=20.0 if cold else 2.5,
        process_seconds=26.0 if cold else 7.25,
        fx_hits=0 if cold else 1,
        fx_misses=1 if cold else 0,
        static=4,
        fallback=0,
    )
    return bench.StartTiming(**dict(base, **kw))


class Clock:
    """Each reading 1.5 s after the last."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 1.5
        return self.now


def bench_lines(launches: dict[bool, bench.LaunchTiming], starts: dict[str, bench.StartTiming]) -> tuple:
    lines: list[str] = []
    rc = bench.run_bench(
        lambda static: launches[static], lambda label: starts[label], out=lines.append, clock=Clock(), calls=1000
    )
    return rc, lines


PROGRESS = [
    "bench [    1.5 s] 1/4 static launch: compile the model (4 kernels), then time 1000 calls",
    "bench [    3.0 s] 2/4 Triton's launch: the same with Inductor's static launch off "
    "(use_static_triton_launcher=False)",
    "bench [    4.5 s] 3/4 cold start: compile + autotune (max-autotune-no-cudagraphs) in a new Python process "
    "with empty caches",
    "bench [    6.0 s] 4/4 warm start: the same in a new Python process with the caches the cold start left",
    "bench [    7.5 s] done",
]
TABLE = [
    "run              launchers set up    timed                                             seconds",
    "static launch    4 static, 0 Triton  1000 calls x 4 kernels: 5.0 us per launch         0.020",
    "Triton's launch  0 static, 4 Triton  1000 calls x 4 kernels: 12.5 us per launch        0.050",
    "cold start       4 static, 0 Triton  compile + autotune, FX graph cache 0 hit, 1 miss  20.00 (process 26.00)",
    "warm start       4 static, 0 Triton  compile + autotune, FX graph cache 1 hit, 0 miss  2.50 (process 7.25)",
]
RATIOS = [
    "bench: static launch vs Triton's launch: 0.40x the host time per launch (5.0 us vs 12.5 us)",
    "bench: warm start vs cold start: 0.12x the compile + autotune time (2.50 s vs 20.00 s)",
]


def test_progress_table_and_ratios():
    rc, lines = bench_lines(
        {True: static_run(), False: triton_run()},
        {"cold start": start("cold start"), "warm start": start("warm start")},
    )
    assert rc == 0
    assert lines == PROGRESS + TABLE + RATIOS


def test_the_table_is_aligned():
    header = TABLE[0]
    for column in ("launchers set up", "timed", "seconds"):
        start_at = header.index(column)
        assert all(line[start_at - 2 : start_at] == "  " and line[start_at] != " " for line in TABLE[1:])


def test_progress_is_flushed_as_it_happens(capsys):
    seen: list[str] = []

    def launches(static: bool) -> bench.LaunchTiming:
        seen.append(capsys.readouterr().out)  # what the user sees while the run goes on
        return static_run() if static else triton_run()

    rc = bench.run_bench(launches, lambda label: start(label), clock=Clock(), calls=1000)
    assert rc == 0
    assert seen[0] == PROGRESS[0] + "\n" and seen[1] == PROGRESS[1] + "\n"


def test_a_run_that_fails_is_one_line_after_the_progress():
    def cold_fails(label: str) -> bench.StartTiming:
        raise bench.BenchError("the cold start process failed (exit code 1) and said: boom")

    lines: list[str] = []
    rc = bench.run_bench(
        lambda static: static_run() if static else triton_run(), cold_fails, out=lines.append, clock=Clock(), calls=1000
    )
    assert rc == 1
    assert lines == PROGRESS[:3] + [
        "verify --bench: FAILED: the cold start process failed (exit code 1) and said: boom"
    ]


@pytest.mark.parametrize(
    "launches, line",
    [
        (
            {True: static_run(static=0, fallback=4), False: triton_run()},
            "verify --bench: FAILED: the static run set up no static launch (4 Triton), "
            "so there is nothing to compare; verify without --bench says why",
        ),
        (
            {True: static_run(), False: triton_run(static=2, fallback=2)},
            "verify --bench: FAILED: the Triton run still set up 2 static launch(es) "
            "with use_static_triton_launcher=False, so there is nothing to compare",
        ),
    ],
)
def test_runs_that_compare_a_launcher_with_itself_fail(launches, line):
    rc, lines = bench_lines(launches, {"cold start": start("cold start"), "warm start": start("warm start")})
    assert rc == 1 and lines[-1] == line and lines[:5] == PROGRESS and len(lines) == 11


def test_a_run_that_measured_nothing_fails():
    rc, lines = bench_lines(
        {True: static_run(), False: triton_run(seconds=0.0)},
        {"cold start": start("cold start"), "warm start": start("warm start")},
    )
    assert rc == 1 and lines[5:] == [
        "verify --bench: FAILED: a run measured no time or no kernel, so no ratio can be taken"
    ]


def test_a_warm_start_that_missed_the_cache_says_so():
    rc, lines = bench_lines(
        {True: static_run(), False: triton_run()},
        {"cold start": start("cold start"), "warm start": start("warm start", fx_hits=0, fx_misses=1)},
    )
    assert rc == 0
    assert lines[-3] == (
        "bench: note: the warm start missed the FX graph cache, so it compiled again (is "
        "TORCHINDUCTOR_FORCE_DISABLE_CACHES or TORCHINDUCTOR_FX_GRAPH_CACHE=0 set?)"
    )


# --- the child process's result line


def test_child_result_line_is_read():
    data = {"seconds": 3.5, "fx_hits": 1, "fx_misses": 0, "static": 4, "fallback": 0}
    out = "noise\n" + bench.RESULT_MARKER + json.dumps(data) + "\n"
    assert bench.parse_child("warm start", out, "a warning\n", 0, 9.0) == bench.StartTiming(
        "warm start", 3.5, 9.0, 1, 0, 4, 0
    )


@pytest.mark.parametrize(
    "stdout, stderr, code, line",
    [
        (
            bench.RESULT_MARKER + json.dumps({"error": "install() gave no-backend: ..."}) + "\n",
            "",
            1,
            "the cold start process failed: install() gave no-backend: ...",
        ),
        (
            "",
            "Traceback (most recent call last):\n  ...\nImportError: DLL load failed\n",
            1,
            "the cold start process failed (exit code 1) and said: ImportError: DLL load failed",
        ),
        ("", "", -11, "the cold start process failed (exit code -11) and said: no output"),
        (
            "all fine but no result\n",
            "",
            0,
            "the cold start process failed (exit code 0) and said: all fine but no result",
        ),
    ],
)
def test_child_failures_are_one_line(stdout, stderr, code, line):
    with pytest.raises(bench.BenchError) as err:
        bench.parse_child("cold start", stdout, stderr, code, 1.0)
    assert str(err.value) == line


def test_child_environment_puts_every_cache_in_the_folder():
    env = bench.child_environment("C:\\xb", {"PYTHONPATH": "other", "TRITON_CACHE_DIR": "C:\\tic\\tr", "KEEP": "1"})
    assert env["TORCHINDUCTOR_CACHE_DIR"] == "C:\\xb"
    assert env["TRITON_CACHE_DIR"] == os.path.join("C:\\xb", "tr")
    assert env["XSL_KERNEL_CACHE_DIR"] == os.path.join("C:\\xb", "k")
    assert env["PYTHONPATH"] == PACKAGE_PARENT + os.pathsep + "other" and env["KEEP"] == "1"
    assert bench.child_environment("/x", {})["PYTHONPATH"] == PACKAGE_PARENT
    # An installed package is found without it, and a site folder on
    # PYTHONPATH would come before the standard library.
    installed = [os.path.normcase(os.path.abspath(PACKAGE_PARENT))]
    assert "PYTHONPATH" not in bench.child_environment("/x", {}, installed)
    assert bench.child_environment("/x", {"PYTHONPATH": "other"}, installed)["PYTHONPATH"] == "other"


def test_a_start_that_does_not_finish_is_one_line(tmp_path):
    with pytest.raises(bench.BenchError, match=r"^the cold start process did not finish in 0 s$"):
        bench.time_start("cold start", str(tmp_path), python=sys.executable, timeout=0.01)


# --- options


def parsed(argv: list[str], monkeypatch) -> dict[str, Any]:
    got: dict[str, Any] = {}

    def fake_run(install_first: bool = True, bench: Any = None, **_: Any) -> int:
        got.update(install_first=install_first, bench=bench)
        return 0

    monkeypatch.setattr(verify, "run", fake_run)
    monkeypatch.setattr(bench, "runner", lambda options, out=None: options)
    assert cli.main(argv) == 0
    return got


def test_verify_without_bench_runs_no_bench(monkeypatch):
    assert parsed(["verify"], monkeypatch) == {"install_first": True, "bench": None}
    assert parsed(["verify", "--bench-calls", "5"], monkeypatch)["bench"] is None


def test_verify_bench_options(monkeypatch):
    assert parsed(["verify", "--bench"], monkeypatch)["bench"] == bench.Options()
    got = parsed(
        ["verify", "--no-install", "--bench", "--bench-calls", "500", "--bench-dir", "C:\\b", "--bench-keep"],
        monkeypatch,
    )
    assert got == {"install_first": False, "bench": bench.Options(500, "C:\\b", True, False)}


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_bench_calls_must_be_a_positive_number(capsys, value):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["verify", "--bench", "--bench-calls", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --bench-calls: " in err
    if value != "many":
        assert f"{value} is not a positive number" in err


def test_verify_help_describes_every_option(capsys):
    with pytest.raises(SystemExit):
        cli.main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option, words in (
        ("--no-install", "do not run install() first"),
        ("--bench", "static launch vs Triton's launch (host time per launch) and a cold vs a warm start"),
        ("--bench-calls N", "calls of the compiled model timed per launcher (default 2000"),
        ("--bench-dir DIR", "where to make the new folder for the cold and warm starts' caches"),
        ("--bench-keep", "keep that folder afterwards"),
    ):
        assert option in text and words in text, option


def test_the_bench_runs_only_after_verify_passed(monkeypatch):
    from test_verify_command import fake_modules, importer

    calls: list[Any] = []

    def the_bench(torch: Any) -> int:
        calls.append(torch)
        return 7

    modules = fake_modules()
    monkeypatch.setattr(verify, "count_launches", lambda torch, fn, *a: verify.Launches(static=["K"]))
    lines: list[str] = []
    assert verify.run(install_first=False, out=lines.append, import_module=importer(modules), bench=the_bench) == 7
    assert calls == [modules["torch"]]
    monkeypatch.setattr(verify, "count_launches", lambda torch, fn, *a: verify.Launches(fallback=["k"]))
    assert verify.run(install_first=False, out=lines.append, import_module=importer(modules), bench=the_bench) == 1
    assert len(calls) == 1


def test_a_folder_that_cannot_be_made_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    lines: list[str] = []
    run = bench.runner(bench.Options(folder=str(blocker / "sub")), out=lines.append)
    assert run(None) == 1
    assert lines == [
        f"verify --bench: FAILED: cannot make a folder for the caches in {blocker / 'sub'}: "
        "Not a directory; name another with --bench-dir"
    ]


# --- the real runs, on the CPU


def test_static_flag_is_the_installed_torchs():
    pytest.importorskip("torch")
    import importlib

    config = importlib.import_module("torch._inductor.config")
    assert bench.static_flag(config) == "use_static_triton_launcher"
    assert bench.static_flag(object()) == "use_static_cuda_launcher"


def test_every_run_end_to_end_on_the_cpu(tmp_path):
    """verify --bench's runner as verify calls it, with torch.compile on the
    CPU: four real runs (two compiles and timed calls in this process, a cold
    and a warm start in new processes sharing a new cache folder); no launcher
    is counted there, so the bench ends by saying it has nothing to compare."""
    torch = pytest.importorskip("torch")
    lines: list[str] = []
    run = bench.runner(
        bench.Options(calls=30, folder=str(tmp_path), install_first=False, device="cpu"), out=lines.append
    )
    assert run(torch) == 1
    progress, table, last = lines[:5], lines[5:10], lines[10:]
    assert [line.split("] ", 1)[1] for line in progress] == [
        line.split("] ", 1)[1].replace("1000", "30") for line in PROGRESS
    ]
    seconds = [float(line[len("bench [") :].split(" s]")[0]) for line in progress]
    assert seconds == sorted(seconds) and seconds[0] < 1
    assert table[0].split() == ["run", "launchers", "set", "up", "timed", "seconds"]
    labels = ("static launch", "Triton's launch", "cold start", "warm start")
    assert [row[: len(label)] for row, label in zip(table[1:], labels, strict=True)] == list(labels)
    assert all("0 static, 0 Triton" in row for row in table[1:])
    for row in table[1:3]:
        assert "30 calls x 4 kernels: " in row and " us per launch" in row
    assert "FX graph cache 0 hit, 1 miss" in table[3] and "FX graph cache 1 hit, 0 miss" in table[4]
    cold, warm = (float(row.split()[-3]) for row in table[3:5])
    assert 0 < warm < cold
    assert last == [
        "verify --bench: FAILED: the static run set up no static launch (0 Triton), so there is nothing "
        "to compare; verify without --bench says why"
    ]
    assert list(tmp_path.iterdir()) == []  # the caches' folder is removed


def test_the_child_says_what_install_refused(tmp_path):
    """On this machine install() refuses (no XPU torch): the child's result
    line says so, and the bench turns it into one line."""
    pytest.importorskip("torch")
    with pytest.raises(bench.BenchError) as err:
        bench.time_start("cold start", str(tmp_path), device="xpu")
    assert str(err.value).startswith("the cold start process failed: install() gave not-xpu: nothing installed: ")


@pytest.mark.parametrize("keep", [False, True])
def test_the_caches_folder_is_removed_unless_kept(monkeypatch, tmp_path, keep):
    made: list[str] = []

    def fake_bench(time_launches: Any, time_start: Any, **kw: Any) -> int:
        made.extend(str(p) for p in tmp_path.iterdir())
        return 0

    monkeypatch.setattr(bench, "run_bench", fake_bench)
    monkeypatch.setitem(sys.modules, "torch._inductor.config", object())
    lines: list[str] = []
    assert bench.runner(bench.Options(folder=str(tmp_path), keep=keep), out=lines.append)(None) == 0
    assert len(made) == 1 and Path(made[0]).name.startswith("xslbench-")
    assert Path(made[0]).exists() is keep
    assert lines == ([f"bench: the cold and warm starts' caches are kept in {made[0]}"] if keep else [])
