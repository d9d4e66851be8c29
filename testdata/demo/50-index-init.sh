# init and index: a new skill that is valid at once, and catalogs for agents.
step "Create a new sandbox skill (valid under every profile from the start)" \
  "$BIN" init greeter --dir "$SCRATCH/skills" --description "Greets the user by name. Use when someone says hello." --resources references
step "What init wrote" \
  cat "$SCRATCH/skills/greeter/SKILL.md"
step "Its entry point echoes its input" \
  sh -c "echo '{\"name\":\"world\"}' | \"$SCRATCH/skills/greeter/scripts/run.sh\""
step "Index the example skills: the <available_skills> block agents read" \
  "$BIN" index "$EXAMPLES"
step "The same skills as a catalog for lazy loading: folders and files" \
  "$BIN" index "$EXAMPLES" --format catalog
step "Keep a Markdown section of AGENTS.md up to date (run twice: nothing changes)" \
  sh -c "printf '# Agents\n\nProject notes.\n' > \"$SCRATCH/AGENTS.md\" && \"$BIN\" index \"$EXAMPLES\" --format markdown --style tool --write \"$SCRATCH/AGENTS.md\" && \"$BIN\" index \"$EXAMPLES\" --format markdown --style tool --write \"$SCRATCH/AGENTS.md\" && cat \"$SCRATCH/AGENTS.md\""
