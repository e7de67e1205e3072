package selection

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// repeatLabel is one line of testdata/real/labels/repeats.jsonl.
type repeatLabel struct {
	SessionID  string `json:"session_id"`
	RepeatUUID string `json:"repeat_uuid"`
	FirstUUID  string `json:"first_uuid"`
	Tool       string `json:"tool"`
	Kind       string `json:"kind"`
	Caused     bool   `json:"caused_by_compaction"`
}

// TestRepeatScoreReal scores FindToolRepeats against the hand labels on
// the 30 compacted dev sessions: "flagged" against the labels'
// caused_by_compaction pairs, matched on session and the repeat's record
// uuid (CallRef.UUID, from agentlog).
func TestRepeatScoreReal(t *testing.T) {
	dir := realLogDir(t)
	b, err := os.ReadFile("testdata/real/labels/repeats.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]repeatLabel{} // session + repeat uuid
	sessions := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l repeatLabel
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		sessions[l.SessionID] = true
		labels[l.SessionID+" "+l.RepeatUUID] = l
	}
	// The README lists 30 sessions; four have no labelled pair.
	for _, id := range []string{"3ae3ab59-52bc-413d-ad30-02b165c91785", "c010174c-a7cd-4bcc-b7d4-61258d6c463f",
		"ca8cc13b-d3df-4615-8f3f-f48a96b1a6f9", "df93cd9c-8436-49e5-af80-61126ae55a83"} {
		sessions[id] = true
	}
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	var tp, fp, fn, maxSteps, maxTurns int
	found := map[string]bool{}
	confusion := map[string]int{} // "label kind → detector kind"
	missesBy, falseBy := map[string]int{}, map[string]int{}
	for _, id := range ids {
		path := filepath.Join(dir, id+".jsonl.gz")
		s, err := agentlog.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		// One verdict per record (a record holds one tool_use in these
		// logs, but be safe): the flagged repeat if any.
		byRecord := map[string]ToolRepeat{}
		var order []string
		for _, r := range FindToolRepeats(s, DefaultRepeatWindow) {
			if r.Repeat.UUID == "" {
				t.Fatalf("%s: repeat %s has no record uuid", id, r)
			}
			key := id + " " + r.Repeat.UUID
			found[key] = true
			maxSteps, maxTurns = max(maxSteps, r.StepsAfter), max(maxTurns, r.TurnsAfter)
			old, ok := byRecord[key]
			if !ok {
				order = append(order, key)
			}
			if !ok || r.Kind.Flagged() && !old.Kind.Flagged() {
				byRecord[key] = r
			}
		}
		for _, key := range order {
			r := byRecord[key]
			l, labelled := labels[key]
			lk := "unlabelled"
			if labelled {
				lk = l.Kind
			}
			confusion[fmt.Sprintf("%-20s → %s", lk, r.Kind)]++
			switch {
			case r.Kind.Flagged() && labelled && l.Caused:
				tp++
			case r.Kind.Flagged():
				fp++
				why := lk + " → " + string(r.Kind)
				if r.Repeat.Tool == "Read" && !labelled {
					why += " (Read: " + readScope(s, r) + ")"
				}
				falseBy[why]++
				if testing.Verbose() {
					t.Logf("false alarm %s: %s %s", id[:8], r, r.Repeat.Input)
				}
			}
		}
		for key, l := range labels {
			if !strings.HasPrefix(key, id) || !l.Caused {
				continue
			}
			if r, ok := byRecord[key]; ok && r.Kind.Flagged() {
				continue
			}
			fn++
			why := "not found"
			if r, ok := byRecord[key]; ok {
				why = "detector: " + string(r.Kind)
			}
			missesBy[l.Kind+" ("+why+")"]++
			if testing.Verbose() {
				t.Logf("miss %s %s %s: %s", id[:8], l.RepeatUUID[:8], l.Tool, why)
			}
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("flagged vs caused_by_compaction: precision %d/%d = %.3f, recall %d/%d = %.3f", tp, tp+fp, precision, tp, tp+fn, recall)
	t.Logf("false alarms: %v", falseBy)
	t.Logf("misses: %v", missesBy)
	notFound := map[string]int{}
	for key, l := range labels {
		if !found[key] {
			notFound[l.Kind]++
		}
	}
	t.Logf("labelled pairs not found as repeats at all, by label kind: %v", notFound)
	t.Logf("repeats found reach %d turns and %d steps after their compaction (window %+v)", maxTurns, maxSteps, DefaultRepeatWindow)
	t.Logf("confusion, label kind → detector kind (repeats the detector found):")
	var keys []string
	for k := range confusion {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %-45s %d", k, confusion[k])
	}
	// The targets: precision ≥ 0.8 and recall ≥ 0.9, against the
	// labels of two readings (testdata/real/labels/README.md, "Second,
	// blind reading"): precision 62/63 and recall 62/63 measured.
	if recall < 0.9 {
		t.Errorf("recall %.3f is below the issue's target 0.9", recall)
	}
	if precision < 0.8 {
		t.Errorf("precision %.3f is below the issue's target 0.8", precision)
	}
}

// readScope says why the labels may have left a flagged Read out: the
// file was already re-read (another range) since the compaction, or the
// latest earlier read of the file covers another range.
func readScope(s *agentlog.Session, r ToolRepeat) string {
	in := parseCallInput("Read", r.Repeat.Input, s.Cwd)
	comp := s.Compactions[r.Compaction]
	last := -1
	var lastIn callInput
	for si, st := range s.Steps {
		for _, c := range st.Calls {
			if c.ID == r.Repeat.ID {
				if last >= comp.Step {
					return "file re-read since the compaction"
				}
				if lastIn.hi != 0 && in.lo > lastIn.hi || in.hi != 0 && lastIn.lo > in.hi {
					return "latest earlier read of the file is another range"
				}
				return "latest earlier read overlaps"
			}
			if c.Name == "Read" {
				if ci := parseCallInput("Read", c.Input, s.Cwd); ci.file == in.file {
					last, lastIn = si, ci
				}
			}
		}
	}
	return "?"
}

// BenchmarkFindToolRepeatsReal times the detector alone over the 30
// labelled sessions, read once beforehand.
func BenchmarkFindToolRepeatsReal(b *testing.B) {
	var sessions []*agentlog.Session
	for _, s := range openSessions(b, realLogFiles(b)) {
		if len(s.Compactions) > 0 {
			sessions = append(sessions, s)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range sessions {
			FindToolRepeats(s, DefaultRepeatWindow)
		}
	}
}
