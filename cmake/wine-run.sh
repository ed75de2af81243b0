#!/usr/bin/env bash
# Runs a Windows executable under wine with a private, quiet prefix.
# Used as CMAKE_CROSSCOMPILING_EMULATOR by the windows-mingw preset.
set -euo pipefail
export WINEDEBUG="${WINEDEBUG:--all}"
export WINEPREFIX="${WINEPREFIX:-${XSL_WINEPREFIX:-$HOME/.cache/xsl-wine}}"
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"
mkdir -p "$WINEPREFIX"
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine)
exec "$wine" "$@"
