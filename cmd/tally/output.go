package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table is an aligned text table for the text format.
func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// prob formats a probability for people: four decimals.
func prob(p float64) string { return formatFixed(p, 4) }

// points formats a probability as percentage points with one decimal.
func points(p float64) string { return fmt.Sprintf("%.1f points", 100*p) }

// pct formats a confidence level such as 0.95 as "95%".
func pct(c float64) string {
	s := fmt.Sprintf("%.4g%%", 100*c)
	return s
}

// optional is a float that JSON writes as null when it is undefined.
func optional(v float64, ok bool) *float64 {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// writeWarnings prints each warning as a "note:" line.
func writeWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "note: %s\n", s)
	}
}

// formatFixed formats x with d decimals.
func formatFixed(x float64, d int) string { return fmt.Sprintf("%.*f", d, x) }
