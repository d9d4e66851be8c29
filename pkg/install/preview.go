package install

import (
	"context"
	"os"
	"sort"

	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Preview is the skills of some sources, unpacked and checked in a
// temporary folder, for install --list and for show: nothing is installed.
// Close removes the folder.
type Preview struct {
	Skills []Previewed
	// Ignored and Skipped are as in Result.
	Ignored int
	Skipped []Skipped
	tmp     string
	srcs    []*source
}

// Previewed is one skill of a source, as install would see it.
type Previewed struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	// Folder is the folder it would be installed into; Path where it is in the source.
	Folder      string `json:"folder"`
	Path        string `json:"path"`
	Description string `json:"description"`
	Version     string `json:"version,omitempty"`
	Files       int    `json:"files"`
	Size        int64  `json:"size"`
	// Problems say why install would refuse it (empty: it would install).
	Problems []string `json:"problems"`
	// Errors and Warnings count its validation findings.
	Errors   int                `json:"errors"`
	Warnings int                `json:"warnings"`
	Findings []findings.Finding `json:"findings"`
	// Dir is the unpacked skill folder (until Close).
	Dir string `json:"-"`
}

// Preview unpacks and checks the sources as Run would, into a temporary
// folder, and installs nothing.
func (in *Installer) Preview(ctx context.Context) (*Preview, error) {
	srcs, err := in.openSources(ctx)
	p := &Preview{srcs: srcs}
	if err != nil {
		p.Close()
		return nil, err
	}
	if p.tmp, err = os.MkdirTemp("", "skillctl-preview-*"); err != nil {
		p.Close()
		return nil, err
	}
	cands, ignored, err := in.stageAll(ctx, p.tmp, srcs)
	if err != nil {
		p.Close()
		return nil, err
	}
	p.Ignored, p.Skipped = ignored, skippedOf(srcs)
	for _, c := range cands {
		v := Previewed{Source: c.src.arg, Name: c.label(), Folder: c.folder, Path: c.rel, Dir: c.dir,
			Problems: c.problems, Findings: []findings.Finding{}}
		if v.Path == "" {
			v.Path = "."
		}
		if v.Problems == nil {
			v.Problems = []string{}
		}
		if c.sk != nil {
			v.Description, v.Version = c.sk.Description, c.sk.Exec.Version
		}
		if c.res != nil {
			for _, f := range c.res.Findings {
				f.File = relFile(c.dir, f.File)
				v.Findings = append(v.Findings, f)
				switch f.Severity {
				case skill.SeverityError:
					v.Errors++
				case skill.SeverityWarning:
					v.Warnings++
				}
			}
		}
		v.Files, v.Size = c.inventory.TotalFiles, c.inventory.TotalSizeBytes
		p.Skills = append(p.Skills, v)
	}
	sort.SliceStable(p.Skills, func(i, j int) bool { return p.Skills[i].Name < p.Skills[j].Name })
	return p, nil
}

// Close removes what Preview unpacked.
func (p *Preview) Close() {
	for _, s := range p.srcs {
		s.cleanup()
	}
	if p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
}
