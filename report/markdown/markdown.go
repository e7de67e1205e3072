// Package markdown renders a report as GitHub Markdown: the short
// summary a pull-request comment or a CI step summary shows. It reads
// the report model and computes nothing; every string from the inputs is
// escaped so that GitHub shows it as text.
package markdown

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/rule"
)

// MaxItems is the most items Write names under one row
// that got worse; the rest are counted (the HTML and XLSX reports list
// every one).
const MaxItems = 20

// maxUnpaired is the most item-compactions checked by one system
// only that Write names under an undecided row; the rest are
// counted.
const maxUnpaired = 5

// maxRunes is the most characters of one untrusted string (a literal,
// an answer) Write shows.
const maxRunes = 160

// MaxChars is the most characters Write's output has when it can: a
// GitHub comment takes at most 65,536 ("Body is too long"), and escaping
// can make a list of code-heavy literals several times its text. Past it,
// Write lists fewer items, each cut shorter (shrink), and says so.
const MaxChars = 65000

// shrink are the list sizes and literal lengths Write tries, in turn,
// until its output has at most MaxChars characters.
var shrink = []struct{ items, runes int }{{MaxItems, maxRunes}, {10, 100}, {5, 60}, {3, 40}, {1, 30}}

// Write writes r's summary as GitHub Markdown, for a pull-request
// comment or a CI step summary: the verdict line, the gates table
// (incumbent and candidate per class, contradictions, mean prompt size),
// the rows that got worse with the items lost named, the undecided rows
// with the item-compactions that make them so, the backlog, how far to
// trust the judge (with reviewers' verdicts only), the notes,
// and last the task-success section, reported and not gated, ending
// with its one-line result.
//
// Every string from the inputs goes through escape: GitHub shows it
// as text, never as HTML, a link, a mention, a reference or Markdown,
// and it never adds a table cell. The same report gives the same bytes.
func Write(w io.Writer, r *report.Report) error {
	if r == nil {
		return errors.New("markdown: Write: nil report")
	}
	var out bytes.Buffer
	for level, s := range shrink {
		out.Reset()
		m := &writer{w: bufio.NewWriter(&out), maxItems: s.items, runes: s.runes, shrunk: level > 0}
		m.header(r)
		m.verdict(r)
		m.gates(r)
		m.worse(r)
		m.alsoLost(r)
		m.undecided(r)
		m.backlog(r)
		m.calibration(r)
		m.notes(r)
		m.taskSuccess(r)
		if m.err == nil {
			m.err = m.w.Flush()
		}
		if m.err != nil {
			return fmt.Errorf("markdown: Write: %w", m.err)
		}
		if utf8.RuneCount(out.Bytes()) <= MaxChars {
			break
		}
	}
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("markdown: Write: %w", err)
	}
	return nil
}

type writer struct {
	w   *bufio.Writer
	err error
	// maxItems and runes bound the items listed under a row and the
	// characters of each literal and answer (shrink); shrunk says they
	// are below MaxItems and maxRunes, to fit MaxChars.
	maxItems, runes int
	shrunk          bool
}

func (m *writer) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

func (m *writer) header(r *report.Report) {
	title := escape(r.Title)
	if title == "" {
		title = "Compaction change report"
	}
	if p := escape(r.Period); p != "" {
		title += " — " + p
	}
	m.printf("# %s\n\n", title)
	m.printf("Candidate %s against incumbent %s, %s intervals. Generated %s", quote(r.Candidate), quote(r.Incumbent),
		format.Confidence(r.Confidence), r.Generated.UTC().Format(time.RFC3339))
	if v := escape(r.Provenance.Version); v != "" {
		m.printf(" by tally %s", v)
	}
	m.printf(".\n\n")
}

// verdict writes the decision in its own words (report.Decision's
// Headline and BacklogCount), the words every output gives it.
func (m *writer) verdict(r *report.Report) {
	d := r.Decision
	m.printf("**Verdict:** %s", escape(d.Headline()))
	if b := d.BacklogCount(); b != "" {
		m.printf("; %s, not a merge decision", escape(b))
	}
	m.printf(".\n\n")
}

