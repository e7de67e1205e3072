package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// selectionJSON is the JSON `tally select --format json` writes. Fields
// this version does not know are ignored, so that select may add some.
type selectionJSON struct {
	Budget                int       `json:"budget"`
	Seed                  int64     `json:"seed"`
	Incidents             int       `json:"incidents"`
	IncidentsExceedBudget bool      `json:"incidents_exceed_budget"`
	Selected              selTotals `json:"selected"`
	Random                struct {
		Size            int        `json:"size"`
		Draws           int        `json:"draws"`
		Sessions        rangeJSON  `json:"sessions"`
		NeverCompact    rangeJSON  `json:"never_compact"`
		Compactions     rangeJSON  `json:"compactions"`
		Decisions       rangeJSON  `json:"decisions"`
		Items           rangeJSON  `json:"items"`
		AnnotationHours hoursRange `json:"annotation_hours"`
	} `json:"random"`
	Sessions []struct {
		SessionID   string `json:"session_id"`
		Turns       int    `json:"turns"`
		Compactions int    `json:"compactions"`
		Items       int    `json:"items"`
		Decisions   int    `json:"decisions"`
		Incident    bool   `json:"incident"`
		Reason      string `json:"reason"`
	} `json:"sessions"`
	Warnings []string `json:"warnings"`
}

type selTotals struct {
	Sessions        int `json:"sessions"`
	NeverCompact    int `json:"never_compact"`
	Compactions     int `json:"compactions"`
	Decisions       int `json:"decisions"`
	Items           int `json:"items"`
	AnnotationHours struct {
		At15 float64 `json:"at_15_min"`
		At2  float64 `json:"at_2_min"`
	} `json:"annotation_hours"`
}

type rangeJSON struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

type hoursRange struct {
	At15 rangeJSON `json:"at_15_min"`
	At2  rangeJSON `json:"at_2_min"`
}

func (r rangeJSON) model() Range { return Range{Mean: r.Mean, Low: r.Low, High: r.High} }

// selection reads the fixture-selection summary.
func (b *builder) selection() error {
	path := b.cfg.Resolve(b.cfg.Selection)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	sel, err := ParseSelection(path, data)
	if err != nil {
		return err
	}
	b.r.Selection = sel
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, Input{Role: RoleSelection, Path: b.cfg.Selection, SHA256: sha256Hex(data), Bytes: int64(len(data))})
	return nil
}

// ParseSelection parses the JSON `tally select --format json` writes;
// name is the file's path, for errors.
func ParseSelection(name string, data []byte) (*Selection, error) {
	var j selectionJSON
	if err := json.Unmarshal(data, &j); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, c := lineCol(data, int(se.Offset)-1)
			return nil, fmt.Errorf("%s:%d:%d: %s", name, line, c, strings.TrimPrefix(se.Error(), "json: "))
		case errors.As(err, &te):
			line, c := lineCol(data, valueStart(data, int(te.Offset)))
			return nil, fmt.Errorf("%s:%d:%d: %s: want %s, got a JSON %s", name, line, c, te.Field, te.Type, te.Value)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &Selection{
		Budget: j.Budget, Seed: j.Seed, Incidents: j.Incidents, IncidentsExceedBudget: j.IncidentsExceedBudget,
		Selected: SelectionTotals{
			Sessions: j.Selected.Sessions, NeverCompact: j.Selected.NeverCompact, Compactions: j.Selected.Compactions,
			Decisions: j.Selected.Decisions, Items: j.Selected.Items,
			HoursAt15: j.Selected.AnnotationHours.At15, HoursAt2: j.Selected.AnnotationHours.At2,
		},
		Random: RandomTotals{
			Size: j.Random.Size, Draws: j.Random.Draws,
			Sessions: j.Random.Sessions.model(), NeverCompact: j.Random.NeverCompact.model(),
			Compactions: j.Random.Compactions.model(), Decisions: j.Random.Decisions.model(), Items: j.Random.Items.model(),
			HoursAt15: j.Random.AnnotationHours.At15.model(), HoursAt2: j.Random.AnnotationHours.At2.model(),
		},
		Warnings: j.Warnings,
	}
	for _, x := range j.Sessions {
		s.Sessions = append(s.Sessions, SelectedSession{SessionID: x.SessionID, Turns: x.Turns, Compactions: x.Compactions,
			Items: x.Items, Decisions: x.Decisions, Incident: x.Incident, Reason: x.Reason})
	}
	return s, nil
}

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

// lineCol converts a byte offset of data to a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + strings.Count(string(data[:off]), "\n")
	start := strings.LastIndexByte(string(data[:off]), '\n') + 1
	return line, runeCol(data[start:], off-start)
}
