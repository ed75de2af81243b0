@echo off
rem Windows entry for scripts\harness.py (stdlib Python; no other setup needed).
rem   scripts\harness.cmd            default run for this machine
rem   scripts\harness.cmd all        checkout, patch, build and test PyTorch on XPU
rem   scripts\harness.cmd doctor     explain why kernels are not launched statically
rem The Python that runs the harness also builds and tests PyTorch (unless
rem --python names another one). First found: the active venv (VIRTUAL_ENV),
rem the active conda environment (CONDA_PREFIX), python on PATH, "py -3".
rem "py -3" comes last: with a version argument it ignores an active venv.
setlocal
set "XSL_PY="
set "XSL_PY_BITS="
if defined VIRTUAL_ENV call :probe "%VIRTUAL_ENV%\Scripts\python.exe"
if not defined XSL_PY if defined CONDA_PREFIX call :probe "%CONDA_PREFIX%\python.exe"
if not defined XSL_PY call :probe python
if not defined XSL_PY call :probe py -3
if not defined XSL_PY goto nopython
if "%XSL_PY_BITS%"=="64" goto run
call :has_python_option %*
if defined XSL_HAS_PYTHON goto run
echo error: %XSL_PY% is a 32-bit Python; PyTorch needs a 64-bit Python. Activate a 64-bit venv or conda environment, or install 64-bit Python from python.org, or pass one with --python C:\path\to\python.exe. 1>&2
exit /b 2
:nopython
echo error: no Python found. Install a 64-bit Python from python.org, or activate a venv or conda environment, and retry (the harness then checks the version torch needs). 1>&2
exit /b 2
:run
%XSL_PY% "%~dp0harness.py" %*
exit /b %ERRORLEVEL%

rem Probe by running it ("where" also finds the Microsoft Store stub); the
rem exit code is its pointer size in bits.
:probe
%* -c "import struct, sys; sys.exit(8 * struct.calcsize('P'))" >nul 2>nul
set "XSL_RC=%ERRORLEVEL%"
if "%XSL_RC%"=="64" set "XSL_PY_BITS=64"
if "%XSL_RC%"=="32" set "XSL_PY_BITS=32"
if defined XSL_PY_BITS set "XSL_PY=%*"
exit /b 0

:has_python_option
set "XSL_HAS_PYTHON="
:next_arg
if "%~1"=="" exit /b 0
set "XSL_ARG=%~1"
if /i "%XSL_ARG%"=="--python" set "XSL_HAS_PYTHON=1"
if /i "%XSL_ARG:~0,9%"=="--python=" set "XSL_HAS_PYTHON=1"
shift
goto next_arg
