// Command skillctl finds, validates, installs, indexes and runs Agent Skills.
package main

import (
	"os"

	"github.com/skillctl/skillctl/cmd"
)

func main() {
	os.Exit(cmd.Main())
}
