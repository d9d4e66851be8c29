# pack, install, list, uninstall: archives in and out, in the scratch HOME.
step "Pack an example skill into a reproducible archive (prints its sha256)" \
  "$BIN" pack "$EXAMPLES/csv-report" -o "$SCRATCH/csv-report.skill"
step "Packing again gives the same bytes" \
  "$BIN" pack "$EXAMPLES/csv-report" -o "$SCRATCH/csv-report-again.skill"
step "Install the archive into the user's Claude skills folder (scratch HOME)" \
  "$BIN" install "$SCRATCH/csv-report.skill"
step "The installed skill is listed" \
  "$BIN" list
step "The lock file records where it came from" \
  cat "$HOME/.claude/skills/.skillctl-lock.json"
step "A dry run into the Codex folder changes nothing" \
  "$BIN" install "$SCRATCH/csv-report.skill" --agent codex --dry-run
step "Uninstall it" \
  "$BIN" uninstall csv-report
