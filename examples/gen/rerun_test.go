package main

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// exampleDiscordance is the incumbent-against-candidate discordance of
// the example that issue 13 takes as its noise (lost + gained
// item-compactions per class).
var exampleDiscordance = map[fixture.Class]int{
	fixture.Constraint: 19, fixture.Commitment: 11, fixture.OpenQuestion: 22, fixture.Reference: 7,
}

// simChain is one item of the committed incumbent's run, as the rerun's
// model sees it: its live compactions, the leading ones its recent turns
// force, what the incumbent retained and whether it contradicted it.
type simChain struct {
	conv     int
	class    fixture.Class
	n, force int
	incR     int
	incX     bool
	hedge    bool
}

// committedChains reads the incumbent's and the rerun's committed runs as
// chains (from the contexts and the recorded judge, as tally check
// would), checking on the way that the rerun never recovers an item it
// dropped. hedge says whether an item is a hedge.
func committedChains(t *testing.T, hedge func(conv string, item int) bool) (inc []simChain, rerunR []int, rerunX []bool) {
	t.Helper()
	_, verdicts := checkCommittedPairs(t)
	fixtures, err := fixture.Load(filepath.Join(committed, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	recent := rerunSummariser().Recent
	for ci, fx := range fixtures {
		ctxs, err := fixture.ContextFiles(filepath.Join(committed, "contexts", SystemIncumbent), fx.ConversationID)
		if err != nil {
			t.Fatal(err)
		}
		var turns []int
		for _, p := range ctxs {
			c, err := fixture.LoadContext(p)
			if err != nil {
				t.Fatal(err)
			}
			turns = append(turns, c.Turn)
		}
		for ii, it := range fx.MustSurvive {
			ch := simChain{conv: ci, class: it.Class, hedge: hedge(fx.ConversationID, ii)}
			r, x, dropped := 0, false, false
			for j, turn := range turns {
				if it.Turn >= turn {
					continue
				}
				ch.n++
				if it.Turn >= turn-recent {
					ch.force++
				}
				k := pairKey{fx.ConversationID, j + 1, it.ID}
				vi, vr := verdicts[SystemIncumbent][k], verdicts[SystemRerun][k]
				if vi.Retained() {
					ch.incR++
				}
				ch.incX = ch.incX || vi == fixture.Contradicted
				switch {
				case vr.Retained() && dropped:
					t.Errorf("%s %s: the rerun dropped it and carries it again at compaction %d", fx.ConversationID, it.ID, j+1)
				case vr.Retained():
					r++
				default:
					dropped = true
				}
				x = x || vr == fixture.Contradicted
			}
			if ch.n > 0 {
				inc, rerunR, rerunX = append(inc, ch), append(rerunR, r), append(rerunX, x)
			}
		}
	}
	return inc, rerunR, rerunX
}

// simRerun draws one rerun from the model of rerun.go, written again
// from its description: a conversation effect z ~ N(0, σ²); an
// incumbent's inversion reproduced with probability RerunReproduce;
// otherwise a drop with probability logistic(β + z) at each unforced
// live compaction, for good; a hedge dropped at its last compaction only
// inverted with probability q. It returns each chain's retained count
// and inversion.
func simRerun(src interface{ Float64() float64 }, normal func() float64, chains []simChain, fit rerunFit) ([]int, []bool) {
	rs, xs := make([]int, len(chains)), make([]bool, len(chains))
	z := map[int]float64{}
	for i, ch := range chains {
		zk, ok := z[ch.conv]
		if !ok {
			zk = RerunSigma * normal()
			z[ch.conv] = zk
		}
		if ch.incX && src.Float64() < RerunReproduce {
			rs[i], xs[i] = ch.n-1, true
			continue
		}
		h := 1 / (1 + math.Exp(-fit.Beta[ch.class]-zk))
		r := ch.force
		for r < ch.n && src.Float64() >= h {
			r++
		}
		rs[i] = r
		xs[i] = ch.hedge && r == ch.n-1 && src.Float64() < fit.Q
	}
	return rs, xs
}

// lostGained counts per class the item-compactions a rerun lost and
// gained against the incumbent, the contradiction flips, and whether the
// example's rule (step 6) keeps it.
func lostGained(chains []simChain, rs []int, xs []bool) (lost, gained map[fixture.Class]int, flips int, kept bool) {
	lost, gained = make(map[fixture.Class]int), make(map[fixture.Class]int)
	for i, ch := range chains {
		if d := rs[i] - ch.incR; d < 0 {
			lost[ch.class] -= d
		} else {
			gained[ch.class] += d
		}
		if xs[i] != ch.incX {
			flips++
		}
	}
	net := 0
	for _, cl := range fixture.Classes {
		net += lost[cl] - gained[cl]
	}
	kept = RerunFlips[0] <= flips && flips <= RerunFlips[1] && max(net, -net) <= RerunMaxNet
	return lost, gained, flips, kept
}

// meanSE is the mean of xs and its standard error.
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(xs)-1) / float64(len(xs)))
}

