# run: direct mode fills a skill's placeholders; sandbox mode runs its
# script in the strongest isolation this machine offers.
step "Direct mode: the body of release-notes with its {{input.*}} placeholders filled" \
  "$BIN" run --path "$EXAMPLES" release-notes --input version=2.1 --input product=Acme \
  --input 'changes=- Faster startup'

step "Direct mode as one JSON document" \
  "$BIN" run --path "$EXAMPLES" release-notes --json \
  --input-json '{"version": "2.1", "product": "Acme", "changes": "- Faster startup"}'

step "A missing input is an error naming every missing placeholder (exit 2)" \
  "$BIN" run --path "$EXAMPLES" release-notes --input product=Acme || printf '(exit status %s)\n' "$?"

# Sandbox mode fails closed (exit 125) where no sandbox can be set up; the
# demo then says so and runs the script with --isolation none, labelled.
iso=auto
status=0
step "Sandbox mode: hello-sandbox's script, isolated (the stderr line says how)" \
  "$BIN" run --path "$EXAMPLES" hello-sandbox --isolation auto --input name=Ada || status=$?
if [ "$status" = 125 ]; then
  printf '\nNo sandbox is available here (exit 125, nothing ran). Running it UNSANDBOXED, explicitly:\n'
  iso=none
  step "Sandbox mode with --isolation none (UNSANDBOXED)" \
    "$BIN" run --path "$EXAMPLES" hello-sandbox --isolation none --input name=Ada
elif [ "$status" != 0 ]; then
  exit "$status"
fi

step "The result document: output, exit code, files, and the isolation achieved" \
  "$BIN" run --path "$EXAMPLES" hello-sandbox --isolation "$iso" --json --input-json '{"name": "Ada"}'

mkdir -p "$SCRATCH/slow/scripts"
cat > "$SCRATCH/slow/SKILL.md" <<'SKILL'
---
name: slow
description: Starts background work and never finishes. Used to show timeouts.
---
Run scripts/run.sh.
SKILL
cat > "$SCRATCH/slow/scripts/run.sh" <<'SCRIPT'
#!/bin/sh
sleep 600 &
setsid sleep 600 &
echo "working..."
sleep 600
SCRIPT
chmod +x "$SCRATCH/slow/scripts/run.sh"
step "A timeout stops the script and everything it started (exit 124)" \
  "$BIN" run "$SCRATCH/slow" --isolation "$iso" --timeout 1s || printf '(exit status %s)\n' "$?"

step "Every run leaves a record in \$XDG_STATE_HOME/skillctl/runs.jsonl" \
  sh -c 'wc -l < "$1"; tail -n 1 "$1"' sh "$XDG_STATE_HOME/skillctl/runs.jsonl"
