package xlsx

import (
	"fmt"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/reviews"
)

// --- Items --------------------------------------------------------------

func (b *book) items() error {
	r, st := b.r, b.st
	s, err := b.stream(sheetItems)
	if err != nil {
		return err
	}
	const cols = 20 // A..T
	if err := s.widths(24, 8, 8, 14, 40, 40, 24, 12, 30, 24, 16, 12, 30, 24, 16, 9, 16, 16, 14, 30); err != nil {
		return err
	}
	if err := s.sw.SetPanes(freeze(3, 2)); err != nil {
		return err
	}
	if err := b.printTitles(sheetItems, 1, 2); err != nil {
		return err
	}
	inc, cand := "Incumbent", "Candidate"
	if r.Incumbent != "" {
		inc += ": " + r.Incumbent
	}
	if r.Candidate != "" {
		cand += ": " + r.Candidate
	}
	if err := s.put((&cellRow{}).str(reviews.GroupItem, st.group).skip(6).str(inc, st.group).skip(3).
		str(cand, st.group).skip(3).str("", 0).str(reviews.GroupReview, st.group).skip(3)); err != nil {
		return err
	}
	for _, m := range [][2]string{{"A1", "G1"}, {"H1", "K1"}, {"L1", "O1"}, {"Q1", "T1"}} {
		if err := s.sw.MergeCell(m[0], m[1]); err != nil {
			return err
		}
	}
	if err := s.headers(reviews.HeaderConversation, reviews.HeaderCompaction, reviews.HeaderItem, reviews.HeaderClass, "Literal", "Probe", "Expect",
		reviews.HeaderIncumbentVerdict, "Incumbent answer", "Incumbent reason", "Incumbent judge",
		reviews.HeaderCandidateVerdict, "Candidate answer", "Candidate reason", "Candidate judge",
		"Changed", reviews.HeaderIncumbentReview, reviews.HeaderCandidateReview, reviews.HeaderReviewer, reviews.HeaderNote); err != nil {
		return err
	}
	row := &cellRow{cells: make([]any, 0, cols)}
	shown := b.fitRows(sheetItems, "item rows", len(r.Items), 2)
	for i := range r.Items[:shown] {
		it := &r.Items[i]
		row.cells, row.undef = row.cells[:0], row.undef[:0]
		row.str(it.ConversationID, 0).count(it.Compaction, 0).str(it.ItemID, 0).str(string(it.Class), 0).
			str(it.Literal, 0).str(it.Probe, 0).str(it.Expect, 0)
		for _, rec := range []*fixture.Record{&it.Incumbent, &it.Candidate} {
			row.str(verdictText(rec.Verdict), 0).str(rec.Answer, 0).str(rec.Reason, 0).str(rec.Judge, 0)
		}
		row.flag(it.Changed)
		if err := s.put(row); err != nil {
			return err
		}
	}
	if n := len(r.Items) - shown; n > 0 {
		if err := s.put((&cellRow{}).str(fmt.Sprintf("… %d more item rows: a sheet holds %d rows", n, maxRows), 0)); err != nil {
			return err
		}
	}
	last := max(s.row, 3)
	if err := b.f.AutoFilter(sheetItems, cellRange(1, 2, cols, last), nil); err != nil {
		return err
	}
	if err := b.dropDown(sheetItems, cellRange(17, 3, 18, last), reviews.Words); err != nil {
		return err
	}
	for _, col := range []int{8, 12} {
		if err := b.verdictRules(sheetItems, cellRange(col, 3, col, last)); err != nil {
			return err
		}
	}
	if err := b.equals(sheetItems, cellRange(16, 3, 16, last), "TRUE", st.cfChanged); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Lost and Contradicted ----------------------------------------------

func (b *book) lost() error {
	r, st := b.r, b.st
	type entry struct {
		kind  string
		class fixture.Class
		key   report.ItemKey
	}
	var entries []entry
	for _, c := range r.Classes {
		for _, k := range c.Lost {
			entries = append(entries, entry{"lost", c.Class, k})
		}
	}
	found := make(map[report.ItemKey]bool, len(r.Contradictions.Found))
	for _, k := range r.Contradictions.Found {
		found[k] = true
	}
	for _, k := range r.Contradictions.New {
		kind := "new contradiction"
		if found[k] { // the judge saw none
			kind = "new contradiction (found by a reviewer)"
		}
		entries = append(entries, entry{kind, "", k})
	}
	omitted := len(entries)
	entries = entries[:b.fitRows(sheetLost, "rows", len(entries), 1)]
	omitted -= len(entries)
	itemsShown := min(len(r.Items), maxRows-reviews.SheetHeaderRow-1) // as items() cuts them
	// Find each entry's item row in one pass over the items.
	where := make(map[report.ItemKey]int, len(entries))
	for _, e := range entries {
		where[e.key] = -1
	}
	for i := range r.Items {
		if at, ok := where[r.Items[i].ItemKey]; ok && at < 0 {
			where[r.Items[i].ItemKey] = i
		}
	}

	s, err := b.stream(sheetLost)
	if err != nil {
		return err
	}
	const cols = 14 // A..N
	if err := s.widths(18, 14, 24, 8, 8, 40, 40, 24, 12, 30, 12, 30, 30, 40); err != nil {
		return err
	}
	if err := s.sw.SetPanes(freeze(0, 1)); err != nil {
		return err
	}
	if err := b.printTitles(sheetLost, 1, 1); err != nil {
		return err
	}
	if err := s.headers("Kind", "Class", "Conversation", "Compaction", "Item", "Literal", "Probe", "Expect",
		"Incumbent verdict", "Incumbent answer", "Candidate verdict", "Candidate answer", "Candidate reason",
		"Review it on"); err != nil {
		return err
	}
	for _, e := range entries {
		row := &cellRow{}
		class := e.class
		var it *report.ItemRow
		if i := where[e.key]; i >= 0 {
			it = &r.Items[i]
			if class == "" {
				class = it.Class
			}
		}
		row.str(e.kind, 0).str(string(class), 0).str(e.key.ConversationID, 0).count(e.key.Compaction, 0).str(e.key.ItemID, 0)
		if it == nil {
			row.skip(8).str("no item row for this key in the report", 0)
		} else {
			row.str(it.Literal, 0).str(it.Probe, 0).str(it.Expect, 0).
				str(verdictText(it.Incumbent.Verdict), 0).str(it.Incumbent.Answer, 0).
				str(verdictText(it.Candidate.Verdict), 0).str(it.Candidate.Answer, 0).str(it.Candidate.Reason, 0)
			// The reviewer's verdict goes on the item's Items row, the
			// one tally calibrate reads back.
			if at := where[e.key] + 1 + reviews.SheetHeaderRow; where[e.key] < itemsShown {
				row.str(fmt.Sprintf("Items row %d (%s, %s)", at, reviews.HeaderIncumbentReview, reviews.HeaderCandidateReview), 0)
			} else {
				row.str("not on the Items sheet (a sheet holds "+fmt.Sprint(maxRows)+" rows)", 0)
			}
		}
		if err := s.put(row); err != nil {
			return err
		}
	}
	if omitted > 0 {
		if err := s.put((&cellRow{}).str(fmt.Sprintf("… %d more rows: a sheet holds %d rows", omitted, maxRows), 0)); err != nil {
			return err
		}
	}
	if len(entries) == 0 {
		if err := s.put((&cellRow{}).str("none", 0).skip(4).
			str("no item the incumbent retained was lost, and no item is newly contradicted", 0)); err != nil {
			return err
		}
	}
	last := max(s.row, 2)
	if err := b.f.AutoFilter(sheetLost, cellRange(1, 1, cols, last), nil); err != nil {
		return err
	}
	for _, col := range []int{9, 11} {
		if err := b.verdictRules(sheetLost, cellRange(col, 2, col, last)); err != nil {
			return err
		}
	}
	if err := b.equals(sheetLost, cellRange(1, 2, 1, last), `"new contradiction"`, st.cfFail); err != nil {
		return err
	}
	return s.sw.Flush()
}