// TestRerunNoise: the incumbent's rerun is noise of the kind the model
// in rerun.go describes, checked by a simulation of that model written
// here: as good as the first run on average (E[lost] = E[gained] per
// class, before and under the example's acceptance rule); an expected
// discordance of the order of the example's own (at least 3/4 of it,
// capped at what a symmetric rerun can reach: twice the incumbent's
// lost item-compactions); the committed pair within the model's range;
// 1–3 contradiction flips; and drops that cluster by conversation.
func TestRerunNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("a full generation and a simulation")
	}
	q, err := Generate(DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	hedges := map[string][]bool{}
	for _, cv := range q.Fixtures {
		for _, it := range cv.items {
			hedges[cv.s.ID] = append(hedges[cv.s.ID], it.Hedge)
		}
	}
	chains, rerunR, rerunX := committedChains(t, func(conv string, i int) bool { return hedges[conv][i] })
	lost, gained, flips, kept := lostGained(chains, rerunR, rerunX)
	t.Logf("committed rerun against the incumbent: lost %v, gained %v, %d contradiction flips", lost, gained, flips)
	if !kept {
		t.Errorf("the committed rerun is not one the example's rule keeps (|Σ lost − Σ gained| ≤ %d, %v flips)", RerunMaxNet, RerunFlips)
	}
	incLost := map[fixture.Class]int{}
	for _, ch := range chains {
		incLost[ch.class] += ch.n - ch.incR
	}

	r := stream(1, "rerun-test")
	const draws = 40_000
	all, acc := map[fixture.Class]*sample{}, map[fixture.Class]*sample{}
	for _, cl := range fixture.Classes {
		all[cl], acc[cl] = &sample{}, &sample{}
	}
	var iccAll []float64
	for range draws {
		rs, xs := simRerun(r, r.NormFloat64, chains, q.Rerun)
		l, g, _, ok := lostGained(chains, rs, xs)
		for _, cl := range fixture.Classes {
			all[cl].add(l[cl], g[cl])
			if ok {
				acc[cl].add(l[cl], g[cl])
			}
		}
		if len(iccAll) < 4000 {
			iccAll = append(iccAll, droppedICC(chains, rs))
		}
	}
	for _, cl := range fixture.Classes {
		a, k := all[cl], acc[cl]
		diff := make([]float64, len(a.lost))
		for i := range diff {
			diff[i] = a.lost[i] - a.gained[i]
		}
		md, se := meanSE(diff)
		ml, _ := meanSE(a.lost)
		mg, seg := meanSE(a.gained)
		mdisc, _ := meanSE(a.disc)
		kdiff := make([]float64, len(k.lost))
		for i := range kdiff {
			kdiff[i] = k.lost[i] - k.gained[i]
		}
		kd, kse := meanSE(kdiff)
		kdisc, _ := meanSE(k.disc)
		t.Logf("%s: E[lost] %.2f, E[gained] %.2f (fitted %.2f), E[discordant] %.2f; under the rule (%d of %d draws) E[lost − gained] %.2f ± %.2f, E[discordant] %.2f",
			cl, ml, mg, q.Rerun.Expected[cl], mdisc, len(k.lost), draws, kd, kse, kdisc)
		// Symmetric: E[lost] = E[gained], within 4 Monte-Carlo standard errors.
		if math.Abs(md) > 4*se {
			t.Errorf("%s: E[lost] − E[gained] = %.3f ± %.3f: the rerun is not as good as the first run on average", cl, md, se)
		}
		if math.Abs(mg-q.Rerun.Expected[cl]) > 4*seg {
			t.Errorf("%s: E[gained] %.3f ± %.3f by simulation, the fit says %.3f", cl, mg, seg, q.Rerun.Expected[cl])
		}
		// Under the example's rule, within a twentieth of the discordance
		// (the flips' part of the rule leans a little to gained).
		if math.Abs(kd) > 4*kse+0.05*kdisc {
			t.Errorf("%s: under the example's rule E[lost] − E[gained] = %.3f ± %.3f", cl, kd, kse)
		}
		// Of the order of the example's discordance.
		reach := min(exampleDiscordance[cl], 2*incLost[cl])
		if mdisc < 0.75*float64(reach) || mdisc > float64(2*incLost[cl]) {
			t.Errorf("%s: expected discordance %.2f, want between %.2f (3/4 of min(example %d, 2 × incumbent's lost %d)) and %d",
				cl, mdisc, 0.75*float64(reach), exampleDiscordance[cl], incLost[cl], 2*incLost[cl])
		}
		// The committed pair is a typical draw under the rule.
		for _, c := range []struct {
			name string
			xs   []float64
			got  int
		}{{"lost", k.lost, lost[cl]}, {"gained", k.gained, gained[cl]}} {
			lo, hi := quantile(c.xs, 0.005), quantile(c.xs, 0.995)
			if float64(c.got) < lo || float64(c.got) > hi {
				t.Errorf("%s: the committed rerun %s %d, outside the model's 99%% range %g–%g", cl, c.name, c.got, lo, hi)
			}
		}
	}
	// Clustering: under the model, items a rerun drops cluster in
	// conversations; the committed rerun's clustering is in the model's
	// range.
	mICC, _ := meanSE(iccAll)
	got := droppedICC(chains, rerunR)
	lo, hi := quantile(iccAll, 0.005), quantile(iccAll, 0.995)
	t.Logf("within-conversation correlation of the rerun's drops: committed %.3f, model mean %.3f (99%%: %.3f–%.3f)", got, mICC, lo, hi)
	if mICC < 0.05 {
		t.Errorf("the model's drops hardly cluster in conversations: mean ICC %.3f", mICC)
	}
	if got < lo || got > hi {
		t.Errorf("the committed rerun's ICC %.3f is outside the model's 99%% range %.3f–%.3f", got, lo, hi)
	}
}

