"""Compile one tiny kernel with torch.compile and tell whether Inductor
launched it through the static launcher.

``python -m xpu_static_launcher verify`` runs ``install()`` (unless
``--no-install``: a torch with its own launcher, e.g. a patched build), then
compiles ``relu(x * 2 + y).sum(-1)`` on ``xpu`` with
``use_static_triton_launcher`` and the caches off, and counts which launcher
Inductor set up for each kernel: ``StaticTritonCompileResult`` (static) or
``TritonCompileResult`` (Triton's Python launcher, a fallback). It passes
when at least one kernel was static and none fell back. Every refusal is
recorded with Inductor's own reason (``CannotStaticallyLaunchKernel``).

Where something it needs is missing (torch, an XPU build, a GPU, Triton-XPU,
a C compiler for Triton-XPU's helper modules) it prints one line that says
which and how to get it, and exits 1.

``--bench`` (``xpu_static_launcher.bench``) then times a small compiled model:
static launch against Triton's own launch, and a cold against a warm start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import ntpath
import os
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

XPU_WHEEL_INDEX = "https://download.pytorch.org/whl/xpu"
HEURISTICS = "torch._inductor.runtime.triton_heuristics"
# What Triton raises when it finds no compiler for its helper modules (its
# runtime/build.py: "Failed to find C compiler. Please specify via CC ...",
# and "C++" for the C++ build Triton-XPU uses).
NO_C_COMPILER = re.compile(r"Failed to find C(\+\+)? compiler[^\n]*")
# Where vcvars64.bat is: <Program Files>\Microsoft Visual Studio\<folder>\<edition>\...
# VS 2022 installs under "2022", VS 2026 under "18" (its major version).
VS_FOLDERS = (("18", "VS 2026"), ("2022", "VS 2022"))
VS_EDITIONS = ("Community", "Professional", "Enterprise", "BuildTools")
VCVARS = ("VC", "Auxiliary", "Build", "vcvars64.bat")
VERIFY_AGAIN = "python -m xpu_static_launcher verify"


class VerifyError(RuntimeError):
    """Something verify needs is missing; the message is the one line to print."""


@dataclasses.dataclass
class Launches:
    """What Inductor set up for each compiled kernel."""

    static: list[str] = dataclasses.field(default_factory=list)
    fallback: list[str] = dataclasses.field(default_factory=list)
    refusals: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.static) and not self.fallback

    def summary(self) -> str:
        kinds = ", ".join(sorted(set(self.static)))
        text = f"static launches set up: {len(self.static)}" + (f" ({kinds})" if kinds else "")
        text += f"; fallbacks: {len(self.fallback)}"
        if self.refusals:
            text += "; Inductor refused static launch: " + "; ".join(sorted(set(self.refusals)))
        return text


def require_xpu(import_module: Callable[[str], Any] = importlib.import_module) -> Any:
    """torch, when it is an XPU build that sees a GPU, and Triton-XPU is
    importable; else VerifyError with the one line that says what is missing."""
    try:
        torch = import_module("torch")
    except ImportError as err:
        raise VerifyError(
            f"torch cannot be imported ({err}); install a PyTorch XPU wheel: "
            f"pip install torch --index-url {XPU_WHEEL_INDEX}"
        ) from err
    version = getattr(torch, "__version__", "?")
    xpu = getattr(torch, "xpu", None)
    compiled = getattr(xpu, "_is_compiled", None)
    if xpu is None or compiled is None or not compiled():
        raise VerifyError(
            f"torch {version} is not an XPU build; install a PyTorch XPU wheel: "
            f"pip install torch --index-url {XPU_WHEEL_INDEX}"
        )
    if not xpu.is_available():
        raise VerifyError(
            f"torch {version} sees no XPU device (torch.xpu.is_available() is False): verify "
            "needs an Intel GPU and its driver"
        )
    try:
        import_module("triton.backends.intel")
    except ImportError as err:
        raise VerifyError(
            f"Triton-XPU cannot be imported ({err}); install the pytorch-triton-xpu that torch "
            f"{version} pins (pip install pytorch-triton-xpu==<version> --index-url "
            f"{XPU_WHEEL_INDEX}; python scripts/doctor.py names the version)"
        ) from err
    return torch


def _program_files(environ: Mapping[str, str]) -> list[str]:
    return [
        environ.get("ProgramFiles") or r"C:\Program Files",
        environ.get("ProgramFiles(x86)") or r"C:\Program Files (x86)",
    ]


def _vcvars64(root: str, folder: str, edition: str) -> str:
    return ntpath.join(root, "Microsoft Visual Studio", folder, edition, *VCVARS)


def vcvars64_candidates(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, "VS 2026" or "VS 2022") for every place vcvars64.bat of Visual
    Studio 2026 or 2022 installs to, any edition, newest first (Windows
    paths, whatever the host)."""
    return [
        (_vcvars64(root, folder, edition), name)
        for folder, name in VS_FOLDERS
        for edition in VS_EDITIONS
        for root in _program_files(environ)
    ]


