package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/fixture"
)

func newFixturesCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixtures",
		Short: "Work with fixture files (validate, draft)",
		Args:  cobra.NoArgs,
		RunE:  needSubcommand,
	}
	cmd.AddCommand(newFixturesValidateCmd(opts), newFixturesDraftCmd(opts))
	return cmd
}

// validateJSON is the JSON output of `tally fixtures validate`.
type validateJSON struct {
	Fixtures int            `json:"fixtures"`
	Items    int            `json:"items"`
	ByClass  map[string]int `json:"by_class"`
}

func newFixturesValidateCmd(opts *options) *cobra.Command {
	var lim limitFlags
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check fixtures: every problem with file, line, column and field",
		Long: `validate loads each PATH — a .json fixture, a .jsonl file with one fixture
per line, or a folder of .json fixtures — and reports every problem it finds
as FILE:LINE:COL: FIELD: what is wrong, one per line, exiting 1 if any.
A conversation_id used twice, in one PATH or in two, is a problem.

Only regular files are read (a named pipe or a device is refused), a JSONL
line or a .json fixture may be at most --max-line (default 64MiB) and a file
at most --max-file (default 4GiB); sizes take KiB, MiB, GiB or TiB.`,
		Example: "  tally fixtures validate examples/quarterly/fixtures",
		Args:    cobra.MinimumNArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			sum := validateJSON{ByClass: map[string]int{}}
			err := fixture.Loader{Limits: lim.Limits}.Walk(func(f fixture.Fixture) error {
				sum.Fixtures++
				sum.Items += len(f.MustSurvive)
				for _, it := range f.MustSurvive {
					sum.ByClass[string(it.Class)]++
				}
				return nil
			}, args...)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return writeJSON(w, sum)
			}
			fmt.Fprintf(w, "ok: %d fixtures, %d items", sum.Fixtures, sum.Items)
			for _, c := range fixture.Classes {
				fmt.Fprintf(w, ", %d %s", sum.ByClass[string(c)], c)
			}
			fmt.Fprintln(w)
			return nil
		}),
	}
	lim.register(cmd)
	return cmd
}
