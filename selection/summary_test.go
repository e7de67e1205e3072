package selection

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRandomComparisonSameSize: by default the random samples hold as
// many sessions as were selected — under a budget in sessions, in hours,
// when fewer than the budget could be selected, and once the input has
// outgrown the store — so that every total is compared like with like;
// an explicit CompareRandom is kept.
func TestRandomComparisonSameSize(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	ss := randomSessions(r, 600, 4)
	sparse := randomSessions(r, 200, 0)
	for i := range sparse[12:] { // 12 sessions that compact, the rest never do
		sparse[12+i].CompactionCount, sparse[12+i].Compactions = 0, nil
	}
	for _, tt := range []struct {
		reason   string
		cfg      func() Config
		in       []Session
		storeCap int
		want     int // -1: as many as selected
	}{
		{"budget in sessions", func() Config { return DefaultConfig(25) }, ss, 0, -1},
		{"budget in hours", func() Config { c := DefaultConfig(0); c.BudgetHours = 0.75; return c }, ss, 0, -1},
		{"fewer selected than the budget", func() Config { return DefaultConfig(50) }, sparse, 0, -1},
		{"explicit size", func() Config { c := DefaultConfig(25); c.CompareRandom = 60; return c }, ss, 0, 60},
		{"reservoirs past the store", func() Config { return DefaultConfig(25) }, ss, 100, -1},
		{"reservoirs under an hours budget", func() Config { c := DefaultConfig(0); c.BudgetHours = 0.75; return c }, ss, 100, -1},
	} {
		cfg := tt.cfg()
		cfg.Draws = 200
		sel, err := NewSelector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if tt.storeCap > 0 {
			sel.res.storeCap = tt.storeCap
		}
		for i := range tt.in {
			if err := sel.Add(&tt.in[i]); err != nil {
				t.Fatal(err)
			}
		}
		res := sel.Result()
		want := tt.want
		if want < 0 {
			want = len(res.Selected)
		}
		n := float64(want)
		if res.Random.Size != want || res.Random.Sessions != (Spread{n, n, n}) || len(res.Selected) == 0 {
			t.Errorf("%s: %d selected, random samples of %d (%v), want %d", tt.reason, len(res.Selected), res.Random.Size, res.Random.Sessions, want)
		}
		if tt.reason == "fewer selected than the budget" && len(res.Selected) >= cfg.Budget {
			t.Errorf("%s: %d selected of a budget of %d", tt.reason, len(res.Selected), cfg.Budget)
		}
		if tt.storeCap > 0 && !sel.res.switched {
			t.Errorf("%s: the comparison never left the store", tt.reason)
		}
		v, _ := res.VersusRandom()
		if math.Abs(v.SelectedPerSession-float64(res.Totals.Decisions)/float64(len(res.Selected))) > 1e-12 ||
			math.Abs(v.RandomPerSession-res.Random.Decisions.Mean/n) > 1e-12 {
			t.Errorf("%s: per session %v against %v", tt.reason, v.SelectedPerSession, v.RandomPerSession)
		}
	}
}

// TestSummaryJSON: the summary's JSON keeps every int64 seed exactly,
// names the budget that was given (the other null), the minutes per
// fixture the hours were counted at, and empty lists as [].
func TestSummaryJSON(t *testing.T) {
	in := `{"session_id":"a","turns":9,"compactions":[{"turn":5}],"items":[{"class":"constraint","turn":2}]}` + "\n"
	for _, tt := range []struct {
		reason string
		cfg    Config
		want   []string
	}{
		{"a budget in sessions, seed 2⁵³+1",
			Config{Budget: 3, MinutesPerFixture: 2, CompareRandom: SameSize, Draws: 10, Seed: 9007199254740993},
			[]string{`"budget":3,"budget_hours":null,"minutes_per_fixture":2,"seed":9007199254740993,"read":1,`, `"random":{"size":1,"draws":10,`}},
		{"a budget in hours, seed -1, no comparison",
			Config{BudgetHours: 1.5, MinutesPerFixture: 15, Seed: -1},
			[]string{`"budget":null,"budget_hours":1.5,"minutes_per_fixture":15,"seed":-1,`, `"random":null,`, `"warnings":[]`}},
		{"the largest seed",
			Config{Budget: 1, MinutesPerFixture: 2, Seed: math.MaxInt64},
			[]string{`"seed":9223372036854775807,`}},
	} {
		res, err := Select(strings.NewReader(in), "s.jsonl", tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(res.Summary())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s: %s\ndoes not hold %s", tt.reason, data, w)
			}
		}
		var back Summary
		if err := json.Unmarshal(data, &back); err != nil || back.Seed != tt.cfg.Seed {
			t.Errorf("%s: seed %d read back as %d (%v)", tt.reason, tt.cfg.Seed, back.Seed, err)
		}
	}
	// Nothing to select: no sessions, and nothing to compare with.
	res, _ := Select(strings.NewReader(""), "s.jsonl", Config{Budget: 1, MinutesPerFixture: 2, CompareRandom: SameSize, Draws: 10})
	if data, _ := json.Marshal(res.Summary()); !strings.Contains(string(data), `"random":null,"sessions":[],"warnings":["no session selected, so no random comparison"]`) {
		t.Errorf("no session selected: %s", data)
	}
}
