package stats

import "fmt"

// RateSummary is a rate with its standard error and intervals by one or
// more methods: what `tally interval` reports.
type RateSummary struct {
	Proportion
	Confidence    float64
	Estimate      float64
	StandardError float64
	Intervals     []Interval
	// Warnings says where an interval is degenerate or a convention was
	// applied, in words a reader of the report can act on.
	Warnings []string
}

// Summarize computes p's estimate, standard error and an interval by each
// of methods (every method in Methods when none is given).
func Summarize(p Proportion, confidence float64, methods ...Method) (RateSummary, error) {
	if err := p.Validate(); err != nil {
		return RateSummary{}, err
	}
	if err := ValidateConfidence(confidence); err != nil {
		return RateSummary{}, err
	}
	if len(methods) == 0 {
		methods = Methods
	}
	s := RateSummary{
		Proportion:    p,
		Confidence:    confidence,
		Estimate:      p.Estimate(),
		StandardError: p.StandardError(),
	}
	for _, m := range methods {
		iv, err := p.Interval(m, confidence)
		if err != nil {
			return RateSummary{}, err
		}
		s.Intervals = append(s.Intervals, iv)
		s.Warnings = append(s.Warnings, intervalWarnings(p, iv)...)
	}
	return s, nil
}

func intervalWarnings(p Proportion, iv Interval) []string {
	boundary := p.K == 0 || p.K == p.N
	switch Method(iv.Method) {
	case Wald:
		if boundary {
			return []string{fmt.Sprintf("wald: zero width at %s (the standard error is 0); use wilson, jeffreys or clopper-pearson", p)}
		}
		if p.N < 30 {
			return []string{fmt.Sprintf("wald: n = %d is small; its coverage falls well below the nominal level (Brown, Cai & DasGupta 2001)", p.N)}
		}
	case Jeffreys:
		if boundary {
			if p.K == 0 {
				return []string{fmt.Sprintf("jeffreys: at %s the lower bound is 0 by convention (Brown, Cai & DasGupta 2001)", p)}
			}
			return []string{fmt.Sprintf("jeffreys: at %s the upper bound is 1 by convention (Brown, Cai & DasGupta 2001)", p)}
		}
	}
	return nil
}
