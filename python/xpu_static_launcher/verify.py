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

Where something it needs is missing (torch, an XPU build, a GPU, Triton-XPU)
it prints one line that says which and how to get it, and exits 1.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable, List, Optional

XPU_WHEEL_INDEX = "https://download.pytorch.org/whl/xpu"
HEURISTICS = "torch._inductor.runtime.triton_heuristics"


class VerifyError(RuntimeError):
    """Something verify needs is missing; the message is the one line to print."""


@dataclasses.dataclass
class Launches:
    """What Inductor set up for each compiled kernel."""

    static: List[str] = dataclasses.field(default_factory=list)
    fallback: List[str] = dataclasses.field(default_factory=list)
    refusals: List[str] = dataclasses.field(default_factory=list)

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
        raise VerifyError(f"torch cannot be imported ({err}); install a PyTorch XPU wheel: "
                          f"pip install torch --index-url {XPU_WHEEL_INDEX}") from err
    version = getattr(torch, "__version__", "?")
    xpu = getattr(torch, "xpu", None)
    compiled = getattr(xpu, "_is_compiled", None)
    if xpu is None or compiled is None or not compiled():
        raise VerifyError(f"torch {version} is not an XPU build; install a PyTorch XPU wheel: "
                          f"pip install torch --index-url {XPU_WHEEL_INDEX}")
    if not xpu.is_available():
        raise VerifyError(f"torch {version} sees no XPU device (torch.xpu.is_available() is False): verify "
                          "needs an Intel GPU and its driver")
    try:
        import_module("triton.backends.intel")
    except ImportError as err:
        raise VerifyError(f"Triton-XPU cannot be imported ({err}); install the pytorch-triton-xpu that torch "
                          f"{version} pins (pip install pytorch-triton-xpu==<version> --index-url "
                          f"{XPU_WHEEL_INDEX}; python scripts/doctor.py names the version)") from err
    return torch


def count_launches(torch: Any, fn: Callable[..., Any], *args: Any,
                   backend: str = "inductor") -> Launches:
    """Runs ``torch.compile(fn)(*args)`` with the static launcher on and the
    caches off, compiling in this process, and records every launcher choice.
    ``backend`` is torch.compile's (tests pass "eager" to check the hooks
    without a compile)."""
    from unittest import mock

    config = importlib.import_module("torch._inductor.config")
    heuristics = importlib.import_module(HEURISTICS)
    static_cls = heuristics.StaticTritonCompileResult
    triton_cls = heuristics.TritonCompileResult
    refused_cls = heuristics.CannotStaticallyLaunchKernel
    launches = Launches()
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

    settings = {"use_static_triton_launcher": True, "strict_static_triton_launcher": False,
                "compile_threads": 1, "force_disable_caches": True}
    with mock.patch.object(static_cls, "can_statically_launch", staticmethod(checking)), \
            mock.patch.object(static_cls, "make_launcher", counting_static), \
            mock.patch.object(triton_cls, "make_launcher", counting_triton), \
            config.patch(settings):
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend=backend)
        torch.testing.assert_close(compiled(*args), fn(*args))
    return launches


def tiny_kernel(x: Any, y: Any) -> Any:
    return (x * 2 + y).relu().sum(dim=-1)


def run(install_first: bool = True, out: Callable[[str], None] = print,
        import_module: Callable[[str], Any] = importlib.import_module) -> int:
    """The ``verify`` command: 0 when the kernels went through the static
    launcher, 1 otherwise (one line says why)."""
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
        out("verify: FAILED: torch._C._StaticXpuLauncher is missing (run without --no-install, or use a torch "
            "built with the PR stack)")
        return 1
    x = torch.randn(64, 128, device="xpu")
    y = torch.randn(64, 128, device="xpu")
    try:
        launches = count_launches(torch, tiny_kernel, x, y)
    except Exception as err:  # the compile itself failed: say so in one line
        first = (str(err).strip().splitlines() or [""])[0][:300]
        out(f"verify: FAILED: torch.compile of one tiny kernel failed: {type(err).__name__}: {first}")
        return 1
    out(launches.summary())
    if launches.ok:
        out("verify: OK: Inductor launched every kernel through torch._C._StaticXpuLauncher")
        return 0
    why = "no kernel went through the static launcher" if not launches.static else \
        f"{len(launches.fallback)} kernel(s) fell back to Triton's launcher"
    out(f"verify: FAILED: {why} (reasons above)")
    return 1


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m xpu_static_launcher.verify", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-install", action="store_true",
                        help="do not run install() first (a torch with its own launcher)")
    args = parser.parse_args(argv)
    return run(install_first=not args.no_install)


if __name__ == "__main__":
    raise SystemExit(main())
