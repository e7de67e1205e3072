package xlsx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// --- Replay -------------------------------------------------------------

func (b *book) replay() error {
	r, st := b.r, b.st
	s, err := b.stream(sheetReplay)
	if err != nil {
		return err
	}
	rp := r.Replay
	if rp == nil {
		if err := s.widths(60); err != nil {
			return err
		}
		if err := s.put((&cellRow{}).str("Task success replay: reported, never gated", st.title)); err != nil {
			return err
		}
		if err := s.put((&cellRow{}).str("No replay data: task success was not measured.", 0)); err != nil {
			return err
		}
		return s.sw.Flush()
	}
	res := rp.Result
	// The analysis, as labels over values, then the review queue.
	labels := (&cellRow{}).str("Pairs", st.header).str("Discordant", st.header).
		str("Both succeeded", st.header).str("Lost (reference ✓, candidate ✗)", st.header).
		str("Gained (reference ✗, candidate ✓)", st.header).str("Both failed", st.header).
		str("Reference rate", st.header).str("Candidate rate", st.header).str("Difference", st.header)
	values := (&cellRow{}).count(res.Pairs, st.count).count(res.Discordant, st.count).
		count(res.Table.A, st.count).count(res.Table.B, st.count).count(res.Table.C, st.count).count(res.Table.D, st.count).
		num("reference rate", res.ReferenceRate, st.pct).num("candidate rate", res.CandidateRate, st.pct).
		num("difference", res.Difference, st.pct)
	for _, t := range res.Tests {
		if t.HasStatistic {
			labels.str(t.Method+" χ²", st.header)
			values.num(t.Method+" statistic", t.Statistic, st.prob)
		}
		labels.str(t.Method+" p", st.header)
		values.num(t.Method+" p", t.PValue, st.prob)
	}
	for _, iv := range res.Intervals {
		labels.str(iv.Method+" low ("+pct(res.Confidence)+")", st.header).str(iv.Method+" high", st.header)
		values.num(iv.Method+" low", iv.Lower, st.pct).num(iv.Method+" high", iv.Upper, st.pct)
	}
	kinds := []string{"uncompacted", "accepted_trace"}
	for k := range rp.ReferenceKinds {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds[2:])
	for _, k := range kinds {
		labels.str("References: "+k, st.header)
		values.count(rp.ReferenceKinds[k], st.count)
	}
	width := max(len(labels.cells), 8)
	ws := make([]float64, width)
	for i := range ws {
		ws[i] = 14
	}
	ws[0] = 26
	if err := s.widths(ws...); err != nil {
		return err
	}
	words := rp.Sentence
	if n := values.note(); n != "" {
		words = strings.TrimSpace(words + " (" + n + ")")
	}
	pre := []*cellRow{
		(&cellRow{}).str("Task success replay: reported, never gated", st.title),
		labels, values,
		(&cellRow{}).str("In words", st.label).str(words, 0),
	}
	for _, w := range res.Warnings {
		pre = append(pre, (&cellRow{}).str("Warning", st.label).str(w, 0))
	}
	if len(rp.ByKind) > 0 {
		pre = append(pre, nil, (&cellRow{}).str("By reference kind", st.header).str("Pairs", st.header).
			str("Both succeeded", st.header).str("Lost", st.header).str("Gained", st.header).str("Both failed", st.header))
		for _, k := range rp.ByKind {
			pre = append(pre, (&cellRow{}).str(k.Kind, st.label).count(k.Table.Pairs(), st.count).
				count(k.Table.A, st.count).count(k.Table.B, st.count).count(k.Table.C, st.count).count(k.Table.D, st.count))
		}
	}
	pre = append(pre, nil)
	// The review queue. Freezing at its header freezes the analysis above
	// it too: it is a few rows, and the queue is read against it.
	head := len(pre) + 1
	if err := s.sw.SetPanes(freeze(0, head)); err != nil {
		return err
	}
	if err := b.printTitles(sheetReplay, head, head); err != nil {
		return err
	}
	if err := s.putAll(pre); err != nil {
		return err
	}
	if err := s.headers("Conversation (review queue)", "Reference", "Candidate", "Reference kind", "Direction",
		"Review", "Reviewer", "Note"); err != nil {
		return err
	}
	for _, p := range rp.Discordant {
		dir := ""
		switch {
		case p.Reference == "success" && p.Candidate == "failure":
			dir = "lost"
		case p.Reference == "failure" && p.Candidate == "success":
			dir = "gained"
		}
		if err := s.put((&cellRow{}).str(p.ConversationID, 0).str(p.Reference, 0).str(p.Candidate, 0).
			str(p.ReferenceKind, 0).str(dir, 0)); err != nil {
			return err
		}
	}
	last := max(s.row, head+1)
	if err := b.f.AutoFilter(sheetReplay, cellRange(1, head, 8, last), nil); err != nil {
		return err
	}
	if err := b.dropDown(sheetReplay, cellRange(6, head+1, 6, last), replayReview); err != nil {
		return err
	}
	if err := b.equals(sheetReplay, cellRange(5, head+1, 5, last), `"lost"`, st.cfFail, `"gained"`, st.cfPass); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Selection ----------------------------------------------------------

func (b *book) selection() error {
	r, st := b.r, b.st
	s, err := b.stream(sheetSelection)
	if err != nil {
		return err
	}
	if err := s.widths(34, 12, 14, 14, 14, 10, 60); err != nil {
		return err
	}
	sel := r.Selection
	if sel == nil {
		if err := s.put((&cellRow{}).str("Fixture selection", st.title)); err != nil {
			return err
		}
		if err := s.put((&cellRow{}).str("No selection summary: fixture selection was not part of this report.", 0)); err != nil {
			return err
		}
		return s.sw.Flush()
	}
	var pre []*cellRow
	rd := sel.Random
	if sel.Compared {
		basis := "Totals over the selection and over random samples of as many sessions"
		if sel.PerSession {
			basis = fmt.Sprintf("Per session: the random samples hold %d sessions, the selection %d", rd.Size, sel.Selected.Sessions)
		}
		pre = append(pre, (&cellRow{}).str(basis, st.label), (&cellRow{}).str("Measure", st.header).str("Selected", st.header).
			str("Random mean", st.header).str("Random low (95%)", st.header).str("Random high (95%)", st.header))
		for _, m := range sel.Rows {
			style := st.count
			if m.Hours || sel.PerSession {
				style = st.hours
			}
			if sel.PerSession && !m.Hours {
				style = st.decimal
			}
			name := strings.ToUpper(m.Measure[:1]) + m.Measure[1:]
			row := (&cellRow{}).str(name, st.label).num("selected", m.Selected, style).
				num("mean", m.Random.Mean, st.decimal).num("low", m.Random.Low, st.decimal).num("high", m.Random.High, st.decimal)
			pre = append(pre, row.skip(1).str(row.note(), 0))
		}
	} else {
		pre = append(pre, (&cellRow{}).str("No random comparison: tally select was run with --compare-random 0 or selected nothing.", 0))
	}
	pre = append(pre, nil)
	for _, kv := range []struct {
		k string
		v any
	}{
		{"Budget (sessions)", sel.Budget},
		{"Budget (annotation hours)", sel.BudgetHours},
		{"Minutes a 63-turn conversation", sel.MinutesPerFixture},
		// The seed is text: a float64 cell would round seeds beyond 2⁵³.
		{"Seed", strconv.FormatInt(sel.Seed, 10)},
		{"Incidents", sel.Incidents},
		{"Incidents exceed the budget", sel.IncidentsExceedBudget},
		{"Random sample size (sessions)", rd.Size},
		{"Random draws", rd.Draws},
	} {
		row := (&cellRow{}).str(kv.k, st.label)
		switch v := kv.v.(type) {
		case int:
			row.count(v, 0)
		case float64:
			if v == 0 {
				continue
			}
			row.num("", v, st.decimal)
		case string:
			row.str(v, 0)
		case bool:
			row.flag(v)
		}
		pre = append(pre, row)
	}
	for _, w := range sel.Warnings {
		pre = append(pre, (&cellRow{}).str("Warning", st.label).str(w, 0))
	}
	pre = append(pre, nil)
	head := len(pre) + 1
	if err := s.sw.SetPanes(freeze(1, head)); err != nil {
		return err
	}
	if err := b.printTitles(sheetSelection, head, head); err != nil {
		return err
	}
	if err := s.putAll(pre); err != nil {
		return err
	}
	if err := s.headers("Selected session", "Turns", "Compactions", "Items", "Decisions", "Incident", "Reason"); err != nil {
		return err
	}
	for _, ss := range sel.Sessions {
		if err := s.put((&cellRow{}).str(ss.SessionID, 0).count(ss.Turns, st.count).count(ss.Compactions, st.count).
			count(ss.Items, st.count).count(ss.Decisions, st.count).flag(ss.Incident).str(ss.Reason, 0)); err != nil {
			return err
		}
	}
	if err := b.f.AutoFilter(sheetSelection, cellRange(1, head, 7, max(s.row, head+1)), nil); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Provenance ---------------------------------------------------------

func (b *book) provenance() error {
	r, st := b.r, b.st
	s, err := b.stream(sheetProvenance)
	if err != nil {
		return err
	}
	if err := s.widths(10, 24, 80, 66, 14); err != nil {
		return err
	}
	if err := s.sw.SetPanes(freeze(0, 1)); err != nil {
		return err
	}
	if err := b.printTitles(sheetProvenance, 1, 1); err != nil {
		return err
	}
	if err := s.headers("Section", "Name", "Value", "SHA-256", "Bytes"); err != nil {
		return err
	}
	p := r.Provenance
	rows := []*cellRow{
		(&cellRow{}).str("tally", 0).str("version", 0).str(p.Version, 0),
		(&cellRow{}).str("report", 0).str("title", 0).str(r.Title, 0),
		(&cellRow{}).str("report", 0).str("period", 0).str(r.Period, 0),
		(&cellRow{}).str("report", 0).str("generated", 0).str(b.stamp.Format(time.RFC3339), 0),
		(&cellRow{}).str("report", 0).str("confidence", 0).num("confidence", r.Confidence, st.pct),
		(&cellRow{}).str("report", 0).str("incumbent", 0).str(r.Incumbent, 0),
		(&cellRow{}).str("report", 0).str("candidate", 0).str(r.Candidate, 0),
	}
	for _, in := range p.Inputs {
		rows = append(rows, (&cellRow{}).str("input", 0).str(in.Role, 0).str(in.Path, 0).str(in.SHA256, 0).
			num("bytes", float64(in.Bytes), st.count))
	}
	if p.Config == "" {
		rows = append(rows, (&cellRow{}).str("config", 0).skip(1).str("(no configuration text)", 0))
	}
	for _, row := range rows {
		if err := s.put(row); err != nil {
			return err
		}
	}
	if p.Config != "" {
		lines := strings.Split(strings.TrimSuffix(p.Config, "\n"), "\n")
		for i, line := range lines {
			if err := s.put((&cellRow{}).str("config", 0).count(i+1, 0).str(strings.TrimSuffix(line, "\r"), 0)); err != nil {
				return err
			}
		}
	}
	if err := b.f.AutoFilter(sheetProvenance, cellRange(1, 1, 5, s.row), nil); err != nil {
		return err
	}
	return s.sw.Flush()
}
