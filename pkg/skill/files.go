package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// File types of a skill's files.
const (
	TypeMarkdown = "markdown"
	TypeScript   = "script"
	TypeTemplate = "template"
	TypeOther    = "other"
)

// File is one file of a skill folder.
type File struct {
	// Path is slash-separated, relative to the skill folder.
	Path       string      `json:"path"`
	Size       int64       `json:"size"`
	Type       string      `json:"type"`
	Executable bool        `json:"executable,omitempty"`
	Mode       fs.FileMode `json:"-"`
}

// FileInventory summarises a skill folder (the lock file and show --json use it).
type FileInventory struct {
	HasSkillMd     bool  `json:"hasSkillMd"`
	HasScripts     bool  `json:"hasScripts"`
	HasReferences  bool  `json:"hasReferences"`
	ScriptFiles    int   `json:"scriptFiles"`
	ReferenceFiles int   `json:"referenceFiles"`
	TemplateFiles  int   `json:"templateFiles"`
	TotalFiles     int   `json:"totalFiles"`
	TotalSizeBytes int64 `json:"totalSizeBytes"`
}

var scriptExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true,
	".cjs": true, ".ts": true, ".rb": true, ".pl": true, ".ps1": true, ".php": true, ".lua": true, ".fish": true}

var templateExt = map[string]bool{".tmpl": true, ".tpl": true, ".template": true, ".j2": true, ".jinja": true,
	".jinja2": true, ".hbs": true, ".mustache": true, ".liquid": true}

// FileType classifies a skill file by where it lives and what it is named:
// Markdown by extension; scripts under scripts/, by script extension or
// executable bit; templates under assets/ or templates/, or by template extension.
func FileType(rel string, mode fs.FileMode) string {
	ext := strings.ToLower(path.Ext(rel))
	top, _, _ := strings.Cut(rel, "/")
	switch {
	case ext == ".md" || ext == ".markdown" || ext == ".mdx":
		return TypeMarkdown
	case top == "scripts" || scriptExt[ext] || mode&0o111 != 0:
		return TypeScript
	case top == "assets" || top == "templates" || templateExt[ext]:
		return TypeTemplate
	}
	return TypeOther
}

// Clutter reports whether a file or folder of this name is never part of a
// skill: version control, dependencies and caches, and desktop litter.
// pack leaves it out, install does not copy it, and Files does not list it.
func Clutter(name string, isDir bool) bool {
	switch name {
	case ".git", "__pycache__", "node_modules", ".DS_Store":
		return true
	}
	return !isDir && strings.HasSuffix(name, ".pyc")
}

// Files lists every regular file of a skill folder (symlinks to files inside
// are listed with their target's size), sorted by path. Links that leave the
// folder and special files are left out.
func Files(dir string) ([]File, error) {
	var out []File
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		realDir = dir
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && Clutter(d.Name(), true) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if _, inside, err := LinkTarget(realDir, p); err != nil || !inside {
				return nil
			}
			if info, err = os.Stat(p); err != nil || !info.Mode().IsRegular() {
				return nil
			}
		} else if !info.Mode().IsRegular() {
			return nil
		}
		out = append(out, File{Path: rel, Size: info.Size(), Type: FileType(rel, info.Mode()),
			Executable: info.Mode()&0o111 != 0, Mode: info.Mode()})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// LinkTarget resolves the symbolic link p of a skill folder whose real path
// is base (links through links included): its real path, and whether that
// stays inside the folder. A link that does not resolve is an error.
func LinkTarget(base, p string) (real string, inside bool, err error) {
	real, err = filepath.EvalSymlinks(p)
	if err != nil {
		return "", false, err
	}
	return real, Within(base, real), nil
}

// Within reports whether the path p lies inside (or is) the folder base;
// both are clean paths of the same kind (real, or as given).
func Within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && filepath.IsLocal(rel)
}

// Inventory summarises a list of files.
func Inventory(files []File) FileInventory {
	var inv FileInventory
	for _, f := range files {
		inv.TotalFiles++
		inv.TotalSizeBytes += f.Size
		top, _, nested := strings.Cut(f.Path, "/")
		switch {
		case f.Path == "SKILL.md" || f.Path == "skill.md":
			inv.HasSkillMd = true
		case nested && top == "references":
			inv.HasReferences = true
			inv.ReferenceFiles++
		}
		if f.Type == TypeScript {
			inv.ScriptFiles++
			inv.HasScripts = true
		}
		if f.Type == TypeTemplate {
			inv.TemplateFiles++
		}
	}
	return inv
}

// CheckRelPath refuses a path that is absolute, has a drive letter or a
// backslash, or climbs out with "..". The returned path is slash-separated and clean.
func CheckRelPath(rel string) (string, error) {
	if rel == "" {
		return "", Mark(errors.New("empty path"), ErrNotFound)
	}
	r := strings.ReplaceAll(rel, "\\", "/")
	if strings.HasPrefix(r, "/") || (len(r) >= 2 && r[1] == ':') {
		return "", Mark(fmt.Errorf("%q is an absolute path and leaves the skill folder; give a path inside it", rel), ErrDenied)
	}
	clean := path.Clean(r)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", Mark(fmt.Errorf("%q leaves the skill folder; give a path inside it", rel), ErrDenied)
	}
	return clean, nil
}

// OpenFile opens rel inside the skill folder dir. Paths that leave the folder
// ("..", absolute paths, symlinks pointing out) are refused with ErrDenied;
// missing files give ErrNotFound.
func OpenFile(dir, rel string) (*os.File, error) {
	clean, err := CheckRelPath(rel)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(filepath.FromSlash(clean), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, Mark(fmt.Errorf("no file %q in %s", rel, dir), ErrNotFound)
		case strings.Contains(err.Error(), "escapes"):
			return nil, Mark(fmt.Errorf("%q is a link that leaves the skill folder", rel), ErrDenied)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, fmt.Errorf("%q is a folder, not a file", rel)
		}
		return nil, fmt.Errorf("%q is not a regular file", rel)
	}
	return f, nil
}

// ReadFile reads rel inside the skill folder dir; see OpenFile.
func ReadFile(dir, rel string) ([]byte, error) {
	f, err := OpenFile(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
