#!/usr/bin/env bash
# Linux developer entry point (the README Quick start and .ci/run use it).
#   scripts/dev.sh run    set up, then run the main job (harness default run)
#   scripts/dev.sh test   lint, the first tier (the GCC build of what ctest
#                         runs, and ctest), set up, then build every preset
#                         and run every test
#   scripts/dev.sh lint   only the formats and static checks (seconds, no
#                         build): C++ and Python formats, ruff's lint and
#                         mypy; each failure names the command that fixes it
#   scripts/dev.sh setup  only install what the build and tests need
#   scripts/dev.sh fuzz [N]  a long fuzz campaign: the linux-fuzz preset's
#                         optimized ASan+UBSan fuzzers, N executions each
#                         (default 10000000), the corpus kept in its build
# Python packages go into the project virtual environment .venv (created on
# first use from python3 on PATH), which is then put first on PATH so CMake,
# the tests and their subprocesses use it. XSL_USE_SYSTEM_PYTHON=1 uses
# python3 on PATH as it is instead (an environment you manage yourself).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# What the first tier builds and runs its tests with: GCC, GoogleTest, the
# Level Zero loader and headers, ocloc for the corpus.
FIRST_TIER_PACKAGES=(
  cmake ninja-build g++ libgtest-dev googletest intel-opencl-icd libze1 libze-dev
  python3-dev ccache
)
# Everything the build and tests need: those and the rest.
APT_PACKAGES=(
  "${FIRST_TIER_PACKAGES[@]}"
  clang clang-format clang-tidy llvm binutils libclang-rt-dev
  g++-mingw-w64-x86-64-posix wine64
  python3-venv python3-pip patchelf unzip
  libhwloc15  # the 2025.3 Unified Runtime adapters link it
)

# The latest torch release on PyPI; its headers are checked beside 2.13.0's,
# and the glue and install() run on its wheel too.
LATEST_TORCH=2.15.0
# The intel-sycl-rt line torch XPU wheels pin; the glue runs on it too.
PINNED_SYCL=2025.3.3

