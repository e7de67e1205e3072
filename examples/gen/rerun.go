package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tally-eval/tally/fixture"
)

// SystemRerun is the incumbent summariser run a second time over the same
// conversations, as at non-zero temperature: the A/A pair that measures
// the noise floor (`tally noise verdicts/incumbent.jsonl
// verdicts/incumbent-rerun.jsonl`).
const SystemRerun = "incumbent-rerun"

// Systems are the systems whose contexts the generator writes, in the
// order of prompt_sizes.jsonl and judge/recorded.jsonl.
var Systems = []string{SystemIncumbent, SystemCandidate, SystemRerun}

// The rerun's generative model. It writes in the incumbent's style (the
// same system prompt, pinned ledger and sectioned summary, the same 10
// recent turns with the same tool results: the transcript is the same)
// and differs only in what its summaries keep. Given the conversations,
// it is drawn independently of the incumbent's run, except for the
// inverted hedges (step 4):
//
//  1. Each conversation k draws an effect z_k ~ Normal(0, RerunSigma²) on
//     the log-odds of a drop, shared by all its items and compactions:
//     a rerun that drops one item of a conversation tends to drop others.
//  2. An item is kept verbatim at the leading compactions whose kept
//     recent turns quote it (as in the incumbent). At each later live
//     compaction, an item the rerun still carries is dropped with
//     probability h = logistic(β_class + z_k); once dropped it stays
//     dropped at every later compaction of the conversation.
//  3. β_class is solved (bisection, the expectation over z by quadrature)
//     so that the rerun's expected retained item-compactions in the class
//     equal the incumbent's: the rerun is as good as the first run on
//     average, and so, given the incumbent's run, E[lost] = E[gained]
//     per class (lost − gained = retained by the incumbent − retained by
//     the rerun).
//  4. Inverted hedges: an item the incumbent contradicted is contradicted
//     by the rerun too, at the same compaction, with probability
//     RerunReproduce (the hedge's wording invites the inversion); any
//     other hedge the rerun drops at its last live compaction only is
//     inverted with probability q, solved so that the rerun's expected
//     contradictions equal the incumbent's. Expected contradiction flips
//     (an item-compaction contradicted by one run and not the other):
//     about 2·(1 − RerunReproduce)·(the incumbent's contradictions).
//  5. Verbatim: as the incumbent, it pins items in its ledger from the
//     front of the retained compactions until a class has as many
//     verbatim item-compactions as the incumbent's (or all it retains).
//  6. The example keeps a typical A/A pair: the generator draws reruns
//     one after another from the rerun's stream and keeps the first in
//     which |lost − gained|, summed over the classes, is at most
//     RerunMaxNet and the contradiction flips number RerunFlips[0] to
//     RerunFlips[1]. The rule is symmetric in lost and gained and leaves
//     each class free, so the kept pair stays as good as the first run on
//     average, class by class (the generator's tests measure E[lost] and
//     E[gained] under the rule by simulation), and its clustering as the
//     model has it. Without it, a rare draw has one run well ahead of
//     the other: noise too, but not the typical pair an example shows.
//
// Given the incumbent's run, E[gained] cannot exceed the item-compactions
// the incumbent lost (9 constraint, 7 commitment, 7 open_question and 3
// reference), so a symmetric rerun's expected discordance is at most
// twice those: 18, 14, 14 and 6.
//
// The rerun draws its outcomes from a stream of its own
// ("outcomes/incumbent-rerun"), so adding it moved nothing else; its
// contexts' transcripts come from the incumbent's context streams (the
// same transcript). The counts above are seed 20260105's.
const (
	RerunSigma     = 1.5 // the conversation effect's standard deviation (log-odds)
	RerunReproduce = 0.5 // the chance an incumbent's inversion is reproduced
	RerunMaxNet    = 4   // the kept pair's largest |Σ lost − Σ gained|
)

