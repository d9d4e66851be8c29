package cmd

import (
	"io"

	"github.com/spf13/cobra"
)

// Shells completion scripts are written for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

func init() { register(newCompletionCmd) }

func newCompletionCmd(f *Factory) *cobra.Command {
	var noDesc bool
	cmd := &cobra.Command{
		Use:   "completion {bash|zsh|fish|powershell} [--no-descriptions]",
		Short: "Print the shell completion script for bash, zsh, fish or PowerShell",
		Long: `Print the script that makes your shell complete skillctl's commands, flags,
flag values, file paths and the names of your skills (show, run) and of the
skills installed in the target folder (uninstall). The same scripts are in
completions/ of the source tree.

bash (needs the bash-completion package):

    source <(skillctl completion bash)                  # this shell
    skillctl completion bash > ~/.local/share/bash-completion/completions/skillctl

zsh:

    skillctl completion zsh > "${fpath[1]}/_skillctl"   # then start a new shell
    # needs 'autoload -U compinit; compinit' in ~/.zshrc

fish:

    skillctl completion fish > ~/.config/fish/completions/skillctl.fish

PowerShell:

    skillctl completion powershell | Out-String | Invoke-Expression
    # add that line to $PROFILE to keep it

--no-descriptions leaves out the short description shown beside each
choice; SKILLCTL_COMPLETION_DESCRIPTIONS=false does the same at completion
time.`,
		Annotations: exitStatus(`  0  the script was printed
  2  no shell, or a shell skillctl has no script for`),
		Example: `  source <(skillctl completion bash)
  skillctl completion fish > ~/.config/fish/completions/skillctl.fish
  skillctl completion zsh --no-descriptions > ~/.zfunc/_skillctl`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: completionShells,
		RunE: func(c *cobra.Command, args []string) error {
			return writeCompletion(c.Root(), f.IO.Out, args[0], !noDesc)
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "leave out the descriptions of choices")
	return cmd
}

// writeCompletion writes root's completion script for shell to w.
func writeCompletion(root *cobra.Command, w io.Writer, shell string, desc bool) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, desc)
	case "zsh":
		if desc {
			return root.GenZshCompletion(w)
		}
		return root.GenZshCompletionNoDesc(w)
	case "fish":
		return root.GenFishCompletion(w, desc)
	case "powershell":
		if desc {
			return root.GenPowerShellCompletionWithDesc(w)
		}
		return root.GenPowerShellCompletion(w)
	}
	return FlagErrorf("no completion script for %q: use bash, zsh, fish or powershell", shell)
}
