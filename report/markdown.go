package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// MarkdownMaxItems is the most items WriteMarkdown names under one row
// that got worse; the rest are counted (the HTML and XLSX reports list
// every one).
const MarkdownMaxItems = 20

// mdMaxRunes is the most characters of one untrusted string (a literal,
// an answer) WriteMarkdown shows.
const mdMaxRunes = 160

// WriteMarkdown writes r's summary as GitHub Markdown, for a pull-request
// comment or a CI step summary: the verdict line, the gates table
// (incumbent and candidate per class, contradictions, mean prompt size),
// the rows that got worse with the items lost named, the undecided rows,
// the backlog, the notes, and task success on the last line, reported
// and not gated.
//
// Every string from the inputs is shown in a code span (no Markdown,
// HTML, mention or link is interpreted inside one), with control
// characters replaced and pipes escaped in tables; the configuration's
// title and period and the warnings are escaped as text. The same report
// gives the same bytes.
func WriteMarkdown(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: WriteMarkdown: nil report")
	}
	m := &mdWriter{w: bufio.NewWriter(w)}
	m.header(r)
	m.verdict(r)
	m.gates(r)
	m.worse(r)
	m.undecided(r)
	m.backlog(r)
	m.notes(r)
	m.taskSuccess(r)
	if m.err != nil {
		return m.err
	}
	return m.w.Flush()
}

