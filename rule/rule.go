package rule

import (
	"fmt"
	"math"

	"github.com/tally-eval/tally/stats"
)

// Kind names a regression rule. The names are part of report.yaml's
// contract (regression.rule) and of the JSON outputs.
type Kind string

// The regression rules.
const (
	// Count blocks a class when the candidate loses more than Tolerance
	// items net, and the contradiction row when it newly contradicts more
	// than ContradictionTolerance items net: a count with no error rates
	// of its own, kept so its rates can be shown.
	Count Kind = "count"
	// McNemar blocks a class when the one-sided McNemar test rejects at
	// Holm's level for it (family-wise Alpha across the classes tested).
	McNemar Kind = "mcnemar"
	// NonInferiority blocks a class unless the one-sided paired score
	// test shows retention no more than Margin below the incumbent's.
	NonInferiority Kind = "noninferiority"
)

// Kinds lists the rules in the order help texts give them.
var Kinds = []Kind{McNemar, NonInferiority, Count}

// ParseKind parses a rule's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", inputErrorf("unknown rule %q: want mcnemar, noninferiority or count", s)
}

// Defaults of a Rule's fields that are zero.
const (
	// DefaultAlpha is the level of the McNemar and non-inferiority rules.
	DefaultAlpha = 0.05
	// DefaultMargin is the non-inferiority margin: 5 points of retention.
	DefaultMargin = 0.05
)

// Default is the rule a report uses when its configuration names none:
// the one-sided exact McNemar test per class at family-wise level 0.05
// (Holm), clustered by conversation. Its false-block rate is at most
// about 5% whatever the noise, because the level is the false-block
// rate of a valid test; on the bundled example it is computed and
// printed beside it.
var Default = Rule{Kind: McNemar, Alpha: DefaultAlpha, Clustered: true}

// Rule is a regression rule with its parameters. Fields that do not
// apply to Kind must be zero (Validate).
type Rule struct {
	Kind Kind
	// Tolerance (Count) is the net number of items of a class the
	// candidate may lose (lost less gained) before the class blocks.
	Tolerance int
	// ContradictionTolerance (Count) is the net number of items the
	// candidate may newly contradict (new less resolved) before the
	// contradiction row blocks. The other rules block on every new
	// contradiction.
	ContradictionTolerance int
	// Alpha (McNemar, NonInferiority) is the one-sided level: family-wise
	// across classes with Holm's procedure for McNemar, per class for
	// NonInferiority. Zero means DefaultAlpha.
	Alpha float64
	// MidP (McNemar, unclustered) uses the mid-p value (Fagerland,
	// Lydersen & Laake 2013) instead of the exact one: more power, a
	// false-block rate near Alpha rather than below it, not guaranteed.
	MidP bool
	// Margin (NonInferiority) is δ, in retention (a share): the class
	// passes only when the data show its retention is more than δ below
	// the incumbent's with probability at most Alpha. Zero means
	// DefaultMargin.
	Margin float64
	// Clustered (McNemar, NonInferiority) uses the clustered paired test
	// where items share conversations: Yang, Sun & Hardin's (2010)
	// modification of Obuchowski (1998) for McNemar, the Wald test of
	// Durkalski et al. (2003) for NonInferiority.
	Clustered bool
}

// alpha is r.Alpha or its default.
func (r Rule) alpha() float64 {
	if r.Alpha == 0 {
		return DefaultAlpha
	}
	return r.Alpha
}

// margin is r.Margin or its default.
func (r Rule) margin() float64 {
	if r.Margin == 0 {
		return DefaultMargin
	}
	return r.Margin
}

// Normalized returns r with its defaults filled in.
func (r Rule) Normalized() Rule {
	switch r.Kind {
	case McNemar:
		r.Alpha = r.alpha()
	case NonInferiority:
		r.Alpha, r.Margin = r.alpha(), r.margin()
	}
	return r
}

// Validate reports whether r is a usable rule: a known kind, and only
// the fields of its kind set, each in range.
func (r Rule) Validate() error {
	switch r.Kind {
	case Count:
		if r.Tolerance < 0 || r.ContradictionTolerance < 0 {
			return inputErrorf("count rule: tolerances must not be negative")
		}
		if r.Alpha != 0 || r.Margin != 0 || r.MidP || r.Clustered {
			return inputErrorf("count rule: alpha, margin, mid-p and clustered belong to the mcnemar and noninferiority rules")
		}
	case McNemar, NonInferiority:
		if r.Tolerance != 0 || r.ContradictionTolerance != 0 {
			return inputErrorf("%s rule: tolerances belong to the count rule (every new contradiction blocks under %s)", r.Kind, r.Kind)
		}
		if a := r.alpha(); !(a > 0 && a < 0.5) {
			return inputErrorf("%s rule: alpha must be in (0, 0.5), got %g", r.Kind, r.Alpha)
		}
		if r.Kind == McNemar && r.Margin != 0 {
			return inputErrorf("mcnemar rule: margin belongs to the noninferiority rule")
		}
		if r.Kind == NonInferiority {
			if m := r.margin(); !(m > 0 && m < 1) {
				return inputErrorf("noninferiority rule: margin must be in (0, 1), got %g", r.Margin)
			}
			if r.MidP {
				return inputErrorf("noninferiority rule: mid-p belongs to the mcnemar rule")
			}
		}
		if r.Kind == McNemar && r.MidP && r.Clustered {
			return inputErrorf("mcnemar rule: mid-p applies to the unclustered test only; the clustered test is asymptotic")
		}
	default:
		return inputErrorf("unknown rule %q: want mcnemar, noninferiority or count", r.Kind)
	}
	return nil
}

// Text states the rule in one sentence, the words every renderer prints.
func (r Rule) Text() string {
	r = r.Normalized()
	switch r.Kind {
	case Count:
		return fmt.Sprintf("count: a class blocks when the candidate loses more than %d %s of it net (lost less gained); the contradiction row when it newly contradicts more than %d net",
			r.Tolerance, plural(r.Tolerance, "item", "items"), r.ContradictionTolerance)
	case McNemar:
		test := "one-sided exact McNemar test"
		switch {
		case r.Clustered:
			test = "one-sided clustered McNemar test (Obuchowski 1998, modified by Yang, Sun & Hardin 2010; conversations are the clusters)"
		case r.MidP:
			test = "one-sided mid-p McNemar test"
		}
		return fmt.Sprintf("mcnemar: a class blocks when the %s finds the candidate loses more items than it gains, at family-wise level α = %s across classes (Holm); every new contradiction blocks",
			test, num(r.Alpha))
	case NonInferiority:
		test := "Tango's paired score test"
		if r.Clustered {
			test = "the clustered paired Wald test of Durkalski et al. (2003; conversations are the clusters)"
		}
		return fmt.Sprintf("noninferiority: a class blocks unless %s shows, at one-sided level α = %s, that the candidate's retention is less than %s points below the incumbent's; every new contradiction blocks",
			test, num(r.Alpha), num(100*r.Margin))
	}
	return string(r.Kind)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// num formats x with up to four significant digits and no trailing zeros.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.4g", x)
}

// inputErrorf wraps stats.ErrInput with a message.
func inputErrorf(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == stats.ErrInput }
