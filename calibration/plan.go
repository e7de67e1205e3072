package calibration

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// Planning defaults for NewPlan.
const (
	// DefaultHalfWidth is the target half-width of each class's corrected
	// retention: 10 points, about the judge-only interval of a class of 50 to 100 items.
	DefaultHalfWidth = 0.10
	// DefaultAgreement is the planning value of the share of a stratum's
	// items on which a reviewer will give the judge's verdict, where
	// earlier reviews do not measure it.
	DefaultAgreement = 0.9
	// MinPerStratum is the fewest reviews drawn from a stratum (or all
	// of it, when smaller), so that its variance rests on more than a
	// handful of items.
	MinPerStratum = 10
	// MeasuredFrom is the fewest earlier reviews in a stratum from which
	// its agreement is taken as measured rather than the planning value.
	MeasuredFrom = 20
)

// PlanOptions are the review queue's targets.
type PlanOptions struct {
	// HalfWidth is the target half-width of each class and system's
	// corrected retention (a share: 0.05 is 5 points).
	HalfWidth float64
	// Confidence is the interval's confidence level.
	Confidence float64
	// Agreement is the planning agreement (see DefaultAgreement).
	Agreement float64
	// Seed seeds the draw: the same seed and observations give the same
	// queue.
	Seed uint64
}

// StratumPlan is the queue's plan for one stratum of one class and
// system.
type StratumPlan struct {
	Class  fixture.Class
	System string
	Judge  fixture.Verdict
	// Judged is the stratum's size, Reviewed its items already reviewed,
	// Want the reviews the plan wants in all, and Drawn the new items the
	// queue adds (Want − Reviewed, or 0).
	Judged, Reviewed, Want, Drawn int
	// Agreement is the planning agreement used for the stratum, and
	// Measured whether it came from its earlier reviews.
	Agreement float64
	Measured  bool
	// Sample is reviews.SampleCensus for a stratum reviewed in full by design
	// (the contradictions), else reviews.SampleRandom.
	Sample string
}

// ClassPlan is the queue's plan for one class and system.
type ClassPlan struct {
	Class  fixture.Class
	System string
	// Items is the class's item-compactions, Judged the non-verbatim ones.
	Items, Judged int
	// HalfWidth is the half-width the plan expects of the corrected
	// retention with Want reviews per stratum; Reachable is false when
	// the target cannot be met even reviewing every judged item (the
	// judge's own sampling error exceeds it), or the class has an error
	// verdict (Reason says so).
	HalfWidth float64
	Reachable bool
	Reason    string
}

// Pick is one item-compaction the queue asks a reviewer to review.
type Pick struct {
	Key   reviews.Key
	Class fixture.Class
	Judge fixture.Verdict
	// Sample is reviews.SampleCensus or reviews.SampleRandom.
	Sample string
}

// Plan is a review queue: what to review, and why that much.
type Plan struct {
	Options PlanOptions
	Strata  []StratumPlan
	Classes []ClassPlan
	// Picks are the items to review, by class, system and stratum, each
	// stratum's in the order drawn.
	Picks []Pick
}

