#!/bin/sh
# The layering rules of SPEC §1, checked on every operating system skillctl
# builds for:
#
# 1. pkg/** holds skillctl's behaviour and must not depend on the
#    command-line layer (cobra, lipgloss, cmd/, or the terminal packages
#    internal/render and internal/iostreams), in its code or its tests.
# 2. Imports point down:
#      cmd → use cases → source, lock, archive, findings, catalog, skilltree
#          → skill, agents, config → internal
#    A package imports only packages of a lower layer, or of its own layer
#    where that layer allows it. Use cases do not import one another, except
#    the checks (validate, audit), which any use case may call; index may
#    call pack (well-known archives), and mcp may call index and run.
set -eu
GO=${GO:-go}
mod=github.com/skillctl/skillctl
status=0
for os in linux darwin windows; do
	GOOS=$os $GO list ./pkg/... ./internal/... >/dev/null || exit 1
done

forbidden='^(github\.com/spf13/cobra|github\.com/charmbracelet/lipgloss|github\.com/skillctl/skillctl/cmd|github\.com/skillctl/skillctl/internal/(render|iostreams))(/|$)'
format='{{$p := .ImportPath}}{{range .Deps}}{{$p}} {{.}}
{{end}}{{range .TestImports}}{{$p}} {{.}}
{{end}}{{range .XTestImports}}{{$p}} {{.}}
{{end}}'
bad=$(for os in linux darwin windows; do GOOS=$os $GO list -f "$format" ./pkg/...; done |
	awk -v re="$forbidden" '$2 ~ re' | sort -u)
if [ -n "$bad" ]; then
	echo "$bad" | while read -r pkg dep; do
		echo "$pkg depends on $dep" >&2
	done
	echo "pkg/ must not depend on the command-line layer: move that code to cmd/ or internal/, or pass what pkg/ needs in as plain values" >&2
	status=1
fi

# Direct imports of the code (tests may use any package to build fixtures).
direct=$(for os in linux darwin windows; do
	GOOS=$os $GO list -f '{{$p := .ImportPath}}{{range .Imports}}{{$p}} {{.}}
{{end}}' ./pkg/... ./internal/...
done | sort -u)

wrong=$(echo "$direct" | awk -v mod="$mod/" '
function layer(p) {
	sub(mod, "", p)
	if (p ~ /^internal\/(atomicfs|ctxio|safetext)$/) return 0
	if (p ~ /^internal\//) return 9 # tools and the terminal layer: never imported from pkg/
	if (p ~ /^pkg\/(skill|agents|config)$/) return 1
	if (p ~ /^pkg\/(source|lock|archive|archive\/archivetest|findings|catalog|skilltree)$/) return 2
	if (p ~ /^pkg\//) return 3 # use cases and checks
	return -1
}
function name(p) { sub(mod, "", p); sub(/^pkg\//, "", p); return p }
index($2, mod) == 1 && $1 ~ "^" mod "pkg/" {
	lp = layer($1); ld = layer($2); a = name($1); b = name($2)
	ok = ld < lp || (ld == lp && lp <= 2)
	if (ld == lp && lp == 3) {
		ok = b == "validate" || b == "audit" || (a == "index" && b == "pack") || (a == "mcp" && (b == "index" || b == "run"))
	}
	if (a == "validate" || a == "audit") {
		# the checks sit below the use cases: they call none of them
		ok = ld < 3
	}
	if (!ok) print a " imports " b
}')
if [ -n "$wrong" ]; then
	echo "$wrong" | sed 's/^/import against the layering of SPEC §1: /' >&2
	echo "imports point down (cmd → use cases → source, lock, archive, findings, catalog, skilltree → skill, agents, config → internal); move the shared code down a layer" >&2
	status=1
fi
exit $status
