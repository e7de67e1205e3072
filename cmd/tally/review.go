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
		output         string
		accept, reject []string
		lim            limitFlags
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

Pasted text is never taken for keys. Pasted into an edit, it is inserted as
one line (each line break becomes a space); pasted anywhere else, it is
ignored, with a message. review turns on the terminal's bracketed paste
mode to tell a paste from typing; on a terminal without it, keys that
arrive together in one read are taken for a paste (typed keys come one at
a time).

Both files are written after every decision (atomically): CANDIDATES.json
keeps each candidate's status and the position, so quitting and running the
same command again resumes where the review stopped; FIXTURE.json always
holds the items accepted so far and passes tally fixtures validate. The
fixture keeps the candidates' ids, in turn order.

review needs a terminal: run it in an interactive shell. Without one,
--accept and --reject decide by candidate id (comma-separated, or the
flag given again; "rest" is every candidate the lists do not name that
is still pending) and write both files once: a script, or a person who
read the candidates file, can review that way. Probes and expected
answers can be corrected in the candidates file before. The folder of
-o is created if need be.`,
		Example: "  tally review cands.json -o examples/quarterly/fixtures/sess_2026_01_06_75ad.json\n" +
			"  tally review cands.json --accept c1,c3,c4 --reject rest -o fixtures/sess_2026_01_06_75ad.json",
		Args: cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			cands := args[0]
			if same(cands, output) {
				return fmt.Errorf("-o %s: the fixture must not overwrite the candidates file", output)
			}
			p, err := selection.LoadCandidates(cands, lim.Limits)
			if err != nil {
				return err
			}
			store := review.Store{Candidates: cands, Fixture: output}
			batch := len(accept) > 0 || len(reject) > 0
			in, _ := cmd.InOrStdin().(*os.File)
			out := cmd.OutOrStdout()
			term, _ := out.(*os.File)
			if batch {
				if err := review.Decide(&p, accept, reject); err != nil {
					return fmt.Errorf("%s: %w", cands, err)
				}
			} else if err := review.CheckTerminal(in, term); err != nil {
				return fmt.Errorf("review needs a terminal (%w); run it in an interactive shell, or decide by id with --accept and --reject — decisions are saved after each one, so it can be stopped and resumed", err)
			}
			created, err := createFolder(output)
			if err != nil {
				return err
			}
			if err := store.Save(&p); err != nil { // the fixture reflects the state from the start
				removeFolders(created)
				return err
			}
			var o review.Outcome
			var interrupted error // a signal stopped the review: the summary, then the error
			if batch {
				c := review.Count(p)
				o = review.Outcome{Complete: c.Pending == 0, Counts: c}
			} else if o, err = review.RunTerminal(in, term, &review.Review{Proposal: &p, Save: store.Save, Output: output}); errors.Is(err, review.ErrInterrupted) {
				interrupted = err
			} else if err != nil {
				return err
			}
			res := reviewJSON{Candidates: cands, Output: output, ConversationID: p.ConversationID, Total: len(p.Candidates),
				Accepted: o.Counts.Accepted, Rejected: o.Counts.Rejected, Pending: o.Counts.Pending, Position: p.Position, Complete: o.Complete}
			if opts.format == "json" {
				return errors.Join(writeJSON(out, res), interrupted)
			}
			fmt.Fprintf(out, "%s: %d of %d decided (%d accepted, %d rejected); %s holds %s\n",
				review.Printable(p.ConversationID), res.Accepted+res.Rejected, res.Total, res.Accepted, res.Rejected, review.Printable(output), countOf(res.Accepted, "item"))
			if !o.Complete {
				fmt.Fprintf(out, "%d pending; resume with: tally review %s -o %s\n", res.Pending, shellWord(cands), shellWord(output))
			}
			return interrupted
		}),
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "fixture file to write (JSON), after every decision")
	cmd.Flags().StringSliceVar(&accept, "accept", nil, "accept these candidates by id, without a terminal (\"rest\": the others still pending)")
	cmd.Flags().StringSliceVar(&reject, "reject", nil, "reject these candidates by id, without a terminal (\"rest\": the others still pending)")
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