func (m *writer) gates(r *report.Report) {
	m.printf("| row | gate | incumbent | incumbent vs gate | candidate | candidate vs gate | change |\n")
	m.printf("|---|---|---|---|---|---|---|\n")
	for _, c := range r.Classes {
		gate := "none"
		if c.Incumbent.Gate != report.NoGate {
			gate = "≥ " + pct(c.MinShare)
		}
		change := changeWord(c.Change)
		if c.Change == report.Same {
			change = c.ChangeText()
		}
		change += fmt.Sprintf(": %d lost, %d gained", len(c.Lost), len(c.Gained))
		if t := r.RowTest(c); t != "" {
			change += ", " + t
		}
		if n := len(c.OnlyIncumbent) + len(c.OnlyCandidate); n > 0 {
			change += fmt.Sprintf("; %d checked by one system only", n)
		}
		m.printf("| %s | %s | %s | %s | %s | %s | %s |\n", escape(string(c.Class)), gate,
			share(c.Incumbent), gateWord(c.Incumbent.Gate), share(c.Candidate), gateWord(c.Candidate.Gate), change)
	}
	k := r.Contradictions
	var parts []string
	if n := len(k.New); n > 0 {
		parts = append(parts, fmt.Sprintf("%d new", n))
	}
	if k.Resolved > 0 {
		parts = append(parts, fmt.Sprintf("%d no longer contradicted", k.Resolved))
	}
	if e := k.JudgeErrors; e[0]+e[1] > 0 {
		parts = append(parts, fmt.Sprintf("overruled by a reviewer (judge errors, not counted): %d of the incumbent's, %d of the candidate's", e[0], e[1]))
	}
	if f := k.ReviewerFound; f[0]+f[1] > 0 {
		parts = append(parts, fmt.Sprintf("found by a reviewer where the judge saw none (counted): %d of the incumbent's, %d of the candidate's", f[0], f[1]))
	}
	if n := k.OnlyIncumbent + k.OnlyCandidate; n > 0 {
		parts = append(parts, fmt.Sprintf("%d checked by one system only", n))
	}
	change := changeWord(k.Change)
	if len(parts) > 0 {
		change += ": " + strings.Join(parts, ", ")
	}
	m.printf("| contradictions | ≤ %d | %d | %s | %d | %s | %s |\n", k.Max, k.Incumbent, gateWord(k.IncumbentGate), k.Candidate, gateWord(k.CandidateGate), change)
	p := r.Prompt
	gate := "none"
	if p.MaxMean > 0 {
		gate = "≤ " + tokens(p.MaxMean)
	}
	m.printf("| mean prompt tokens | %s | %s | %s | %s | %s | %s |\n\n", gate,
		prompt(p.Incumbent), gateWord(p.IncumbentGate), prompt(p.Candidate), gateWord(p.CandidateGate), changeWord(p.Change))
	m.printf("Retained = verbatim + supported, with the Wilson interval; absent and contradicted are counted apart, and an error verdict is never a pass. %s\n\n", escape(r.Decision.Rule))
	if er := r.ErrorRates; er != nil && er.Sentence != "" {
		m.printf("%s\n\n", escape(er.Sentence))
	}
}

