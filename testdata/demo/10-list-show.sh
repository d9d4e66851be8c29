# list and show: what skills are there, and what is in one.
step "List the example skills (a table on a terminal, tab-separated in a pipe)" \
  "$BIN" list --path "$EXAMPLES"
step "The same as JSON, for scripts" \
  "$BIN" list --path "$EXAMPLES" --json
step "Show one skill: header, files, token estimate, body" \
  "$BIN" show --path "$EXAMPLES" csv-report
step "Print one file of the skill" \
  "$BIN" show --path "$EXAMPLES" csv-report --file references/FORMAT.md