// NewPlan plans the review queue for the given systems: every
// contradiction, and from each class and system's supported and absent
// strata a simple random sample without replacement, sized by Neyman
// allocation (Cochran 1977, Sampling Techniques, 3rd ed., section 5.9,
// eq. 5.25) so that the corrected retention's half-width is at most
// opts.HalfWidth:
//
//	n = (Σ W_h·S_h)² / V,  n_h = n·W_h·S_h / Σ W_k·S_k
//
// where W_h = N_h/N over the judged items, S_h² = p_h(1 − p_h) for the
// planning agreement p_h, and V the variance the target allows on the
// judged items' share — ((HalfWidth/z)² − (V_I/I)(J/I)(1 − θ̄)²/I)·(I/J)²
// for V_I verbatim and J judged of I items — less the parts no review
// reduces: the verbatim share's and the strata's own sampling variance
// (Σ W_h(θ_h − θ̄)²/J), as Correct computes them. A stratum whose n_h
// reaches N_h is reviewed in full and the rest reallocated. Each stratum
// gets at least MinPerStratum (or all of it). The half-width expected of
// the sizes takes each stratum's variance at the Jeffreys-adjusted share
// (stats.PPIStratifiedJeffreys), which is a little larger than p(1 − p);
// while it exceeds the target, V is tightened by a tenth and the sizes
// drawn again. Reviews already made count towards a stratum's n_h and
// are not drawn again. Observations of other systems are ignored;
// classes with an error verdict are planned, marked not reachable.
func NewPlan(obs []Observation, systems []string, opts PlanOptions) (Plan, error) {
	if !(opts.HalfWidth > 0 && opts.HalfWidth < 1) {
		return Plan{}, fmt.Errorf("review queue: half-width %v must lie strictly between 0 and 1", opts.HalfWidth)
	}
	if !(opts.Agreement > 0 && opts.Agreement < 1) {
		return Plan{}, fmt.Errorf("review queue: planning agreement %v must lie strictly between 0 and 1", opts.Agreement)
	}
	if err := stats.ValidateConfidence(opts.Confidence); err != nil {
		return Plan{}, fmt.Errorf("review queue: %w", err)
	}
	z := stats.Z(opts.Confidence)
	type stratum struct {
		todo              []Observation // not yet reviewed
		reviewed, humanOK int
	}
	type cell struct {
		counts fixture.Counts
		strata [3]stratum
	}
	cells := map[[2]string]*cell{}
	for _, o := range obs {
		if !slices.Contains(systems, o.Key.System) || !o.Class.Valid() {
			continue
		}
		k := [2]string{string(o.Class), o.Key.System}
		c := cells[k]
		if c == nil {
			c = &cell{}
			cells[k] = c
		}
		c.counts.Add(o.Judge)
		h := slices.Index(judgedStrata[:], o.Judge)
		if h < 0 {
			continue
		}
		st := &c.strata[h]
		if label(o.Reviewed) >= 0 && o.Reviewed != fixture.Verbatim {
			st.reviewed++
			if label(o.Reviewed) == h {
				st.humanOK++
			}
			continue
		}
		st.todo = append(st.todo, o)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x7a11e7))
	p := Plan{Options: opts}
	for _, cl := range fixture.Classes {
		for _, sys := range systems {
			c := cells[[2]string{string(cl), sys}]
			if c == nil {
				continue
			}
			cp := ClassPlan{Class: cl, System: sys, Items: c.counts.Items,
				Judged: c.counts.Judged(), Reachable: true}
			if cp.Judged == 0 {
				cp.Reason = "every item verbatim: nothing to review"
				p.Classes = append(p.Classes, cp)
				continue
			}
			// Planning values per stratum.
			var sp [3]StratumPlan
			var w, s, theta [3]float64
			for h, st := range c.strata {
				n := st.reviewed + len(st.todo)
				sp[h] = StratumPlan{Class: cl, System: sys, Judge: judgedStrata[h], Judged: n, Reviewed: st.reviewed,
					Agreement: opts.Agreement, Sample: reviews.SampleRandom}
				if n == 0 {
					continue
				}
				if st.reviewed >= MeasuredFrom {
					// Measured, kept off 0 and 1 so that a stratum where
					// every review agreed still gets a sample.
					sp[h].Agreement = math.Min(float64(st.humanOK+1)/float64(st.reviewed+2), 1-1.0/float64(st.reviewed+2))
					sp[h].Measured = true
				}
				a := sp[h].Agreement
				w[h] = float64(n) / float64(cp.Judged)
				s[h] = math.Sqrt(a * (1 - a))
				// θ_h, the reviewers' retained share in the stratum.
				theta[h] = a
				if judgedStrata[h] != fixture.Supported {
					theta[h] = 1 - a
				}
			}
			var sumWS, thetaBar, between float64
			for h := range sp {
				sumWS += w[h] * s[h]
				thetaBar += w[h] * theta[h]
			}
			for h := range sp {
				between += w[h] * (theta[h] - thetaBar) * (theta[h] - thetaBar) / float64(cp.Judged)
			}
			// The verbatim share's own variance (Correct's class term)
			// is not reduced by reviews either: take it off the target.
			fi, fj := float64(cp.Items), float64(cp.Judged)
			verbatim := (fi - fj) / fi * (fj / fi) * (1 - thetaBar) * (1 - thetaBar) / fi
			hwz := opts.HalfWidth / z
			v := (hwz*hwz-verbatim)*(fi/fj)*(fi/fj) - between
			if v <= 0 {
				cp.Reachable = false
				cp.Reason = "the judge's own sampling error alone exceeds the target: review everything"
			}
			if c.counts.Errors > 0 {
				cp.Reachable = false
				cp.Reason = fmt.Sprintf("%d error %s: re-run tally check first; the share is not known", c.counts.Errors, plural(c.counts.Errors, "verdict", "verdicts"))
			}
			// allocate sizes the strata for the variance vv the reviews may
			// leave (+Inf: review everything) and gives the half-width
			// expected of them.
			allocate := func(vv float64) (want [3]int, hw float64) {
				neyman, capped := neymanSizes(vv, sp, w, s, sumWS)
				var variance float64
				for h := range sp {
					if sp[h].Judged == 0 {
						continue
					}
					want[h] = sp[h].Judged
					if judgedStrata[h] != fixture.Contradicted && !math.IsInf(neyman[h], 1) && !capped[h] {
						want[h] = int(math.Ceil(neyman[h]))
						want[h] = max(want[h], min(MinPerStratum, sp[h].Judged))
						want[h] = min(want[h], sp[h].Judged)
					}
					want[h] = max(want[h], c.strata[h].reviewed)
					// stats.PPIStratifiedJeffreys gives even a stratum
					// reviewed in full its sampling variance (the items are
					// a sample of the summariser's behaviour), at the
					// Jeffreys-adjusted share its reviews are expected to
					// give.
					n := float64(want[h])
					pt := (theta[h]*n + 0.5) / (n + 1)
					variance += w[h] * w[h] * pt * (1 - pt) / n
				}
				return want, z * math.Sqrt((variance+between)*(fj/fi)*(fj/fi)+verbatim)
			}
			// Neyman allocation plans with S_h² = p(1 − p); the interval's
			// Jeffreys-adjusted variance is a little larger, so tighten the
			// allowance until the expected half-width meets the target or
			// every stratum is reviewed in full.
			vv := v
			if v <= 0 {
				vv = math.Inf(1)
			}
			want, hw := allocate(vv)
			for k := 0; k < 40 && !math.IsInf(vv, 1) && hw > opts.HalfWidth; k++ {
				full := true
				for h := range sp {
					full = full && want[h] >= sp[h].Judged
				}
				if full {
					break
				}
				vv *= 0.9
				want, hw = allocate(vv)
			}
			cp.HalfWidth = hw
			for h := range sp {
				st := c.strata[h]
				if sp[h].Judged == 0 {
					continue
				}
				if judgedStrata[h] == fixture.Contradicted {
					sp[h].Sample = reviews.SampleCensus
				}
				sp[h].Want = want[h]
				sp[h].Drawn = max(0, want[h]-st.reviewed)
				// Draw: a partial Fisher–Yates shuffle of the stratum's
				// unreviewed items in key order.
				todo := slices.Clone(st.todo)
				slices.SortFunc(todo, func(a, b Observation) int { return compareKeys(a.Key, b.Key) })
				for i := 0; i < sp[h].Drawn; i++ {
					j := i + rng.IntN(len(todo)-i)
					todo[i], todo[j] = todo[j], todo[i]
					p.Picks = append(p.Picks, Pick{Key: todo[i].Key, Class: cl, Judge: todo[i].Judge, Sample: sp[h].Sample})
				}
				p.Strata = append(p.Strata, sp[h])
			}
			if cp.Reachable && cp.HalfWidth > opts.HalfWidth {
				cp.Reachable = false
				cp.Reason = fmt.Sprintf("the expected half-width, %.1f points, exceeds the target even with these reviews", 100*cp.HalfWidth)
			}
			p.Classes = append(p.Classes, cp)
		}
	}
	return p, nil
}

