package report

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
	"golang.org/x/text/unicode/norm"
)

// This file reads each system's verdicts into the item rows, for Build.

// pending is a consistency problem whose column is found after the file
// has been read: index into the problem list, line, and field.
type pending struct {
	idx, line int
	field     string
}

// readVerdicts streams system s's verdict file into the rows.
func (b *builder) readVerdicts(s int, sc SystemConfig) error {
	role := []string{"incumbent", "candidate"}[s]
	path := b.cfg.Resolve(sc.Verdicts)
	f, err := input.Open(path, b.lim)
	if err != nil {
		return fmt.Errorf("verdicts (systems.%s.verdicts): %w", role, err)
	}
	defer f.Close()
	hr := newHashReader(f)
	rr := fixture.NewRecordReaderSize(hr, path, b.lim.MaxLine)
	var (
		probs fixture.ProblemList
		later []pending
		count int
	)
	consistency := func(line int, field, format string, args ...any) {
		if !probs.Full() {
			later = append(later, pending{idx: probs.Len(), line: line, field: field})
		}
		probs.Add(fixture.Problem{File: path, Line: line, Col: 1, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ps fixture.Problems
			if errors.As(err, &ps) {
				probs.Add(ps...)
				continue
			}
			return err
		}
		line := rr.Line()
		if rec.System != sc.Name {
			consistency(line, "system", "%q is not %q, the %s's name (systems.%s.name in %s)", previewText(rec.System), previewText(sc.Name), role, role, baseName(b.cfg.File))
			continue
		}
		fi, ok := b.conv[rec.ConversationID]
		if !ok {
			consistency(line, "conversation_id", "no fixture has conversation_id %q%s", previewText(rec.ConversationID), b.otherForm(rec.ConversationID))
			continue
		}
		g, ok := b.itemIn(fi, rec.ItemID)
		if !ok {
			consistency(line, "item_id", "fixture %s has no item %q", previewText(rec.ConversationID), previewText(rec.ItemID))
			continue
		}
		it := b.itemOf(g)
		if rec.Class != it.Class {
			consistency(line, "class", "%q, but item %s of fixture %s is a %s", rec.Class, previewText(it.ID), previewText(rec.ConversationID), it.Class)
			continue
		}
		if n := b.fixtures[fi].CompactionsExpected; rec.Compaction > n {
			consistency(line, "compaction", "fixture %s expects %d compactions, so there is no compaction %d", previewText(rec.ConversationID), n, rec.Compaction)
			continue
		}
		switch {
		case rec.Item == "":
			b.unprinted[s]++
		case rec.Item != b.fingerprint(g, it):
			consistency(line, "item", "item %s of fixture %s has changed since this verdict was written (its class, turn, literal, probe or expected answer): re-run tally check", previewText(it.ID), previewText(rec.ConversationID))
			continue
		}
		ri, ok := b.rows.get(b.slotBase[g], g, rec.Compaction)
		if !ok {
			ri = int32(len(b.r.Items))
			fx := &b.fixtures[fi]
			b.r.Items = append(b.r.Items, ItemRow{
				ItemKey: ItemKey{ConversationID: fx.ConversationID, Compaction: rec.Compaction, ItemID: it.ID},
				Class:   it.Class, Literal: it.Literal, Probe: it.Probe, Expect: it.Expect,
			})
			b.rowItem = append(b.rowItem, g)
			b.lines[0] = append(b.lines[0], 0)
			b.lines[1] = append(b.lines[1], 0)
			b.rows.set(b.slotBase[g], g, rec.Compaction, ri)
		}
		if first := b.lines[s][ri]; first != 0 {
			consistency(line, "item_id", "item %s of %s at compaction %d already has a verdict (line %d)", previewText(it.ID), previewText(rec.ConversationID), rec.Compaction, first)
			continue
		}
		b.lines[s][ri] = int32(min(line, math.MaxInt32))
		row := &b.r.Items[ri]
		out := &row.Incumbent
		if s == 1 {
			out = &row.Candidate
		}
		*out = b.compact(rec, sc.Name, row, it)
		if j := out.Judge; j != "" && out.Verdict != fixture.Verbatim {
			if b.judgedBy[s] == nil {
				b.judgedBy[s] = map[string]int{}
			}
			b.judgedBy[s][j]++
		}
		count++
	}
	if len(later) > 0 {
		locate(path, b.lim, probs.Kept(), later)
	}
	if err := probs.Err(); err != nil {
		return err
	}
	if count == 0 {
		return fmt.Errorf("%s: no verdict records (systems.%s.verdicts): run tally check first", path, role)
	}
	in, err := hr.input(RoleVerdicts+" ("+role+")", sc.Verdicts)
	if err != nil {
		return err
	}
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, in)
	return nil
}

// compact returns rec with its strings shared: the system's name, the
// fixture's ids and expected answer, the verdict and class constants and
// one copy of each judge name.
func (b *builder) compact(rec fixture.Record, system string, row *ItemRow, it *fixture.Item) fixture.Record {
	rec.System = system
	rec.ConversationID = row.ConversationID
	rec.ItemID = row.ItemID
	rec.Class = it.Class
	for _, v := range fixture.Verdicts {
		if rec.Verdict == v {
			rec.Verdict = v
		}
	}
	if rec.Expect == it.Expect {
		rec.Expect = it.Expect
	}
	if rec.Judge != "" {
		if j, ok := b.judges[rec.Judge]; ok {
			rec.Judge = j
		} else {
			b.judges[rec.Judge] = rec.Judge
		}
	}
	return rec
}

// locate fills in the columns of the pending problems by reading the
// file again: the column of the named field's value on its line.
func locate(path string, lim input.Limits, probs fixture.Problems, later []pending) {
	f, err := input.Open(path, lim)
	if err != nil {
		return // columns stay 1
	}
	defer f.Close()
	lr := f.Lines()
	next := 0
	for next < len(later) {
		line, err := lr.Next()
		if err == io.EOF {
			return
		}
		if err != nil && !errors.Is(err, input.ErrTooLarge) {
			return
		}
		n := lr.Line()
		for next < len(later) && later[next].line == n {
			probs[later[next].idx].Col = jsonscan.ValueColumn(line, later[next].field)
			next++
		}
	}
}

// otherForm is a hint for a conversation id no fixture has, when a
// fixture has the same letters in another Unicode normalisation (NFC or
// NFD: an id typed on macOS, or a file from some zip tools): both
// spellings escaped, since they look the same; "" otherwise.
func (b *builder) otherForm(id string) string {
	for _, other := range []string{norm.NFC.String(id), norm.NFD.String(id)} {
		if _, ok := b.conv[other]; ok && other != id {
			return fmt.Sprintf(" (a fixture has %+q, the same letters in another Unicode form, where this is %+q)", previewText(other), previewText(id))
		}
	}
	return ""
}
