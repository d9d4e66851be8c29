# validate: lint skills, as authors do before a commit and CI does on every push.
step "Validate the example skills (a tree: every skill below the folder)" \
  "$BIN" validate "$EXAMPLES"
step "The same under the agentskills.io reference rules" \
  "$BIN" validate --profile spec "$EXAMPLES"
# A deliberately broken skill lives in testdata/examples-broken; validate exits 1 on it.
cd "$EXAMPLES/.."
step "Validate a broken skill: one line per finding, FILE:LINE:COL: SEVERITY RULE message" \
  "$BIN" validate examples-broken/report-helper || true
step "The same as GitHub Actions annotations" \
  "$BIN" validate --format github examples-broken/report-helper || true
cd "$SCRATCH"
