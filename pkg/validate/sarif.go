package validate

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 types: the subset validate writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		ShortDescription     sarifText    `json:"shortDescription"`
		FullDescription      sarifText    `json:"fullDescription"`
		Help                 sarifText    `json:"help"`
		HelpURI              string       `json:"helpUri"`
		DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
	}
	sarifDefault struct {
		Level   string `json:"level"`
		Enabled bool   `json:"enabled"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// DocsURL is where the rules are documented.
const DocsURL = "https://github.com/skillctl/skillctl/blob/main/docs/validate.md"

func sarifLevel(sev string) string {
	switch sev {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "note"
	}
	return "none"
}

// WriteSARIF writes the report as a SARIF 2.1.0 log: every rule with its
// help, and one result per finding. toolVersion is skillctl's version.
func (r *Report) WriteSARIF(w io.Writer, toolVersion string) error {
	pt := newProfileTable(r.Profile)
	driver := sarifDriver{Name: "skillctl", Version: toolVersion, InformationURI: "https://github.com/skillctl/skillctl"}
	index := map[string]int{}
	for i, rule := range Rules {
		index[rule.ID] = i
		level := pt.sev[rule.ID]
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   rule.ID,
			ShortDescription:     sarifText{rule.Summary},
			FullDescription:      sarifText{rule.Summary},
			Help:                 sarifText{rule.Summary + " Fix: " + rule.Hint},
			HelpURI:              DocsURL + "#" + rule.ID,
			DefaultConfiguration: sarifDefault{Level: sarifLevel(level), Enabled: level != Off},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	for _, res := range r.Results {
		for _, f := range res.Findings {
			msg := f.Message
			if f.Hint != "" {
				msg += ". Fix: " + f.Hint
			}
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(f.File)}}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
			}
			run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule],
				Level: sarifLevel(f.Severity), Message: sarifText{msg}, Locations: []sarifLocation{loc}})
		}
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifURI turns a file name into a URI reference: slash-separated, relative
// names kept relative (to the working folder), absolute ones as file: URIs.
func sarifURI(name string) string {
	s := filepath.ToSlash(name)
	esc := strings.NewReplacer("%", "%25", " ", "%20", "#", "%23", "?", "%3F")
	if filepath.IsAbs(name) {
		if !strings.HasPrefix(s, "/") {
			s = "/" + s
		}
		return "file://" + esc.Replace(s)
	}
	return esc.Replace(strings.TrimPrefix(s, "./"))
}
