#!/bin/sh
# make demo: runs each numbered part in this folder, in order, against the
# example skills in testdata/examples. Everything happens in a scratch HOME,
# never the real one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$(cd "$here/../examples" && pwd)
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/skillctl-demo.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
HOME="$SCRATCH/home"
XDG_CONFIG_HOME="$HOME/.config"
XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$HOME"
unset SKILLCTL_PATH CLAUDE_SKILLS_DIR CLAUDE_CONFIG_DIR
export HOME XDG_CONFIG_HOME XDG_STATE_HOME EXAMPLES SCRATCH BIN
cd "$SCRATCH"

# step "title" cmd...: print the command, then run it.
bold='' plain=''
if [ -t 1 ]; then bold=$(printf '\033[1m') plain=$(printf '\033[0m'); fi
step() {
  title=$1; shift
  printf '\n%s== %s%s\n$ %s\n' "$bold" "$title" "$plain" "$*" | sed "s|$BIN|skillctl|g; s|$EXAMPLES|testdata/examples|g"
  "$@"
}

for part in "$here"/[0-9]*.sh; do
  . "$part"
done
printf '\nDemo finished.\n'
