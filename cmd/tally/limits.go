package main

import (
	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/input"
)

// limitFlags are --max-line and --max-file, the input limits of package
// internal/input, taken by every command that reads input files: zero
// (not given) is the package's default.
type limitFlags struct {
	input.Limits
}

// register adds --max-line and --max-file to cmd.
func (l *limitFlags) register(cmd *cobra.Command) {
	cmd.Flags().Var(input.SizeValue{P: &l.MaxLine}, "max-line",
		"longest line of a JSONL file, and largest JSON file read whole (e.g. 64MiB; default "+input.Size(input.DefaultMaxLine)+")")
	cmd.Flags().Var(input.SizeValue{P: &l.MaxFile}, "max-file",
		"largest input file (e.g. 4GiB; default "+input.Size(input.DefaultMaxFile)+")")
}
