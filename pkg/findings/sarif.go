package findings

import (
	"io"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 types: the subset skillctl writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
		Results            []sarifResult            `json:"results"`
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
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// Rule describes a rule in a SARIF log.
type Rule struct {
	ID      string
	Summary string
	Hint    string
	// Severity is the rule's level in force (Off or "": disabled).
	Severity string
	HelpURI  string
}

// Tool names the program that wrote a SARIF log.
type Tool struct {
	Name           string
	Version        string
	InformationURI string
	Rules          []Rule
	// SrcRoot, when set, is the absolute folder that relative file names
	// are relative to (the repository top): the log names it SRCROOT.
	SrcRoot string
}

// SARIFLevel maps a severity to a SARIF level.
func SARIFLevel(sev string) string {
	switch sev {
	case Error, Critical, High:
		return "error"
	case Warning, Medium:
		return "warning"
	case Info, Low:
		return "note"
	}
	return "none"
}

// WriteSARIF writes the findings as a SARIF 2.1.0 log: every rule of the
// tool with its help, and one result per finding.
func WriteSARIF(w io.Writer, tool Tool, fs []Finding) error {
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI, Rules: []sarifRule{}}
	index := map[string]int{}
	for i, rule := range tool.Rules {
		index[rule.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   rule.ID,
			ShortDescription:     sarifText{rule.Summary},
			FullDescription:      sarifText{rule.Summary},
			Help:                 sarifText{rule.Summary + " Fix: " + rule.Hint},
			HelpURI:              rule.HelpURI,
			DefaultConfiguration: sarifDefault{Level: SARIFLevel(rule.Severity), Enabled: rule.Severity != Off && rule.Severity != ""},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	if tool.SrcRoot != "" {
		root := sarifURI(tool.SrcRoot)
		if !strings.HasSuffix(root, "/") {
			root += "/"
		}
		run.OriginalURIBaseIDs = map[string]sarifArtifact{"SRCROOT": {URI: root}}
	}
	for _, f := range fs {
		msg := f.Message
		if f.Hint != "" {
			msg += ". Fix: " + f.Hint
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(f.File)}}}
		if tool.SrcRoot != "" && !filepath.IsAbs(f.File) {
			loc.PhysicalLocation.ArtifactLocation.URIBaseID = "SRCROOT"
		}
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule],
			Level: SARIFLevel(f.Severity), Message: sarifText{msg}, Locations: []sarifLocation{loc}})
	}
	return WriteJSON(w, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifURI turns a file name into a URI reference: slash-separated, relative
// names kept relative, absolute ones as file: URIs.
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
