# Windows PowerShell entry for scripts/harness.py (stdlib Python only).
#   .\scripts\harness.ps1            default run for this machine
#   .\scripts\harness.ps1 all        checkout, patch, build and test PyTorch on XPU
#   .\scripts\harness.ps1 doctor     explain why kernels are not launched statically
$ErrorActionPreference = 'Stop'
$script = Join-Path $PSScriptRoot 'harness.py'
$python = Get-Command py -ErrorAction SilentlyContinue
if ($python) {
    & py -3 $script @args
} else {
    $python = Get-Command python -ErrorAction SilentlyContinue
    if (-not $python) {
        Write-Error 'No Python found. Install 64-bit Python 3.10-3.13 from python.org and retry.'
        exit 2
    }
    & python $script @args
}
exit $LASTEXITCODE
