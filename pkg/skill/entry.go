package skill

import (
	"path"
	"strings"
)

// DefaultEntrypoints are the scripts a sandbox run looks for, in order,
// when neither --entry nor the skill's entrypoint names one (SPEC §7).
var DefaultEntrypoints = []string{"scripts/run", "scripts/run.sh", "scripts/run.py", "scripts/run.js",
	"scripts/execute.sh", "scripts/execute.py", "scripts/execute.js"}

// interpreters run a script that is not executable, by its extension.
var interpreters = map[string]string{".sh": "sh", ".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node"}

// Interpreter is the program that runs the script rel when it is not
// executable, chosen by its extension ("" when there is none).
func Interpreter(rel string) string {
	return interpreters[strings.ToLower(path.Ext(rel))]
}
