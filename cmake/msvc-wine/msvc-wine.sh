#!/usr/bin/env bash
# Runs an MSVC tool (cl, link, lib, dumpbin, rc, mt), or with `run` a program
# built with them, under wine:
#   XSL_MSVC_ROOT=<toolchain> WINEPREFIX=<prefix> msvc-wine.sh TOOL [ARGS...]
# The toolchain is what `scripts/msvc_toolchain.py setup` unpacked; the
# wrappers that `scripts/msvc_toolchain.py wrappers` writes set both
# variables. Linux absolute paths in a tool's arguments (alone, after an
# option such as /Fo or -I, or inside an @response file) become Z:/ paths,
# since cl reads /wide/src/... as the option /w; /showIncludes lines turn back
# into Linux paths, so Ninja's dependency records name files that exist.
set -uo pipefail
root=${XSL_MSVC_ROOT:?set XSL_MSVC_ROOT to the folder scripts/msvc_toolchain.py setup printed}
: "${WINEPREFIX:?set WINEPREFIX to a private wine prefix (in the build tree)}"
[ -f "$root/toolchain.env" ] || {
  echo "msvc-wine.sh: no $root/toolchain.env; run: python3 scripts/msvc_toolchain.py setup" >&2
  exit 2
}
# shellcheck source=/dev/null
. "$root/toolchain.env"
export INCLUDE LIB WINEPREFIX
# link /MANIFEST:EMBED runs rc.exe (and cvtres.exe) found on the Windows PATH.
export WINEPATH="Z:$XSL_MSVC_SDK_BIN;Z:$XSL_MSVC_BIN"
export WINEDEBUG="${WINEDEBUG:--all}"
# No Mono or Gecko installer prompts when wine creates the prefix.
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"

tool=${1:?usage: msvc-wine.sh cl|link|lib|dumpbin|rc|mt|run [ARGS...]}
shift
case $tool in
  rc | mt) exe="$XSL_MSVC_SDK_BIN/$tool.exe" ;;
  cl | link | lib | dumpbin) exe="$XSL_MSVC_BIN/$tool.exe" ;;
  run) exe="" ;;
  *) echo "msvc-wine.sh: unknown tool '$tool' (cl, link, lib, dumpbin, rc, mt, run)" >&2; exit 2 ;;
esac
wine=/usr/lib/wine/wine64
server=/usr/lib/wine/wineserver64
if [ -n "${XSL_WINE:-}" ]; then
  wine=$XSL_WINE # a stand-in (tests of this script)
  server=""
elif [ ! -x "$wine" ]; then
  wine=$(command -v wine64 || command -v wine) || {
    echo "msvc-wine.sh: wine64 not found; install Debian's wine64" >&2
    exit 2
  }
  server=$(command -v wineserver64 || command -v wineserver || true)
fi
mkdir -p "$WINEPREFIX"
# A wine start costs 1-2 s when it also starts the prefix's server, 0.3 s
# when the server is up: keep it up until 60 s after the last program ends.
# (It returns at once, and does nothing when a server is running.)
[ -z "$server" ] || "$server" -p60 </dev/null >/dev/null 2>&1 || true

# Output goes through files, never a pipe: the first program after the
# server starts also starts wine's services (winedevice, services), which
# inherit its descriptors and live as long as the server; a pipe would keep
# the reader (CMake, ctest, Ninja) waiting for them.
tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT

if [ "$tool" = run ]; then
  "$wine" "$@" >"$tmpdir/out" 2>"$tmpdir/err"
  status=$?
  cat "$tmpdir/out"
  cat "$tmpdir/err" >&2
  exit "$status"
fi

# Top-level folders of /: a Linux absolute path starts with one of them; no
# MSVC option does (/W4, /OUT:, /link are not folders).
tops=$(cd / && ls -d -- */ 2>/dev/null | tr -d / | paste -sd'|')
# A whole argument that is a path is tried first: /srv/lib/x.cpp must not
# be read as the option /srv with the path /lib/x.cpp.
path_re="^/($tops)(/.*)?$"
option_path_re="^([-/@][^/]*)(/($tops)(/.*)?)$"

args=()
for a in "$@"; do
  if [[ $a == @* && -f ${a#@} ]]; then
    # A response file (CMake writes them for long link lines): converted copy.
    rsp="$tmpdir/${#args[@]}.rsp"
    sed -E "s#(^|[[:space:]\"':])/($tops)/#\\1Z:/\\2/#g" "${a#@}" > "$rsp"
    a="@Z:$rsp"
  elif [[ $a =~ $path_re ]]; then
    a="Z:$a"
  elif [[ $a =~ $option_path_re ]]; then
    a="${BASH_REMATCH[1]}Z:${BASH_REMATCH[2]}"
  fi
  args+=("$a")
done

"$wine" "$exe" "${args[@]}" </dev/null >"$tmpdir/out" 2>"$tmpdir/err"
status=$?
# A tool that fails says why; wine has ended cl with status 1 and no output
# at all (once in a CI run, on a file the rerun compiled): run it once more.
if [ "$status" != 0 ] && [ ! -s "$tmpdir/out" ] && [ ! -s "$tmpdir/err" ]; then
  "$wine" "$exe" "${args[@]}" </dev/null >"$tmpdir/out" 2>"$tmpdir/err"
  status=$?
fi
# stdout: CR LF to LF, and "Note: including file: Z:\a\b" (or Z:/a\b, for
# a header found through INCLUDE) to "... /a/b".
# A header named in another case than on disk (<windows.h> is Windows.h in
# the SDK) gets the name on disk: Ninja must find every file it records.
prefix="Note: including file: "
sed -E -e 's/\r$//' \
  -e '/^Note: including file: +[Zz]:[\\/]/{s/( +)[Zz]:/\1/; s#\\#/#g}' "$tmpdir/out" |
  while IFS= read -r line; do
    if [[ $line == "$prefix"* ]]; then
      path=${line#"$prefix"}
      path=${path#"${path%%[! ]*}"}
      if [[ $path == /* && ! -e $path ]]; then
        found=$(find "${path%/*}" -maxdepth 1 -iname "${path##*/}" -print -quit 2>/dev/null)
        [ -z "$found" ] || line=${line%"$path"}$found
      fi
    fi
    printf '%s\n' "$line"
  done
cat "$tmpdir/err" >&2
# mt /notify_update exits 0x41020001 when it changed the manifest; wine
# leaves its low byte (1), CMake's link step on a POSIX host expects 187.
if [ "$tool" = mt ] && [ "$status" = 1 ] && [[ " $* " == *" /notify_update "* ]]; then
  status=187
fi
exit "$status"
