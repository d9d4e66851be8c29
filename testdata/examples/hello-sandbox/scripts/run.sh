#!/bin/sh
# Reads the input JSON on stdin and greets .name (without needing jq).
input=$(cat)
name=$(printf '%s' "$input" | sed -n 's/.*"name"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
echo "Hello, ${name:-world}! (skill $SKILL_NAME, sandbox: ${SKILL_SANDBOX:-unknown})"
