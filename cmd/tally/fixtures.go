package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
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
	// Empty and NoCompaction name the fixtures that are valid but check
	// nothing: no item, or no compaction expected, so no compacted
	// context can be checked against them.
	Empty        []string `json:"empty,omitempty"`
	NoCompaction []string `json:"no_compaction,omitempty"`
}

// agentLogFormat reports whether the file at path (a regular file; a
// folder is not) starts like an agent log rather than a fixture: its
// first line names no conversation_id and is a record of one of
// agentlog's formats (a Claude Code record has a sessionId; the others
// are sniffed).
func agentLogFormat(path string, lim input.Limits) (agentlog.Format, bool) {
	head, gzipped, err := firstLine(path, lim)
	switch {
	case err != nil:
		return "", false
	case gzipped: // tally reads no gzipped fixture; an agent log often is gzipped
		return "gzipped: fixtures are plain JSON", true
	}
	if len(head) == 0 || bytes.Contains(head, []byte(`"conversation_id"`)) {
		return "", false
	}
	switch format := agentlog.Sniff(head); {
	case format != agentlog.ClaudeCode:
		return format, true
	case bytes.Contains(head, []byte(`"sessionId"`)):
		return format, true
	}
	return "", false
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
				if len(f.MustSurvive) == 0 {
					sum.Empty = append(sum.Empty, f.ConversationID)
				}
				if f.CompactionsExpected == 0 {
					sum.NoCompaction = append(sum.NoCompaction, f.ConversationID)
				}
				for _, it := range f.MustSurvive {
					sum.ByClass[string(it.Class)]++
				}
				return nil
			}, args...)
			if err != nil {
				for _, path := range args {
					if f, ok := agentLogFormat(path, lim.Limits); ok {
						// One line, not a problem per record of a log.
						return notFixtures(path, path, f)
					}
				}
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
			// Valid, but checking nothing: said, with the first names.
			if n := len(sum.Empty); n == 1 {
				fmt.Fprintf(w, "note: 1 fixture has no item, so it checks nothing: %s\n", firstNames(sum.Empty))
			} else if n > 1 {
				fmt.Fprintf(w, "note: %d fixtures have no item, so they check nothing: %s\n", n, firstNames(sum.Empty))
			}
			if n := len(sum.NoCompaction); n == 1 {
				fmt.Fprintf(w, "note: 1 fixture expects no compaction (compactions_expected 0), so no compacted context can be checked against it: %s\n", firstNames(sum.NoCompaction))
			} else if n > 1 {
				fmt.Fprintf(w, "note: %d fixtures expect no compaction (compactions_expected 0), so no compacted context can be checked against them: %s\n", n, firstNames(sum.NoCompaction))
			}
			return nil
		}),
	}
	lim.register(cmd)
	return cmd
}

// firstNames lists up to three of names, printable, and how many more.
func firstNames(names []string) string {
	out := make([]string, 0, 3)
	for _, n := range names[:min(3, len(names))] {
		out = append(out, review.Printable(n))
	}
	if len(names) > 3 {
		out = append(out, fmt.Sprintf("and %d more", len(names)-3))
	}
	return strings.Join(out, ", ")
}
