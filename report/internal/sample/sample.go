package sample

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/stats"
)

// This file holds the hand-made reports every renderer's tests share
// (HTML, charts, notebooks, XLSX): Report, the source text's
// example; Hostile, the same full of hostile text; Minimal,
// a first run on little data; Large, 300,000 item rows. The
// example data itself, as Build makes it, is Quarterly.

// Report returns a report that mirrors the source text's example:
// the incumbent retains 71/80 constraints, 44/51 commitments, 96/103 open
// questions and 58/61 references with 2 contradictions and a mean prompt
// of 6,407 tokens within a 12,000 budget; the candidate 70/80, 43/51,
// 88/103 and 57/61 with 7 contradictions and a mean prompt of 4,196.
// Five of the six gates are unmet by both systems (a backlog); the change
// blocks because open questions and contradictions got worse. The
// replay's paired table is 157, 9, 11, 23 (0.83 against 0.84).
//
// It is internally consistent: the item rows are generated first (40
// conversations, 1–3 compactions each) and every count, share, interval,
// lost and gained list and contradiction is computed from them with the
// stats and power packages. Each call returns a fresh report.
func Report() *report.Report {
	const conf = 0.95
	gen := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	r := &report.Report{
		Title:      "Compaction change: summariser v4 against v3",
		Period:     "2026 Q1",
		Generated:  gen,
		Confidence: conf,
		Incumbent:  "summariser-v3",
		Candidate:  "summariser-v4",
	}
	r.Items = itemRows(r.Incumbent, r.Candidate)

	gates := map[fixture.Class]float64{
		fixture.Constraint: 0.95, fixture.Commitment: 0.90,
		fixture.OpenQuestion: 0.95, fixture.Reference: 0.98,
	}
	const retainedTolerance = 2
	for _, cl := range fixture.Classes {
		row := report.ClassRow{Class: cl, MinShare: gates[cl]}
		var t power.Table
		inc := map[string]*stats.Cluster{}
		cand := map[string]*stats.Cluster{}
		var convs []string
		for _, it := range r.Items {
			if it.Class != cl {
				continue
			}
			if inc[it.ConversationID] == nil {
				inc[it.ConversationID], cand[it.ConversationID] = &stats.Cluster{}, &stats.Cluster{}
				convs = append(convs, it.ConversationID)
			}
			row.Incumbent.Counts.Add(it.Incumbent.Verdict)
			row.Candidate.Counts.Add(it.Candidate.Verdict)
			ir, cr := it.Incumbent.Verdict.Retained(), it.Candidate.Verdict.Retained()
			inc[it.ConversationID].N++
			cand[it.ConversationID].N++
			if ir {
				inc[it.ConversationID].K++
			}
			if cr {
				cand[it.ConversationID].K++
			}
			switch {
			case ir && cr:
				t.A++
			case ir:
				t.B++
				row.Lost = append(row.Lost, it.ItemKey)
			case cr:
				t.C++
				row.Gained = append(row.Gained, it.ItemKey)
			default:
				t.D++
			}
		}
		for _, s := range []struct {
			sc       *report.SystemClass
			clusters map[string]*stats.Cluster
		}{{&row.Incumbent, inc}, {&row.Candidate, cand}} {
			var cs []stats.Cluster
			for _, id := range convs {
				cs = append(cs, *s.clusters[id])
			}
			fillClass(s.sc, cs, row.MinShare, conf)
		}
		m, err := power.McNemar(t, conf)
		if err != nil {
			panic(err)
		}
		row.McNemar, _ = m.Test(power.TestExact)
		row.Pairs = t
		row.Change = report.Same
		switch d := row.Incumbent.Counts.Retained() - row.Candidate.Counts.Retained(); {
		case d > retainedTolerance:
			row.Change = report.Worse
		case d < -retainedTolerance:
			row.Change = report.Better
		}
		r.Classes = append(r.Classes, row)
	}

	c := &r.Contradictions
	for _, it := range r.Items {
		ic, cc := it.Incumbent.Verdict == fixture.Contradicted, it.Candidate.Verdict == fixture.Contradicted
		if ic {
			c.Incumbent++
		}
		if cc {
			c.Candidate++
		}
		if cc && !ic {
			c.New = append(c.New, it.ItemKey)
		}
	}
	c.IncumbentGate, c.CandidateGate = gateMax(c.Incumbent, c.Max), gateMax(c.Candidate, c.Max)
	c.Change = report.Same
	if c.Candidate > c.Incumbent {
		c.Change = report.Worse
	}

	r.Prompt = report.PromptRow{
		MaxMean:       12000,
		Incumbent:     promptStatsFor(report.PromptStats{Contexts: 96, Mean: 6407, Median: 6152, P95: 9830, Max: 11874}),
		Candidate:     promptStatsFor(report.PromptStats{Contexts: 96, Mean: 4196, Median: 4021, P95: 6410, Max: 8930}),
		IncumbentGate: report.Pass, CandidateGate: report.Pass, Change: report.Better,
	}

	d := &r.Decision
	for _, row := range r.Classes {
		if row.Change == report.Worse {
			d.Worse = append(d.Worse, string(row.Class))
		}
		if row.Incumbent.Gate != report.Pass && row.Candidate.Gate != report.Pass {
			d.Backlog = append(d.Backlog, string(row.Class))
		}
		if row.Candidate.Gate != report.Pass {
			d.CandidateUnmet = append(d.CandidateUnmet, string(row.Class))
		}
	}
	if c.Change == report.Worse {
		d.Worse = append(d.Worse, "contradictions")
	}
	if c.IncumbentGate != report.Pass && c.CandidateGate != report.Pass {
		d.Backlog = append(d.Backlog, "contradictions")
	}
	if c.CandidateGate != report.Pass {
		d.CandidateUnmet = append(d.CandidateUnmet, "contradictions")
	}
	d.Blocks = len(d.Worse) > 0
	d.Rule = fmt.Sprintf("A row is worse when the candidate retains more than %d fewer items of its class than the incumbent, "+
		"or has more contradictions than the incumbent; the change blocks when any row is worse. "+
		"Gates unmet by both systems are a backlog, not a merge decision; prompt size is reported and gated only by its budget.",
		retainedTolerance)

	r.Replay = replay(conf)
	p, err := report.NewPaper(r, conf)
	if err != nil {
		panic(err)
	}
	r.Paper = p
	r.Selection = selection()
	r.Provenance = provenance()
	r.Warnings = []string{
		"items of one conversation are correlated: read the cluster-robust intervals beside the Wilson ones (design effects on the Summary)",
	}
	return r
}

