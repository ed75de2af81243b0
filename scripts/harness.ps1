# Windows PowerShell entry for scripts/harness.py (stdlib Python only).
#   .\scripts\harness.ps1            default run for this machine
#   .\scripts\harness.ps1 all        checkout, patch, build and test PyTorch on XPU
#   .\scripts\harness.ps1 doctor     explain why kernels are not launched statically
# The Python that runs the harness also builds and tests PyTorch (unless
# --python names another one). First found: the active venv (VIRTUAL_ENV),
# the active conda environment (CONDA_PREFIX), python on PATH, "py -3".
# "py -3" comes last: with a version argument it ignores an active venv.
# Windows PowerShell blocks .ps1 files by default; run it as
#   powershell -ExecutionPolicy Bypass -File scripts\harness.ps1 all
# or use scripts\harness.cmd, which works from PowerShell too.
$ErrorActionPreference = 'Stop'
$script = Join-Path $PSScriptRoot 'harness.py'
$candidates = [System.Collections.Generic.List[object]]::new()
if ($env:VIRTUAL_ENV) { $candidates.Add(@{ Exe = (Join-Path $env:VIRTUAL_ENV 'Scripts\python.exe'); Pre = @() }) }
if ($env:CONDA_PREFIX) { $candidates.Add(@{ Exe = (Join-Path $env:CONDA_PREFIX 'python.exe'); Pre = @() }) }
$candidates.Add(@{ Exe = 'python'; Pre = @() })
$candidates.Add(@{ Exe = 'py'; Pre = @('-3') })

# Probe by running it (Get-Command also finds the Microsoft Store stub); the
# exit code is its pointer size in bits.
$found = $null
$bits = 0
foreach ($candidate in $candidates) {
    if (-not (Get-Command $candidate.Exe -ErrorAction SilentlyContinue)) { continue }
    $pre = $candidate.Pre
    # Under 'Stop', Windows PowerShell 5.1 turns a native command's redirected
    # stderr (the Microsoft Store stub's message) into a terminating error:
    # probe with 'Continue' so the next candidate is still tried.
    $ErrorActionPreference = 'Continue'
    $rc = -1
    try {
        & $candidate.Exe @pre -c "import struct, sys; sys.exit(8 * struct.calcsize('P'))" 2>$null | Out-Null
        $rc = $LASTEXITCODE
    } catch {
        $rc = -1
    }
    $ErrorActionPreference = 'Stop'
    if ($rc -eq 64 -or $rc -eq 32) {
        $found = $candidate
        $bits = $rc
        break
    }
}
if (-not $found) {
    [Console]::Error.WriteLine('error: no Python found. Install a 64-bit Python from python.org, or activate a venv or conda environment, and retry (the harness then checks the version torch needs).')
    exit 2
}
$named = @($args | Where-Object { "$_" -eq '--python' -or "$_".StartsWith('--python=') }).Count -gt 0
if ($bits -ne 64 -and -not $named) {
    $shown = (@($found.Exe) + $found.Pre) -join ' '
    [Console]::Error.WriteLine("error: $shown is a 32-bit Python; PyTorch needs a 64-bit Python. Activate a 64-bit venv or conda environment, or install 64-bit Python from python.org, or pass one with --python C:\path\to\python.exe.")
    exit 2
}
$pre = $found.Pre
& $found.Exe @pre $script @args
exit $LASTEXITCODE
