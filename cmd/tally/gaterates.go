package main

import (
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/rule"
)

// ratesJSON is the JSON of a report's error rates (report.ErrorRates).
type ratesJSON struct {
	Rule  string `json:"rule"`
	Known bool   `json:"known"`
	// Why says why the rates are unknown (known false).
	Why      string `json:"why,omitempty"`
	Sentence string `json:"sentence"`
	// FalseBlock is the probability of blocking a harmless change;
	// StandardError its Monte-Carlo standard error (0 when exact).
	FalseBlock    *float64       `json:"false_block,omitempty"`
	StandardError *float64       `json:"standard_error,omitempty"`
	Method        string         `json:"method,omitempty"`
	Replicates    int            `json:"replicates,omitempty"`
	Seed          uint64         `json:"seed,omitempty"`
	Power         []ratePowerRow `json:"power,omitempty"`
	// ContradictionsExpected is the number of items a harmless candidate
	// newly contradicts on average, by noise alone, and
	// ContradictionsAtLeastOne the probability of at least one;
	// CountContradictionBlock the count rule's contradiction row's
	// false-block rate (count rule only).
	ContradictionsExpected   *float64 `json:"contradictions_expected,omitempty"`
	ContradictionsAtLeastOne *float64 `json:"contradictions_at_least_one,omitempty"`
	CountContradictionBlock  *float64 `json:"count_contradiction_block,omitempty"`
	// Skipped says which configured drops got no power, and why.
	Skipped []string `json:"skipped,omitempty"`
	Noise   []string `json:"noise,omitempty"`
}

// ratePowerRow is the probability of blocking a drop in one class.
type ratePowerRow struct {
	Class string `json:"class"`
	// FalseBlock is the probability that this class blocks a harmless
	// change (for mcnemar at Holm's first step, α/k).
	FalseBlock  float64    `json:"false_block"`
	Items       int        `json:"items"`
	Discordance float64    `json:"discordance"`
	Correlation float64    `json:"correlation"`
	Drops       []float64  `json:"drops"`
	Block       []*float64 `json:"block"`
}

func newRatesJSON(er *report.ErrorRates) *ratesJSON {
	if er == nil {
		return nil
	}
	out := &ratesJSON{Rule: string(er.Rule.Kind), Known: er.Known, Why: er.Why, Sentence: er.Sentence}
	if !er.Known {
		return out
	}
	fb := er.FalseBlock
	out.FalseBlock, out.StandardError, out.Method, out.Replicates, out.Seed = ptr(fb.Block), ptr(fb.StandardError), fb.Method, fb.Replicates, fb.Seed
	out.ContradictionsExpected, out.ContradictionsAtLeastOne = ptr(er.Contradictions.ExpectedNew), ptr(er.Contradictions.AtLeastOne)
	if er.Rule.Kind == rule.Count {
		out.CountContradictionBlock = ptr(er.Contradictions.CountBlock)
	}
	out.Skipped = er.Skipped
	out.Noise = []string{er.First, er.Second}
	for i, c := range er.Classes {
		row := ratePowerRow{Class: c.Name, FalseBlock: fb.Classes[i].Block, Items: c.Items(), Discordance: c.Discordance, Correlation: c.Correlation, Drops: er.Drops}
		for _, p := range er.Power[i] {
			var b *float64 // null: the class cannot lose that much
			if p.Given() {
				b = ptr(p.Block)
			}
			row.Block = append(row.Block, b)
		}
		out.Power = append(out.Power, row)
	}
	return out
}
