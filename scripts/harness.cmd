@echo off
rem Windows entry for scripts\harness.py (stdlib Python; no other setup needed).
rem   scripts\harness.cmd            default run for this machine
rem   scripts\harness.cmd all        checkout, patch, build and test PyTorch on XPU
rem   scripts\harness.cmd doctor     explain why kernels are not launched statically
setlocal
set "XSL_PY="
rem Probe by running it: "where" also finds the Microsoft Store stub.
py -3 -c "import sys" >nul 2>nul
if not errorlevel 1 set "XSL_PY=py -3"
if defined XSL_PY goto run
python -c "import sys" >nul 2>nul
if not errorlevel 1 set "XSL_PY=python"
if defined XSL_PY goto run
echo error: no Python found. Install 64-bit Python 3.10-3.13 from python.org and retry. 1>&2
exit /b 2
:run
%XSL_PY% "%~dp0harness.py" %*
exit /b %ERRORLEVEL%
