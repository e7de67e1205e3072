// Package format holds the small text formats that the report's model
// (its rule and replay sentences) and its renderers share: percentage
// points, a confidence level, a p-value, a plural. It knows nothing of
// the report; it formats numbers and words.
package format

import (
	"fmt"
	"math"
	"strings"
)

// SignedPoints formats a difference of rates as signed percentage
// points with one decimal, with a true minus sign.
func SignedPoints(d float64) string {
	s := fmt.Sprintf("%+.1f", 100*d)
	if s == "-0.0" || s == "+0.0" {
		return "0.0"
	}
	return strings.Replace(s, "-", "−", 1)
}

// Points formats a fraction as percentage points with one
// decimal, without a sign.
func Points(d float64) string { return fmt.Sprintf("%.1f", 100*d) }

// Confidence formats a confidence level such as 0.95 as "95%".
func Confidence(c float64) string { return fmt.Sprintf("%.4g%%", 100*c) }

// P formats a p-value: three significant decimals, "< 0.0001"
// below that.
func P(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p < 0.0001:
		return "< 0.0001"
	case p < 0.001:
		return fmt.Sprintf("%.4f", p)
	}
	return fmt.Sprintf("%.3f", p)
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
