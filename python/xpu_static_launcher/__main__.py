"""python -m xpu_static_launcher: make install() happen at every interpreter
start, or stop it; or check what install() does here.

  enable-at-startup [--user | --site-dir DIR]   write the .pth file
  disable-at-startup [--user | --site-dir DIR]  remove it
  check [--no-zebin]                            run install() once and print it
                                                (exit 0: installed or present)
  verify [--no-install]                         compile one tiny kernel with torch.compile
                                                and say whether it was launched statically
  cache [--clear]                               where the kept native binaries of SPIR-V
                                                kernels are, how many, and how large; --clear
                                                removes them

check exits 0 for installed (the launcher is set and Inductor launches kernels
statically: as SPIR-V with a backend that loads it, which needs no ocloc, or
as zebins) and present (torch has one), 1 otherwise. When the launcher is set
but Inductor launches nothing statically (installed-spirv: kernels stay SPIR-V
and this backend or this torch cannot launch them), the line starts with
"not static:" and names the fix.

The .pth file goes into this environment's site-packages (``--user``: the
user site folder; ``--site-dir``: any folder Python processes .pth files
in). Python runs it at start-up; it only arms a hook that calls install()
when torch's Inductor is imported (see xpu_static_launcher._startup).
Stdlib only.
"""

from __future__ import annotations

import argparse
import site
import sys
import sysconfig
from pathlib import Path
from typing import List, Optional

PTH_NAME = "xpu_static_launcher-startup.pth"
# One line: a .pth line that starts with "import" is executed. It does nothing
# when the package has been uninstalled since.
PTH_LINE = ("import importlib.util as _xsl_u; _xsl_u.find_spec('xpu_static_launcher') is not None "
            "and __import__('xpu_static_launcher._startup'); del _xsl_u\n")


def site_dir(user: bool, explicit: Optional[str]) -> Path:
    if explicit:
        return Path(explicit)
    if user:
        if not site.ENABLE_USER_SITE:
            raise SystemExit("error: --user: this Python has the user site folder turned off "
                             "(a virtual environment or -s); leave out --user to use the environment's "
                             "site-packages")
        return Path(site.getusersitepackages())
    return Path(sysconfig.get_paths()["purelib"])


def enable(folder: Path, where: str) -> int:
    path = folder / PTH_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(PTH_LINE, encoding="utf-8")
    except OSError as err:
        print(f"error: cannot write {path}: {err.strerror}; use --user, or run with rights to that folder",
              file=sys.stderr)
        return 1
    print(f"wrote {path}: every Python start in this environment now calls xpu_static_launcher.install() "
          f"when torch's Inductor is imported; undo with: python -m xpu_static_launcher disable-at-startup"
          f"{where}")
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


# check's line when the launcher is set but nothing will be launched
# statically: it must not read as a success.
NOT_STATIC = "not static: "


def check(zebin: Optional[bool]) -> int:
    from . import install

    result = install(zebin, verbose=False)
    if result.installed and not result.static:
        print(NOT_STATIC + result.message)
        print("check: no kernel will be launched statically (the reason and the fix are named above); "
              "python scripts/doctor.py says more", file=sys.stderr)
    else:
        print(result.message)
    return 0 if result.status in ("installed", "present") else 1


def cache(clear: bool) -> int:
    """The kept native binaries (XSL_KERNEL_CACHE, XSL_KERNEL_CACHE_DIR,
    XSL_KERNEL_CACHE_MAX_MB; docs/launcher.md)."""
    try:
        from . import _launcher as module
    except ImportError as err:
        print(f"error: the package's launcher module cannot be imported ({err}); reinstall the package",
              file=sys.stderr)
        return 1
    info = module._kernel_cache_info()
    if not info["enabled"]:
        print(f"the kept native binaries are off: {info['disabled_why']}")
        return 0
    bound = f"{info['max_bytes'] >> 20} MiB" if info["max_bytes"] else "no bound"
    print(f"{info['folder']}: {info['entries']} kept native binaries, {info['bytes'] / 1e6:.1f} MB "
          f"(bound {bound}; XSL_KERNEL_CACHE_DIR moves it, XSL_KERNEL_CACHE_MAX_MB bounds it, "
          "XSL_KERNEL_CACHE=0 turns it off)")
    if clear:
        print(f"removed {module._kernel_cache_clear()} kept native binaries; each SPIR-V kernel is compiled "
              "again at its next load")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xpu_static_launcher", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("enable-at-startup", "write the .pth file that arms install() at every start"),
                       ("disable-at-startup", "remove that .pth file")):
        cmd = sub.add_parser(name, help=text)
        where = cmd.add_mutually_exclusive_group()
        where.add_argument("--user", action="store_true", help="the user site folder instead of site-packages")
        where.add_argument("--site-dir", help="this folder instead of site-packages")
    chk = sub.add_parser("check", help="run install() in this process and print what it did: exit 0 when "
                                       "Inductor will launch kernels statically (SPIR-V or zebin)")
    chk.add_argument("--no-zebin", action="store_true",
                     help="do not switch Inductor to zebin (with a backend that loads SPIR-V, kernels then stay "
                          "SPIR-V and are still launched statically)")
    ver = sub.add_parser("verify", help="compile one tiny Triton kernel with torch.compile and report whether it "
                                        "went through the static launcher (needs Triton-XPU and an Intel GPU)")
    ver.add_argument("--no-install", action="store_true",
                     help="do not run install() first (a torch with its own launcher)")
    kept = sub.add_parser("cache", help="show the kept native binaries of SPIR-V kernels (compiled by the GPU "
                                        "driver at a first load, loaded instead of compiling afterwards)")
    kept.add_argument("--clear", action="store_true", help="remove every kept native binary")
    args = parser.parse_args(argv)
    if args.command == "cache":
        return cache(args.clear)
    if args.command == "verify":
        from . import verify

        return verify.run(install_first=not args.no_install)
    if args.command == "check":
        return check(False if args.no_zebin else None)
    folder = site_dir(args.user, args.site_dir)
    if args.command == "disable-at-startup":
        return disable(folder)
    return enable(folder, " --user" if args.user else f" --site-dir {folder}" if args.site_dir else "")


if __name__ == "__main__":
    sys.exit(main())
