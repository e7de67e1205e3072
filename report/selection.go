package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tally-eval/tally/draft"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/selection"
)

// selection reads the fixture-selection summary.
func (b *builder) selection() error {
	path := b.cfg.Resolve(b.cfg.Selection)
	data, err := input.ReadFile(path, b.lim)
	if err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	sel, err := ParseSelection(path, data)
	if err != nil {
		return err
	}
	b.r.Selection = sel
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, Input{Role: RoleSelection, Path: b.cfg.Selection, SHA256: sha256Hex(data), Bytes: int64(len(data))})
	b.r.Warnings = append(b.r.Warnings, b.selectionMismatch(sel)...)
	return nil
}

// selectionMismatch says where the selection and the fixtures disagree:
// selected sessions with no fixture and fixtures of sessions not
// selected (a new user's trial named a selection of other sessions, and
// the report presented it as how these fixtures were chosen). A
// selection that lists no sessions says nothing.
func (b *builder) selectionMismatch(sel *Selection) []string {
	if len(sel.Sessions) == 0 {
		return nil
	}
	fixtures := make(map[string]bool, len(b.fixtures))
	for i := range b.fixtures {
		fixtures[b.fixtures[i].ConversationID] = true
	}
	selected := make(map[string]bool, len(sel.Sessions))
	var noFixture, notSelected []string
	for _, s := range sel.Sessions {
		// A fixture drafted from the session names it as fixtures
		// draft does: a session id no folder can hold ("team:sess 1")
		// cleaned (a re-check trial found those called missing).
		id := s.SessionID
		if !fixtures[id] {
			if c := draft.IDOf(id); c != "" {
				id = c
			}
		}
		selected[id] = true
		if !fixtures[id] {
			noFixture = append(noFixture, s.SessionID)
		}
	}
	for i := range b.fixtures {
		if id := b.fixtures[i].ConversationID; !selected[id] {
			notSelected = append(notSelected, id)
		}
	}
	if len(noFixture) == 0 && len(notSelected) == 0 {
		return nil
	}
	var parts []string
	if len(noFixture) > 0 {
		parts = append(parts, fmt.Sprintf("%d of the %d selected sessions %s no fixture (%s)", len(noFixture), len(sel.Sessions), format.Plural(len(noFixture), "has", "have"), firstIDs(noFixture)))
	}
	if len(notSelected) > 0 {
		parts = append(parts, fmt.Sprintf("%d of the %d fixtures %s of sessions it did not select (%s)", len(notSelected), len(b.fixtures), format.Plural(len(notSelected), "is", "are"), firstIDs(notSelected)))
	}
	return []string{"selection: " + strings.Join(parts, ", and ") + ": it tells how sessions were chosen, not how these fixtures were"}
}

// firstIDs lists up to three ids, and how many more.
func firstIDs(ids []string) string {
	if len(ids) <= 3 {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:3], ", ") + fmt.Sprintf(" and %d more", len(ids)-3)
}

// ParseSelection parses the JSON `tally select --format json` writes
// (selection.Summary; fields this version does not know are ignored, so
// that select may add some); name is the file's path, for errors, which
// give the line and column of a syntax or type error.
func ParseSelection(name string, data []byte) (*Selection, error) {
	if bytes.HasPrefix(data, []byte(jsonscan.BOM)) {
		return nil, fmt.Errorf("%s:1:1: starts with %s", name, jsonscan.BOMProblem)
	}
	var j selection.Summary
	if err := json.Unmarshal(data, &j); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, c := jsonscan.Position(data, int(se.Offset)-1)
			return nil, fmt.Errorf("%s:%d:%d: %s", name, line, c, strings.TrimPrefix(se.Error(), "json: "))
		case errors.As(err, &te):
			line, c := jsonscan.Position(data, valueStart(data, int(te.Offset)))
			return nil, fmt.Errorf("%s:%d:%d: %s: want %s, got a JSON %s", name, line, c, te.Field, te.Type, te.Value)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r := j.Random; r != nil && r.Draws > 0 && r.Size < 1 {
		// Per-session figures divide by the sample size.
		return nil, fmt.Errorf("%s: random.size: want at least 1 session a sample with %d draws, got %d", name, r.Draws, r.Size)
	}
	return selectionModel(&j), nil
}

