package cmd

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Shell completion: what each command's arguments and flags complete to.
// Completion functions never print: a folder that cannot be read simply
// offers nothing.

type completionFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// fixedCompletion offers values and no file names.
func fixedCompletion(values ...string) completionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFiles offers file and folder names (validate, install, index).
func completeFiles(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// completeDirs offers folder names (pack).
func completeDirs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// completeSkillNames offers the names of the discovered skills (ids for
// plugin skills), with their descriptions, for the first argument.
func completeSkillNames(f *Factory) completionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if err := f.applyGlobal(); err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		cat, err := f.Discover(cmd.Context(), true, false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, s := range cat.Skills() {
			name := s.Name
			if s.Plugin != "" {
				name = s.ID
			}
			if strings.HasPrefix(name, toComplete) {
				out = append(out, name+"\t"+describe(s.Description))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSkillFiles offers the files of the skill named by the first
// argument (show --file, run --entry).
func completeSkillFiles(f *Factory) completionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if err := f.applyGlobal(); err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		s, err := f.ResolveSkill(cmd.Context(), args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		files, err := skill.Files(s.Dir)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, fl := range files {
			if strings.HasPrefix(fl.Path, toComplete) {
				out = append(out, fl.Path+"\t"+fl.Type)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeInstalledNames offers the skills recorded in the lock files of
// the target folders that --dir, --scope and --agent select (uninstall),
// leaving out names already given.
func completeInstalledNames(f *Factory, t *install.TargetOptions) completionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if err := f.applyGlobal(); err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		if err := resolveTargets(f, t, true); err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		lockFile, legacy, err := scopeLock(*t)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		seen := map[string]bool{}
		for _, a := range args {
			seen[a] = true
		}
		var out []string
		if lock, err := install.ReadScopeLock(lockFile, legacy); err == nil {
			for _, name := range lock.Names() {
				if !seen[name] && strings.HasPrefix(name, toComplete) {
					seen[name] = true
					out = append(out, name+"\tinstalled ("+lockFile+")")
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// describe is a description short enough to show beside a completion.
func describe(s string) string { return render.Truncate(render.Flatten(s), 60) }

// plainFlagUsages drops the backticks that mark a flag's value name in its
// usage (for help's "--format FORMAT"): completion shows usages as
// descriptions, where they would be printed as they are.
func plainFlagUsages(root *cobra.Command) {
	var walk func(c *cobra.Command)
	strip := func(f *pflag.Flag) { f.Usage = strings.ReplaceAll(f.Usage, "`", "") }
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(strip)
		c.PersistentFlags().VisitAll(strip)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