func (m *writer) worse(r *report.Report) {
	if len(r.Decision.Worse) == 0 {
		return
	}
	m.printf("## Rows that got worse\n\n")
	idx := itemIndex(r)
	for _, c := range r.Classes {
		if c.Change != report.Worse {
			continue
		}
		m.printf("### %s: %s retained by the incumbent, %s by the candidate\n\n", escape(string(c.Class)),
			c.Incumbent.Retained.Count(), c.Candidate.Retained.Count())
		if t := r.RowTest(c); r.ErrorRates != nil && r.ErrorRates.Rule.Kind != rule.Count {
			m.printf("%d lost, %d gained; %s: the rule's test.", len(c.Lost), len(c.Gained), escape(t))
		} else {
			m.printf("%d lost, %d gained; exact McNemar %s on the item-level pairs (context, not the rule).", len(c.Lost), len(c.Gained), format.PIs(c.McNemar.PValue))
		}
		if len(c.Lost) > 0 {
			m.printf(" Lost:\n\n")
			m.items(r, idx, c.Lost, false)
		} else {
			m.printf("\n\n")
		}
	}
	k := r.Contradictions
	if k.Change == report.Worse {
		m.printf("### contradictions: %d by the incumbent, %d by the candidate\n\n", k.Incumbent, k.Candidate)
		if len(k.New) > 0 {
			m.printf("Contradicted by the candidate and not by the incumbent:\n\n")
			m.items(r, idx, k.New, true)
		}
	}
}

// alsoLost lists the items the candidate lost in the rows that did not
// get worse: losses the rule's test did not find significant (or a row
// that gained more), which a reviewer of the pull request should still
// see, since the comment is often all they read (a new user's CI trial:
// 5 lost constraints were named in the HTML only).
func (m *writer) alsoLost(r *report.Report) {
	idx := itemIndex(r)
	first := true
	for _, c := range r.Classes {
		if c.Change == report.Worse || c.Change == report.Undecided || len(c.Lost) == 0 {
			continue
		}
		if first {
			m.printf("## Also lost, in rows that did not get worse\n\n")
			first = false
		}
		change := changeWord(c.Change)
		if c.Change == report.Same {
			change = c.ChangeText()
		}
		if t := r.RowTest(c); t != "" {
			change += ": " + t
		}
		m.printf("### %s: %d lost, %d gained (%s)\n\n", escape(string(c.Class)), len(c.Lost), len(c.Gained), escape(change))
		m.items(r, idx, c.Lost, false)
	}
}

// itemKey names an item-compaction: its conversation, compaction and item.
func itemKey(k report.ItemKey) string {
	return fmt.Sprintf("%s compaction %d, item %s", escapeName(k.ConversationID), k.Compaction, escapeName(k.ItemID))
}

// items lists items by key, at most MaxItems, each with the
// candidate's verdict and answer; withClass names each item's class.
func (m *writer) items(r *report.Report, idx map[report.ItemKey]int, keys []report.ItemKey, withClass bool) {
	for i, k := range keys {
		if i == m.maxItems {
			more := "(the HTML report and the workbook list every one)"
			if m.shrunk {
				more = "(fewer listed, and cut shorter, to keep this text within a GitHub comment's size; the HTML report and the workbook list every one)"
			}
			m.printf("- … and %d more %s\n", len(keys)-i, more)
			break
		}
		m.printf("- %s", itemKey(k))
		j, ok := idx[k]
		if !ok || j < 0 {
			m.printf("\n")
			continue
		}
		row := &r.Items[j]
		if withClass {
			m.printf(" (%s)", escape(string(row.Class)))
		}
		m.printf(": %s — candidate **%s**", quoteCut(row.Literal, m.runes), verdictWord(row.Candidate.Verdict))
		if a := row.Candidate.Answer; a != "" {
			m.printf(", answering %s", quoteCut(a, m.runes))
		}
		m.printf("%s; incumbent %s%s\n", reviewedWord(r, k, r.Candidate, row.Candidate.Verdict),
			verdictWord(row.Incumbent.Verdict), reviewedWord(r, k, r.Incumbent, row.Incumbent.Verdict))
	}
	m.printf("\n")
}

// reviewedWord is " (a reviewer: supported)" when a reviewer gave
// system's record of k another verdict than the judge's v.
func reviewedWord(r *report.Report, k report.ItemKey, system string, v fixture.Verdict) string {
	if rv, ok := r.Reviewed(k, system); ok && rv != v {
		return fmt.Sprintf(" (a reviewer: %s)", verdictWord(rv))
	}
	return ""
}