// RerunFlips is the range of contradiction flips a kept rerun has.
var RerunFlips = [2]int{1, 3}

// rerunFit is what the rerun's calibration solved, and what it expects.
type rerunFit struct {
	Beta     map[fixture.Class]float64 // β_class, the log-odds of a drop at z = 0
	Q        float64                   // the chance a dropped hedge is inverted
	Expected map[fixture.Class]float64 // E[lost] = E[gained] per class, given the incumbent, before step 6
	Draw     int                       // the draw the example kept (step 6)
}

// rerunSummariser is the incumbent's description under the rerun's name:
// the same recent turns, results and paraphrases, and its transcript
// drawn from the incumbent's streams.
func rerunSummariser() summariser {
	sm := summarisers[0]
	sm.Name, sm.Like = SystemRerun, SystemIncumbent
	return sm
}

// quadrature is a grid over the standard normal: points t and weights
// that sum to 1, for expectations over z = σ·t.
var quadrature = func() (ts, ws []float64) {
	const step, lim = 0.01, 8.0
	total := 0.0
	for t := -lim; t <= lim+step/2; t += step {
		w := math.Exp(-t * t / 2)
		ts, ws = append(ts, t), append(ws, w)
		total += w
	}
	for i := range ws {
		ws[i] /= total
	}
	return ts, ws
}

// keepMoments returns, for each m in 1..u, E_z[(1 − h)^m] with h =
// logistic(beta + z), z ~ Normal(0, sigma²): the chance an item survives
// m drop chances (1 at m = 0).
func keepMoments(beta, sigma float64, u int) []float64 {
	ts, ws := quadrature()
	out := make([]float64, u+1)
	out[0] = 1
	for i, t := range ts {
		keep := 1 / (1 + math.Exp(beta+sigma*t))
		p := 1.0
		for m := 1; m <= u; m++ {
			p *= keep
			out[m] += ws[i] * p
		}
	}
	return out
}

// expectRetained is the rerun's expected retained item-compactions of a
// chain at drop log-odds beta, and the chance it is dropped at its last
// live compaction only (the chance a hedge can be inverted), both before
// step 4 reproduces an incumbent's inversion.
func expectRetained(ch *chain, beta, sigma float64) (retained, lastOnly float64) {
	u := ch.n - ch.forced
	km := keepMoments(beta, sigma, u)
	retained = float64(ch.forced)
	for m := 1; m <= u; m++ {
		retained += km[m]
	}
	if u >= 1 {
		lastOnly = km[u-1] - km[u]
	}
	return retained, lastOnly
}

// fitRerun solves β per class and q against the incumbent's chains.
func fitRerun(inc []*chain) (rerunFit, error) {
	fit := rerunFit{Beta: make(map[fixture.Class]float64), Expected: make(map[fixture.Class]float64)}
	xInc, xKept, lastOnly := 0.0, 0.0, 0.0
	for _, cl := range fixture.Classes {
		var of []*chain
		target := 0
		for _, ch := range inc {
			if ch.class == cl {
				of = append(of, ch)
				target += ch.v + ch.s
			}
		}
		// E[retained] at beta, with step 4's reproduced inversions.
		expect := func(beta float64) float64 {
			e := 0.0
			for _, ch := range of {
				r, _ := expectRetained(ch, beta, RerunSigma)
				if ch.x {
					r = RerunReproduce*float64(ch.n-1) + (1-RerunReproduce)*r
				}
				e += r
			}
			return e
		}
		lo, hi := -20.0, 10.0
		if expect(lo) < float64(target) || expect(hi) > float64(target) {
			return fit, fmt.Errorf("rerun: cannot match the incumbent's %d retained %s pairs", target, cl)
		}
		for range 100 {
			mid := (lo + hi) / 2
			if expect(mid) > float64(target) {
				lo = mid
			} else {
				hi = mid
			}
		}
		beta := (lo + hi) / 2
		fit.Beta[cl] = beta
		// E[gained]: the incumbent's lost pairs the rerun retains.
		gained := 0.0
		for _, ch := range of {
			u := ch.n - ch.forced
			km := keepMoments(beta, RerunSigma, u)
			w := 1.0
			if ch.x {
				w = 1 - RerunReproduce // reproduced: the same chain, no gain
			}
			for m := ch.v + ch.s - ch.forced + 1; m <= u; m++ {
				gained += w * km[m]
			}
			_, lo := expectRetained(ch, beta, RerunSigma)
			switch {
			case ch.x:
				xInc++
				xKept += RerunReproduce
				if ch.hedge {
					lastOnly += (1 - RerunReproduce) * lo
				}
			case ch.hedge:
				lastOnly += lo
			}
		}
		fit.Expected[cl] = gained
	}
	if xInc > 0 && lastOnly > 0 {
		fit.Q = min(1, (xInc-xKept)/lastOnly)
	}
	return fit, nil
}

