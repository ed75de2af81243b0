"""Load the environment's libsycl the way a Python process on this platform
must (Windows: os.add_dll_directory on the folder of sycl<N>.dll) and check
that install()'s process probe sees the major scripts/find_sycl.py reports;
with a built SYCL backend, also that it was built against that major.

Run by .github/workflows/windows-msvc.yml after `pip install .` and by
test_find_sycl.py here. Prints one line per check; exit 0 when all hold.
Usage: python tests/python/sycl_layout_check.py
"""

from __future__ import annotations

import ctypes
import os
import pkgutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main() -> int:
    sys.path.insert(0, str(REPO / "scripts"))  # as when find_sycl.py runs
    import find_sycl

    layout = find_sycl.find_sycl()
    print(f"intel-sycl-rt {layout.version}: {layout.runtime} (major {layout.major}), link {layout.library}")
    if os.name == "nt":
        os.add_dll_directory(layout.runtime_dir)  # type: ignore[attr-defined]
    ctypes.CDLL(layout.runtime)
    from xpu_static_launcher import torch_install

    loaded: list[int] = sorted(torch_install.sycl_majors(torch_install.loaded_libraries()))
    print(f"install()'s probe sees libsycl major(s) {loaded}")
    ok = loaded == [layout.major]
    import xpu_static_launcher

    # The compiled backends are _sycl_launcher_sycl<N>; _sycl_launcher
    # (Python) imports the one for the loaded libsycl.
    if any(m.name.startswith("_sycl_launcher_sycl") for m in pkgutil.iter_modules(xpu_static_launcher.__path__)):
        import xpu_static_launcher._sycl_launcher as backend

        print(f"SYCL backend built against libsycl major {backend.SYCL_MAJOR}")
        ok = ok and backend.SYCL_MAJOR == layout.major
    else:
        print("SYCL backend not in this build")
    print("ok" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
