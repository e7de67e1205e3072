package selection

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/agentlog"
)

// restateLabel is one line of the restatement labels
// (testdata/real/labels/restatements*.jsonl; README there).
type restateLabel struct {
	SessionID   string  `json:"session_id"`
	UUID        string  `json:"uuid"`
	EarlierUUID *string `json:"earlier_uuid"`
	Excerpt     string  `json:"text_excerpt"`
	Restatement *bool   `json:"restatement"`
	Note        string  `json:"note"`
}

// loadRestateLabels reads a label file strictly: unknown fields, a
// missing label or a message labelled twice are errors.
func loadRestateLabels(t *testing.T, name string) map[string]restateLabel {
	t.Helper()
	path := filepath.Join("testdata", "real", "labels", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]restateLabel{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var l restateLabel
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if l.SessionID == "" || l.UUID == "" || l.Restatement == nil || l.Note == "" {
			t.Fatalf("%s:%d: session_id, uuid, restatement and note are required", path, line)
		}
		key := l.SessionID + "/" + l.UUID
		if _, dup := out[key]; dup {
			t.Fatalf("%s:%d: %s labelled twice", path, line, key)
		}
		out[key] = l
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// restateFigure is precision and recall against labels, with counts.
type restateFigure struct {
	flagged, truePos, falsePos, unlabelled int
	labelledTrue, labelledFalse, found     int
	missed, wrong, unknown                 []string
}

func (s restateFigure) String() string {
	p, r := "n/a", "n/a"
	if s.flagged > 0 {
		p = fmt.Sprintf("%d/%d = %.3f", s.truePos, s.flagged, float64(s.truePos)/float64(s.flagged))
	}
	if s.labelledTrue > 0 {
		r = fmt.Sprintf("%d/%d = %.3f", s.found, s.labelledTrue, float64(s.found)/float64(s.labelledTrue))
	}
	return fmt.Sprintf("precision %s, recall %s (%d flagged: %d true, %d false, %d unlabelled; labels: %d true, %d false, of which %d flagged)",
		p, r, s.flagged, s.truePos, s.falsePos, s.unlabelled, s.labelledTrue, s.labelledFalse, s.falsePos)
}

// scoreRestatements scores flags (session id → flags) against labels.
func scoreRestatements(flags map[string][]Restatement, labels map[string]restateLabel) restateFigure {
	var sc restateFigure
	found := map[string]bool{}
	for id, rs := range flags {
		for _, r := range rs {
			key := id + "/" + r.Message.UUID
			sc.flagged++
			l, ok := labels[key]
			switch {
			case !ok:
				sc.unlabelled++
				sc.unknown = append(sc.unknown, fmt.Sprintf("%s cue=%q earlier=%s sim=%.2f: %.160q", key, r.Cue, r.Earlier.UUID, r.Similarity, r.Message.Text))
			case *l.Restatement:
				sc.truePos++
				found[key] = true
			default:
				sc.falsePos++
				sc.wrong = append(sc.wrong, fmt.Sprintf("%s cue=%q: %s", key, r.Cue, l.Note))
			}
		}
	}
	for key, l := range labels {
		if !*l.Restatement {
			sc.labelledFalse++
		}
		if *l.Restatement {
			sc.labelledTrue++
			if found[key] {
				sc.found++
			} else {
				sc.missed = append(sc.missed, key+": "+l.Excerpt)
			}
		}
	}
	sort.Strings(sc.missed)
	sort.Strings(sc.wrong)
	sort.Strings(sc.unknown)
	return sc
}

// TestRestatementsReal scores the restatement signal on the dev set
// against hand labels, as two figures:
//
//   - after a compaction (FindRestatements, DefaultRepeatWindow) against
//     restatements.jsonl: the target is precision ≥ 0.5 with
//     every labelled restatement found;
//   - with the compaction condition relaxed (every typed message against
//     all typed before it) against restatements_reminders.jsonl: the cue
//     and near-verbatim rules tested where people really remind an agent.
//
// Every flag must be labelled (an unlabelled flag fails the test: label it
// by reading the session). A figure whose labels hold no true
// restatement cannot measure recall, and one with no flag cannot measure
// precision; the test says so and asserts what can be measured.
func TestRestatementsReal(t *testing.T) {
	files := realLogFiles(t)
	compacted := map[string][]Restatement{}
	relaxed := map[string][]Restatement{}
	sessions := map[string]bool{}
	for _, f := range files {
		s, err := agentlog.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sessions[s.ID] = true
		compacted[s.ID] = FindRestatements(s, DefaultRepeatWindow)
		relaxed[s.ID] = findRestatements(s, RepeatWindow{}, true)
	}
	figures := []struct {
		name, labels string
		flags        map[string][]Restatement
		target       bool
	}{
		{"after a compaction (window " + fmt.Sprint(DefaultRepeatWindow) + ")", "restatements.jsonl", compacted, true},
		{"anywhere (compaction condition relaxed)", "restatements_reminders.jsonl", relaxed, false},
	}
	for _, fig := range figures {
		labels := loadRestateLabels(t, fig.labels)
		for key := range labels {
			if !sessions[strings.SplitN(key, "/", 2)[0]] {
				t.Errorf("%s: %s is in no session of %s", fig.labels, key, os.Getenv("TALLY_REAL_LOGS"))
			}
		}
		sc := scoreRestatements(fig.flags, labels)
		t.Logf("restatements %s, against %s: %s", fig.name, fig.labels, sc)
		for _, w := range sc.wrong {
			t.Logf("  false alarm %s", w)
		}
		for _, m := range sc.missed {
			t.Logf("  missed %s", m)
		}
		for _, u := range sc.unknown {
			t.Errorf("  unlabelled flag %s", u)
		}
		if sc.labelledTrue == 0 {
			t.Logf("  recall cannot be measured: %s labels no true restatement", fig.labels)
		} else if fig.target && sc.found < sc.labelledTrue {
			t.Errorf("%s: %d of %d labelled restatements missed; the target is every one found", fig.name, sc.labelledTrue-sc.found, sc.labelledTrue)
		}
		if sc.flagged == 0 {
			t.Logf("  precision cannot be measured: nothing flagged")
		} else if fig.target && 2*sc.truePos < sc.flagged {
			t.Errorf("%s: precision %d/%d is below the target 0.5", fig.name, sc.truePos, sc.flagged)
		}
	}
}

// BenchmarkFindRestatementsReal times the detector alone over all dev
// sessions, read once beforehand, and reports its time as a ratio to
// that read (x-read: 0.02 means the detector adds 2% to reading the logs).
func BenchmarkFindRestatementsReal(b *testing.B) {
	files := realLogFiles(b)
	start := time.Now()
	sessions := openSessions(b, files)
	read := time.Since(start)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range sessions {
			FindRestatements(s, DefaultRepeatWindow)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(read), "x-read")
}