// promptStatsFor returns want with Sizes: want.Contexts sizes (an
// even number) whose mean, median, 95th percentile and largest are
// want's (whole numbers), as report.NewPromptStats computes them. The sizes rise
// steadily from a smallest one chosen to meet the mean, through the
// median and the 95th percentile, to the largest.
func promptStatsFor(want report.PromptStats) report.PromptStats {
	n, median, p95, top := want.Contexts, int(want.Median), int(want.P95), want.Max
	total := int(math.Round(want.Mean * float64(n)))
	m := n / 2                               // sizes m-1 and m are the median
	q := int(math.Ceil(0.95*float64(n))) - 1 // size q is the 95th percentile
	s := make([]int, n)
	fill := func(lo int) int {
		sum := 0
		for i := range s {
			switch {
			case i < m:
				s[i] = lo + (median-lo)*i/(m-1)
			case i <= q:
				s[i] = median + (p95-median)*(i-m)/(q-m)
			default:
				s[i] = p95 + (top-p95)*(i-q)/(n-1-q)
			}
			sum += s[i]
		}
		return sum
	}
	// The largest smallest size whose sum is not above the total; the
	// rest goes, one token at a time, to the sizes between the median
	// and the 95th percentile.
	lo := sort.Search(median+1, func(lo int) bool { return fill(lo) > total }) - 1
	rest := total - fill(max(lo, 0))
	for moved := true; rest > 0 && moved; {
		moved = false
		for i := q - 1; i > m && rest > 0; i-- {
			if s[i] < s[i+1] {
				s[i]++
				rest--
				moved = true
			}
		}
	}
	got := report.NewPromptStats(s)
	if got.Contexts != n || got.Mean != want.Mean || got.Median != want.Median || got.P95 != want.P95 || got.Max != want.Max {
		panic(fmt.Sprintf("promptStatsFor: made %+v, want %+v", got, want))
	}
	return got
}