type mdWriter struct {
	w   *bufio.Writer
	err error
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

func (m *mdWriter) header(r *Report) {
	title := mdText(r.Title)
	if r.Period != "" {
		title += " — " + mdText(r.Period)
	}
	m.printf("# %s\n\n", title)
	m.printf("Candidate %s against incumbent %s, %s intervals. Generated %s", mdCode(r.Candidate, false), mdCode(r.Incumbent, false),
		confidenceLabel(r.Confidence), r.Generated.UTC().Format(time.RFC3339))
	if v := r.Provenance.Version; v != "" {
		m.printf(" by tally %s", mdText(v))
	}
	m.printf(".\n\n")
}

func (m *mdWriter) verdict(r *Report) {
	d := r.Decision
	switch {
	case d.Blocks && len(d.Worse) > 0:
		m.printf("**Verdict: blocks.** Rows that got worse under the candidate: %s.", mdNames(d.Worse))
		if len(d.Undecided) > 0 {
			m.printf(" Undecided because of judge errors: %s.", mdNames(d.Undecided))
		}
	case d.Blocks:
		m.printf("**Verdict: blocks.** No row got worse, but %s cannot be compared because of judge errors; re-run `tally check`.", mdNames(d.Undecided))
	default:
		m.printf("**Verdict: does not block.** No row got worse under the candidate.")
	}
	if len(d.Backlog) > 0 {
		m.printf(" %s unmet by both systems: backlog, not a merge decision.", mdCount(len(d.Backlog), "gate", "gates"))
	}
	m.printf("\n\n")
}

func (m *mdWriter) gates(r *Report) {
	m.printf("| row | gate | incumbent | gate | candidate | gate | change |\n")
	m.printf("|---|---|---|---|---|---|---|\n")
	for _, c := range r.Classes {
		gate := "none"
		if c.Incumbent.Gate != NoGate {
			gate = "≥ " + mdPct(c.MinShare)
		}
		change := mdChange(c.Change) + fmt.Sprintf(": %d lost, %d gained", len(c.Lost), len(c.Gained))
		if c.Pairs.Discordant() > 0 {
			change += ", exact McNemar p = " + formatP(c.McNemar.PValue)
		}
		m.printf("| %s | %s | %s | %s | %s | %s | %s |\n", c.Class, gate,
			mdShare(c.Incumbent), mdGate(c.Incumbent.Gate), mdShare(c.Candidate), mdGate(c.Candidate.Gate), change)
	}
	k := r.Contradictions
	change := mdChange(k.Change)
	if n := len(k.New); n > 0 {
		change += fmt.Sprintf(": %d new", n)
	}
	m.printf("| contradictions | ≤ %d | %d | %s | %d | %s | %s |\n", k.Max, k.Incumbent, mdGate(k.IncumbentGate), k.Candidate, mdGate(k.CandidateGate), change)
	p := r.Prompt
	gate := "none"
	if p.MaxMean > 0 {
		gate = "≤ " + mdTokens(p.MaxMean)
	}
	m.printf("| mean prompt tokens | %s | %s | %s | %s | %s | %s |\n\n", gate,
		mdPrompt(p.Incumbent), mdGate(p.IncumbentGate), mdPrompt(p.Candidate), mdGate(p.CandidateGate), mdChange(p.Change))
	m.printf("Retained = verbatim + supported, with the Wilson interval; absent and contradicted are counted apart, and an error verdict is never a pass. The rule: %s\n\n", mdText(r.Decision.Rule))
}

func (m *mdWriter) worse(r *Report) {
	if len(r.Decision.Worse) == 0 {
		return
	}
	m.printf("## Rows that got worse\n\n")
	idx := itemIndex(r)
	for _, c := range r.Classes {
		if c.Change != Worse {
			continue
		}
		m.printf("### %s: %d/%d retained by the incumbent, %d/%d by the candidate\n\n", c.Class,
			c.Incumbent.Counts.Retained(), c.Incumbent.Counts.Items, c.Candidate.Counts.Retained(), c.Candidate.Counts.Items)
		m.printf("%d lost, %d gained; exact McNemar p = %s on the item-level pairs (context, not the rule).", len(c.Lost), len(c.Gained), formatP(c.McNemar.PValue))
		if len(c.Lost) > 0 {
			m.printf(" Lost:\n\n")
			m.items(r, idx, c.Lost, false)
		} else {
			m.printf("\n\n")
		}
	}
	k := r.Contradictions
	if k.Change == Worse {
		m.printf("### contradictions: %d by the incumbent, %d by the candidate\n\n", k.Incumbent, k.Candidate)
		if len(k.New) > 0 {
			m.printf("Contradicted by the candidate and not by the incumbent:\n\n")
			m.items(r, idx, k.New, true)
		}
	}
}

// items lists items by key, at most MarkdownMaxItems, each with the
// candidate's verdict and answer; withClass names each item's class.
func (m *mdWriter) items(r *Report, idx map[ItemKey]int, keys []ItemKey, withClass bool) {
	for i, k := range keys {
		if i == MarkdownMaxItems {
			m.printf("- … and %d more (the HTML report and the workbook list every one)\n", len(keys)-i)
			break
		}
		m.printf("- %s compaction %d, item %s", mdCode(k.ConversationID, false), k.Compaction, mdCode(k.ItemID, false))
		j, ok := idx[k]
		if !ok || j < 0 {
			m.printf("\n")
			continue
		}
		row := &r.Items[j]
		if withClass {
			m.printf(" (%s)", row.Class)
		}
		m.printf(": %s — candidate **%s**", mdCode(row.Literal, false), mdText(string(row.Candidate.Verdict)))
		if a := row.Candidate.Answer; a != "" {
			m.printf(", answering %s", mdCode(a, false))
		}
		if v := row.Incumbent.Verdict; v != "" {
			m.printf("; incumbent %s", mdText(string(v)))
		}
		m.printf("\n")
	}
	m.printf("\n")
}

// itemIndex maps the key of each item WriteMarkdown names — the first
// MarkdownMaxItems lost under each worse row and new contradictions — to
// its row, in one pass over the rows.
func itemIndex(r *Report) map[ItemKey]int {
	idx := map[ItemKey]int{}
	want := func(keys []ItemKey) {
		for _, k := range keys[:min(len(keys), MarkdownMaxItems)] {
			idx[k] = -1
		}
	}
	for _, c := range r.Classes {
		if c.Change == Worse {
			want(c.Lost)
		}
	}
	if r.Contradictions.Change == Worse {
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

func (m *mdWriter) undecided(r *Report) {
	if len(r.Decision.Undecided) == 0 {
		return
	}
	m.printf("## Rows undecided because of judge errors\n\n")
	for _, c := range r.Classes {
		if c.Change == Undecided {
			m.printf("- %s: %d error %s for the incumbent, %d for the candidate\n", c.Class,
				c.Incumbent.Counts.Errors, pluralWord(c.Incumbent.Counts.Errors, "verdict", "verdicts"), c.Candidate.Counts.Errors)
		}
	}
	if r.Contradictions.Change == Undecided {
		m.printf("- contradictions: an error verdict may hide a contradiction\n")
	}
	m.printf("\nRe-run `tally check` to retry the failed judge calls; completed calls come from the cache.\n\n")
}

func (m *mdWriter) backlog(r *Report) {
	if len(r.Decision.Backlog) == 0 {
		return
	}
	m.printf("## Backlog: gates unmet by both systems\n\n")
	m.printf("A standard the system is held to and does not yet meet, not a merge decision.\n\n")
	for _, name := range r.Decision.Backlog {
		switch name {
		case GateContradictions:
			k := r.Contradictions
			m.printf("- contradictions ≤ %d: incumbent %d (%s), candidate %d (%s)\n", k.Max, k.Incumbent, k.IncumbentGate, k.Candidate, k.CandidateGate)
		case GateMeanPromptTokens:
			p := r.Prompt
			m.printf("- mean prompt tokens ≤ %s: incumbent %s (%s), candidate %s (%s)\n", mdTokens(p.MaxMean),
				mdPrompt(p.Incumbent), p.IncumbentGate, mdPrompt(p.Candidate), p.CandidateGate)
		default:
			for _, c := range r.Classes {
				if string(c.Class) == name {
					m.printf("- %s retained ≥ %s: incumbent %s (%s), candidate %s (%s)\n", c.Class, mdPct(c.MinShare),
						mdPctOrDash(c.Incumbent.Share), c.Incumbent.Gate, mdPctOrDash(c.Candidate.Share), c.Candidate.Gate)
				}
			}
		}
	}
	m.printf("\n")
}

func (m *mdWriter) notes(r *Report) {
	if len(r.Warnings) == 0 {
		return
	}
	m.printf("## Notes\n\n")
	for _, s := range r.Warnings {
		m.printf("- %s\n", mdText(s))
	}
	m.printf("\n")
}

// taskSuccess writes the last line: task success, reported, not gated.
func (m *mdWriter) taskSuccess(r *Report) {
	rp := r.Replay
	if rp == nil {
		m.printf("**Task success** (reported, not gated): no replay in this report.\n")
		return
	}
	res := rp.Result
	t := res.Table
	exact := "—"
	for _, x := range res.Tests {
		if x.Method == "exact" {
			exact = formatP(x.PValue)
		}
	}
	m.printf("**Task success** (reported, not gated): reference %d/%d against candidate %d/%d over the same %d conversations; %d lost and %d gained, exact McNemar p = %s. %s\n",
		t.A+t.B, res.Pairs, t.A+t.C, res.Pairs, res.Pairs, t.B, t.C, exact, mdText(rp.Sentence))
}

// mdShare formats retained k/n with the share and its Wilson interval.
func mdShare(s SystemClass) string {
	c := s.Counts
	if c.Items == 0 {
		return "0/0"
	}
	out := fmt.Sprintf("%d/%d = %s (%s)", c.Retained(), c.Items, mdPct(s.Share), mdInterval(s.Wilson.Lower, s.Wilson.Upper))
	if c.Contradicted > 0 || c.Errors > 0 {
		var extra []string
		if c.Contradicted > 0 {
			extra = append(extra, fmt.Sprintf("%d contradicted", c.Contradicted))
		}
		if c.Errors > 0 {
			extra = append(extra, fmt.Sprintf("%d %s", c.Errors, pluralWord(c.Errors, "error", "errors")))
		}
		out += "; " + strings.Join(extra, ", ")
	}
	return out
}

func mdPrompt(p PromptStats) string {
	if p.Contexts == 0 {
		return "—"
	}
	return mdTokens(p.Mean)
}

func mdTokens(x float64) string { return fmt.Sprintf("%.0f", x) }

func mdPct(p float64) string { return fmt.Sprintf("%.1f%%", 100*p) }

func mdPctOrDash(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return mdPct(p)
}

func mdInterval(lo, hi float64) string { return fmt.Sprintf("%.1f–%.1f%%", 100*lo, 100*hi) }

func mdGate(g GateStatus) string {
	switch g {
	case Fail:
		return "**fail**"
	case Incomplete:
		return "**incomplete**"
	case NoGate, "":
		return "—"
	}
	return string(g)
}

func mdChange(c Change) string {
	switch c {
	case Worse, Undecided:
		return "**" + string(c) + "**"
	}
	return string(c)
}

func mdNames(names []string) string { return strings.Join(names, ", ") }

func mdCount(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, pluralWord(n, one, many))
}

// mdClean replaces what must not reach Markdown raw: control characters
// (newlines included) and Unicode line separators become spaces, and
// bidirectional controls, which can make text read differently from what
// it is, become U+FFFD. It truncates to max characters (0: no limit).
func mdClean(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if max > 0 && n == max {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' || r == '\u200E' || r == '\u200F' || r == '\u061C':
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode shows untrusted text s as a code span: nothing inside one is
// Markdown, HTML, a mention or a link. The fence is one backtick longer
// than the longest run of backticks in s; inTable escapes pipes, which
// GitHub's tables split cells on even inside a code span.
func mdCode(s string, inTable bool) string {
	s = mdClean(s, mdMaxRunes)
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	fence := strings.Repeat("`", longest+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ' {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdText escapes text for Markdown: HTML's < > & as entities, and a
// backslash before each character Markdown or GitHub's tables would
// read as syntax.
func mdText(s string) string {
	s = mdClean(s, 0)
	var b strings.Builder
	// An ordered-list marker at the start: digits, then . or ), then a
	// space or nothing.
	if d := len(s) - len(strings.TrimLeft(s, "0123456789")); d > 0 && d < len(s) && (s[d] == '.' || s[d] == ')') &&
		(d+1 == len(s) || s[d+1] == ' ') {
		b.WriteString(s[:d])
		b.WriteByte('\\')
		s = s[d:]
	}
	for i, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '-', '+', '=':
			if i == 0 {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
