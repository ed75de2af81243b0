"""python -m xpu_static_launcher: make install() happen at every interpreter
start, or stop it; check or verify what install() does here; undo it all
before pip uninstall.

  enable-at-startup [--user | --site-dir DIR]   write the .pth file
  disable-at-startup [--user | --site-dir DIR]  remove it
  check [--no-zebin]                            run install() once and say whether Inductor
                                                will launch kernels statically
  verify [--no-install] [--bench ...]           compile one tiny kernel with torch.compile
                                                and say whether it was launched statically;
                                                --bench then times static vs Triton's launch
                                                and a cold vs a warm start
  cache [--clear]                               where the kept native binaries of SPIR-V
                                                kernels are, how many, and how large; --clear
                                                removes them
  uninstall [--site-dir DIR] [--keep-cache]     remove the .pth file from every place
                                                enable-at-startup writes it and the kept
                                                native binaries, then name the pip command

check's first line says the outcome: "static (SPIR-V): " or "static (zebin): "
when Inductor will launch XPU kernels statically (the launcher is set, by
install() or by torch itself, and the kernels are zebins, or SPIR-V that
Inductor is allowed to launch), "not static: " in every other state, followed
by what install() said (with the fix when not static). Exit code 0 only for
static. No line starts with "installed" or "ok" when nothing will launch
statically.

The .pth file goes into this environment's site-packages (``--user``: the
user site folder; ``--site-dir``: any folder Python processes .pth files
in). Python runs it at start-up; it only arms a hook that calls install()
when torch's Inductor is imported (see xpu_static_launcher._startup). pip
does not know the file, so ``pip uninstall`` leaves it behind: its line then
does nothing (it imports nothing when the package cannot be found), and
``uninstall`` removes it first. Stdlib only.
"""

from __future__ import annotations

import argparse
import importlib
import os
import site
import sys
import sysconfig
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PTH_NAME = "xpu_static_launcher-startup.pth"
DISTRIBUTION = "xpu-static-launcher"
# One line: a .pth line that starts with "import" is executed. `sys` is
# loaded already, so the line imports nothing until a finder on sys.meta_path
# (the path finder, or an editable install's) finds the package as a regular
# package (a namespace package, e.g. a folder pip left behind, has no origin);
# only then does it import xpu_static_launcher._startup. So it does nothing
# once the package has been uninstalled.
PTH_LINE = (
    "import sys; any(getattr(f.find_spec('xpu_static_launcher', None), 'origin', None) "
    "for f in sys.meta_path if hasattr(f, 'find_spec')) and __import__('xpu_static_launcher._startup')\n"
)