// verdictWord shows a verdict; a system with no record for the item has
// not checked it.
func verdictWord(v fixture.Verdict) string {
	if v == "" {
		return "not checked"
	}
	return escape(string(v))
}

// itemIndex maps the key of each item Write names — the first
// MaxItems lost under each worse row and new contradictions — to
// its row, in one pass over the rows.
func itemIndex(r *report.Report) map[report.ItemKey]int {
	idx := map[report.ItemKey]int{}
	want := func(keys []report.ItemKey) {
		for _, k := range keys[:min(len(keys), MaxItems)] {
			idx[k] = -1
		}
	}
	for _, c := range r.Classes {
		if c.Change != report.Undecided {
			want(c.Lost)
		}
	}
	if r.Contradictions.Change == report.Worse {
		want(r.Contradictions.New)
	}
	if len(idx) == 0 {
		return idx
	}
	for i := range r.Items {
		if j, ok := idx[r.Items[i].ItemKey]; ok && j < 0 {
			idx[r.Items[i].ItemKey] = i
		}
	}
	return idx
}

func (m *writer) undecided(r *report.Report) {
	if len(r.Decision.Undecided) == 0 {
		return
	}
	m.printf("## Undecided rows\n\n")
	m.printf("A row is undecided when the judge failed on an item in either system (an error verdict) or when one system checked an item-compaction the other did not; it blocks until both have checked every item.\n\n")
	for _, c := range r.Classes {
		if c.Change != report.Undecided {
			continue
		}
		m.printf("- %s: %d error %s for the incumbent, %d for the candidate", escape(string(c.Class)),
			c.Incumbent.Counts.Errors, format.Plural(c.Incumbent.Counts.Errors, "verdict", "verdicts"), c.Candidate.Counts.Errors)
		m.unpaired("incumbent", c.OnlyIncumbent)
		m.unpaired("candidate", c.OnlyCandidate)
		m.printf("\n")
	}
	if r.Contradictions.Change == report.Undecided {
		k := r.Contradictions
		m.printf("- contradictions: an error verdict, or an item-compaction checked by one system only (%d by the incumbent only, %d by the candidate only, named under their classes), may hide a contradiction\n",
			k.OnlyIncumbent, k.OnlyCandidate)
	}
	m.printf("\nRe-run `tally check` for both systems over the same fixtures to retry the failed judge calls and check the missing items; completed calls come from the cache.\n\n")
}

// unpaired writes the item-compactions checked by who only: their
// count and the first maxUnpaired.
func (m *writer) unpaired(who string, keys []report.ItemKey) {
	if len(keys) == 0 {
		return
	}
	names := make([]string, 0, maxUnpaired+1)
	for _, k := range keys[:min(len(keys), maxUnpaired)] {
		names = append(names, itemKey(k))
	}
	if n := len(keys) - maxUnpaired; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	m.printf("; %s checked by the %s only (not checked by the other): %s", count(len(keys), "item-compaction", "item-compactions"),
		who, strings.Join(names, "; "))
}

func (m *writer) backlog(r *report.Report) {
	if len(r.Decision.Backlog) == 0 {
		return
	}
	m.printf("## Backlog: gates unmet by both systems\n\n")
	m.printf("A standard the system is held to and does not yet meet, not a merge decision.\n\n")
	for _, name := range r.Decision.Backlog {
		switch name {
		case report.GateContradictions:
			k := r.Contradictions
			m.printf("- contradictions ≤ %d: incumbent %d (%s), candidate %d (%s)\n", k.Max, k.Incumbent, k.IncumbentGate, k.Candidate, k.CandidateGate)
		case report.GateMeanPromptTokens:
			p := r.Prompt
			m.printf("- mean prompt tokens ≤ %s: incumbent %s (%s), candidate %s (%s)\n", tokens(p.MaxMean),
				prompt(p.Incumbent), p.IncumbentGate, prompt(p.Candidate), p.CandidateGate)
		default:
			for _, c := range r.Classes {
				if string(c.Class) == name {
					m.printf("- %s retained ≥ %s: incumbent %s (%s), candidate %s (%s)\n", escape(string(c.Class)), pct(c.MinShare),
						decidedPercent(c.Incumbent), c.Incumbent.Gate, decidedPercent(c.Candidate), c.Candidate.Gate)
				}
			}
		}
	}
	m.printf("\n")
}