// assignRerun draws the rerun's chains from the incumbent's (see the
// model above).
func assignRerun(seed uint64, inc []*chain) ([]*chain, rerunFit, error) {
	fit, err := fitRerun(inc)
	if err != nil {
		return nil, fit, err
	}
	r := stream(seed, "outcomes/"+SystemRerun)
	for fit.Draw = 1; fit.Draw <= rerunMaxDraws; fit.Draw++ {
		out := drawRerun(r, inc, fit)
		if rerunAccepted(inc, out) {
			return out, fit, nil
		}
	}
	return nil, fit, fmt.Errorf("rerun: no draw of %d has a net difference of at most %d and %d–%d contradiction flips",
		rerunMaxDraws, RerunMaxNet, RerunFlips[0], RerunFlips[1])
}

// rerunMaxDraws bounds the draws assignRerun tries.
const rerunMaxDraws = 10_000

// rerunAccepted reports whether a draw is one the example keeps:
// |Σ lost − Σ gained| ≤ RerunMaxNet over the classes, and RerunFlips[0]
// to RerunFlips[1] items contradicted by one run and not the other.
func rerunAccepted(inc, rerun []*chain) bool {
	net, flips := 0, 0
	for i, ch := range rerun {
		net += ch.v + ch.s - (inc[i].v + inc[i].s)
		if ch.x != inc[i].x {
			flips++
		}
	}
	return -RerunMaxNet <= net && net <= RerunMaxNet && RerunFlips[0] <= flips && flips <= RerunFlips[1]
}

// drawRerun draws the rerun's chains with the fitted parameters.
func drawRerun(r *rand.Rand, inc []*chain, fit rerunFit) []*chain {
	z := make(map[int]float64)
	var out []*chain
	for _, ic := range inc {
		zk, ok := z[ic.conv]
		if !ok {
			zk = RerunSigma * r.NormFloat64()
			z[ic.conv] = zk
		}
		ch := &chain{conv: ic.conv, item: ic.item, class: ic.class, first: ic.first, n: ic.n, forced: ic.forced, hedge: ic.hedge}
		ch.v = ch.forced
		if ic.x && chance(r, RerunReproduce) {
			ch.s, ch.x = ch.n-1-ch.forced, true
			out = append(out, ch)
			continue
		}
		h := 1 / (1 + math.Exp(-(fit.Beta[ch.class] + zk)))
		for ch.v+ch.s < ch.n && !chance(r, h) {
			ch.s++
		}
		if ch.hedge && ch.lost() == 1 && chance(r, fit.Q) {
			ch.x = true
		}
		out = append(out, ch)
	}
	// Pin, from the front of the retained slots, up to the incumbent's
	// verbatim count per class.
	for _, cl := range fixture.Classes {
		want, v := 0, 0
		var of []*chain
		for i, ch := range out {
			if ch.class == cl {
				want += inc[i].v
				v += ch.v
				of = append(of, ch)
			}
		}
		pinVerbatim(r, of, v, want)
	}
	return out
}