// compareKeys orders keys by conversation, compaction, item and system.
func compareKeys(a, b reviews.Key) int {
	return cmp.Or(cmp.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Compaction, b.Compaction),
		cmp.Compare(a.ItemID, b.ItemID), cmp.Compare(a.System, b.System))
}

// neymanSizes are the Neyman allocation's sizes for the variance vv the
// reviews may leave: n = (Σ W_h·S_h)²/vv shared as n·W_h·S_h/Σ W_k·S_k,
// a stratum whose size reaches its N_h reviewed in full (capped), its
// variance taken off vv, and the rest shared again. With vv = +Inf, or
// when the capped strata alone leave no room, every size is +Inf: review
// everything.
func neymanSizes(vv float64, sp [3]StratumPlan, w, s [3]float64, sumWS float64) (neyman [3]float64, capped [3]bool) {
	inf := func() ([3]float64, [3]bool) {
		return [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]bool{}
	}
	if math.IsInf(vv, 1) || sumWS == 0 {
		return inf()
	}
	for {
		rest, fixedVar := 0.0, 0.0
		for h := range sp {
			if capped[h] {
				fixedVar += w[h] * w[h] * s[h] * s[h] / float64(sp[h].Judged)
			} else {
				rest += w[h] * s[h]
			}
		}
		if rest == 0 {
			return neyman, capped
		}
		if vv-fixedVar <= 0 {
			return inf()
		}
		n := rest * rest / (vv - fixedVar)
		changed := false
		for h := range sp {
			if capped[h] {
				continue
			}
			neyman[h] = n * w[h] * s[h] / rest
			if sp[h].Judged > 0 && judgedStrata[h] != fixture.Contradicted && neyman[h] >= float64(sp[h].Judged) {
				capped[h], changed = true, true
			}
		}
		if !changed {
			return neyman, capped
		}
	}
}
