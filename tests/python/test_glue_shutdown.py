"""Kernel capsules freed at interpreter exit: no crash, no hang.

Since the capsule fix (PR 1 of the PyTorch stack; the project's launchers
always had it), a loaded kernel's capsule is really freed, so its
sycl::kernel destructor runs, also when the interpreter exits with kernels
still loaded: during finalization, with a launch still queued, before the
SYCL runtime's own teardown. A child process does exactly that on the real
SYCL runtime, for Unified Runtime adapter v1 and v2 over the test driver,
with the project's launchers (the package's SYCL backend, and the glue's
test module where built) and, where it was built from an upstream tree,
PyTorch's own xpu.cpp; it must exit with status 0 within the time limit and
print no error.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import glue_support
import launcher_support as support
from test_glue_sycl_runtime import CONFIGS

EXIT_TIMEOUT_S = 120
KERNELS = 8

# The child: loads KERNELS capsules, launches one (left queued), keeps every
# capsule in a module global and returns: the capsules are freed while the
# interpreter finalizes.
CHILD = textwrap.dedent(
    """
    import importlib, sys
    sys.path.insert(0, {module_dir!r})
    under_test = {under_test!r}
    if under_test == "upstream":
        import _xsl_upstream_launcher as upstream  # registers the XPU hooks first
    import torch
    import _xsl_torch_glue as glue
    if under_test == "upstream":
        launchers = [upstream._StaticXpuLauncher]
    else:
        # The package's SYCL backend, and the glue's own test module where built.
        from xpu_static_launcher import _sycl_launcher
        launchers = [_sycl_launcher._StaticXpuLauncher]
        try:
            launchers.append(importlib.import_module("_xsl_glue_launcher")._StaticXpuLauncher)
        except ImportError:
            pass
    src, dst = glue.malloc_device(4096, 0), glue.malloc_device(4096, 0)
    # A real queue: the package backend resolves stream=0 only through an XPU
    # torch's torch._C._xpu_getCurrentRawStream, which a CPU wheel lacks.
    stream = glue.current_raw_stream(0)
    KEPT = []
    for L in launchers:
        capsules = [L._load_kernel({zebin!r}, {name!r}, 0, 0)[0] for _ in range({kernels})]
        L._launch_kernel(capsules[0], 4, 1, 1, 1, 0, "OOiOO", (src, dst, 64, None, None), stream)
        KEPT.extend(capsules)
    print("loaded", len(KEPT), "capsules from", len(launchers), "launchers; exiting with them alive", flush=True)
    """
)


def _missing() -> str | None:
    return glue_support.missing() or support.missing_prerequisites()


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def _upstream_built() -> bool:
    return bool(list(glue_support.RUNTIME_MODULE_DIR.glob("_xsl_upstream_launcher*")))


@pytest.mark.parametrize("adapter", ["v1", "v2"])
@pytest.mark.parametrize("under_test", ["project", "upstream"])
def test_capsules_freed_at_exit_neither_crash_nor_hang(adapter, under_test, add_zebin, tmp_path):
    if under_test == "upstream" and not _upstream_built():
        pytest.skip(
            "no upstream build: configure with -DXSL_PYTORCH_UPSTREAM_SOURCES=<PyTorch tree "
            "with the PR stack applied> (patches/pytorch/README.md)"
        )
    script = tmp_path / "exit_with_capsules.py"
    script.write_text(
        CHILD.format(
            module_dir=str(glue_support.RUNTIME_MODULE_DIR),
            under_test=under_test,
            zebin=add_zebin,
            name=support.TRITON_ADD_KERNEL,
            kernels=KERNELS,
        )
    )
    env = glue_support.glue_environment(dict(CONFIGS[adapter]))
    try:
        result = subprocess.run(
            [sys.executable, str(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=EXIT_TIMEOUT_S,
            cwd=Path(tmp_path),
        )
    except subprocess.TimeoutExpired as hung:
        pytest.fail(
            f"the process did not exit within {EXIT_TIMEOUT_S} s after loading {KERNELS} "
            f"capsules (adapter {adapter}, {under_test}): {hung.stdout!r} {hung.stderr!r}"
        )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"exit status {result.returncode}:\n{output[-4000:]}"
    loaded = re.search(r"^loaded (\d+) capsules from (\d+) launchers", result.stdout, re.M)
    assert loaded and int(loaded.group(1)) == KERNELS * int(loaded.group(2)), output[-4000:]
    assert "Traceback" not in output and "terminate called" not in output, output[-4000:]
