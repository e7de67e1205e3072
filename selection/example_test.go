package selection_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tally-eval/tally/selection"
)

// A session's decisions: one per item live at each compaction, at least
// one per compaction.
func ExampleSession_Decisions() {
	s, err := selection.ParseSession("sessions.jsonl", 1, []byte(
		`{"session_id":"s1","turns":60,"compactions":[{"turn":20},{"turn":40}],`+
			`"items":[{"class":"constraint","turn":3},{"class":"reference","turn":25},{"class":"commitment","turn":50}]}`))
	if err != nil {
		panic(err)
	}
	// Compaction at 20: the constraint (1). At 40: constraint and reference
	// (2). The commitment at 50 comes after the last compaction: nothing.
	fmt.Println(s.Decisions())
	// Output: 3
}

// Selecting two sessions from five: the incident is always in, the rest
// goes to the session with the most decisions; the one that never
// compacts is never chosen.
func ExampleSelect() {
	sessions := `{"session_id":"a","turns":12,"compactions":[],"items":[{"class":"constraint","turn":2}]}
{"session_id":"b","turns":90,"compactions":[{"turn":30},{"turn":60}],"items":[{"class":"constraint","turn":3},{"class":"reference","turn":40}]}
{"session_id":"c","turns":40,"incident":true,"compactions":[{"turn":35}],"items":[]}
{"session_id":"d","turns":200,"compactions":6,"items":4}
{"session_id":"e","turns":70,"compactions":[{"turn":50}],"items":[{"class":"open_question","turn":10}]}
`
	cfg := selection.DefaultConfig(2)
	cfg.CompareRandom = 0
	res, err := selection.Select(strings.NewReader(sessions), "sessions.jsonl", cfg)
	if err != nil {
		panic(err)
	}
	for _, p := range res.Selected {
		fmt.Printf("%s: %d decisions (%s)\n", p.ID, p.Decisions, p.Reason)
	}
	fmt.Printf("%d decisions in all, %.1f annotation hours at 15 minutes\n", res.Totals.Decisions, res.Totals.HoursAuthoring)
	// Output:
	// c: 1 decisions (incident)
	// d: 24 decisions (decisions)
	// 25 decisions in all, 0.7 annotation hours at 15 minutes
}

// Scanning an event log: a tool call repeated right after a compaction
// and an instruction the user has to restate.
func ExampleScan() {
	log := `{"session_id":"s","turn":3,"ts":"2026-03-11T09:00:00Z","kind":"message","role":"user","text":"Never modify anything under /migrations."}
{"session_id":"s","turn":5,"kind":"tool_call","tool":"read_file","args":{"path":"db/schema.sql"}}
{"session_id":"s","turn":30,"kind":"compaction"}
{"session_id":"s","turn":31,"kind":"tool_call","tool":"read_file","args":{ "path": "db/schema.sql" }}
{"session_id":"s","turn":34,"kind":"message","role":"user","text":"I said don't touch migrations."}
`
	rep, err := selection.Scan(context.Background(), []selection.Input{selection.ReaderInput("log.jsonl", strings.NewReader(log))},
		selection.DefaultSignalConfig(), func(f *selection.Flagged) error {
			for _, s := range f.Signals {
				fmt.Printf("%s %s: turn %d repeats turn %d across the compaction at %d\n", f.SessionID, s.Kind, s.Turn, s.EvidenceTurn, s.CompactionTurn)
			}
			return nil
		})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d session flagged in week %s\n", rep.Flagged, rep.Weeks[0].Week)
	// Output:
	// s repeated_tool_call: turn 31 repeats turn 5 across the compaction at 30
	// s restated_instruction: turn 34 repeats turn 3 across the compaction at 30
	// 1 session flagged in week 2026-W11
}
