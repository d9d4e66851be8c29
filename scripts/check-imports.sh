#!/bin/sh
# The layering rule: pkg/** holds skillctl's behaviour and must not depend on
# the command-line layer (cobra, lipgloss, cmd/, or the terminal packages
# internal/render and internal/iostreams), in its code or its tests, on any
# operating system skillctl builds for.
set -eu
GO=${GO:-go}
forbidden='^(github\.com/spf13/cobra|github\.com/charmbracelet/lipgloss|github\.com/skillctl/skillctl/cmd|github\.com/skillctl/skillctl/internal/(render|iostreams))(/|$)'
format='{{$p := .ImportPath}}{{range .Deps}}{{$p}} {{.}}
{{end}}{{range .TestImports}}{{$p}} {{.}}
{{end}}{{range .XTestImports}}{{$p}} {{.}}
{{end}}'
bad=$(for os in linux darwin windows; do GOOS=$os $GO list -f "$format" ./pkg/...; done |
	awk -v re="$forbidden" '$2 ~ re' | sort -u)
[ -z "$bad" ] && exit 0
echo "$bad" | while read -r pkg dep; do
	echo "$pkg depends on $dep" >&2
done
echo "pkg/ must not depend on the command-line layer: move that code to cmd/ or internal/, or pass what pkg/ needs in as plain values" >&2
exit 1
