package main

import (
	"bytes"
	"fmt"
	"math"

	"github.com/tally-eval/tally/fixture"
)

// pairCounts are one class's paired counts of two systems over the
// item-compactions both check: lost (retained by the first, not the
// second), gained (the reverse), and the second's retained.
type pairCounts struct{ Lost, Gained, Retained, Live int }

// flip is an item-compaction contradicted by one run and not the other.
type flip struct {
	Conv, Item string
	J          int
	Class      fixture.Class
	By         string // the system that contradicted it
}

// pairs counts, per class, what b lost and gained against a, and the
// contradiction flips between them. a and b are contexts of the same
// fixtures and compactions, in the same order.
func pairs(a, b []*builtContext) (map[fixture.Class]pairCounts, []flip) {
	out := make(map[fixture.Class]pairCounts)
	var flips []flip
	for i, ca := range a {
		cb := b[i]
		for ii, va := range ca.Verdicts {
			if va == "" {
				continue
			}
			vb := cb.Verdicts[ii]
			cl := ca.Conv.items[ii].Class
			pc := out[cl]
			ra, rb := va.Retained(), vb.Retained()
			pc.Live++
			switch {
			case ra && !rb:
				pc.Lost++
			case !ra && rb:
				pc.Gained++
			}
			if rb {
				pc.Retained++
			}
			out[cl] = pc
			if (va == fixture.Contradicted) != (vb == fixture.Contradicted) {
				f := flip{ca.Conv.s.ID, ca.Conv.fx.MustSurvive[ii].ID, ca.J, cl, a[0].System}
				if vb == fixture.Contradicted {
					f.By = b[0].System
				}
				flips = append(flips, f)
			}
		}
	}
	return out, flips
}