// fillClass computes a system's class result from its per-conversation
// clusters, exactly as report.Build does.
func fillClass(sc *report.SystemClass, cs []stats.Cluster, gate, conf float64) {
	c := sc.Counts
	out, err := report.NewSystemClass(c, cs, conf)
	if err != nil {
		panic(err)
	}
	out.Gate = report.ShareGate(c, gate, true)
	*sc = out
}

func gateMax(n, limit int) report.GateStatus {
	if n <= limit {
		return report.Pass
	}
	return report.Fail
}

// itemPlan says, for one class, how many item-compactions carry each
// pair of verdicts (incumbent, candidate).
type itemPlan struct {
	class fixture.Class
	pairs []verdictPair
}

type verdictPair struct {
	inc, cand fixture.Verdict
	n         int
}

// itemRows generates the item rows: per class, the verdict pairs of
// the plan, spread over 40 conversations and their compactions, in
// fixture order (conversation, compaction, item).
func itemRows(incumbent, candidate string) []report.ItemRow {
	const (
		V = fixture.Verbatim
		S = fixture.Supported
		A = fixture.Absent
		C = fixture.Contradicted
	)
	// Retained by both: a mix of verbatim and supported, some differing.
	both := func(n int) []verdictPair {
		return []verdictPair{{V, V, n - n/3}, {S, S, n/3 - n/10}, {V, S, n / 20}, {S, V, n/10 - n/20}}
	}
	plans := []itemPlan{
		// 80: 68 both, 3 lost, 2 gained, 7 neither (1 contradicted by both).
		{fixture.Constraint, append(both(68), verdictPair{S, A, 3}, verdictPair{A, S, 2}, verdictPair{C, C, 1}, verdictPair{A, A, 6})},
		// 51: 42 both, 2 lost (1 now contradicted), 1 gained, 6 neither.
		{fixture.Commitment, append(both(42), verdictPair{V, C, 1}, verdictPair{S, A, 1}, verdictPair{A, S, 1}, verdictPair{A, A, 6})},
		// 103: 87 both, 9 lost (3 now contradicted), 1 gained, 6 neither.
		{fixture.OpenQuestion, append(both(87), verdictPair{S, C, 3}, verdictPair{S, A, 6}, verdictPair{A, S, 1},
			verdictPair{C, A, 1}, verdictPair{A, C, 1}, verdictPair{A, A, 4})},
		// 61: 56 both, 2 lost (1 now contradicted), 1 gained, 2 neither.
		{fixture.Reference, append(both(56), verdictPair{V, C, 1}, verdictPair{V, A, 1}, verdictPair{A, S, 1}, verdictPair{A, A, 2})},
	}
	convs := conversationIDs(40)
	var items []report.ItemRow
	k := 0
	for _, p := range plans {
		i := 0
		for _, pair := range p.pairs {
			for range pair.n {
				conv := (k*17 + 3) % len(convs)
				it := report.ItemRow{
					ItemKey: report.ItemKey{ConversationID: convs[conv], Compaction: 1 + (k/len(convs))%3},
					Class:   p.class,
				}
				it.Literal, it.Probe, it.Expect = itemText(p.class, i)
				it.Incumbent = record(incumbent, it, pair.inc, i)
				it.Candidate = record(candidate, it, pair.cand, i+1)
				it.Changed = pair.inc != pair.cand
				items = append(items, it)
				i++
				k++
			}
		}
	}
	slices.SortStableFunc(items, func(a, b report.ItemRow) int {
		return cmp.Or(strings.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Compaction, b.Compaction))
	})
	// Item ids per conversation, in order: c1, c2, …; an item keeps its
	// id at every compaction in a real fixture, which does not matter here.
	n := map[string]int{}
	for i := range items {
		id := items[i].ConversationID
		n[id]++
		items[i].ItemID = fmt.Sprintf("c%d", n[id])
		items[i].Incumbent.ItemID, items[i].Candidate.ItemID = items[i].ItemID, items[i].ItemID
	}
	return items
}

func conversationIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		day := time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i*2+i%3)
		ids[i] = fmt.Sprintf("sess_%s_%04x", day.Format("2006_01_02"), (i*40503+0x1b14)&0xffff)
	}
	return ids
}

// itemText returns the i-th literal, probe and expected answer of a
// class, in the source text's style.
func itemText(cl fixture.Class, i int) (literal, probe, expect string) {
	switch cl {
	case fixture.Constraint:
		dir := []string{"/migrations", "/vendor", "infra/terraform", "/etc/nginx", "db/seeds"}[i%5]
		return "never modify anything under " + dir,
			"Is the agent forbidden from modifying files under " + dir + "?", "yes"
	case fixture.Commitment:
		br := []string{"develop", "release/2026.04", "staging", "hotfix/login"}[i%4]
		return "I'll open the PR against " + br + ", not main", "Which branch should the PR target?", br
	case fixture.OpenQuestion:
		col := []string{"orders.status", "users.role", "invoices.kind", "jobs.state"}[i%4]
		return "Would an enum be better than a varchar for " + col + "?",
			"Has the user decided whether " + col + " becomes an enum?", "no — still open"
	default:
		rev := 10 + i%9
		return fmt.Sprintf("report.md rev %d", rev),
			"Where is the report being written, and at what revision?", fmt.Sprintf("report.md, rev %d", rev)
	}
}

// record is one system's verdict record for an item.
func record(system string, it report.ItemRow, v fixture.Verdict, i int) fixture.Record {
	rec := fixture.Record{
		System: system, ConversationID: it.ConversationID, Compaction: it.Compaction,
		Class: it.Class, Verdict: v,
	}
	if v == fixture.Verbatim {
		return rec
	}
	rec.Judge = "recorded/careful-human"
	switch v {
	case fixture.Supported:
		rec.Answer = it.Expect
	case fixture.Absent:
		rec.Answer = []string{"not stated in the context", "the context does not say", "unknown"}[i%3]
	case fixture.Contradicted:
		rec.Answer = map[fixture.Class]string{
			fixture.Constraint:   "no — the agent may edit it",
			fixture.Commitment:   "main",
			fixture.OpenQuestion: "yes — the user approved the enum",
			fixture.Reference:    "report.md, rev 9",
		}[it.Class]
		rec.Expect = it.Expect
		rec.Reason = "the context states the opposite of the item"
	}
	return rec
}

