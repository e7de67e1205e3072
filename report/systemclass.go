package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// NewSystemClass computes one system's result for one class, as Build
// does (its gate left for ShareGate): counts c, the per-conversation
// clusters of its items, the confidence of the intervals. With an error
// verdict the share is a range (sc.Retained), not a point: Share, Wilson
// and the cluster-robust interval are NaN, since counting an error as not
// retained would state a share the verdicts do not support.
func NewSystemClass(c fixture.Counts, clusters []stats.Cluster, confidence float64) (SystemClass, error) {
	sc := SystemClass{Counts: c, Retained: Share{Counts: c, Confidence: confidence}, Share: math.NaN()}
	if c.Items == 0 || c.Errors > 0 {
		// No items, or a range: NaN bounds, no interval (a zero value
		// would be written as 0–0% in the workbook).
		sc.Wilson, _ = sc.Retained.Wilson()
		sc.Robust = stats.Interval{Method: "cluster-robust", Lower: math.NaN(), Upper: math.NaN()}
		return sc, nil
	}
	sc.Share = sc.Retained.Point()
	var err error
	if sc.Wilson, err = sc.Retained.Wilson(); err != nil {
		return sc, err
	}
	if sc.Clustered, err = stats.ClusterRate(clusters); err != nil {
		return sc, err
	}
	if sc.Robust, err = sc.Clustered.RobustInterval(confidence); err != nil {
		return sc, err
	}
	if !(sc.Clustered.RobustStandardError > 0) {
		// Every conversation retained all its items (or none): the
		// robust standard error is 0 or undefined, and a zero-width
		// interval would claim certainty it does not have. No interval;
		// the Wilson one stands.
		sc.Robust.Lower, sc.Robust.Upper = math.NaN(), math.NaN()
	}
	return sc, nil
}

// fewClusters is the number of conversations below which a report warns
// that cluster-robust intervals run too narrow: Cameron & Miller (2015,
// "A Practitioner's Guide to Cluster-Robust Inference", J. Human
// Resources 50(2), §VI) put "few" at somewhere under 20 to 50 clusters.
const fewClusters = 20

// NewPromptStats summarises prompt sizes: mean, median (the mean of the
// middle two for an even count), the 95th percentile by nearest rank,
// and the maximum. It sorts sizes and keeps them as the result's Sizes.
func NewPromptStats(sizes []int) PromptStats {
	n := len(sizes)
	if n == 0 {
		return PromptStats{Mean: math.NaN(), Median: math.NaN(), P95: math.NaN()}
	}
	slices.Sort(sizes)
	var sum float64
	for _, v := range sizes {
		sum += float64(v)
	}
	med := float64(sizes[n/2])
	if n%2 == 0 {
		med = (float64(sizes[n/2-1]) + float64(sizes[n/2])) / 2
	}
	rank := int(math.Ceil(0.95 * float64(n)))
	return PromptStats{Contexts: n, Mean: sum / float64(n), Median: med, P95: float64(sizes[max(rank, 1)-1]), Max: sizes[n-1], Sizes: sizes}
}

// checkedConversations counts the fixtures with at least one verdict in
// either system: the clusters the cluster-robust intervals rest on.
func (b *builder) checkedConversations() int {
	seen := make([]bool, len(b.fixtures))
	n := 0
	for _, g := range b.rowItem {
		if fi := b.itemFix[g]; !seen[fi] {
			seen[fi] = true
			n++
		}
	}
	return n
}

// fewDiscordantClusters is the number of conversations with a discordant
// item below which the report warns that a clustered test is rough: the
// cluster variance rests on those conversations alone (the rule of thumb
// of `tally mcnemar --clusters`).
const fewDiscordantClusters = 10

// discordantConversations counts the conversations with a lost or gained
// item.
func discordantConversations(cs []power.ClusterCounts) int {
	n := 0
	for _, c := range cs {
		if c.Lost+c.Gained > 0 {
			n++
		}
	}
	return n
}

// warnJudges says when the two systems' verdicts were not judged alike:
// a difference between the systems may then be the judges'.
func (b *builder) warnJudges() {
	names := func(m map[string]int) string {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		parts := make([]string, len(ks))
		for i, k := range ks {
			parts[i] = fmt.Sprintf("%s (%d)", previewText(k), m[k])
		}
		return strings.Join(parts, ", ")
	}
	a, c := b.judgedBy[0], b.judgedBy[1]
	if len(a) == 0 || len(c) == 0 || maps.Equal(keySet(a), keySet(c)) {
		return
	}
	b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
		"judges: the incumbent's verdicts were judged by %s, the candidate's by %s: a difference between the systems may be the judges' (judge both with one judge)",
		names(a), names(c)))
}

// keySet is m's keys.
func keySet(m map[string]int) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
