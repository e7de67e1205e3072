package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/tally-eval/tally/cmd/tally/internal/review"
)

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// prob formats a probability for people: four decimals.
func prob(p float64) string { return formatFixed(p, 4) }

// points formats a probability as percentage points with one decimal,
// or with two significant digits when one decimal would show a value
// that is not zero as 0.0 (3 conversations in a million: 0.0003 points).
func points(p float64) string {
	v := 100 * p
	if v != 0 && math.Abs(v) < 0.05 {
		return fmt.Sprintf("%.2g points", v)
	}
	return fmt.Sprintf("%.1f points", v)
}

// pct formats a confidence level such as 0.95 as "95%", with as many
// digits as it has (0.999999 is "99.9999%", not "100%"), up to twelve.
func pct(c float64) string {
	return fmt.Sprintf("%.12g%%", 100*c)
}

// optional is a float that JSON writes as null when it is undefined.
func optional(v float64, ok bool) *float64 {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// writeWarnings prints each warning as a "note:" line, made safe for a
// terminal: a warning may quote an input's session ids or paths.
func writeWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "note: %s\n", review.Printable(s))
	}
}

// fixedSig formats x with at least d decimals, and with more when d
// would show fewer than two significant digits of a value that is not
// zero: 1.19e-5 is "0.000012", not "0.0000".
func fixedSig(x float64, d int) string {
	if x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0) {
		d = max(d, min(15, int(math.Ceil(-math.Log10(math.Abs(x))))+1))
	}
	return formatFixed(x, d)
}

// formatFixed formats x with d decimals.
func formatFixed(x float64, d int) string { return fmt.Sprintf("%.*f", d, x) }

// usableFolder says, before anything is written, whether dir is a folder
// or can be made one: the nearest path above it that exists must be a
// folder. A file in the way is one error line naming the flag and that
// file, not mkdir's "not a directory". Other errors (permissions) are
// left to the write, which names them.
func usableFolder(flag, dir string) error {
	dir = filepath.Clean(dir)
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err == nil {
			switch {
			case info.IsDir():
				return nil
			case d == dir:
				return fmt.Errorf("%s %s: is a file, not a folder", flag, dir)
			default:
				return fmt.Errorf("%s %s: %s is a file, so no folder can be made under it", flag, dir, d)
			}
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// shellWord is s as one word of a POSIX shell command line: as it is
// when it holds only characters no shell treats specially, else in
// single quotes (a ' inside written '\”), so that a printed "next:"
// command runs as pasted when a path has a space in it (a new user's
// trial: "Ein Entwurf/candidates/…" was two arguments).
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x80 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r)) || unicode.IsSpace(r)
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
