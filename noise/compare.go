package noise

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/stats"
)

// noPairs is the ICC's Undefined of a class with errors and no pair.
const noPairs = "no pairs: every item-compaction has an error verdict"

// Compare pairs the verdict records of two check runs of one system, a
// and b (JSONL as tally check writes it, read with fixture.RecordReader;
// nameA and nameB name them in problems, normally their paths), and
// measures how much the runs disagree, with intervals at the given
// confidence. See CompareSize for the line limit.
//
// Records are paired by item-compaction: (conversation_id, compaction,
// item_id). Every problem of both files is returned at once, as
// fixture.Problems naming the file, line, column and field: a line the
// reader rejects; a record naming another system than the file's first
// record (a file holds one system); a second record for one
// item-compaction in one file (naming both lines); a pair whose class —
// or, when both records carry one, whose item fingerprint — differs
// between the files (naming both). A file with no records, and two files
// with no pair to compare (nothing in common, or an error verdict on
// every item-compaction they share), are errors too. A read error is
// returned as it is.
func Compare(a, b io.Reader, nameA, nameB string, confidence float64) (*Measure, error) {
	return CompareSize(a, b, nameA, nameB, confidence, 0)
}

// CompareSize is Compare accepting lines of up to maxLine bytes
// (input.DefaultMaxLine when maxLine ≤ 0), as
// fixture.NewRecordReaderSize.
func CompareSize(a, b io.Reader, nameA, nameB string, confidence float64, maxLine int64) (*Measure, error) {
	if err := stats.ValidateConfidence(confidence); err != nil {
		return nil, err
	}
	p := &pairing{index: map[key]int{}, onlyB: map[key]int{}, convs: map[string]string{}}
	m := &Measure{A: Run{File: nameA}, B: Run{File: nameB}, Confidence: confidence}
	errA := p.read(a, &m.A, maxLine, p.addA)
	if errA != nil && fixture.AsProblems(errA) == nil {
		return nil, errA
	}
	errB := p.read(b, &m.B, maxLine, p.addB(nameA))
	if errB != nil && fixture.AsProblems(errB) == nil {
		return nil, errB
	}
	if ps := append(fixture.AsProblems(errA), fixture.AsProblems(errB)...); len(ps) > 0 {
		return nil, ps
	}
	if err := p.measure(m); err != nil {
		return nil, err
	}
	return m, nil
}

// key is an item-compaction: what pairs the two runs' records.
type key struct {
	conv       string
	compaction int
	item       string
}

// entry is one item-compaction of run A, with run B's verdict once read.
type entry struct {
	key
	class        fixture.Class
	a, b         fixture.Verdict
	lineA, lineB int    // lineB is 0 until B's record is read
	print        string // A's item fingerprint ("item"), if any
}

// pairing holds run A's records, in file order, and what run B adds.
type pairing struct {
	entries []entry
	index   map[key]int       // into entries
	onlyB   map[key]int       // B's item-compactions not in A: their line
	convs   map[string]string // one copy of each conversation id
}

// found is a problem with a record once read: its field and message.
type found struct{ field, msg string }

// read reads one run's records, checking that they name one system and
// handing each to add; it returns the file's problems (fixture.Problems)
// or a read error.
func (p *pairing) read(r io.Reader, run *Run, maxLine int64, add func(*fixture.Record, int) *found) error {
	tap := newLineTap(r)
	rr := fixture.NewRecordReaderSize(tap, run.File, maxLine)
	var (
		probs      fixture.ProblemList
		systemLine int
	)
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		n := rr.Line()
		tap.release(n)
		if err != nil {
			var ps fixture.Problems
			if errors.As(err, &ps) {
				probs.Add(ps...)
				continue
			}
			return err
		}
		run.Records++
		var f *found
		switch {
		case systemLine == 0:
			run.System, systemLine = rec.System, n
			f = add(&rec, n)
		case rec.System != run.System:
			f = &found{"system", fmt.Sprintf("%s, but line %d names %s: a verdict file holds the records of one system (tally check --system)",
				quote(rec.System), systemLine, quote(run.System))}
		default:
			f = add(&rec, n)
		}
		if f != nil {
			probs.Add(fixture.Problem{File: run.File, Line: n, Col: tap.column(n, f.field), Field: f.field, Msg: f.msg})
		}
	}
	if run.Records == 0 && probs.Len() == 0 {
		return fixture.Problems{{File: run.File, Msg: "no verdict records: want the JSONL that tally check -o writes"}}
	}
	return probs.Err()
}

// addA records a record of run A.
func (p *pairing) addA(rec *fixture.Record, n int) *found {
	k := p.keyOf(rec)
	if i, ok := p.index[k]; ok {
		return duplicate(k, p.entries[i].lineA)
	}
	p.index[k] = len(p.entries)
	p.entries = append(p.entries, entry{key: k, class: rec.Class, a: rec.Verdict, lineA: n, print: rec.Item})
	return nil
}

