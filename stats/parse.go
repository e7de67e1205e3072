package stats

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseProportion parses "K/N" (for example "166/200"; spaces around
// either number are allowed) into a validated Proportion.
func ParseProportion(s string) (Proportion, error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Proportion{}, inputErrorf("%q is not K/N (successes/trials, e.g. 166/200)", s)
	}
	k, err := strconv.Atoi(strings.TrimSpace(ks))
	if err != nil {
		return Proportion{}, inputErrorf("%q: successes %q is not a whole number", s, ks)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return Proportion{}, inputErrorf("%q: trials %q is not a whole number", s, ns)
	}
	p := Proportion{K: k, N: n}
	if err := p.Validate(); err != nil {
		return Proportion{}, fmt.Errorf("%q: %w", s, err)
	}
	return p, nil
}
