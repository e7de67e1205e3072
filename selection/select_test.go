package selection

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// listed builds a session with turns, compaction turns and item turns.
func listed(id string, turns int, comps []int, items ...int) Session {
	s := Session{ID: id, Turns: turns, Compactions: comps, CompactionCount: len(comps), Items: []Item{}}
	if s.Compactions == nil {
		s.Compactions = []int{}
	}
	for i, t := range items {
		s.Items = append(s.Items, Item{Class: fixture.Classes[i%4], Turn: t})
	}
	s.ItemCount = len(s.Items)
	return s
}

func TestDecisions(t *testing.T) {
	tests := []struct {
		reason string
		s      Session
		want   int64
	}{
		{"never compacts: no decision", listed("a", 10, nil, 2, 3), 0},
		{"one compaction without items is still one decision", listed("a", 10, []int{5}), 1},
		{"items after the last compaction count nothing", listed("a", 10, []int{5}, 6, 7, 10), 1},
		{"an item at the compaction's own turn is not live at it (turn < compaction)", listed("a", 10, []int{5}, 5), 1},
		{"two items before one compaction", listed("a", 10, []int{5}, 2, 3), 2},
		{"each compaction counts the items stated before it", listed("a", 20, []int{5, 10}, 2, 6), 1 + 2},
		{"a compaction with no live item counts one, later ones count theirs", listed("a", 20, []int{2, 10}, 5), 1 + 1},
		{"items before, between and after", listed("a", 30, []int{5, 10, 20}, 1, 3, 7, 25), 2 + 3 + 3},
		{"item order in the summary does not matter", listed("a", 30, []int{20, 5, 10}, 25, 7, 3, 1), 2 + 3 + 3},
		{"counts only: compactions × items", Session{ID: "a", Turns: 9, CompactionCount: 3, ItemCount: 4, CountsOnly: true}, 12},
		{"counts only without items: one per compaction", Session{ID: "a", Turns: 9, CompactionCount: 2, CountsOnly: true}, 2},
		{"counts only, never compacts", Session{ID: "a", Turns: 9, ItemCount: 5, CountsOnly: true}, 0},
		{"compactions listed, items counted: every item taken as live", Session{ID: "a", Turns: 9, Compactions: nil, CompactionCount: 2, ItemCount: 3, CountsOnly: true}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			if got := tt.s.Decisions(); got != tt.want {
				t.Errorf("Decisions() = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestDecisionsLarge: the sorting path for large sessions agrees with
// the direct count.
func TestDecisionsLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		turns := 2000
		var comps, items []int
		for range 100 + r.IntN(100) {
			comps = append(comps, 1+r.IntN(turns))
		}
		for range 50 + r.IntN(100) {
			items = append(items, 1+r.IntN(turns))
		}
		s := listed("x", turns, comps, items...)
		var want int64
		for _, c := range comps {
			live := 0
			for _, it := range items {
				if it < c {
					live++
				}
			}
			want += int64(max(1, live))
		}
		if got := s.Decisions(); got != want {
			t.Fatalf("Decisions() = %d, want %d", got, want)
		}
	}
}

// randomSessions makes n sessions: about a third never compact, some
// incidents, some with counts only, many ties.
func randomSessions(r *rand.Rand, n, incidents int) []Session {
	out := make([]Session, n)
	for i := range out {
		turns := 1 + r.IntN(80)
		var comps, items []int
		for t := 2; t <= turns; t++ {
			if r.IntN(15) == 0 {
				comps = append(comps, t)
			}
			if r.IntN(8) == 0 {
				items = append(items, t)
			}
		}
		s := listed(fmt.Sprintf("s%05d", r.IntN(1_000_000)*10+i%10), turns, comps, items...)
		s.ID = fmt.Sprintf("s%06d", i)
		if r.IntN(10) == 0 {
			s = Session{ID: s.ID, Turns: turns, CompactionCount: len(comps), ItemCount: len(items), CountsOnly: true}
		}
		out[i] = s
	}
	for _, i := range r.Perm(n)[:incidents] {
		out[i].Incident = true
	}
	return out
}

func selectAll(t *testing.T, cfg Config, ss []Session) *Result {
	t.Helper()
	sel, err := NewSelector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if err := sel.Add(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	return sel.Result()
}

func ids(ps []Picked) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// reference is the selection by a full sort, as examples/gen's
// RankForFixtures does it, dropping non-incidents without decisions.
func reference(ss []Session, budget int) []string {
	type r struct {
		s *Session
		d int64
	}
	var rs []r
	for i := range ss {
		if d := ss[i].Decisions(); ss[i].Incident || d > 0 {
			rs = append(rs, r{&ss[i], d})
		}
	}
	slices.SortFunc(rs, func(a, b r) int {
		if a.s.Incident != b.s.Incident {
			if a.s.Incident {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.d, a.d), cmp.Compare(a.s.ID, b.s.ID))
	})
	var out []string
	for _, x := range rs[:min(budget, len(rs))] {
		out = append(out, x.s.ID)
	}
	return out
}

// TestSelectionInvariants: on random inputs, for budgets above and below
// the number of incidents, the selection keeps every incident (or, when
// they exceed the budget, the incidents with the most decisions), never
// exceeds the budget, equals the full-sort reference, does not depend on
// the order of the input, and is deterministic for a seed.
func TestSelectionInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 20 {
		n, inc := 200+r.IntN(2000), r.IntN(60)
		ss := randomSessions(r, n, inc)
		for _, budget := range []int{1, 10, 40, 100, 5000} {
			name := fmt.Sprintf("trial %d, %d sessions, %d incidents, budget %d", trial, n, inc, budget)
			cfg := DefaultConfig(budget)
			cfg.Draws = 50
			res := selectAll(t, cfg, ss)
			if len(res.Selected) > budget {
				t.Fatalf("%s: selected %d", name, len(res.Selected))
			}
			if want := reference(ss, budget); !slices.Equal(ids(res.Selected), want) {
				t.Fatalf("%s: selected %v\nreference %v", name, ids(res.Selected), want)
			}
			got := map[string]bool{}
			for _, p := range res.Selected {
				got[p.ID] = true
				if !p.Incident && p.Decisions == 0 {
					t.Fatalf("%s: selected %s, which never compacts", name, p.ID)
				}
			}
			if inc <= budget {
				for _, s := range ss {
					if s.Incident && !got[s.ID] {
						t.Fatalf("%s: incident %s left out", name, s.ID)
					}
				}
			} else if !res.IncidentsExceedBudget || len(res.Selected) != budget || len(res.Warnings) == 0 {
				t.Fatalf("%s: incidents exceed the budget, got %v, %d selected, warnings %v", name, res.IncidentsExceedBudget, len(res.Selected), res.Warnings)
			}
			if res.Incidents != inc || res.Read != n {
				t.Fatalf("%s: counted %d incidents of %d", name, res.Incidents, res.Read)
			}

			again := selectAll(t, cfg, ss)
			if !slices.Equal(ids(again.Selected), ids(res.Selected)) || *again.Random != *res.Random {
				t.Fatalf("%s: not deterministic for seed %d", name, cfg.Seed)
			}
			shuffled := slices.Clone(ss)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if other := selectAll(t, cfg, shuffled); !slices.Equal(ids(other.Selected), ids(res.Selected)) {
				t.Fatalf("%s: the selection depends on the input's order", name)
			}
		}
	}
}

// TestSelectionHours: under an hours budget the selection never takes
// more annotation time than the budget, keeps the incidents when they
// fit, and fills by decisions per minute (the full-sort prefix).
func TestSelectionHours(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for trial := range 20 {
		ss := randomSessions(r, 300+r.IntN(1500), r.IntN(30))
		for _, hours := range []float64{0.05, 0.5, 2, 10, 1000} {
			cfg := DefaultConfig(0)
			cfg.BudgetHours, cfg.CompareRandom = hours, 0
			res := selectAll(t, cfg, ss)
			var minutes float64
			got := map[string]bool{}
			for _, p := range res.Selected {
				minutes += p.Minutes
				got[p.ID] = true
			}
			if minutes > hours*60+1e-9 {
				t.Fatalf("trial %d, %v hours: selection takes %.2f minutes", trial, hours, minutes)
			}
			if math.Abs(res.Totals.HoursReview*60-minutes) > 1e-6 {
				t.Fatalf("trial %d: totals %.4f hours, picked %.4f minutes", trial, res.Totals.HoursReview, minutes)
			}
			// Reference: incidents by decisions while they fit, then the
			// rest by decisions per minute while they fit.
			var inc, rest []candidate
			var incMinutes float64
			for i := range ss {
				s := &ss[i]
				c := candidate{id: s.ID, decisions: s.Decisions(), minutes: AnnotationMinutes(s.Turns, cfg.MinutesPerFixture)}
				switch {
				case s.Incident:
					inc = append(inc, c)
					incMinutes += c.minutes
				case c.decisions > 0:
					rest = append(rest, c)
				}
			}
			slices.SortFunc(inc, func(a, b candidate) int { return byDecisions(&a, &b) })
			slices.SortFunc(rest, func(a, b candidate) int { return byRate(&a, &b) })
			var want []string
			used := 0.0
			for _, c := range inc {
				if used+c.minutes > hours*60 {
					break
				}
				used += c.minutes
				want = append(want, c.id)
			}
			if incMinutes <= hours*60 {
				for _, c := range rest {
					if used+c.minutes > hours*60 {
						break
					}
					used += c.minutes
					want = append(want, c.id)
				}
			} else if !res.IncidentsExceedBudget {
				t.Fatalf("trial %d: incidents take %.1f minutes of %.1f: not reported as exceeding", trial, incMinutes, hours*60)
			}
			if !slices.Equal(ids(res.Selected), want) {
				t.Fatalf("trial %d, %v hours: selected %v\nreference %v", trial, hours, ids(res.Selected), want)
			}
		}
	}
}

// TestRandomComparisonUniform: every session is equally likely to be
// in a draw, and a draw holds no session twice — whether the draws come
// from the store (Floyd's algorithm) or from reservoirs that took over
// from it early (Algorithm L seeded with a Beta threshold), and whether
// the reservoirs hold the sample's size or more (a uniform subset of
// them is taken, as when the samples are as large as a selection smaller
// than the budget).
func TestRandomComparisonUniform(t *testing.T) {
	const n, k, draws = 500, 20, 4000
	for _, tc := range []struct{ storeCap, reservoir int }{{StoredSessions, k}, {20, k}, {50, k}, {499, k}, {50, 3 * k}, {StoredSessions, 3 * k}} {
		storeCap := tc.storeCap
		t.Run(fmt.Sprint("store ", storeCap, " reservoir ", tc.reservoir), func(t *testing.T) {
			res := newReservoirs(tc.reservoir, draws, 42)
			res.storeCap = storeCap
			for i := range n {
				res.add(summary{turns: int32(i)})
			}
			if res.switched != (storeCap <= n) {
				t.Fatalf("switched %v", res.switched)
			}
			c := res.comparison(k)
			if c.Sessions.Low != k || c.Sessions.High != k {
				t.Fatalf("draws of %v sessions", c.Sessions)
			}
			counts := make([]int, n)
			for _, sample := range res.samples(k) {
				if len(sample) != k {
					t.Fatalf("a sample of %d", len(sample))
				}
				seen := map[int32]bool{}
				for _, s := range sample {
					if seen[s.turns] {
						t.Fatalf("session %d twice in one draw", s.turns)
					}
					seen[s.turns] = true
					counts[s.turns]++
				}
			}
			// Each count is Binomial(draws, k/n): mean 160, sd 12.4. Compare
			// the fifths of the input (an error at the switch or in the skips
			// shows as a step or a slope) and the chi-square of all.
			expect := float64(draws * k / n)
			var chi2 float64
			fifth := make([]float64, 5)
			for i, c := range counts {
				chi2 += (float64(c) - expect) * (float64(c) - expect) / expect
				fifth[i*5/n] += float64(c)
			}
			if chi2 > float64(n)+5*math.Sqrt(2*float64(n)) {
				t.Errorf("chi-square %.0f on %d cells: not uniform", chi2, n)
			}
			for i, f := range fifth {
				if mean := f / (n / 5); math.Abs(mean-expect) > 6 {
					t.Errorf("fifth %d: mean inclusion %.1f, want %.1f", i, mean, expect)
				}
			}
		})
	}
}

// TestRandomComparisonSmall: fewer sessions than the sample size: every
// draw is the whole input.
func TestRandomComparisonSmall(t *testing.T) {
	res := newReservoirs(200, 10, 1)
	for i := range 7 {
		res.add(summary{turns: 1, compactions: int32(i), decisions: int64(i)})
	}
	c := res.comparison(200)
	if c.Sessions != (Spread{7, 7, 7}) || c.Decisions != (Spread{21, 21, 21}) || c.NeverCompact != (Spread{1, 1, 1}) {
		t.Errorf("%+v", c)
	}
}

// TestSelectExampleFixtures: budget 40 on the example quarter selects
// exactly the sessions examples/quarterly/fixtures was built from (the
// incidents with the most decisions: 102 incidents exceed the budget).
//
// The example shows the claim: those 40 carry 1572 decisions, more
// than the upper end of the 95% range of 40 random sessions (mean 118,
// range 25–383): compaction incidents concentrate in long, dense
// sessions, and each fixture session's summary lists, besides the items
// its fixture's annotation keeps, items the annotation leaves out
// (examples/quarterly/README.md). Per session and per annotation hour they
// carry many times as many, and none of them never compacts. With room for
// the incidents and a few more (budget 110), the selection carries more
// than any random 110 too.
func TestSelectExampleFixtures(t *testing.T) {
	path := filepath.Join("..", "examples", "quarterly", "sessions.jsonl")
	run := func(budget int) *Result {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		res, err := Select(f, path, DefaultConfig(budget))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(40)
	files, _ := filepath.Glob(filepath.Join("..", "examples", "quarterly", "fixtures", "*.json"))
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	got := ids(res.Selected)
	sort.Strings(got)
	if len(want) != 40 || !slices.Equal(got, want) {
		t.Fatalf("selected %v\nfixtures %v", got, want)
	}
	if res.Read != 20000 || res.Incidents != 102 || !res.IncidentsExceedBudget || res.Totals.Decisions != 1572 || res.Totals.NeverCompact != 0 {
		t.Errorf("read %d, incidents %d (exceed %v), decisions %d, never compact %d",
			res.Read, res.Incidents, res.IncidentsExceedBudget, res.Totals.Decisions, res.Totals.NeverCompact)
	}
	v, _ := res.VersusRandom()
	if res.Random.Size != 40 || res.Random.Sessions != (Spread{40, 40, 40}) {
		t.Fatalf("random samples of %d (%v) sessions, want 40 like the selection", res.Random.Size, res.Random.Sessions)
	}
	perSession := v.SelectedPerSession / v.RandomPerSession
	t.Logf("budget 40: selected %d decisions; random 40: mean %.1f, 95%% range %.1f–%.1f; per session ×%.2f, per annotation hour %.0f vs %.0f; never compact 0 vs %.1f",
		v.Selected, v.RandomMean, v.RandomLow, v.RandomHigh, perSession, v.PerHourSelected, v.PerHourRandom, res.Random.NeverCompact.Mean)
	if perSession < 2 || v.PerHourSelected <= v.PerHourRandom || res.Random.NeverCompact.Low < 15 {
		t.Errorf("the selection should carry more decisions per session and per hour than random sessions")
	}
	if !v.Above || v.Below || float64(v.Selected) <= v.RandomHigh {
		t.Errorf("budget 40: %d decisions, not above the random range %.0f–%.0f", v.Selected, v.RandomLow, v.RandomHigh)
	}
	res = run(110)
	v, _ = res.VersusRandom()
	t.Logf("budget 110 (102 incidents + 8): selected %d decisions; random 110: mean %.1f, 95%% range %.1f–%.1f",
		v.Selected, v.RandomMean, v.RandomLow, v.RandomHigh)
	if !v.Above {
		t.Errorf("budget 110: %d decisions, not above the random range %.0f–%.0f", v.Selected, v.RandomLow, v.RandomHigh)
	}
}

// TestRepeatedSessionID: a session_id repeated among the candidates is a
// problem at the second line; with SkipBad the line is skipped.
func TestRepeatedSessionID(t *testing.T) {
	in := `{"session_id":"a","turns":9,"compactions":[{"turn":5}],"items":[]}
{"session_id":"b","turns":9,"compactions":[],"items":[]}
{"session_id":"a","turns":9,"compactions":2,"items":3}
`
	_, err := Select(strings.NewReader(in), "s.jsonl", DefaultConfig(5))
	if err == nil || err.Error() != `s.jsonl:3:1: session_id: session_id "a" repeats the session at line 1` {
		t.Fatalf("err = %v", err)
	}
	cfg := DefaultConfig(5)
	cfg.SkipBad = true
	res, err := Select(strings.NewReader(in), "s.jsonl", cfg)
	if err != nil || res.Read != 2 || res.Skipped.Count != 1 || len(res.Selected) != 1 {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		reason string
		cfg    Config
		ok     bool
	}{
		{"default", DefaultConfig(40), true},
		{"no budget", Config{MinutesPerFixture: 2}, false},
		{"both budgets", Config{Budget: 3, BudgetHours: 1, MinutesPerFixture: 2}, false},
		{"hours only", Config{BudgetHours: 1, MinutesPerFixture: 2}, true},
		{"NaN hours", Config{BudgetHours: math.NaN(), MinutesPerFixture: 2}, false},
		{"no minutes", Config{Budget: 3}, false},
		{"comparison without draws", Config{Budget: 3, MinutesPerFixture: 2, CompareRandom: 5}, false},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v", tt.reason, err)
		}
	}
}

func TestAnnotationMinutes(t *testing.T) {
	for _, tt := range []struct {
		turns int
		m     float64
		want  float64
	}{{63, 15, 15}, {63, 2, 2}, {0, 2, 1}, {126, 2, 3}, {420, 15, 15 * (0.5 + 0.5*420.0/63)}} {
		if got := AnnotationMinutes(tt.turns, tt.m); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("AnnotationMinutes(%d, %v) = %v, want %v", tt.turns, tt.m, got, tt.want)
		}
	}
}
