package draft

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/selection"
)

// typedTurn is the 1-based typed turn of a message or step of turn index
// t, content before the first typed prompt counting as turn 1 (as the
// proposer counts it).
func typedTurn(t int) int { return max(1, t+1) }

// place returns the fixture turn of candidate it, proposed from pre (a
// prefix of s), and a note when that turn had to be chosen without
// finding the candidate's text, or when the candidate is left out (turn
// 0: its typed turn is not in pre). A typed turn with no compaction in it
// is one fixture turn; one that a compaction splits is several, and the
// candidate's is that of the first utterance of its role holding its
// message, else its literal (white space compared as one space), else the
// last of them (the latest a
// candidate of pre can be, so it is never taken as stated before a
// compaction it followed).
func place(s *agentlog.Session, tn turns, pre *agentlog.Session, it selection.ProposedItem) (int, string) {
	var fturns []int
	for i, m := range pre.Messages {
		if typedTurn(m.Turn) == it.Turn {
			fturns = append(fturns, tn.message[i])
		}
	}
	for i, st := range pre.Steps {
		if typedTurn(st.Turn) == it.Turn {
			fturns = append(fturns, tn.step[i])
		}
	}
	slices.Sort(fturns)
	fturns = slices.Compact(fturns)
	switch len(fturns) {
	case 0:
		return 0, fmt.Sprintf("%s: a %s candidate at typed turn %d (%q) is not in the turns before the compaction it was proposed for: left out",
			s.Name, it.Class, it.Turn, clip(it.Literal, 60))
	case 1:
		return fturns[0], ""
	}
	for _, needle := range []string{squash(it.Message), squash(it.Literal)} {
		if needle == "" {
			continue
		}
		if it.Role != "assistant" {
			for i, m := range pre.Messages {
				if m.Typed() && typedTurn(m.Turn) == it.Turn && strings.Contains(squash(m.Text), needle) {
					return tn.message[i], ""
				}
			}
		}
		if it.Role != "user" {
			for i, st := range pre.Steps {
				if typedTurn(st.Turn) == it.Turn && strings.Contains(squash(st.Text), needle) {
					return tn.step[i], ""
				}
			}
		}
	}
	last := fturns[len(fturns)-1]
	return last, fmt.Sprintf("a %s candidate at typed turn %d (%q) was not found in its turn's text: put at fixture turn %d, the latest it can be",
		it.Class, it.Turn, clip(it.Literal, 60), last)
}

// squash is s with each run of white space one space, trimmed: a
// proposer may quote a message with its line breaks folded.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip shortens s to at most n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
