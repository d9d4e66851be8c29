package skill

import (
	"os"
	"path"
	"path/filepath"
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

// ProbeEntrypoint looks in the skill's folder for the first of
// DefaultEntrypoints that is a regular file, records it (DefaultEntry) and
// returns it ("" when there is none). It costs one stat when the skill has
// no scripts/ folder, as most skills do, and is done once per skill.
func (s *Skill) ProbeEntrypoint() string {
	return s.probeEntrypoint(nil)
}

// probeEntrypoint is ProbeEntrypoint; hasScripts, when set, says whether
// the skill has a scripts folder more cheaply than a stat of its path.
func (s *Skill) probeEntrypoint(hasScripts func() bool) string {
	if s.entryProbed {
		return s.DefaultEntry
	}
	s.entryProbed = true
	if s.Dir == "" {
		return ""
	}
	if hasScripts != nil {
		if !hasScripts() {
			return ""
		}
	} else if !IsDirAt(-1, "", filepath.Join(s.Dir, "scripts")) {
		return ""
	}
	for _, cand := range DefaultEntrypoints {
		if fi, err := os.Stat(filepath.Join(s.Dir, filepath.FromSlash(cand))); err == nil && fi.Mode().IsRegular() {
			s.DefaultEntry = cand
			break
		}
	}
	return s.DefaultEntry
}

// RunMode is the mode a run of the skill uses when --mode does not say
// (SPEC §7): the declared mode, else defaultMode (config run.defaultMode),
// else auto. Auto is sandbox when the skill has an entrypoint — declared, or
// one of DefaultEntrypoints — and direct otherwise, so that every loadable
// skill runs. It probes the folder at most once.
func (s *Skill) RunMode(defaultMode string) string {
	return s.RunModeProbe(defaultMode, nil)
}

// RunModeProbe is RunMode where hasScripts (when not nil) tells whether
// the skill has a scripts folder (discovery asks by a short path).
func (s *Skill) RunModeProbe(defaultMode string, hasScripts func() bool) string {
	switch {
	case s.Exec.Mode == ModeSandbox || s.Exec.Mode == ModeDirect:
		return s.Exec.Mode
	case defaultMode == ModeSandbox || defaultMode == ModeDirect:
		return defaultMode
	case s.Exec.Entrypoint != "" || s.probeEntrypoint(hasScripts) != "":
		return ModeSandbox
	}
	return ModeDirect
}