// replay is the paired task-success analysis of the table 157, 9,
// 11, 23 with its 20 discordant conversations, in the words Build uses.
func replay(conf float64) *report.Replay {
	res, err := power.McNemar(power.Table{A: 157, B: 9, C: 11, D: 23}, conf)
	if err != nil {
		panic(err)
	}
	rp := &report.Replay{
		Result:         res,
		ReferenceKinds: map[string]int{"uncompacted": 164, "accepted_trace": 36},
		ByKind: []report.ReplayKind{
			{Kind: "uncompacted", Table: power.Table{A: 131, B: 6, C: 9, D: 18}},
			{Kind: "accepted_trace", Table: power.Table{A: 26, B: 3, C: 2, D: 5}},
		},
	}
	// The 9 lost, then the 11 gained; the last 3 lost and the last 2
	// gained have an accepted trace as their reference.
	ids := conversationIDs(60)[40:]
	for i, id := range ids {
		p := report.ReplayPair{ConversationID: id, Reference: "success", Candidate: "failure", ReferenceKind: "uncompacted"}
		if i >= res.Table.B {
			p.Reference, p.Candidate = "failure", "success"
		}
		if (i >= 6 && i < 9) || i >= 18 {
			p.ReferenceKind = "accepted_trace"
		}
		rp.Discordant = append(rp.Discordant, p)
	}
	rp.Drop = report.DefaultReplayDrop
	rp.Grade, rp.Sentence = report.GradeReplay(res, rp.Drop)
	rp.Rule = report.ReplayRule(res.Confidence, rp.Drop)
	return rp
}

func selection() *report.Selection {
	s := &report.Selection{
		Budget: 40, Seed: 1, Incidents: 102, IncidentsExceedBudget: true,
		Selected: report.SelectionTotals{Sessions: 40, NeverCompact: 0, Compactions: 131, Decisions: 1148, Items: 412,
			HoursAt15: 10, HoursAt2: 40 * 2.0 / 60},
		Random: report.RandomTotals{Size: 200, Draws: 1000,
			Sessions:     report.Range{Mean: 200, Low: 200, High: 200},
			NeverCompact: report.Range{Mean: 133.1, Low: 120, High: 146},
			Compactions:  report.Range{Mean: 153.7, Low: 97, High: 236},
			Decisions:    report.Range{Mean: 301.2, Low: 160, High: 512},
			Items:        report.Range{Mean: 329.7, Low: 268, High: 401},
			HoursAt15:    report.Range{Mean: 50, Low: 50, High: 50},
			HoursAt2:     report.Range{Mean: 200 * 2.0 / 60, Low: 200 * 2.0 / 60, High: 200 * 2.0 / 60},
		},
		Warnings: []string{"incidents alone exceed the budget (102 incidents, budget 40): every selected session is an incident"},
	}
	for i, id := range conversationIDs(40) {
		s.Sessions = append(s.Sessions, report.SelectedSession{
			SessionID: id, Turns: 420 - 7*i, Compactions: 9 - i/6, Items: 21 - i/3, Decisions: 74 - i,
			Incident: true, Reason: "incident; most decisions",
		})
	}
	// Random samples of 200 against 40 selected: the renderers show the
	// comparison per session.
	s.Compared = true
	s.SetRows()
	return s
}

func provenance() report.Provenance {
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	return report.Provenance{
		Version: "v0.4.0-dev",
		Config: `title: "Compaction change: summariser v4 against v3"
period: 2026 Q1
confidence: 0.95
fixtures: examples/quarterly/fixtures
incumbent:
  name: summariser-v3
  verdicts: verdicts/incumbent.jsonl
  prompt_sizes: examples/quarterly/prompt_sizes.jsonl
candidate:
  name: summariser-v4
  verdicts: verdicts/candidate.jsonl
replay: examples/quarterly/replay.jsonl
gates:
  retained:
    constraint: 0.95
    commitment: 0.90
    open_question: 0.95
    reference: 0.98
  max_contradictions: 0
  max_mean_prompt_tokens: 12000
regression:
  rule: count
  retained_tolerance: 2
`,
		Inputs: []report.Input{
			{Role: "fixtures", Path: "examples/quarterly/fixtures", SHA256: sum("fixtures"), Bytes: 412_337},
			{Role: "verdicts (incumbent)", Path: "verdicts/incumbent.jsonl", SHA256: sum("incumbent"), Bytes: 61_904},
			{Role: "verdicts (candidate)", Path: "verdicts/candidate.jsonl", SHA256: sum("candidate"), Bytes: 63_118},
			{Role: "replay", Path: "examples/quarterly/replay.jsonl", SHA256: sum("replay"), Bytes: 23_512},
		},
	}
}