// selectionModel is the report's view of a selection summary. A budget
// in hours leaves Budget 0 (BudgetHours holds it), and no random
// comparison leaves Random zero and Compared false.
func selectionModel(j *selection.Summary) *Selection {
	s := &Selection{Seed: j.Seed, Incidents: j.Incidents, IncidentsExceedBudget: j.IncidentsExceedBudget,
		Selected: SelectionTotals{
			Sessions: int(j.Selected.Sessions), NeverCompact: int(j.Selected.NeverCompact), Compactions: int(j.Selected.Compactions),
			Decisions: int(j.Selected.Decisions), Items: int(j.Selected.Items),
			HoursAt15: j.Selected.AnnotationHours.At15, HoursAt2: j.Selected.AnnotationHours.At2,
		},
		Warnings:      j.Warnings,
		ItemsProposed: j.ItemsSource == selection.ItemsProposed,
	}
	if s.ItemsProposed {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"the selection read agent logs, which list no items: its items (%d proposed over every session read) and compaction decisions count what the proposer's rules found, before anyone reviewed them",
			j.ProposedItems))
	}
	if j.Budget != nil {
		s.Budget = *j.Budget
	}
	if j.BudgetHours != nil {
		s.BudgetHours = *j.BudgetHours
	}
	s.MinutesPerFixture = j.MinutesPerFixture
	if r := j.Random; r != nil && r.Draws > 0 && r.Size > 0 {
		s.Compared = true
		s.Random = RandomTotals{
			Size: r.Size, Draws: r.Draws,
			Sessions: rangeOf(r.Sessions), NeverCompact: rangeOf(r.NeverCompact),
			Compactions: rangeOf(r.Compactions), Decisions: rangeOf(r.Decisions), Items: rangeOf(r.Items),
			HoursAt15: rangeOf(r.AnnotationHours.At15), HoursAt2: rangeOf(r.AnnotationHours.At2),
		}
	}
	s.SetRows()
	for _, x := range j.Sessions {
		s.Sessions = append(s.Sessions, SelectedSession{SessionID: x.ID, Turns: x.Turns, Compactions: x.Compactions,
			Items: x.Items, Decisions: int(x.Decisions), Incident: x.Incident, Reason: string(x.Reason)})
	}
	return s
}

// SetRows fills Rows and PerSession from Selected and Random: totals side
// by side when the random samples hold as many sessions as were selected,
// otherwise each measure per session (the sessions row then says nothing
// and is left out), so that totals over samples of different sizes are
// never set against each other.
func (s *Selection) SetRows() {
	sl, rd := s.Selected, s.Random
	s.PerSession = s.Compared && rd.Size != sl.Sessions
	rows := []SelectionRow{
		{Measure: "sessions", Selected: float64(sl.Sessions), Random: rd.Sessions},
		{Measure: "sessions that never compact", Selected: float64(sl.NeverCompact), Random: rd.NeverCompact},
		{Measure: "compactions", Selected: float64(sl.Compactions), Random: rd.Compactions},
		{Measure: "compaction decisions", Selected: float64(sl.Decisions), Random: rd.Decisions},
		{Measure: "items", Selected: float64(sl.Items), Random: rd.Items},
	}
	if s.ItemsProposed {
		rows[3].Measure = "compaction decisions (of proposed items)"
		rows[4].Measure = "items (proposed, unreviewed)"
	}
	rows = append(rows, []SelectionRow{
		{Measure: "annotation hours at 15 minutes a session", Selected: sl.HoursAt15, Random: rd.HoursAt15, Hours: true},
		{Measure: "annotation hours at 2 minutes a session", Selected: sl.HoursAt2, Random: rd.HoursAt2, Hours: true},
	}...)
	if s.PerSession {
		rows = rows[1:]
		for i := range rows {
			if sl.Sessions > 0 {
				rows[i].Selected /= float64(sl.Sessions)
			}
			n := float64(rd.Size)
			rows[i].Random = Range{Mean: rows[i].Random.Mean / n, Low: rows[i].Random.Low / n, High: rows[i].Random.High / n}
			if rows[i].Hours { // a session's annotation time reads in minutes
				rows[i].Measure = strings.Replace(rows[i].Measure, "hours", "minutes", 1)
				rows[i].Selected *= 60
				rows[i].Random = Range{Mean: rows[i].Random.Mean * 60, Low: rows[i].Random.Low * 60, High: rows[i].Random.High * 60}
			}
		}
	}
	s.Rows = rows
}

// rangeOf is a spread over random draws in the model.
func rangeOf(s selection.Spread) Range { return Range{Mean: s.Mean, Low: s.Low, High: s.High} }

// valueStart returns the offset of the start of the JSON value that
// ends at end (encoding/json reports a type error there).
func valueStart(data []byte, end int) int {
	i := min(end, len(data)) - 1
	if i >= 0 && data[i] == '"' {
		for i--; i >= 0; i-- {
			if data[i] != '"' {
				continue
			}
			bs := 0
			for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
				bs++
			}
			if bs%2 == 0 {
				return i
			}
		}
		return 0
	}
	for i >= 0 && strings.IndexByte(" \t\r\n:,[{", data[i]) < 0 {
		i--
	}
	return i + 1
}
