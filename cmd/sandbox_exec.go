package cmd

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/pkg/run"
)

func init() { register(func(f *Factory) *cobra.Command { return newSandboxExecCmd(f) }) }

// newSandboxExecCmd is the sandbox helper that `run` re-executes: it
// confines itself, then runs the skill's script (pkg/run.HelperMain). It is
// not meant to be called by hand.
func newSandboxExecCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:                run.HelperCommand + " <spec>",
		Short:              "Sandbox helper used by run (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The exit status is the script's own: leave before anything
			// (such as the interrupt handling of Main) can change it.
			status, err := run.HelperMain(args)
			if err != nil {
				// Already reported to run through the status pipe.
				os.Exit(ExitSandbox)
			}
			os.Exit(status)
			return nil
		},
	}
}
