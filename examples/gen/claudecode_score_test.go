package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/selection"
)

// Scoring selection's production signals, as they run on real logs,
// against the truth of the Claude Code-format logs.

// repeatScore is the repeated-tool-call signal scored against the truth.
type repeatScore struct {
	tp, fp, fn        int
	wrongEvidence     int // flagged at the truth's turn, but naming other records
	lookalikesFlagged int
	workFound         int // work look-alikes found with their kind, unflagged
	lookalikes        int
	missed            map[string]int // why a truth signal was not flagged
	extra             map[string]int // what an unexpected flag was
	missedEx, extraEx map[string]string
}

// orNone is s, or "turn with no truth line".
func orNone(s string) string {
	if s == "" {
		return "turn with no truth line"
	}
	return s
}

// scoreRepeats runs selection.FindToolRepeats on every session and
// compares its flagged repeats, by (session, turn), with the truth's
// repeated_tool_call lines and tool-call look-alikes.
func scoreRepeats(sessions map[string]*agentlog.Session, truth []truthRec) repeatScore {
	sc := repeatScore{missed: map[string]int{}, extra: map[string]int{}, missedEx: map[string]string{}, extraEx: map[string]string{}}
	want := map[string]truthRec{}
	look := map[string]string{}
	for _, tr := range truth {
		k := fmt.Sprint(tr.SessionID, "/", tr.Turn)
		switch tr.Signal + tr.Lookalike {
		case SignalRepeatedToolCall:
			want[k] = tr
		case LookalikeRereadOtherArgs, LookalikeIdenticalNoCompac, LookalikeRereadAfterEdit, LookalikeRerunAfterChange:
			look[k] = tr.Lookalike
			sc.lookalikes++
		}
	}
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	found := map[string]bool{}
	for _, id := range ids {
		unflagged := map[string]selection.ToolRepeat{}
		for _, r := range selection.FindToolRepeats(sessions[id], selection.DefaultRepeatWindow) {
			k := fmt.Sprint(id, "/", r.Repeat.Turn+1)
			if !r.Kind.Flagged() {
				if _, ok := unflagged[k]; !ok {
					unflagged[k] = r
				}
				// A work look-alike is found with its own kind; any other
				// repeat the signal does not flag is still not in the plan.
				if l := look[k]; l != string(r.Kind) || r.Repeat.UUID == "" {
					sc.extra["unflagged "+string(r.Kind)+" "+r.Repeat.Tool+" at a "+orNone(l)]++
					sc.extraEx["unflagged "+string(r.Kind)+" "+r.Repeat.Tool+" at a "+orNone(l)] = k
				} else {
					sc.workFound++
				}
				continue
			}
			if found[k] {
				continue // two repeats in one turn: one truth line
			}
			found[k] = true
			if tr, ok := want[k]; ok {
				sc.tp++
				if r.Repeat.UUID != tr.UUID || r.First.UUID != tr.EvidenceUUID || r.CompactionUUID != tr.CompactionUUID {
					sc.wrongEvidence++
				}
				continue
			}
			sc.fp++
			why := string(r.Kind) + " " + r.Repeat.Tool
			if look[k] != "" {
				sc.lookalikesFlagged++
				why = "look-alike " + why
			}
			sc.extra[why]++
			sc.extraEx[why] = fmt.Sprintf("%s: %s %s", k, r.Repeat.Tool, r.Repeat.Input)
		}
		for k := range want {
			if !strings.HasPrefix(k, id+"/") || found[k] {
				continue
			}
			sc.fn++
			why := "not found as a repeat"
			if r, ok := unflagged[k]; ok {
				why = string(r.Kind) + " " + r.Repeat.Tool + ": " + r.Reason
			}
			sc.missed[why]++
			sc.missedEx[why] = k
		}
	}
	return sc
}

// restateScore is the restated-instruction signal scored against the
// truth.
type restateScore struct {
	tp, fp, fn, wrongEvidence, earlierRight int
	examples                                []string // the first few errors
}

// scoreRestatements runs selection.FindRestatements on every session and
// compares the typed messages it flags, by (session, turn), with the
// truth's restated_instruction lines.
func scoreRestatements(sessions map[string]*agentlog.Session, truth []truthRec) restateScore {
	var sc restateScore
	want := map[string]truthRec{}
	for _, tr := range truth {
		if tr.Signal == SignalRestatedInstruction {
			want[fmt.Sprint(tr.SessionID, "/", tr.Turn)] = tr
		}
	}
	note := func(format string, a ...any) {
		if len(sc.examples) < 5 {
			sc.examples = append(sc.examples, fmt.Sprintf(format, a...))
		}
	}
	found := map[string]bool{}
	for id, s := range sessions {
		for _, r := range selection.FindRestatements(s, selection.DefaultRepeatWindow) {
			k := fmt.Sprint(id, "/", r.Message.Turn+1)
			if found[k] {
				continue
			}
			found[k] = true
			tr, ok := want[k]
			if !ok {
				sc.fp++
				note("%s: %q flagged (cue %q), not in the truth", k, r.Message.Text, r.Cue)
				continue
			}
			sc.tp++
			if r.Message.UUID != tr.UUID || r.CompactionUUID != tr.CompactionUUID {
				sc.wrongEvidence++
			}
			if r.HasEarlier && r.Earlier.UUID == tr.EvidenceUUID {
				sc.earlierRight++
			}
		}
	}
	for k := range want {
		if !found[k] {
			sc.fn++
			note("%s: the truth's restatement is not flagged", k)
		}
	}
	return sc
}
