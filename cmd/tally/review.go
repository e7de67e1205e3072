package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/selection"
)

// reviewJSON is the JSON output of `tally review`, printed when the
// review ends.
type reviewJSON struct {
	Candidates     string `json:"candidates_file"`
	Output         string `json:"fixture_file"`
	ConversationID string `json:"conversation_id"`
	Total          int    `json:"candidates"`
	Accepted       int    `json:"accepted"`
	Rejected       int    `json:"rejected"`
	Pending        int    `json:"pending"`
	Position       int    `json:"position"`
	Complete       bool   `json:"complete"`
}

func newReviewCmd(opts *options) *cobra.Command {
	var (
		output string
		lim    limitFlags
	)
	cmd := &cobra.Command{
		Use:   "review CANDIDATES.json -o FIXTURE.json",
		Short: "Accept, reject or correct proposed items one at a time, in the terminal",
		Long: `review shows the candidates tally propose wrote, one at a time, and writes
the accepted ones as a fixture. Keys:

  a  accept          r  reject          (either moves on to the next)
  p  edit the probe  e  edit the expected answer
  b  back one        q  quit

An edit puts the current text on the line: Backspace, Ctrl-W and Ctrl-U
delete a character, a word, the line; Enter keeps the edit, Escape cancels.

Both files are written after every decision (atomically): CANDIDATES.json
keeps each candidate's status and the position, so quitting and running the
same command again resumes where the review stopped; FIXTURE.json always
holds the items accepted so far and passes tally fixtures validate. The
fixture keeps the candidates' ids, in turn order.

review needs a terminal: run it in an interactive shell.`,
		Example: "  tally review cands.json -o examples/quarterly/fixtures/sess_2026_01_06_75ad.json",
		Args:    cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			cands := args[0]
			if same(cands, output) {
				return fmt.Errorf("-o %s: the fixture must not overwrite the candidates file", output)
			}
			p, err := selection.LoadCandidates(cands, lim.Limits)
			if err != nil {
				return err
			}
			in, _ := cmd.InOrStdin().(*os.File)
			out, _ := cmd.OutOrStdout().(*os.File)
			if err := review.CheckTerminal(in, out); err != nil {
				return fmt.Errorf("review needs a terminal (%w); run it in an interactive shell — decisions are saved after each one, so it can be stopped and resumed", err)
			}
			store := review.Store{Candidates: cands, Fixture: output}
			if err := store.Save(&p); err != nil { // the fixture reflects the state from the start
				return err
			}
			r := &review.Review{Proposal: &p, Save: store.Save, Output: output}
			o, err := review.RunTerminal(in, out, r)
			if err != nil {
				return err
			}
			res := reviewJSON{Candidates: cands, Output: output, ConversationID: p.ConversationID, Total: len(p.Candidates),
				Accepted: o.Counts.Accepted, Rejected: o.Counts.Rejected, Pending: o.Counts.Pending, Position: p.Position, Complete: o.Complete}
			if opts.format == "json" {
				return writeJSON(out, res)
			}
			fmt.Fprintf(out, "%s: %d of %d decided (%d accepted, %d rejected); %s holds %s\n",
				review.Printable(p.ConversationID), res.Accepted+res.Rejected, res.Total, res.Accepted, res.Rejected, review.Printable(output), countOf(res.Accepted, "item"))
			if !o.Complete {
				fmt.Fprintf(out, "%d pending; resume with: tally review %s -o %s\n", res.Pending, cands, output)
			}
			return nil
		}),
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "fixture file to write (JSON), after every decision")
	lim.register(cmd)
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// same reports whether two paths name one file.
func same(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return errors.Join(err1, err2) == nil && x == y
}