// rerunSection writes the README's account of the incumbent's rerun.
func (q *Quarter) rerunSection(b *bytes.Buffer) {
	inc := q.Built[SystemIncumbent]
	rer, rerFlips := pairs(inc, q.Built[SystemRerun])
	cand, _ := pairs(inc, q.Built[SystemCandidate])
	incLost := make(map[fixture.Class]int)
	for cl, pc := range rer {
		incLost[cl] = pc.Live - (pc.Retained + pc.Lost - pc.Gained)
	}
	xInc := 0
	for _, bc := range inc {
		for _, v := range bc.Verdicts {
			if v == fixture.Contradicted {
				xInc++
			}
		}
	}
	icc := RerunSigma * RerunSigma / (RerunSigma*RerunSigma + math.Pi*math.Pi/3)
	fmt.Fprintf(b, `
### The incumbent run again: an A/A pair

`+"`incumbent-rerun`"+` is the incumbent summariser run a second time over the same
%d conversations, as at non-zero temperature: the same system prompt and
note, the same %d recent turns with the same tool results (the transcript
is the same); only what its summaries keep differs. The recorded judge
answers for its contexts like the others' (system `+"`incumbent-rerun`"+` in
`+"`judge/recorded.jsonl`"+`), and `+"`verdicts/incumbent-rerun.jsonl`"+` is what `+"`tally check`"+`
writes on them:

    go run ./cmd/tally check --fixtures examples/quarterly/fixtures --contexts examples/quarterly/contexts/incumbent-rerun --system incumbent-rerun --judge recorded --recorded examples/quarterly/judge/recorded.jsonl -o examples/quarterly/verdicts/incumbent-rerun.jsonl

Two runs of one system measure the noise floor under every paired
comparison: `+"`tally noise verdicts/incumbent.jsonl verdicts/incumbent-rerun.jsonl`"+`.
How the rerun was drawn (`+"`examples/gen/rerun.go`"+`), given the
conversations and independently of the incumbent's run except for the
inverted hedges:

1. **Conversation effect.** Each conversation draws z ~ Normal(0, σ²),
   σ = %g, on the log-odds of a drop, shared by all its items and
   compactions (a within-conversation correlation of σ²/(σ² + π²/3) = %.2f
   on the latent scale): a rerun that drops one item of a conversation
   tends to drop others of it.
2. **Drops persist.** An item is verbatim at the compactions whose kept
   recent turns quote it; at each later live compaction an item the rerun
   still carries is dropped with probability logistic(β_class + z), and it
   stays dropped at every later compaction of the conversation.
3. **As good as the first run on average.** β_class is solved so that the
   rerun's expected retained item-compactions equal the incumbent's, so,
   given the incumbent's run, E[lost] = E[gained] in each class (the
   table below). E[gained] cannot exceed the item-compactions the
   incumbent lost, so a rerun as good as the incumbent has an expected
   discordance of at most twice those.
4. **Inverted hedges.** An item the incumbent contradicted is contradicted
   again, at the same compaction, with probability %g; any other hedge the
   rerun drops at its last live compaction only is inverted with
   probability q = %.3f, solved so that the rerun's expected contradictions
   equal the incumbent's %d. Expected contradiction flips (an
   item-compaction contradicted by one run and not the other): about
   2 × %g × %d = %g.
5. **Verbatim.** Like the incumbent, it pins items in its ledger from the
   front of the compactions it retains them at, up to the incumbent's
   verbatim count per class.
6. **A typical pair.** The generator draws reruns one after another from
   the rerun's stream and keeps the first in which |lost − gained|, summed
   over the classes, is at most %d and the contradiction flips number %d
   to %d: here draw %d. The rule is symmetric in lost and gained and leaves
   each class free (the generator's tests check E[lost] ≈ E[gained] per
   class under it by simulation); without it, a rare draw has one run well
   ahead of the other, which is noise too, but not the typical pair an
   example should show.

| class | β_class | drop chance at z = 0 | E[lost] = E[gained], before step 6 | the incumbent's lost item-compactions |
|---|--:|--:|--:|--:|
`, len(q.Fixtures), rerunSummariser().Recent, RerunSigma, icc, RerunReproduce, q.Rerun.Q, xInc, 1-RerunReproduce, xInc, 2*(1-RerunReproduce)*float64(xInc),
		RerunMaxNet, RerunFlips[0], RerunFlips[1], q.Rerun.Draw)
	for _, cl := range fixture.Classes {
		beta := q.Rerun.Beta[cl]
		fmt.Fprintf(b, "| %s | %.3f | %.3f | %.2f | %d |\n", cl, beta, 1/(1+math.Exp(-beta)), q.Rerun.Expected[cl], incLost[cl])
	}
	fmt.Fprintf(b, `
Against the incumbent, item-compaction by item-compaction (lost: retained
by the incumbent and not by the other; gained: the reverse):

| class | live | incumbent retained | rerun retained | rerun lost | rerun gained | rerun discordant | candidate lost | candidate gained | candidate discordant |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|
`)
	var tr, tc pairCounts
	for _, cl := range fixture.Classes {
		r, c := rer[cl], cand[cl]
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", cl, r.Live, r.Retained+r.Lost-r.Gained, r.Retained,
			r.Lost, r.Gained, r.Lost+r.Gained, c.Lost, c.Gained, c.Lost+c.Gained)
		tr.Live, tr.Retained, tr.Lost, tr.Gained = tr.Live+r.Live, tr.Retained+r.Retained, tr.Lost+r.Lost, tr.Gained+r.Gained
		tc.Lost, tc.Gained = tc.Lost+c.Lost, tc.Gained+c.Gained
	}
	fmt.Fprintf(b, "| all | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", tr.Live, tr.Retained+tr.Lost-tr.Gained, tr.Retained,
		tr.Lost, tr.Gained, tr.Lost+tr.Gained, tc.Lost, tc.Gained, tc.Lost+tc.Gained)
	fmt.Fprintf(b, "\nContradiction flips between the two runs: %d.\n\n", len(rerFlips))
	for _, f := range rerFlips {
		fmt.Fprintf(b, "- %s compaction %d, item %s (%s): contradicted by the %s only\n", f.Conv, f.J, f.Item, f.Class, f.By)
	}
	b.WriteString("\n**incumbent-rerun**\n\n")
	table(q.Built[SystemRerun]).markdown(b)
}