// notes writes the report's warnings. The task-success caveats are not
// among them: they are in the task-success section.
func (m *writer) notes(r *report.Report) {
	if len(r.Warnings) == 0 {
		return
	}
	m.printf("## Notes\n\n")
	for _, s := range r.Warnings {
		m.printf("- %s\n", escape(s))
	}
	m.printf("\n")
}

// taskSuccess writes the last section: task success, reported, not
// gated: its caveats, the rule its sentence is graded by, and last the
// result in one line.
func (m *writer) taskSuccess(r *report.Report) {
	m.printf("## Task success (reported, not gated)\n\n")
	rp := r.Replay
	if rp == nil {
		m.printf("**Task success** (reported, not gated): no replay in this report.\n")
		return
	}
	if len(rp.Warnings) > 0 {
		m.printf("Caveats:\n\n")
		for _, s := range rp.Warnings {
			m.printf("- %s\n", escape(s))
		}
		m.printf("\n")
	}
	if rule := escape(rp.Rule); rule != "" {
		m.printf("How the result is graded: %s\n\n", rule)
	}
	res := rp.Result
	t := res.Table
	exact := "p —"
	for _, x := range res.Tests {
		if x.Method == "exact" {
			exact = format.PIs(x.PValue)
		}
	}
	m.printf("**Task success** (reported, not gated): reference %d/%d against candidate %d/%d over the same %d conversations; %d lost and %d gained, exact McNemar %s. %s",
		t.A+t.B, res.Pairs, t.A+t.C, res.Pairs, res.Pairs, t.B, t.C, exact, escape(rp.Sentence))
	if g := escape(rp.Grade); g != "" {
		m.printf(" Grade: **%s**.", g)
	}
	m.printf("\n")
}

// decidedPercent is the share a class's gate was decided on: the judge's,
// or under gates.use: corrected the corrected one.
func decidedPercent(s report.SystemClass) string {
	if s.Decided != nil {
		return escape(s.Decided.String())
	}
	return s.Retained.Percent()
}

// share states the retained share in its one text form (a point with
// its Wilson interval, or with errors a range and no interval), then the
// contradicted and error counts.
func share(s report.SystemClass) string {
	c := s.Counts
	if c.Items == 0 {
		return "0/0"
	}
	out := s.Retained.String()
	if s.Decided != nil {
		// gates.use: corrected: the status beside it was decided on this.
		out += "; **" + escape(s.Decided.String()) + "**"
	}
	if c.Contradicted > 0 || c.Errors > 0 {
		var extra []string
		if c.Contradicted > 0 {
			extra = append(extra, fmt.Sprintf("%d contradicted", c.Contradicted))
		}
		if c.Errors > 0 {
			extra = append(extra, fmt.Sprintf("%d %s", c.Errors, format.Plural(c.Errors, "error", "errors")))
		}
		out += "; " + strings.Join(extra, ", ")
	}
	return out
}

func prompt(p report.PromptStats) string {
	if p.Contexts == 0 {
		return "—"
	}
	return tokens(p.Mean)
}

func tokens(x float64) string { return fmt.Sprintf("%.0f", x) }

func pct(p float64) string { return format.Percent(p) + "%" }

func gateWord(g report.GateStatus) string {
	switch g {
	case report.Fail:
		return "**fail**"
	case report.Incomplete:
		return "**incomplete**"
	case report.NoGate, "":
		return "—"
	}
	return string(g)
}

func changeWord(c report.Change) string {
	switch c {
	case report.Worse, report.Undecided:
		return "**" + string(c) + "**"
	}
	return string(c)
}

func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, format.Plural(n, one, many))
}
