package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/fixture"
)

func newFixturesCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixtures",
		Short: "Work with fixture files (validate)",
		Args:  cobra.NoArgs,
		RunE:  needSubcommand,
	}
	cmd.AddCommand(newFixturesValidateCmd(opts))
	return cmd
}

// validateJSON is the JSON output of `tally fixtures validate`.
type validateJSON struct {
	Fixtures int            `json:"fixtures"`
	Items    int            `json:"items"`
	ByClass  map[string]int `json:"by_class"`
}

func newFixturesValidateCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check fixtures: every problem with file, line, column and field",
		Long: `validate loads each PATH — a .json fixture, a .jsonl file with one fixture
per line, or a folder of .json fixtures — and reports every problem it finds
as FILE:LINE:COL: FIELD: what is wrong, one per line, exiting 1 if any.`,
		Example: "  tally fixtures validate examples/quarterly/fixtures",
		Args:    cobra.MinimumNArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			sum := validateJSON{ByClass: map[string]int{}}
			var errs []error
			for _, path := range args {
				err := fixture.Walk(path, func(f fixture.Fixture) error {
					sum.Fixtures++
					sum.Items += len(f.MustSurvive)
					for _, it := range f.MustSurvive {
						sum.ByClass[string(it.Class)]++
					}
					return nil
				})
				if err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) > 0 {
				return errors.Join(errs...)
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
}