// sample is one class's lost, gained and discordant counts over
// simulated reruns.
type sample struct{ lost, gained, disc []float64 }

func (s *sample) add(lost, gained int) {
	s.lost, s.gained = append(s.lost, float64(lost)), append(s.gained, float64(gained))
	s.disc = append(s.disc, float64(lost+gained))
}

// quantile is the empirical p-quantile of xs (sorted in place).
func quantile(xs []float64, p float64) float64 {
	slices.SortFunc(xs, cmp.Compare)
	return xs[min(len(xs)-1, int(p*float64(len(xs))))]
}

// droppedICC is the one-way ANOVA estimate of the intraclass correlation
// of "the rerun drops the item at some live compaction where it could"
// (among items with an unforced live compaction), conversations as the
// groups.
func droppedICC(chains []simChain, rs []int) float64 {
	groups := map[int][]float64{}
	for i, ch := range chains {
		if ch.n > ch.force {
			y := 0.0
			if rs[i] < ch.n {
				y = 1
			}
			groups[ch.conv] = append(groups[ch.conv], y)
		}
	}
	return anovaICC(groups)
}

// anovaICC is the one-way ANOVA estimator of the intraclass correlation
// for unequal group sizes: (MSB − MSW) / (MSB + (n0 − 1)·MSW), with n0 =
// (N − Σ nᵢ²/N)/(k − 1) (Donner 1986).
func anovaICC(groups map[int][]float64) float64 {
	n, grand := 0.0, 0.0
	for _, g := range groups {
		for _, y := range g {
			n++
			grand += y
		}
	}
	grand /= n
	k := float64(len(groups))
	ssb, ssw, sumSq := 0.0, 0.0, 0.0
	for _, g := range groups {
		m := 0.0
		for _, y := range g {
			m += y
		}
		m /= float64(len(g))
		ssb += float64(len(g)) * (m - grand) * (m - grand)
		for _, y := range g {
			ssw += (y - m) * (y - m)
		}
		sumSq += float64(len(g) * len(g))
	}
	msb, msw := ssb/(k-1), ssw/(n-k)
	n0 := (n - sumSq/n) / (k - 1)
	if d := msb + (n0-1)*msw; d > 0 {
		return (msb - msw) / d
	}
	return 0
}