// addB returns the function that pairs a record of run B with run A's
// (named nameA in problems).
func (p *pairing) addB(nameA string) func(*fixture.Record, int) *found {
	return func(rec *fixture.Record, n int) *found {
		k := p.keyOf(rec)
		i, ok := p.index[k]
		if !ok {
			if first, dup := p.onlyB[k]; dup {
				return duplicate(k, first)
			}
			p.onlyB[k] = n
			return nil
		}
		e := &p.entries[i]
		if e.lineB != 0 {
			return duplicate(k, e.lineB)
		}
		e.lineB = n
		switch {
		case rec.Class != e.class:
			return &found{"class", fmt.Sprintf("%s, but %s:%d gives %s the class %s: the two runs must check the same fixtures",
				quote(string(rec.Class)), nameA, e.lineA, k, e.class)}
		case rec.Item != "" && e.print != "" && rec.Item != e.print:
			return &found{"item", fmt.Sprintf("%s is not the item %s:%d checked (its fingerprint %s differs from %s): the fixture changed between the runs, and both must check the same fixtures",
				k, nameA, e.lineA, quote(rec.Item), quote(e.print))}
		}
		e.b = rec.Verdict
		return nil
	}
}

// keyOf is rec's item-compaction, with one copy of each conversation id.
func (p *pairing) keyOf(rec *fixture.Record) key {
	c, ok := p.convs[rec.ConversationID]
	if !ok {
		c = rec.ConversationID
		p.convs[c] = c
	}
	return key{conv: c, compaction: rec.Compaction, item: rec.ItemID}
}

// String names an item-compaction in a problem.
func (k key) String() string {
	return fmt.Sprintf("item %s of %s at compaction %d", quote(k.item), quote(k.conv), k.compaction)
}

// duplicate is the problem of a second record for k in one file.
func duplicate(k key, first int) *found {
	return &found{"item_id", fmt.Sprintf("%s already has a verdict in this file (line %d): a file holds one record per item and compaction", k, first)}
}

// verdictIndex is the row or column of each non-error verdict in the
// agreement table.
var verdictIndex = map[fixture.Verdict]int{fixture.Verbatim: 0, fixture.Supported: 1, fixture.Absent: 2, fixture.Contradicted: 3}

// measure counts the pairs into m.
func (p *pairing) measure(m *Measure) error {
	nc := len(fixture.Classes)
	classIndex := make(map[fixture.Class]int, nc)
	for i, c := range fixture.Classes {
		classIndex[c] = i
	}
	// rows[c] is class c's row, rows[nc] every class pooled; shared[c]
	// says whether class c has an item-compaction in both files.
	rows := make([]Class, nc+1)
	shared := make([]bool, nc+1)
	// clusters[g][c] is conversation g's pairs of class c, [g][nc] all
	// of its pairs; conversations in the order run A first names them.
	var clusters [][]Cluster
	convIndex := map[string]int{}
	m.Labels = []string{string(fixture.Verbatim), string(fixture.Supported), string(fixture.Absent), string(fixture.Contradicted)}
	m.Table = make([][]int, len(m.Labels))
	for i := range m.Table {
		m.Table[i] = make([]int, len(m.Labels))
	}
	for i := range p.entries {
		e := &p.entries[i]
		if e.lineB == 0 {
			m.Unpaired.OnlyA++
			continue
		}
		ci := classIndex[e.class]
		shared[ci], shared[nc] = true, true
		bad := e.a == fixture.Error || e.b == fixture.Error
		ra, rb := e.a.Retained(), e.b.Retained()
		flip := (e.a == fixture.Contradicted) != (e.b == fixture.Contradicted)
		for _, j := range [2]int{ci, nc} {
			c := &rows[j]
			if bad {
				c.Errors++
				continue
			}
			c.Pairs++
			switch {
			case ra && rb:
				c.BothRetained++
			case ra:
				c.Lost++
			case rb:
				c.Gained++
			default:
				c.NeitherRetained++
			}
			if flip {
				c.ContradictionFlips++
			}
		}
		if bad {
			continue
		}
		m.Table[verdictIndex[e.a]][verdictIndex[e.b]]++
		g, ok := convIndex[e.conv]
		if !ok {
			g = len(clusters)
			convIndex[e.conv] = g
			cs := make([]Cluster, nc+1)
			for j := range cs {
				cs[j].ConversationID = e.conv
			}
			clusters = append(clusters, cs)
		}
		for _, j := range [2]int{ci, nc} {
			cl := &clusters[g][j]
			cl.N++
			switch {
			case ra && !rb:
				cl.Lost++
			case rb && !ra:
				cl.Gained++
			}
		}
	}
	m.Unpaired.OnlyB = len(p.onlyB)
	for j := range rows {
		if !shared[j] {
			continue
		}
		if j < nc {
			rows[j].Class = fixture.Classes[j]
		}
		if err := finish(&rows[j], column(clusters, j), m.Confidence); err != nil {
			return err
		}
		if j < nc {
			m.Classes = append(m.Classes, rows[j])
		}
	}
	m.All = rows[nc]
	if m.All.Pairs == 0 {
		return p.nothingToCompare(m)
	}
	m.ContradictionFlips = m.All.ContradictionFlips
	m.ContradictionFlipRate = float64(m.ContradictionFlips) / float64(m.All.Pairs)
	m.ICC = m.All.ICC
	var err error
	if m.Agreement, err = stats.CohenKappa(m.Table, m.Confidence); err != nil {
		return fmt.Errorf("noise: verdict agreement: %w", err)
	}
	m.Warnings = warnings(m)
	return nil
}