def _is_windows() -> bool:
    return os.name == "nt"


def _is_file(path: str) -> bool:
    return os.path.isfile(path)


def no_c_compiler(
    triton_text: str,
    *,
    windows: bool | None = None,
    environ: Mapping[str, str] | None = None,
    exists: Callable[[str], bool] | None = None,
) -> str:
    """The one line for Triton's "Failed to find C compiler" (``triton_text``,
    its own sentence): on Windows, the Visual Studio prompt to open or the
    vcvars64.bat to run (the one found here, else where it installs).
    ``windows``, ``environ`` and ``exists`` replace the platform, os.environ
    and the file probe (tests)."""
    windows = _is_windows() if windows is None else windows
    exists = exists or _is_file
    if not windows:
        return (
            f"Triton-XPU found no C compiler for the helper modules it builds at the first torch.compile "
            f"({triton_text}); install one (Debian/Ubuntu: sudo apt install g++) or name it in CC and CXX, "
            f"then run {VERIFY_AGAIN} again"
        )
    environ = os.environ if environ is None else environ
    head = (
        f"Triton-XPU found no C compiler: it builds its helper modules with cl.exe at the first "
        f"torch.compile, and cl.exe is not on PATH ({triton_text}); "
    )
    found = next(((path, name) for path, name in vcvars64_candidates(environ) if exists(path)), None)
    if found is not None:
        path, name = found
        return (
            head + f'open an "x64 Native Tools Command Prompt for {name}" from the Start menu, or in cmd '
            f'run "{path}" (from PowerShell: cmd /k "{path}"), then run {VERIFY_AGAIN} again in that '
            "prompt"
        )
    example = _vcvars64(_program_files(environ)[0], "2022", "Community")
    return (
        head + 'open an "x64 Native Tools Command Prompt for VS 2022" (or for VS 2026) from the Start menu, '
        f'or in cmd run "{example}" (from PowerShell: cmd /k "<that path>"; the pattern is <Program Files '
        "or Program Files (x86)>\\Microsoft Visual Studio\\<2022, or 18 for VS 2026>\\<Community, Professional, "
        "Enterprise or BuildTools>\\VC\\Auxiliary\\Build\\vcvars64.bat; none was found there, so install Visual "
        f'Studio with "Desktop development with C++" if it is missing), then run {VERIFY_AGAIN} again in that '
        "prompt"
    )


def _chain_text(err: BaseException) -> str:
    """The messages of an exception and of those it was raised from or
    during (Inductor wraps Triton's errors, sometimes more than once)."""
    texts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts.append(str(current))
        current = current.__cause__ or current.__context__
    return "\n".join(texts)


def compile_failure(err: BaseException, what: str = "one tiny kernel", **probes: Any) -> str:
    """The one line (after "verify: FAILED: ") for a failed torch.compile of
    ``what``: the missing C compiler said plainly (``probes``:
    ``no_c_compiler``'s), else the error's type and first line."""
    match = NO_C_COMPILER.search(_chain_text(err))
    if match is not None:
        return no_c_compiler(match.group(0).strip(), **probes)
    first = (str(err).strip().splitlines() or [""])[0][:300]
    return f"torch.compile of {what} failed: {type(err).__name__}: {first}"


