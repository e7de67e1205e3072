package noise

import (
	"math"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/stats"
)

// Run is one of the two check runs compared: a verdict file.
type Run struct {
	// File is the name the file was given as (normally its path).
	File string
	// System is the name every record of the file gives in "system".
	System string
	// Records is the number of verdict records read, errors included.
	Records int
}

// Class is one class's A/A comparison.
//
// A pair is an item-compaction both runs checked with a non-error
// verdict. Lost and Gained are its two kinds of disagreement on whether
// the item was retained (verbatim or supported, fixture.Verdict.Retained),
// named as a comparison of run B against run A would name them.
type Class struct {
	Class fixture.Class
	// Pairs is the number of item-compactions both runs checked with a
	// non-error verdict.
	Pairs int
	// BothRetained: both runs retained the item. Lost: A retained it, B
	// did not. Gained: A did not, B did. NeitherRetained: neither did.
	// They add up to Pairs.
	BothRetained, Lost, Gained, NeitherRetained int
	// Conversations is the number of conversations with at least one pair.
	Conversations int
	// ContradictionFlips is the number of pairs contradicted in exactly
	// one run.
	ContradictionFlips int
	// Errors is the number of item-compactions in both files with an
	// error verdict in either run (or both): their outcome is unknown, so
	// they are left out of Pairs and of every figure computed from it.
	Errors int
	// DiscordanceInterval is the Wilson interval of Discordance at the
	// Measure's confidence (both bounds NaN when Pairs is 0). It treats
	// the pairs as independent; ICC.DesignEffect says how much wider the
	// conversations make it.
	DiscordanceInterval stats.Interval
	// ICC is the within-conversation correlation of discordance: the
	// intraclass correlation of the per-pair binary outcome "discordant"
	// (lost or gained), with the class's conversations as clusters —
	// stats.Cluster{K: Lost + Gained, N: N} of each of Clusters.
	ICC stats.ICC
	// Clusters are the class's pairs by conversation, one for each of
	// the Conversations, in the order run A first names them: what a
	// model of the gate resamples or tests conversation by conversation.
	Clusters []Cluster
}

// Cluster is one conversation's pairs of a class.
type Cluster struct {
	ConversationID string
	// N is the conversation's pairs; Lost and Gained those of them A
	// retained and B did not, and the other way round.
	N, Lost, Gained int
}

// Discordant is Lost + Gained: the pairs on which the runs disagree.
func (c Class) Discordant() int { return c.Lost + c.Gained }

// Discordance is (Lost+Gained)/Pairs: the share of pairs on which the two
// runs disagree about retention; NaN with Pairs = 0.
func (c Class) Discordance() float64 {
	if c.Pairs == 0 {
		return math.NaN()
	}
	return float64(c.Discordant()) / float64(c.Pairs)
}

// Unpaired counts the item-compactions found in one file only: never
// paired, never dropped in silence.
type Unpaired struct {
	// OnlyA and OnlyB are the item-compactions with a record in A and not
	// in B, and in B and not in A.
	OnlyA, OnlyB int
}

// Measure is the whole A/A comparison of two check runs.
type Measure struct {
	// A and B are the two runs, as given to Compare.
	A, B Run
	// Confidence is the confidence level of every interval.
	Confidence float64
	// Classes has one Class for each class with at least one
	// item-compaction in both files (a pair, or an error in either run),
	// in fixture.Classes order.
	Classes []Class
	// Unpaired counts the item-compactions in one file only.
	Unpaired Unpaired
	// All is every class pooled, as one row: its Class is empty, each
	// conversation is one cluster of all its pairs, and its
	// ContradictionFlips and ICC are Measure's.
	All Class
	// Agreement is Cohen's κ on Table: the verdict-level agreement of the
	// two runs, over every pair of every class.
	Agreement stats.Kappa
	// Table is the k×k agreement table over Labels (verbatim, supported,
	// absent, contradicted; error verdicts are left out): Table[i][j]
	// pairs got Labels[i] from run A and Labels[j] from run B.
	Table  [][]int
	Labels []string
	// ContradictionFlips is the number of pairs, over all classes,
	// contradicted in exactly one run, and ContradictionFlipRate that
	// number over Pairs.
	ContradictionFlips    int
	ContradictionFlipRate float64
	// ICC is the within-conversation correlation of discordance with all
	// classes pooled: each conversation one cluster of all its pairs.
	ICC stats.ICC
	// Warnings say what a reader must know to use the figures: two
	// different system names, item-compactions in one file only, error
	// verdicts left out.
	Warnings []string
}