// finish computes c's interval and ICC from its counts and its
// conversations' clusters, which it keeps.
func finish(c *Class, clusters []Cluster, confidence float64) error {
	nan := math.NaN()
	c.DiscordanceInterval = stats.Interval{Method: string(stats.Wilson), Lower: nan, Upper: nan}
	c.ICC = stats.ICC{Rho: nan, DesignEffect: nan, Undefined: noPairs}
	if c.Pairs == 0 {
		return nil
	}
	name := "every class"
	if c.Class != "" {
		name = string(c.Class)
	}
	iv, err := stats.Proportion{K: c.Discordant(), N: c.Pairs}.Interval(stats.Wilson, confidence)
	if err != nil {
		return fmt.Errorf("noise: discordance of %s: %w", name, err)
	}
	c.DiscordanceInterval = iv
	c.Conversations = len(clusters)
	c.Clusters = clusters
	discordant := make([]stats.Cluster, len(clusters))
	for i, x := range clusters {
		discordant[i] = stats.Cluster{K: x.Lost + x.Gained, N: x.N}
	}
	if c.ICC, err = stats.ClusterICC(discordant); err != nil {
		return fmt.Errorf("noise: within-conversation correlation of %s: %w", name, err)
	}
	return nil
}

// column is the clusters of column j with at least one pair.
func column(clusters [][]Cluster, j int) []Cluster {
	var out []Cluster
	for _, g := range clusters {
		if g[j].N > 0 {
			out = append(out, g[j])
		}
	}
	return out
}

// nothingToCompare is the error of two runs without a single pair.
func (p *pairing) nothingToCompare(m *Measure) error {
	if m.All.Errors == 0 {
		return fmt.Errorf("%s and %s have no item-compaction (conversation_id, compaction, item_id) in common (%d only in the first, %d only in the second): they are not two check runs over the same fixtures",
			m.A.File, m.B.File, m.Unpaired.OnlyA, m.Unpaired.OnlyB)
	}
	return fmt.Errorf("%s and %s: each of the %d item-compactions they share has an error verdict in one run or both, so no outcome is known: re-run tally check (it settles judge failures from its cache)",
		m.A.File, m.B.File, m.All.Errors)
}

// Agrees reports whether the two runs gave every pair the same verdict:
// a second run answered from a cache, by the recorded judge or by any
// judge that answers a question the same way every time, on the same
// contexts, measures no noise (see the warning).
func (m *Measure) Agrees() bool { return diagonal(m.Table) }

// warnings are what a reader of m must know to use its figures.
func warnings(m *Measure) []string {
	var w []string
	if m.A.System != m.B.System {
		w = append(w, fmt.Sprintf("A names its system %s and B %s: these figures are the noise only if A and B are two runs of one system (tally check --system may name the runs apart); between two systems they are the difference plus the noise",
			quote(m.A.System), quote(m.B.System)))
	}
	if diagonal(m.Table) {
		w = append(w, "the two runs gave every pair the same verdict: a second run answered from the judge cache (tally check --cache), by the recorded judge or by any judge that answers a question the same way every time (a keyword script) measures no noise; judge the second run afresh (--cache \"\" or a folder of its own) with a model, or check a second set of compacted contexts")
	}
	if u := m.Unpaired; u.OnlyA+u.OnlyB > 0 {
		w = append(w, fmt.Sprintf("%s only in %s and %s only in %s are unpaired and in no figure: both runs should check the same fixtures and contexts",
			count(u.OnlyA, "item-compaction"), m.A.File, count(u.OnlyB, "item-compaction"), m.B.File))
	}
	if n := m.All.Errors; n > 0 {
		w = append(w, fmt.Sprintf("%s of both files %s an error verdict in one run or both: the outcome is unknown, so they are left out of every figure (a re-run of tally check settles judge failures)",
			count(n, "item-compaction"), plural(n, "has", "have")))
	}
	return w
}

// diagonal reports whether every count of table is on its diagonal.
func diagonal(table [][]int) bool {
	for i, row := range table {
		for j, x := range row {
			if i != j && x != 0 {
				return false
			}
		}
	}
	return true
}

// quote quotes an untrusted string for a message, cut at 40 characters.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:39]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func count(n int, noun string) string { return fmt.Sprintf("%d %s", n, plural(n, noun, noun+"s")) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