@contextlib.contextmanager
def launch_counter(launches: Launches) -> Iterator[None]:
    """While open, every launcher Inductor sets up is recorded in
    ``launches`` (static, fallback, and the reason of each refusal)."""
    from unittest import mock

    config = importlib.import_module("torch._inductor.config")
    heuristics = importlib.import_module(HEURISTICS)
    static_cls = heuristics.StaticTritonCompileResult
    triton_cls = heuristics.TritonCompileResult
    refused_cls = heuristics.CannotStaticallyLaunchKernel
    real_check = static_cls.can_statically_launch
    real_static = static_cls.make_launcher
    real_triton = triton_cls.make_launcher

    def checking(*check_args: Any, **check_kwargs: Any) -> Any:
        # Strict inside, so the refusal's reason reaches us; not strict outside,
        # so a refusal falls back as it would for the user and is counted.
        with config.patch({"strict_static_triton_launcher": True}):
            try:
                return real_check(*check_args, **check_kwargs)
            except refused_cls as err:
                launches.refusals.append(str(err))
                return None

    def counting_static(self: Any) -> Any:
        launches.static.append(type(self.kernel).__name__)
        return real_static(self)

    def counting_triton(self: Any) -> Any:
        launches.fallback.append(str(getattr(self.kernel, "name", "?")))
        return real_triton(self)

    with (
        mock.patch.object(static_cls, "can_statically_launch", staticmethod(checking)),
        mock.patch.object(static_cls, "make_launcher", counting_static),
        mock.patch.object(triton_cls, "make_launcher", counting_triton),
    ):
        yield


def count_launches(torch: Any, fn: Callable[..., Any], *args: Any, backend: str = "inductor") -> Launches:
    """Runs ``torch.compile(fn)(*args)`` with the static launcher on and the
    caches off, compiling in this process, and records every launcher choice.
    ``backend`` is torch.compile's (tests pass "eager" to check the hooks
    without a compile)."""
    config = importlib.import_module("torch._inductor.config")
    launches = Launches()
    settings = {
        "use_static_triton_launcher": True,
        "strict_static_triton_launcher": False,
        "compile_threads": 1,
        "force_disable_caches": True,
    }
    with launch_counter(launches), config.patch(settings):
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend=backend)
        torch.testing.assert_close(compiled(*args), fn(*args))
    return launches


def tiny_kernel(x: Any, y: Any) -> Any:
    return (x * 2 + y).relu().sum(dim=-1)


COMPILING = (
    "verify: compiling a tiny kernel with torch.compile (a first compile in this environment also "
    "builds Triton-XPU's helper modules: up to a minute) ..."
)


def say(line: str) -> None:
    """A line on stdout at once (verify's steps take seconds to a minute)."""
    print(line, flush=True)


def run(
    install_first: bool = True,
    out: Callable[[str], None] = say,
    import_module: Callable[[str], Any] = importlib.import_module,
    bench: Callable[[Any], int] | None = None,
) -> int:
    """The ``verify`` command: 0 when the kernels went through the static
    launcher, 1 otherwise (one line says why). ``bench`` (``--bench``) runs
    with torch once that passed, and its result is the command's."""
    try:
        torch = require_xpu(import_module)
    except VerifyError as err:
        out(f"verify: FAILED: {err}")
        return 1
    if install_first:
        from .torch_install import install

        result = install(verbose=False)
        out(f"install(): {result.status}: {result.message}")
        if result.status not in ("installed", "present"):
            out(f"verify: FAILED: install() gave {result.status}; the line above names the fix")
            return 1
    if not hasattr(torch._C, "_StaticXpuLauncher"):
        out(
            "verify: FAILED: torch._C._StaticXpuLauncher is missing (run without --no-install, or use a torch "
            "built with the PR stack)"
        )
        return 1
    x = torch.randn(64, 128, device="xpu")
    y = torch.randn(64, 128, device="xpu")
    out(COMPILING)
    try:
        launches = count_launches(torch, tiny_kernel, x, y)
    except Exception as err:  # the compile itself failed: say so in one line
        out(f"verify: FAILED: {compile_failure(err)}")
        return 1
    out(launches.summary())
    if launches.ok:
        out("verify: OK: Inductor launched every kernel through torch._C._StaticXpuLauncher")
        return 0 if bench is None else bench(torch)
    why = (
        "no kernel went through the static launcher"
        if not launches.static
        else f"{len(launches.fallback)} kernel(s) fell back to Triton's launcher"
    )
    out(f"verify: FAILED: {why} (reasons above)")
    return 1


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m xpu_static_launcher.verify",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run_arguments(parser.parse_args(argv))


def add_arguments(parser: Any) -> None:
    """verify's options (``python -m xpu_static_launcher verify`` and
    ``python -m xpu_static_launcher.verify``)."""
    from . import bench

    parser.add_argument(
        "--no-install", action="store_true", help="do not run install() first (a torch with its own launcher)"
    )
    bench.add_arguments(parser)


def run_arguments(args: Any) -> int:
    """Runs verify with the options ``add_arguments`` defined."""
    from . import bench

    return run(install_first=not args.no_install, bench=bench.from_arguments(args, not args.no_install))


if __name__ == "__main__":
    raise SystemExit(main())
