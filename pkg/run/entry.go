package run

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// SandboxPath is the PATH a sandboxed script gets: the system's folders
// only (on Windows, where nothing is sandboxed, skillctl's own PATH).
func SandboxPath() string {
	if runtime.GOOS == "windows" {
		return os.Getenv("PATH")
	}
	dirs := []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}
	if runtime.GOOS == "darwin" {
		dirs = append(dirs, "/opt/homebrew/bin")
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

// ErrNoEntrypoint: the skill names no script to run and has none of the
// conventional ones. It is a skill.ErrNotFound.
var ErrNoEntrypoint error = noEntrypoint{}

type noEntrypoint struct{}

func (noEntrypoint) Error() string { return "no entrypoint" }
func (noEntrypoint) Unwrap() error { return skill.ErrNotFound }

// Entrypoint is the resolved script of a sandbox run.
type Entrypoint struct {
	Rel  string   // path inside the skill, slash-separated
	Abs  string   // absolute path under the skill's real folder
	Argv []string // what to execute, the script's arguments not included
}

// ResolveEntrypoint finds the script to run: entry (--entry), else the
// skill's entrypoint, else the first of skill.DefaultEntrypoints that exists; and
// how to run it: directly when executable (the kernel reads its shebang),
// else with sh, python3 or node by extension, else by its shebang line.
// skillDir is the skill's real folder.
func ResolveEntrypoint(s *skill.Skill, skillDir, entry string) (*Entrypoint, error) {
	rel := entry
	if rel == "" {
		rel = s.Exec.Entrypoint
	}
	if rel == "" {
		// The same search auto mode made (done once per skill).
		if rel = s.ProbeEntrypoint(); rel == "" {
			return nil, fmt.Errorf("%w: set entrypoint: in SKILL.md, or add one of %s",
				ErrNoEntrypoint, strings.Join(skill.DefaultEntrypoints, ", "))
		}
	}
	f, err := skill.OpenFile(skillDir, rel)
	if err != nil {
		return nil, fmt.Errorf("entrypoint: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	clean, _ := skill.CheckRelPath(rel)
	ep := &Entrypoint{Rel: clean, Abs: filepath.Join(skillDir, filepath.FromSlash(clean))}
	if fi.Mode()&0o111 != 0 && runtime.GOOS != "windows" {
		ep.Argv = []string{ep.Abs}
		return ep, nil
	}
	if prog := skill.Interpreter(clean); prog != "" {
		p, err := findProgram(prog)
		if err != nil {
			return nil, err
		}
		ep.Argv = []string{p, ep.Abs}
		return ep, nil
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	if strings.HasPrefix(line, "#!") {
		fields := strings.Fields(strings.TrimSpace(line[2:]))
		if len(fields) > 0 {
			ep.Argv = append(fields, ep.Abs)
			return ep, nil
		}
	}
	return nil, fmt.Errorf("cannot tell how to run %s: make it executable (chmod +x) with a #! line, or name it .sh, .py or .js", clean)
}

// findProgram looks a program up in SandboxPath (not skillctl's own PATH,
// which the script does not get).
func findProgram(name string) (string, error) {
	if runtime.GOOS == "windows" {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", skill.Mark(fmt.Errorf("%s is not installed", name), skill.ErrNotFound)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(SandboxPath()) {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", skill.Mark(fmt.Errorf("%s is not installed in the sandbox's PATH (%s)", name, SandboxPath()), skill.ErrNotFound)
}
