package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// TestShare pins Share's numbers and its one text form by hand. The
// Wilson bounds are computed by hand from
// (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.959964.
func TestShare(t *testing.T) {
	nan := math.NaN()
	const tol = 5e-5
	for _, c := range []struct {
		name   string
		reason string
		counts fixture.Counts
		known  bool
		point  float64
		lo, hi float64 // Range
		wlo    float64 // Wilson bounds (NaN: no interval)
		whi    float64
		count  string
		pct    string
		iv     string
		text   string
	}{
		{"60 of 80", "the issue's case before the errors: 0.6452–0.8319",
			fixture.Counts{Items: 80, Verbatim: 50, Supported: 10, Absent: 20}, true, 0.75, 0.75, 0.75, 0.64515, 0.83194,
			"60/80", "75.0%", "64.5–83.2%", "60/80 = 75.0% (64.5–83.2%)"},
		{"60 of 80, 10 errors", "the issue's case: 60–70 of 80, 75.0–87.5%, no interval",
			fixture.Counts{Items: 80, Verbatim: 50, Supported: 10, Absent: 10, Errors: 10}, false, nan, 0.75, 0.875, nan, nan,
			"60–70 of 80", "75.0–87.5%", "", "60–70 of 80 = 75.0–87.5%, no interval"},
		{"all errors", "nothing known: the range is all of [0, 1]",
			fixture.Counts{Items: 5, Errors: 5}, false, nan, 0, 1, nan, nan,
			"0–5 of 5", "0.0–100.0%", "", "0–5 of 5 = 0.0–100.0%, no interval"},
		{"166 of 200", "the example's figure: Wilson 0.7718–0.8757",
			fixture.Counts{Items: 200, Supported: 166, Absent: 34}, true, 0.83, 0.83, 0.83, 0.77184, 0.87572,
			"166/200", "83.0%", "77.2–87.6%", "166/200 = 83.0% (77.2–87.6%)"},
		{"no items", "no share at all", fixture.Counts{}, false, nan, nan, nan, nan, nan,
			"0/0", "—", "", "0/0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Share{Counts: c.counts, Confidence: 0.95}
			near := func(what string, got, want float64) {
				if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > tol {
					t.Errorf("%s = %v, want %v (%s)", what, got, want, c.reason)
				}
			}
			if s.Known() != c.known {
				t.Errorf("Known() = %v, want %v (%s)", s.Known(), c.known, c.reason)
			}
			near("Point()", s.Point(), c.point)
			lo, hi := s.Range()
			near("Range() lower", lo, c.lo)
			near("Range() upper", hi, c.hi)
			iv, err := s.Wilson()
			if err != nil {
				t.Fatal(err)
			}
			near("Wilson().Lower", iv.Lower, c.wlo)
			near("Wilson().Upper", iv.Upper, c.whi)
			for _, f := range []struct{ what, got, want string }{
				{"Count()", s.Count(), c.count}, {"Percent()", s.Percent(), c.pct},
				{"IntervalText()", s.IntervalText(), c.iv}, {"String()", s.String(), c.text},
			} {
				if f.got != f.want {
					t.Errorf("%s = %q, want %q (%s)", f.what, f.got, f.want, c.reason)
				}
			}
		})
	}
}

// errorQuarter writes a copy of examples/quarterly's candidate verdicts
// into a temporary folder with the first n retained constraint verdicts
// made error verdicts, and returns the report built from it.
func errorQuarter(t *testing.T, n int) *Report {
	t.Helper()
	src, _ := filepath.Abs("../examples/quarterly")
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(src, "verdicts", "candidate.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if n > 0 && rec["class"] == "constraint" && (rec["verdict"] == "verbatim" || rec["verdict"] == "supported") {
			rec["verdict"] = "error"
			out, _ := json.Marshal(rec)
			lines[i] = string(out)
			n--
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "candidate.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgText := fmt.Sprintf("fixtures: %s\nsystems:\n  incumbent: {verdicts: %s}\n  candidate: {verdicts: candidate.jsonl}\n"+
		"gates: {retained: {constraint: 0.95, commitment: 0.90, open_question: 0.95, reference: 0.98}}\nregression: {rule: count, retained_tolerance: 1}\n",
		filepath.Join(src, "fixtures"), filepath.Join(src, "verdicts", "incumbent.jsonl"))
	cfg, err := ParseConfig(filepath.Join(dir, "report.yaml"), []byte(cfgText))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBuildErrorShare: the example with 10 retained candidate constraint
// verdicts made errors. The model states 60–70 of 80 and nothing that
// counts an error as not retained: no point share, no Wilson and no
// cluster-robust interval.
func TestBuildErrorShare(t *testing.T) {
	r := errorQuarter(t, 10)
	cand := r.Classes[0].Candidate
	if r.Classes[0].Class != fixture.Constraint || cand.Counts.Items != 80 || cand.Counts.Errors != 10 || cand.Counts.Retained() != 60 {
		t.Fatalf("constraint candidate counts %+v, want 60 retained and 10 errors of 80", cand.Counts)
	}
	if got, want := cand.Retained.String(), "60–70 of 80 = 75.0–87.5%, no interval"; got != want {
		t.Errorf("Retained = %q, want %q", got, want)
	}
	for what, v := range map[string]float64{
		"Share": cand.Share, "Wilson.Lower": cand.Wilson.Lower, "Wilson.Upper": cand.Wilson.Upper,
		"Robust.Lower": cand.Robust.Lower, "Robust.Upper": cand.Robust.Upper,
	} {
		if !math.IsNaN(v) {
			t.Errorf("candidate constraint %s = %v, want NaN (a share with errors is a range)", what, v)
		}
	}
	if cand.Clustered.N != 0 {
		t.Errorf("candidate constraint has a cluster-robust rate %+v; want none", cand.Clustered)
	}
	if cand.Gate != Fail {
		t.Errorf("gate %s, want fail (87.5%% < 95%% even were every error retained)", cand.Gate)
	}
	// The incumbent's constraint row has no errors: a point, as before.
	if inc := r.Classes[0].Incumbent; inc.Retained.String() != "71/80 = 88.8% (80.0–94.0%)" || inc.Share != 71.0/80 {
		t.Errorf("incumbent constraint %q (share %v), want 71/80 = 88.8%% (80.0–94.0%%)", inc.Retained.String(), inc.Share)
	}
}

func ExampleShare() {
	known := Share{Counts: fixture.Counts{Items: 80, Verbatim: 50, Supported: 10, Absent: 20}, Confidence: 0.95}
	errs := Share{Counts: fixture.Counts{Items: 80, Verbatim: 50, Supported: 10, Absent: 10, Errors: 10}, Confidence: 0.95}
	fmt.Println(known)
	fmt.Println(errs)
	lo, hi := errs.Range()
	fmt.Println(errs.Known(), lo, hi)
	// Output:
	// 60/80 = 75.0% (64.5–83.2%)
	// 60–70 of 80 = 75.0–87.5%, no interval
	// false 0.75 0.875
}

// TestNoItemsNoInterval: a class a system has no items of has no share
// and no interval (NaN bounds, left empty in the workbook), not 0–0%.
func TestNoItemsNoInterval(t *testing.T) {
	sc, err := NewSystemClass(fixture.Counts{}, nil, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]float64{"share": sc.Share, "wilson low": sc.Wilson.Lower, "wilson high": sc.Wilson.Upper, "robust low": sc.Robust.Lower, "robust high": sc.Robust.Upper} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
}
