package report

import (
	"encoding/json"
	"fmt"
	"github.com/tally-eval/tally/fixture"
	"math"
	"strings"
	"testing"

	"github.com/tally-eval/tally/selection"
)

// selectionInput is a small session-summary input: 30 sessions, three
// of them incidents, a third never compacting.
func selectionInput() string {
	var b strings.Builder
	for i := range 30 {
		comp := i % 3
		fmt.Fprintf(&b, `{"session_id":"s%02d","turns":%d,"incident":%v,"compactions":%d,"items":%d}`+"\n",
			i, 10+i, i%10 == 0, comp, i%7)
	}
	return b.String()
}

// selectAndParse selects from selectionInput by cfg, writes the summary
// as `tally select --format json` does (indented), and parses it back.
func selectAndParse(t *testing.T, cfg selection.Config) (*selection.Result, *Selection) {
	t.Helper()
	res, err := selection.Select(strings.NewReader(selectionInput()), "s.jsonl", cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(res.Summary(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSelection("sel.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return res, s
}

// TestSelectionSeedRoundTrip: any int64 seed survives select → JSON →
// report, exactly (a float64 anywhere on the way would turn 2⁵³+1 into
// 2⁵³, and an unsigned seed would make -1 unwritable and 2⁶³ unreadable).
func TestSelectionSeedRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		seed   int64
		reason string
	}{
		{1, "the default"},
		{9007199254740993, "2⁵³+1: the first integer a float64 cannot hold"},
		{-1, "negative"},
		{math.MaxInt64, "the largest"},
		{math.MinInt64, "the smallest"},
	} {
		cfg := selection.DefaultConfig(5)
		cfg.Seed = tt.seed
		res, s := selectAndParse(t, cfg)
		if s.Seed != tt.seed {
			t.Errorf("%s: seed %d came back as %d", tt.reason, tt.seed, s.Seed)
		}
		if s.Budget != 5 || s.Selected.Sessions != len(res.Selected) || len(s.Sessions) != len(res.Selected) ||
			s.Selected.Decisions != int(res.Totals.Decisions) || s.Random.Size != len(res.Selected) || s.Random.Draws != selection.DefaultDraws {
			t.Errorf("%s: %+v", tt.reason, s)
		}
	}
}

// TestSelectionModel: the summary's fields land in the model's, like
// with like (random samples as large as the selection), and what the
// model has no field for is left as documented.
func TestSelectionModel(t *testing.T) {
	cfg := selection.DefaultConfig(4)
	res, s := selectAndParse(t, cfg)
	if s.Random.Size != 4 || s.Random.Sessions != (Range{4, 4, 4}) || s.Selected.Sessions != 4 {
		t.Errorf("random samples of %d (%v) against %d selected: not like with like", s.Random.Size, s.Random.Sessions, s.Selected.Sessions)
	}
	if s.Random.Decisions != rangeOf(res.Random.Decisions) || s.Selected.HoursAt2 != res.Totals.HoursReview {
		t.Errorf("random %+v, selected %+v", s.Random, s.Selected)
	}
	p := res.Selected[0]
	if got := s.Sessions[0]; got.SessionID != p.ID || got.Decisions != int(p.Decisions) || got.Reason != string(p.Reason) || got.Incident != p.Incident {
		t.Errorf("session %+v from %+v", got, p)
	}

	// An hours budget: the summary keeps it (budget_hours, at
	// minutes_per_fixture), and so does the model, with Budget 0.
	cfg = selection.DefaultConfig(0)
	cfg.BudgetHours = 0.25
	res, s = selectAndParse(t, cfg)
	sum := res.Summary()
	data, _ := json.Marshal(sum)
	var back selection.Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Budget != nil || back.BudgetHours == nil || *back.BudgetHours != 0.25 || back.MinutesPerFixture != selection.DefaultMinutesPerFixture {
		t.Errorf("hours budget: %s", data)
	}
	if s.Budget != 0 || s.BudgetHours != 0.25 || s.MinutesPerFixture != selection.DefaultMinutesPerFixture || s.Random.Size != len(res.Selected) {
		t.Errorf("hours budget in the model: %+v", s)
	}
	if !s.Compared || s.PerSession || len(s.Rows) != 7 || s.Rows[3].Measure != "compaction decisions" ||
		s.Rows[3].Selected != float64(s.Selected.Decisions) || s.Rows[3].Random != s.Random.Decisions {
		t.Errorf("same-size samples: rows %+v, want totals side by side", s.Rows)
	}

	// Samples of another size than the selection: per session, never
	// totals over different numbers of sessions.
	cfg = selection.DefaultConfig(4)
	cfg.CompareRandom = 8
	_, s = selectAndParse(t, cfg)
	if !s.PerSession || len(s.Rows) != 6 || s.Rows[2].Measure != "compaction decisions" ||
		s.Rows[2].Selected != float64(s.Selected.Decisions)/4 || s.Rows[2].Random.Mean != s.Random.Decisions.Mean/8 {
		t.Errorf("samples of 8 against 4 selected: rows %+v, want per session", s.Rows)
	}

	// No comparison at all.
	cfg.CompareRandom = 0
	_, s = selectAndParse(t, cfg)
	if s.Compared || s.PerSession {
		t.Errorf("--compare-random 0: compared %v, per session %v", s.Compared, s.PerSession)
	}

	// No random comparison: random is null, the model's Random zero.
	cfg = selection.DefaultConfig(4)
	cfg.CompareRandom = 0
	if _, s = selectAndParse(t, cfg); s.Random != (RandomTotals{}) {
		t.Errorf("no comparison: %+v", s.Random)
	}
}

// TestParseSelectionErrors: bad input is an error at FILE:LINE:COL.
func TestParseSelectionErrors(t *testing.T) {
	for _, tt := range []struct {
		in, want, reason string
	}{
		{"{\n  \"budget\": \"forty\"\n}", `sel.json:2:13: budget: want int, got a JSON string`, "a string for a number"},
		{"{\n  \"budget\": 4,,\n}", `sel.json:2:15: invalid character ',' looking for beginning of object key string`, "a syntax error"},
		{"{\"seed\": 18446744073709551615}", `sel.json:1:10: seed: want int64, got a JSON number 18446744073709551615`, "a seed beyond int64"},
		{"{\"seed\": 1.5}", `sel.json:1:10: seed: want int64, got a JSON number 1.5`, "a fractional seed"},
		{"{\n\"sessions\": [{\"session_id\": 7}]}", `sel.json:2:29: sessions.session_id: want string, got a JSON number`, "a nested field names its path"},
		{"{\"budget_hours\": true}", `sel.json:1:18: budget_hours: want float64, got a JSON bool`, "the hours budget is typed"},
		{"{\"random\": {\"draws\": 1000, \"size\": 0}}", `sel.json: random.size: want at least 1 session a sample with 1000 draws, got 0`, "per-session figures would divide by zero"},
	} {
		_, err := ParseSelection("sel.json", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v\nwant %s", tt.reason, err, tt.want)
		}
	}
}

// TestSelectionProposedItems: a selection made from agent logs counts
// items the proposer found, unreviewed; the report's rows and a warning
// say so (a first trial showed them as if a person had listed them).
func TestSelectionProposedItems(t *testing.T) {
	data := []byte(`{"budget":2,"budget_hours":null,"minutes_per_fixture":2,"seed":1,"read":3,"incidents":0,
"incidents_exceed_budget":false,"selected":{"sessions":2,"never_compact":0,"compactions":2,"decisions":3,"items":2,
"annotation_hours":{"at_15_min":0.3,"at_2_min":0.04}},"random":null,"sessions":[],"warnings":[],
"items_source":"proposed","proposed_items":3}`)
	s, err := ParseSelection("selection.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !s.ItemsProposed {
		t.Fatal("ItemsProposed is false")
	}
	var measures []string
	for _, r := range s.Rows {
		measures = append(measures, r.Measure)
	}
	got := strings.Join(measures, "; ")
	if !strings.Contains(got, "compaction decisions (of proposed items); items (proposed, unreviewed)") {
		t.Errorf("rows %q", got)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "3 proposed over every session read") {
		t.Errorf("warnings %q", s.Warnings)
	}
	listed, err := ParseSelection("selection.json", []byte(strings.Replace(string(data), `"items_source":"proposed","proposed_items":3`, `"warnings2":[]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if listed.ItemsProposed || len(listed.Warnings) != 0 || listed.Rows[4].Measure != "items" {
		t.Errorf("a summary's listed items: %+v", listed)
	}
}

// TestSelectionMismatch: a selection of other sessions than the fixtures'
// is said, with how many and which (a new user's CI trial); one that
// agrees, or lists no sessions, says nothing.
func TestSelectionMismatch(t *testing.T) {
	b := &builder{fixtures: []fixture.Fixture{{ConversationID: "a"}, {ConversationID: "b"}, {ConversationID: "c"}}}
	withColon := &builder{fixtures: []fixture.Fixture{{ConversationID: "a"}, {ConversationID: "b_1"}, {ConversationID: "c"}}}
	sel := func(ids ...string) *Selection {
		s := &Selection{}
		for _, id := range ids {
			s.Sessions = append(s.Sessions, SelectedSession{SessionID: id})
		}
		return s
	}
	for _, c := range []struct {
		sel  *Selection
		want string
	}{
		{sel("a", "b", "c"), ""},
		{sel(), ""},
		{sel("a", "b", "x"), "selection: 1 of the 3 selected sessions has no fixture (x), and 1 of the 3 fixtures is of sessions it did not select (c): it tells how sessions were chosen, not how these fixtures were"},
		{sel("a", "b", "c", "w", "x", "y", "z"), "selection: 4 of the 7 selected sessions have no fixture (w, x, y and 1 more): it tells how sessions were chosen, not how these fixtures were"},
	} {
		got := strings.Join(b.selectionMismatch(c.sel), "|")
		if got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.sel.Sessions, got, c.want)
		}
	}
	// An id fixtures draft cleaned for a folder ("b:1" is "b_1", a
	// re-check trial) is the same session.
	if got := withColon.selectionMismatch(sel("a", "b:1", "c")); len(got) != 0 {
		t.Errorf("a cleaned id: %q", got)
	}
}