def site_dir(user: bool, explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    if user:
        if not site.ENABLE_USER_SITE:
            raise SystemExit(
                "error: --user: this Python has the user site folder turned off "
                "(a virtual environment or -s); leave out --user to use the environment's "
                "site-packages"
            )
        return Path(site.getusersitepackages())
    return Path(sysconfig.get_paths()["purelib"])


def enable(folder: Path, where: str) -> int:
    path = folder / PTH_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(PTH_LINE, encoding="utf-8")
    except OSError as err:
        print(
            f"error: cannot write {path}: {err.strerror}; use --user, or run with rights to that folder",
            file=sys.stderr,
        )
        return 1
    print(
        f"wrote {path}: every Python start in this environment now calls xpu_static_launcher.install() "
        f"when torch's Inductor is imported; undo with: python -m xpu_static_launcher disable-at-startup"
        f"{where}"
    )
    return 0


def disable(folder: Path) -> int:
    path = folder / PTH_NAME
    if not path.exists():
        print(f"nothing to remove: {path} does not exist")
        return 0
    try:
        path.unlink()
    except OSError as err:
        print(f"error: cannot remove {path}: {err.strerror}", file=sys.stderr)
        return 1
    print(f"removed {path}")
    return 0


# check's first line when Inductor will not launch kernels statically.
NOT_STATIC = "not static: "
CHECK_NOTE = (
    "check: no kernel will be launched statically (the reason and the fix are named above); "
    "python scripts/doctor.py says more"
)


def _kernel_format() -> str | None:
    """Inductor's XPU kernel format ("spv", "zebin"), None when unknown."""
    from . import inductor_format

    return inductor_format.current_format()


def _code_holds(code: types.CodeType, text: str) -> bool:
    return any(
        const == text or (isinstance(const, types.CodeType) and _code_holds(const, text)) for const in code.co_consts
    )


def _inductor_refuses_spirv() -> bool:
    """Whether Inductor refuses to launch SPIR-V kernels statically: its
    refusal is in ``can_statically_launch`` and install() has not lifted it
    (True when that cannot be read)."""
    from . import inductor_spirv

    if inductor_spirv.is_enabled():
        return False
    try:
        heuristics = importlib.import_module(inductor_spirv.HEURISTICS)
        check = getattr(heuristics, inductor_spirv.COMPILE_RESULT).__dict__[inductor_spirv.CHECK]
        function = getattr(check, "__func__", check)
        return _code_holds(function.__code__, inductor_spirv.REFUSAL)
    except Exception:  # noqa: BLE001 - an Inductor this cannot read: assume the refusal
        return True


def _not_spirv_fix() -> str:
    """What makes Inductor use zebin here (install()'s rule)."""
    from . import inductor_format

    try:
        target, reason = inductor_format.zebin_decision()
    except ValueError as err:  # a bad TORCHINDUCTOR_XPU_KERNEL_FORMAT
        return str(err)
    if target == "spv":
        return reason
    return f"{reason}; call xpu_static_launcher.enable_zebin() before torch.compile"


def _xpu_available() -> bool:
    """torch.xpu.is_available() (install() asks it before it installs, not
    when torch has a launcher of its own)."""
    try:
        import torch

        return bool(torch.xpu.is_available())
    except Exception:  # noqa: BLE001 - no torch, or no torch.xpu
        return False


def outcome(result: Any) -> tuple[str | None, str]:
    """(kernel format launched statically, or None; check's line) for what
    install() returned."""
    status = result.status
    if status not in ("installed", "present"):
        return None, NOT_STATIC + result.message
    if status == "present" and not _xpu_available():
        return None, (
            f"{NOT_STATIC}{result.message}; but torch.xpu.is_available() is False (no Intel GPU or "
            "driver visible to torch)"
        )
    kernel_format = _kernel_format()
    if kernel_format == "zebin":
        return "zebin", f"static (zebin): {result.message}"
    if kernel_format == "spv" and not _inductor_refuses_spirv():
        return "SPIR-V", f"static (SPIR-V): {result.message}"
    if kernel_format is None:
        why = "but torch's Inductor cannot be imported, so no kernel is compiled at all"
    else:
        why = (
            f"but Inductor's XPU kernels are SPIR-V, which it refuses to launch statically with this "
            f"launcher: {_not_spirv_fix()}"
        )
    return None, f"{NOT_STATIC}{result.message}; {why}"


def check(zebin: bool | None) -> int:
    from . import install

    result = install(zebin, verbose=False)
    static, line = outcome(result)
    print(line)
    if static is None:
        print(CHECK_NOTE, file=sys.stderr)
        return 1
    return 0


def cache(clear: bool) -> int:
    """The kept native binaries (XSL_KERNEL_CACHE, XSL_KERNEL_CACHE_DIR,
    XSL_KERNEL_CACHE_MAX_MB; docs/launcher.md)."""
    try:
        from . import _launcher as module
    except ImportError as err:
        print(
            f"error: the package's launcher module cannot be imported ({err}); reinstall the package", file=sys.stderr
        )
        return 1
    info = module._kernel_cache_info()
    if not info["enabled"]:
        print(f"the kept native binaries are off: {info['disabled_why']}")
        return 0
    bound = f"{info['max_bytes'] >> 20} MiB" if info["max_bytes"] else "no bound"
    print(
        f"{info['folder']}: {info['entries']} kept native binaries, {info['bytes'] / 1e6:.1f} MB "
        f"(bound {bound}; XSL_KERNEL_CACHE_DIR moves it, XSL_KERNEL_CACHE_MAX_MB bounds it, "
        "XSL_KERNEL_CACHE=0 turns it off)"
    )
    if clear:
        print(
            f"removed {module._kernel_cache_clear()} kept native binaries; each SPIR-V kernel is compiled "
            "again at its next load"
        )
    return 0


def _same_place(paths: Sequence[Path]) -> list[Path]:
    seen: list[str] = []
    result: list[Path] = []
    for path in paths:
        key = os.path.normcase(os.path.abspath(str(path)))
        if key not in seen:
            seen.append(key)
            result.append(path)
    return result


def startup_places(site_dirs: Sequence[str] = ()) -> list[Path]:
    """Every folder enable-at-startup could have written the .pth file to
    from this Python: site-packages (purelib and platlib), the user site
    folder (when this Python has one), every folder on sys.path (each .pth
    Python processed at this start lies in one of them), and ``site_dirs``."""
    paths = sysconfig.get_paths()
    places = [Path(paths["purelib"]), Path(paths["platlib"])]
    if site.ENABLE_USER_SITE:
        places.append(Path(site.getusersitepackages()))
    places += [Path(entry) for entry in sys.path if entry and os.path.isdir(entry)]
    places += [Path(folder) for folder in site_dirs]
    return _same_place(places)


def _clear_kept_binaries() -> str:
    """cache --clear for uninstall: the line that says what was removed."""
    try:
        from . import _launcher as module
    except ImportError as err:
        return (
            f"kept native binaries not cleared: the package's launcher module cannot be imported ({err}); "
            "their folder is XSL_KERNEL_CACHE_DIR, else xpu_static_launcher in %LOCALAPPDATA% (Windows) or "
            "~/.cache"
        )
    info = module._kernel_cache_info()
    if not info["enabled"]:
        return f"kept native binaries not cleared: they are off here ({info['disabled_why']})"
    removed = module._kernel_cache_clear()
    return f"removed {removed} kept native binaries ({info['bytes'] / 1e6:.1f} MB) from {info['folder']}"


def uninstall(site_dirs: Sequence[str], keep_cache: bool) -> int:
    """Undo what the package leaves outside pip's RECORD, then name the pip
    command that removes the rest."""
    failed = False
    found = False
    places = startup_places(site_dirs)
    for folder in places:
        path = folder / PTH_NAME
        if not path.is_file():
            continue
        found = True
        try:
            path.unlink()
        except OSError as err:
            print(f"error: cannot remove {path}: {err.strerror}; run again with rights to that folder", file=sys.stderr)
            failed = True
        else:
            print(f"removed {path}")
    if not found:
        print(f"no {PTH_NAME} in: {', '.join(str(folder) for folder in places)}")
    print("kept native binaries left as they are (--keep-cache)" if keep_cache else _clear_kept_binaries())
    if failed:
        return 1
    print(f"to finish, run: pip uninstall {DISTRIBUTION}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xpu_static_launcher", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text)

    for name, text in (
        ("enable-at-startup", "write the .pth file that arms install() at every start"),
        ("disable-at-startup", "remove that .pth file"),
    ):
        cmd = command(name, text)
        where = cmd.add_mutually_exclusive_group()
        where.add_argument("--user", action="store_true", help="the user site folder instead of site-packages")
        where.add_argument("--site-dir", help="this folder instead of site-packages")
    chk = command(
        "check",
        "run install() in this process and say whether Inductor will launch XPU kernels statically: the "
        'first line starts with "static (SPIR-V)", "static (zebin)" (exit 0) or "not static" (exit 1, '
        "with the fix)",
    )
    chk.add_argument(
        "--no-zebin",
        action="store_true",
        help="do not switch Inductor to zebin (with a backend that loads SPIR-V, kernels then stay "
        "SPIR-V and are still launched statically)",
    )
    ver = command(
        "verify",
        "compile one tiny Triton kernel with torch.compile and report whether it went through the static "
        "launcher (needs Triton-XPU and an Intel GPU); with --bench, then time what static launch buys here",
    )
    from . import verify

    verify.add_arguments(ver)
    kept = sub.add_parser(
        "cache",
        help="show the kept native binaries of SPIR-V kernels (compiled by the GPU "
        "driver at a first load, loaded instead of compiling afterwards)",
    )
    kept.add_argument("--clear", action="store_true", help="remove every kept native binary")
    gone = command(
        "uninstall",
        "before pip uninstall: remove the .pth file of enable-at-startup (from site-packages, the user site "
        "folder, every folder on sys.path and each --site-dir) and the kept native binaries, then print the "
        "pip command that removes the rest",
    )
    gone.add_argument(
        "--site-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="also look in this folder (the one given to enable-at-startup --site-dir; repeatable)",
    )
    gone.add_argument("--keep-cache", action="store_true", help="leave the kept native binaries where they are")
    args = parser.parse_args(argv)
    if args.command == "cache":
        return cache(args.clear)
    if args.command == "verify":
        return verify.run_arguments(args)
    if args.command == "check":
        return check(False if args.no_zebin else None)
    if args.command == "uninstall":
        return uninstall(args.site_dir, args.keep_cache)
    folder = site_dir(args.user, args.site_dir)
    if args.command == "disable-at-startup":
        return disable(folder)
    return enable(folder, " --user" if args.user else f" --site-dir {folder}" if args.site_dir else "")


if __name__ == "__main__":
    sys.exit(main())