# Each stage's line carries the time since the start, for the run's budget.
log() { printf '\n== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# Installs those of the given Debian packages that are missing.
install_debian_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# A full test run holds 16 GiB when done (build trees 4, the four virtual
# environments 9.5, torch 2.15.0's CUDA wheel 6.2 of it, the cached MSVC
# toolchain, wine prefix and Windows wheels 2); pip's downloads add up to 3
# early on, while the trees are small: 18 GiB with a margin. The main job
# needs 3. Running out of space half-way fails in the linker ("No space left
# on device"), so check first: what the run still has to write (its total
# less what is on disk already) must fit.
check_free_space() {
  local total_gib=$1 have_kib present_kib need_kib
  have_kib=$(df -Pk "$root" | awk 'NR == 2 { print $4 }')
  # du fails for what a fresh clone does not have yet; its total still counts.
  present_kib=$({ du -skc "$root"/build "$root"/.venv "$root"/.venv-* "$HOME"/.cache/xsl-msvc \
    "$HOME"/.cache/xsl-wine "$HOME"/.cache/xsl-windows-kit 2>/dev/null || true; } | awk 'END { print $1 + 0 }')
  need_kib=$((total_gib * 1024 * 1024 - present_kib))
  if [ "$need_kib" -gt "$have_kib" ]; then
    printf 'error: this run needs about %d GiB more free disk space on %s than it has (%.1f GiB free, %.1f GiB of its %d GiB already there); free some (old clones, build trees or virtual environments elsewhere) and run it again\n' \
      $(((need_kib - have_kib + 1048575) / 1048576)) "$(df -P "$root" | awk 'NR == 2 { print $6 }')" \
      "$(awk -v k="$have_kib" 'BEGIN { print k / 1048576 }')" \
      "$(awk -v k="$present_kib" 'BEGIN { print k / 1048576 }')" "$total_gib" >&2
    exit 2
  fi
}

setup() {
  install_debian_packages "${APT_PACKAGES[@]}"
  use_project_python
  log "installing Python packages into $(python3 -c 'import sys; print(sys.prefix)')"
  python3 -m pip install -q -r scripts/requirements-test.txt
  # Headers and Inductor sources of the latest torch release, for the glue
  # check in every build (its wheel, a CUDA build, is installed only in the
  # venv of run_glue_on_latest_torch).
  python3 tests/torch_glue/torch_headers.py fetch --version "$LATEST_TORCH" --dest build/torch-headers
  # torch 2.14.1's headers and Inductor sources (patch 0003 must also apply to
  # its utils.py; enable_zebin must cover its kernel format readers).
  python3 tests/torch_glue/torch_headers.py fetch --version 2.14.1 --dest build/torch-headers
  # Real MSVC for the windows-msvc-wine presets (docs/msvc.md), cached outside
  # the repository; without it the test run skips them and says why.
  python3 scripts/msvc_toolchain.py setup || log "the MSVC presets will be skipped"
}

# The project virtual environment, unless XSL_USE_SYSTEM_PYTHON=1. A venv also
# sidesteps Debian's externally managed python3 (PEP 668).
use_project_python() {
  if [ "${XSL_USE_SYSTEM_PYTHON:-0}" = "1" ]; then
    log "using $(command -v python3) as it is (XSL_USE_SYSTEM_PYTHON=1)"
    return
  fi
  if [ ! -x "$root/.venv/bin/python3" ]; then
    log "creating the project virtual environment .venv"
    python3 -m venv "$root/.venv" || {
      echo "error: python3 -m venv failed; install python3-venv, or set XSL_USE_SYSTEM_PYTHON=1 to use python3 as it is" >&2
      exit 2
    }
  fi
  export VIRTUAL_ENV="$root/.venv" PATH="$root/.venv/bin:$PATH"
}

# What the lint tier needs and only that, so it runs before the long set-up:
# clang-format (Debian) and the pinned ruff and mypy of requirements-test.txt
# (setup installs them too, with the rest).
setup_lint() {
  install_debian_packages clang-format
  use_project_python
  python3 -m pip install -q $(grep -E '^(ruff|mypy)==' scripts/requirements-test.txt)
}

# The fast first tier: formats and static checks, no build (pyproject.toml
# configures ruff and mypy; .clang-format the C++ format). Runs every check,
# then fails if any did, each failure with the command that fixes it.
run_lint() {
  local failed=()
  log "lint: clang-format (tracked C++), ruff check, ruff format --check, mypy (linux and win32)"
  git ls-files -z '*.cpp' '*.h' | xargs -0 clang-format --dry-run -Werror ||
    failed+=("C++ format: git ls-files -z '*.cpp' '*.h' | xargs -0 clang-format -i")
  python3 -m ruff check . ||
    failed+=("ruff lint: python3 -m ruff check --fix . (the rest by hand)")
  python3 -m ruff format --check . ||
    failed+=("Python format: python3 -m ruff format .")
  # Both platforms: the scripts run on Windows too.
  { python3 -m mypy && python3 -m mypy --platform win32 --cache-dir .mypy_cache/win32; } ||
    failed+=("types: fix what python3 -m mypy [--platform win32] reports")
  if [ ${#failed[@]} -gt 0 ]; then
    printf 'error: lint failed; to fix:\n' >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
  fi
  log "lint passed"
}

build_preset() {
  local preset=$1
  log "configure + build: $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
}

# Runs a command whose fresh GCC trees compile sources another tree compiled
# with the same flags (linux-gcc and the extra legs' glue builds; the Linux
# wheel's two SYCL lines) through ccache, so each compiles only what depends
# on its torch or SYCL. Not for MSVC (its compiler is a wine wrapper).
with_gcc_cache() {
  if command -v ccache >/dev/null; then
    CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
      CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$root" "$@"
  else
    "$@"
  fi
}

run_main() {
  python3 scripts/harness.py
}

stop_wineserver() {
  # wine leaves a server per prefix running; stop ours so nothing outlives us.
  local server=/usr/lib/wine/wineserver64
  [ -x "$server" ] || server=$(command -v wineserver || true)
  [ -n "$server" ] || return 0
  WINEPREFIX="${XSL_WINEPREFIX:-$HOME/.cache/xsl-wine}" "$server" -k 2>/dev/null || true
  local prefix
  for prefix in "$root"/build/windows-msvc-wine*/msvc-wine/prefix; do
    [ ! -d "$prefix" ] || WINEPREFIX="$prefix" "$server" -k 2>/dev/null || true
  done
}

# The first tier after lint, before the long set-up: the GCC build of what
# ctest runs, and ctest, so a broken build or unit test fails in minutes.
# Configured before pip's packages are installed, it leaves out the targets
# that need torch or SYCL; run_tests configures again and builds them.
run_first_tier() {
  install_debian_packages "${FIRST_TIER_PACKAGES[@]}"
  log "configure + build: linux-gcc (what ctest runs)"
  with_gcc_cache cmake --preset linux-gcc >/dev/null
  cmake --build --preset linux-gcc --target xsl_ctest_targets
  log "ctest: linux-gcc"
  ctest --preset linux-gcc -j2
  log "first tier passed (lint, GCC build of the tests, GCC ctest)"
}

run_tests() {
  trap 'stop_latest_torch_install; stop_wineserver' EXIT
  start_latest_torch_install
  log "configure + build: the rest of linux-gcc (the Python modules, the compiles against torch's headers)"
  cmake --preset linux-gcc >/dev/null
  cmake --build --preset linux-gcc
  # Clang builds and runs the tests in linux-asan; linux-clang (optimized)
  # is only configured: its compile commands are clang-tidy's.
  local presets=(linux-asan windows-mingw)
  log "configure: linux-clang (the compile commands clang-tidy reads)"
  cmake --preset linux-clang >/dev/null
  for p in "${presets[@]}"; do build_preset "$p"; done
  # .clang-tidy's curated checks over every C++ file of csrc/, with the
  # compile commands of linux-clang (docs/verification.md says which).
  # Its clang-diagnostic-* checks are Clang's warnings under those commands'
  # -Werror flags, so this is also the Clang compile of what linux-asan does
  # not build: the Python modules, the SYCL launch and the glue against
  # torch's headers.
  log "clang-tidy: csrc/ (with Clang's warnings)"
  run-clang-tidy -p build/linux-clang -j 2 -quiet "$root/csrc/" > build/clang-tidy.log 2>&1 || {
    grep -E "(warning|error):" build/clang-tidy.log >&2 || cat build/clang-tidy.log >&2
    echo "error: clang-tidy found the problems above (.clang-tidy has the checks; the full log is build/clang-tidy.log)" >&2
    exit 1
  }
  # C++20, torch's standard: all of csrc/ (what goes into torch) builds
  # warning-free; the tests run in the C++17 builds (and xpu.cpp compiles as
  # C++20 against torch's headers in linux-gcc and linux-clang).
  log "configure + build csrc/: linux-gcc-cxx20"
  cmake --preset linux-gcc-cxx20 >/dev/null
  cmake --build --preset linux-gcc-cxx20 --target csrc/all
  for p in "${presets[@]}"; do
    log "ctest: $p"
    ctest --preset "$p" -j2
  done
  run_threads_under_tsan
  run_msvc_wine
  if [ -x build/linux-asan/tests/fuzz/run_fuzzers.sh ]; then
    log "fuzzers"
    build/linux-asan/tests/fuzz/run_fuzzers.sh
  fi
  setup_triton_xpu
  build_wheel
  log "pytest"
  # The glue's runtime tests must run here, not skip.
  export XSL_REQUIRE_GLUE_RUNTIME=1
  XSL_BUILD_DIR="$root/build/linux-gcc" XSL_GLUE_EXPECT_TORCH=2.13.0 python3 -m pytest -q -n 2 tests/python
  run_python_under_sanitizers
  run_glue_on_pinned_sycl
  run_glue_on_latest_torch
  run_msvc_wine_modules
  log "all tests passed"
}

# The tests that run threads (the kept-binary cache's concurrent writers,
# eight threads loading and launching), built with
# ThreadSanitizer (linux-tsan, Clang); a reported race fails its test.
run_threads_under_tsan() {
  log "configure + build: linux-tsan (the threaded tests under ThreadSanitizer)"
  cmake --preset linux-tsan >/dev/null
  cmake --build build/linux-tsan --target xsl_launcher_ze_test level_zero_test \
    xsl_ze_test_driver xsl_zebin_corpus
  log "ctest: the threaded tests under ThreadSanitizer"
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/linux-tsan --output-on-failure --no-tests=error \
    -R "ConcurrentWritersLeaveOneWholeEntry|EightThreadsLoadAndLaunchConcurrently"
}

# The Python modules built with ASan+UBSan (linux-asan-python), and the tests
# that drive them through the test driver: all of csrc/python's CPython code
# runs under the sanitizers. CPython itself is not instrumented, so libasan
# is preloaded (it must come first), and leak checking is off (CPython keeps
# its own allocations at exit); UBSan stops at the first report.
run_python_under_sanitizers() {
  log "configure + build: linux-asan-python (the Python modules under ASan+UBSan)"
  cmake --preset linux-asan-python -DPython_EXECUTABLE="$(command -v python3)" >/dev/null
  cmake --build build/linux-asan-python --target _launcher _zebin _compile xsl_python_package \
    xsl_ze_test_driver xsl_ze_test_loader xsl_zebin_corpus
  # In-process tests only: a Python child (the two-device test) would load
  # libasan after CPython's own allocator, which ASan refuses, and the RSS
  # checks of the stress tests measure ASan's quarantine, not the modules.
  log "pytest: the modules' tests under ASan+UBSan"
  XSL_SANITIZED_MODULES=1 LD_PRELOAD="$(g++ -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 XSL_BUILD_DIR="$root/build/linux-asan-python" \
    python3 -m pytest -q -p no:cacheprovider tests/python/test_launcher_abi.py \
    tests/python/test_launcher_call_cache.py tests/python/test_launcher_errors.py \
    tests/python/test_launcher_scalars.py tests/python/test_launcher_stress.py \
    tests/python/test_zebin_reader.py -k "not memory_flat and not another_devices_command_list"
}

# Real MSVC under wine (docs/msvc.md): windows-msvc-wine builds every C++
# target with cl/link and runs every test binary under wine; the C++20 preset
# builds all of csrc/ (what goes into torch), not the tests again, to keep the
# run's time (a full MSVC build takes 5-8 CPU minutes here, docs/msvc.md).
# Without the toolchain, one line says why they are skipped.
run_msvc_wine() {
  local why
  if ! why=$(python3 scripts/msvc_toolchain.py status 2>&1 >/dev/null); then
    log "MSVC presets skipped: $why"
    return
  fi
  build_preset windows-msvc-wine
  log "ctest: windows-msvc-wine"
  ctest --preset windows-msvc-wine -j2
  log "configure + build csrc/: windows-msvc-wine-cxx20"
  cmake --preset windows-msvc-wine-cxx20 >/dev/null
  cmake --build --preset windows-msvc-wine-cxx20 --target csrc/all
}

# The prebuilt wheel (scripts/build_wheel.py: one SYCL backend per libsycl
# major, checked); XSL_WHEEL names it for test_wheel_build.py and for
# test_wheel_runtime.py, which installs this same file in every leg below.
build_wheel() {
  log "prebuilt wheel"
  local out
  out=$(with_gcc_cache python3 scripts/build_wheel.py --out build/dist --work build/wheel)
  printf '%s\n' "$out"
  export XSL_WHEEL="${out##*$'\n'}"
}

# The build of only what the glue tests load, for the Python of a venv (the
# corpus: the SPIR-V cases compare with its zebins; copied from its cache).
build_glue_runtime() {
  local python=$1 build=$2
  cmake --preset linux-gcc -B "$build" -DPython_EXECUTABLE="$python" >/dev/null
  cmake --build "$build" --target _sycl_launcher _launcher _zebin xsl_torch_glue_test xsl_glue_launcher_test xsl_ze_test_loader xsl_ze_test_driver \
    xsl_zebin_corpus
}

# The package's modules as .pyd, the PyTorch glue as a module against the
# Windows torch wheels, and the Windows SYCL runtime over the stand-in
# ze_loader.dll, all built by real MSVC under wine (tests/windows_sycl): the
# pinned Windows wheels unpacked (scripts/windows_build_kit.py), one build per
# SYCL line, `dumpbin` checks of every module (test_windows_pyd.py), the
# SYCL runtime test, and the win_amd64 wheel made from those builds by
# scripts/build_wheel.py and checked (test_wheel_build.py). Without the
# toolchain or the wheels, one line says why.
run_msvc_wine_modules() {
  local kit="$root/build/windows-kit" why sycl build builds=() targets
  log "Windows modules, glue and SYCL runtime with MSVC under wine"
  if ! why=$(python3 scripts/msvc_toolchain.py status 2>&1 >/dev/null); then
    log "Windows modules skipped: $why"
    return
  fi
  if ! why=$(python3 scripts/windows_build_kit.py python --dest "$kit/cpython-3.11.2" 2>&1 >/dev/null) ||
     ! why=$(python3 scripts/windows_build_kit.py wheel "torch==$LATEST_TORCH" torch==2.13.0 \
       intel-sycl-rt==2026.2.0 "intel-sycl-rt==$PINNED_SYCL" intel-cmplr-lib-ur==2026.2.0 \
       intel-cmplr-lib-rt==2026.2.0 umf==1.2.0 tcmlib==1.6.0 --dest "$kit" 2>&1 >/dev/null); then
    log "Windows modules skipped: $why"
    return
  fi
  for sycl in 2026.2.0 "$PINNED_SYCL"; do
    # Each line extends an MSVC build whose csrc/ objects are built already:
    # the pinned line the C++17 one, 2026.2.0 the C++20 one. The glue is
    # built once per torch (its compile costs a minute under wine): torch
    # 2.13.0's on the pinned line, the latest release's on 2026.2.0.
    build="$root/build/windows-msvc-wine"
    targets=(_sycl_launcher xsl_windows_glue_torch_2_13_0)
    local torch_kits="$kit/torch-2.13.0" runtime_kits=""
    if [ "$sycl" = 2026.2.0 ]; then
      build="$root/build/windows-msvc-wine-cxx20"
      # The package's other modules and the runtime test once.
      targets=(_sycl_launcher _launcher _zebin _compile "xsl_windows_glue_torch_${LATEST_TORCH//./_}"
               xsl_windows_sycl_runtime_test)
      torch_kits="$kit/torch-$LATEST_TORCH"
      runtime_kits="$kit/intel-sycl-rt-2026.2.0;$kit/intel-cmplr-lib-ur-2026.2.0;$kit/intel-cmplr-lib-rt-2026.2.0;$kit/umf-1.2.0;$kit/tcmlib-1.6.0"
    fi
    cmake --preset "$(basename "$build")" -DXSL_BUILD_PYTHON=ON \
      -DXSL_WINDOWS_PYTHON_KIT="$kit/cpython-3.11.2" \
      -DXSL_SYCL_INCLUDE_DIR="$kit/intel-sycl-rt-$sycl/Library/include" \
      -DXSL_SYCL_LIBRARY_DIR="$kit/intel-sycl-rt-$sycl/Library/lib" \
      -DXSL_WINDOWS_TORCH_KITS="$torch_kits" -DXSL_WINDOWS_SYCL_RUNTIME_KITS="$runtime_kits" >/dev/null
    cmake --build "$build" -j2 --target "${targets[@]}"
    builds+=("$build")
  done
  ctest --test-dir "${builds[0]}" -R xsl_windows_sycl_runtime_test --output-on-failure
  log "win_amd64 wheel (MSVC under wine; never published)"
  local out
  out=$(python3 scripts/build_wheel.py --platform win_amd64 --out build/dist-windows --work build/wheel-windows \
    --tree 9="${builds[0]}" --tree 8="${builds[1]}")
  printf '%s\n' "$out"
  XSL_WINDOWS_PYD_BUILDS="$(IFS=:; echo "${builds[*]}")" XSL_REQUIRE_WINDOWS_PYD=1 \
    XSL_WINDOWS_WHEEL="${out##*$'\n'}" python3 -m pytest -q tests/python/test_windows_pyd.py \
    tests/python/test_wheel_build.py::test_the_built_windows_wheel
}

# A venv that sees this environment's packages (a .pth naming its
# site-packages) and can add or override its own.
layered_venv() {
  local venv=$1 site
  [ -x "$venv/bin/python3" ] && return
  python3 -m venv "$venv"
  site=$("$venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/xsl-base-environment.pth"
}

# The glue tests again on the SYCL runtime torch XPU wheels pin: a venv that
# sees this environment's packages (torch, pytest) but has its own
# intel-sycl-rt, and a build of only what those tests load.
run_glue_on_pinned_sycl() {
  local venv="$root/.venv-sycl-$PINNED_SYCL" build="$root/build/linux-gcc-sycl-$PINNED_SYCL"
  log "glue on intel-sycl-rt $PINNED_SYCL"
  layered_venv "$venv"
  "$venv/bin/python3" -m pip install -q "intel-sycl-rt==$PINNED_SYCL"
  with_gcc_cache build_glue_runtime "$venv/bin/python3" "$build"
  XSL_BUILD_DIR="$build" XSL_GLUE_EXPECT_TORCH=2.13.0 "$venv/bin/python3" -m pytest -q -n 2 tests/python/test_glue_sycl_runtime.py \
    tests/python/test_wheel_runtime.py
}

# The glue tests, install(), enable_zebin, the SPIR-V lift, verify's hooks and the PyTorch PRs' test files on
# the latest torch release's wheel:
# PyPI's Linux wheel is a CUDA build (about 5 GB with its nvidia packages),
# which imports and runs on a machine without a GPU. Its own venv, with the
# test requirements but torch.
latest_torch_venv="$root/.venv-torch-$LATEST_TORCH"
latest_torch_log="$root/build/venv-torch-$LATEST_TORCH.log"
latest_torch_pid=""

# The latest torch's venv is installed in the background from the start of
# the test run: about 5 GB, mostly download and unpacking, so it overlaps the
# builds instead of adding its minutes at the end.
start_latest_torch_install() {
  mkdir -p "$root/build"
  log "installing torch $LATEST_TORCH into $latest_torch_venv in the background (log: $latest_torch_log)"
  (
    [ -x "$latest_torch_venv/bin/python3" ] || python3 -m venv "$latest_torch_venv"
    # A pip cap on torch (a constraints file in the pip configuration) would
    # refuse the release; this install names its version itself.
    # exec: the background job is pip itself, so stopping it stops pip.
    # The lint tools are left out: the lint runs in .venv only.
    # --no-cache-dir: pip's cache would keep another 3 GiB of wheels.
    PIP_CONSTRAINT=/dev/null exec "$latest_torch_venv/bin/python3" -m pip install -q --no-cache-dir "torch==$LATEST_TORCH" \
      $(grep -vE '^\s*(#|$|torch==|ruff==|mypy==)' scripts/requirements-test.txt)
  ) >"$latest_torch_log" 2>&1 &
  latest_torch_pid=$!
}

stop_latest_torch_install() {
  [ -z "$latest_torch_pid" ] || kill "$latest_torch_pid" 2>/dev/null || true
}

run_glue_on_latest_torch() {
  local venv="$latest_torch_venv" build="$root/build/linux-gcc-torch-$LATEST_TORCH"
  log "glue and install() on torch $LATEST_TORCH"
  if ! wait "$latest_torch_pid"; then
    cat "$latest_torch_log" >&2
    echo "error: installing torch $LATEST_TORCH into $venv failed (its log is above)" >&2
    exit 1
  fi
  latest_torch_pid=""
  with_gcc_cache build_glue_runtime "$venv/bin/python3" "$build"
  XSL_BUILD_DIR="$build" XSL_GLUE_EXPECT_TORCH="$LATEST_TORCH" "$venv/bin/python3" -m pytest -q -n 2 \
    tests/python/test_glue_sycl_runtime.py tests/python/test_torch_install.py tests/python/test_inductor_format.py \
    tests/python/test_inductor_spirv.py \
    tests/python/test_wheel_runtime.py \
    tests/python/test_verify_command.py tests/python/test_patchset_pr_tests.py
}

# triton-xpu 3.3.0b1 (PyPI, cp311 only) in a venv of its own that sees this
# environment's packages (torch, intel-sycl-rt, pytest): the pytest run then
# runs Triton-XPU's own launch path (tests/python/test_triton_xpu_launch.py).
setup_triton_xpu() {
  local venv="$root/.venv-triton"
  if ! python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    log "Triton-XPU launch tests skipped: triton-xpu 3.3.0b1 has CPython 3.11 wheels only"
    return
  fi
  log "triton-xpu 3.3.0b1 in $venv"
  layered_venv "$venv"
  "$venv/bin/python3" -m pip install -q --no-deps --require-hashes -r tests/triton_xpu/requirements.txt
  export XSL_REQUIRE_TRITON_XPU=1
}

# A campaign of N executions per fuzzer (docs/verification.md has the last
# one's figures). The linux-asan preset's fuzzers (-O0, whole files) run in
# every test run for 30 s each; these are optimized, and take inputs of at
# most XSL_FUZZ_MAX_LEN bytes (default 4096: .ze_info documents and ELF
# headers of that size, at about 3x the executions per second of whole
# files, so the readers' states are what the executions go to).
run_fuzz_campaign() {
  local runs=${1:-10000000}
  install_debian_packages clang libclang-rt-dev cmake ninja-build python3 intel-opencl-icd
  log "configure + build: linux-fuzz (fuzzers only)"
  cmake --preset linux-fuzz >/dev/null
  cmake --build build/linux-fuzz --target xsl_zebin_fuzzer xsl_kernel_file_fuzzer
  log "fuzz campaign: $runs executions per fuzzer"
  XSL_FUZZ_RUNS="$runs" XSL_FUZZ_SEED="${XSL_FUZZ_SEED:-0}" XSL_FUZZ_MAX_LEN="${XSL_FUZZ_MAX_LEN:-4096}" \
    build/linux-fuzz/tests/fuzz/run_fuzzers.sh
  log "fuzz campaign done"
}

# Line coverage of the C++ (gcov counters of the linux-coverage build, read
# by gcovr over csrc/) and of the Python package and scripts (coverage.py,
# in the pytest process and the Python subprocesses the tests start), from
# ctest and the main pytest run. Reports in build/coverage/.
run_coverage() {
  check_free_space 8
  setup
  python3 -m pip install -q -r scripts/requirements-coverage.txt
  local out="$root/build/coverage"
  rm -rf "$out"
  mkdir -p "$out"
  log "configure + build: linux-coverage"
  cmake --preset linux-coverage >/dev/null
  cmake --build --preset linux-coverage
  find build/linux-coverage -name '*.gcda' -delete
  log "ctest: linux-coverage"
  ctest --preset linux-coverage -j2
  log "pytest under coverage.py"
  cat > "$out/coveragerc" <<EOF_RC
[run]
data_file = $out/python.data
parallel = true
patch = subprocess
source =
    $root/scripts
    $root/build/linux-coverage/python/xpu_static_launcher
EOF_RC
  XSL_BUILD_DIR="$root/build/linux-coverage" XSL_GLUE_EXPECT_TORCH=2.13.0 \
    python3 -m coverage run --rcfile="$out/coveragerc" -m pytest -q -p no:cacheprovider tests/python
  python3 -m coverage combine --rcfile="$out/coveragerc" -q
  python3 -m coverage report --rcfile="$out/coveragerc" > "$out/python.txt"
  python3 -m gcovr --root "$root" --filter "$root/csrc/" --object-directory build/linux-coverage \
    --txt "$out/cpp.txt" --print-summary > "$out/cpp-summary.txt"
  cat "$out/cpp-summary.txt"
  echo "python: $(tail -1 "$out/python.txt")"
  log "coverage done (build/coverage/cpp.txt, build/coverage/python.txt)"
}

case "${1:-}" in
  setup) setup ;;
  run) check_free_space 3; setup; build_preset linux-gcc; run_main ;;
  test) setup_lint; run_lint; check_free_space 18; run_first_tier; setup; run_tests ;;
  lint) setup_lint; run_lint ;;
  fuzz) run_fuzz_campaign "${2:-}" ;;
  coverage) run_coverage ;;
  *) echo "usage: scripts/dev.sh run|test|lint|setup|fuzz [executions]|coverage" >&2; exit 2 ;;
esac
