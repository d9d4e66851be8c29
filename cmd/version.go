package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X github.com/skillctl/skillctl/cmd.version=v1.2.3".
var version = ""

// Version is the build's version: the ldflags value, else the module version
// recorded by go install, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return "dev"
}

func init() { register(newVersionCmd) }

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "version",
		Short:             "Print skillctl's version",
		Long:              `Print skillctl's version (also: skillctl --version).`,
		Annotations:       exitStatus(`  0  always`),
		Example:           "  skillctl version\n  skillctl version --json",
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.Global.JSON {
				return writeJSON(f.IO.Out, map[string]string{
					"version": Version(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
				})
			}
			_, err := fmt.Fprintf(f.IO.Out, "skillctl %s\n", Version())
			return err
		},
	}
}
