package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// The two systems and the recorded judge.
const (
	SystemIncumbent = "incumbent"
	SystemCandidate = "candidate"
	RecordedJudge   = "recorded/careful-human"
	// PromptBudget is the budget on the incumbent's mean prompt size,
	// in estimated tokens.
	PromptBudget = 12_000
)

// EstimateTokens is the prompt-size estimate prompt_sizes.jsonl uses:
// the rendered context's length in bytes, divided by 4, rounded up.
func EstimateTokens(rendered string) int { return (len(rendered) + 3) / 4 }

// classOutcome is what a summariser does to one class of items over the
// fixture set: how many live item-compaction pairs it retains, how many of
// those it keeps verbatim (at least), and how many it contradicts.
type classOutcome struct{ Retained, Verbatim, Contradicted int }

// summariser describes one system: how many recent turns it keeps as
// they happened, how much of each tool result, and its targets.
type summariser struct {
	Name           string
	Recent         int
	MaxResultLines int
	Para           int // which paraphrase of an item it writes
	Targets        map[fixture.Class]classOutcome
	// Like names the system whose note it writes and whose transcript
	// (the kept recent turns' tool results) it draws from the same
	// streams; "" for its own.
	Like string
}

// like is the system whose note and transcript streams sm uses.
func (sm summariser) like() string {
	if sm.Like != "" {
		return sm.Like
	}
	return sm.Name
}

// The incumbent reproduces the source text's table: 71/80, 44/51, 96/103,
// 58/61, two contradictions. The candidate reads better, keeps less
// verbatim, closes open questions and inverts hedges.
var summarisers = []summariser{
	{Name: SystemIncumbent, Recent: 10, MaxResultLines: 0, Para: 0, Targets: map[fixture.Class]classOutcome{
		fixture.Constraint:   {Retained: 71, Verbatim: 50},
		fixture.Commitment:   {Retained: 44, Verbatim: 20, Contradicted: 1},
		fixture.OpenQuestion: {Retained: 96, Verbatim: 40, Contradicted: 1},
		fixture.Reference:    {Retained: 58, Verbatim: 40},
	}},
	{Name: SystemCandidate, Recent: 9, MaxResultLines: 200, Para: 1, Targets: map[fixture.Class]classOutcome{
		fixture.Constraint:   {Retained: 70, Verbatim: 24, Contradicted: 1},
		fixture.Commitment:   {Retained: 43, Verbatim: 8, Contradicted: 2},
		fixture.OpenQuestion: {Retained: 88, Verbatim: 14, Contradicted: 4},
		fixture.Reference:    {Retained: 57, Verbatim: 20},
	}},
}

// conv is one fixture conversation with its log and items' texts.
type conv struct {
	s     *Session
	log   *sessionLog
	items []itemText
	fx    fixture.Fixture
}

// chain is one item's verdicts over the compactions it is live at: a
// verbatim prefix, then supported, then lost (absent, or contradicted
// when lost at its last compaction only). Once a summary has dropped or
// inverted an item, no later summary can recover it.
type chain struct {
	conv, item int
	class      fixture.Class
	first, n   int // first live compaction (1-based) and how many
	forced     int // leading compactions whose kept recent turns quote it
	v, s       int
	x          bool
	hedge      bool
}

func (ch *chain) lost() int { return ch.n - ch.v - ch.s }

// verdict is the chain's verdict at compaction j.
func (ch *chain) verdict(j int) fixture.Verdict {
	i := j - ch.first
	switch {
	case i < ch.v:
		return fixture.Verbatim
	case i < ch.v+ch.s:
		return fixture.Supported
	case ch.x:
		return fixture.Contradicted
	}
	return fixture.Absent
}

// assignOutcomes draws every chain of one summariser so the per-class
// totals meet its targets exactly (retained, contradicted) or at least
// (verbatim, which the kept recent turns can force higher).
func assignOutcomes(seed uint64, sm summariser, convs []*conv) ([]*chain, error) {
	r := stream(seed, "outcomes/"+sm.Name)
	var chains []*chain
	for ci, cv := range convs {
		for ii, it := range cv.s.Items {
			ch := &chain{conv: ci, item: ii, class: it.Class, hedge: cv.items[ii].Hedge}
			for j, c := range cv.s.Compactions {
				if it.Turn < c {
					if ch.n == 0 {
						ch.first = j + 1
					}
					ch.n++
					if it.Turn >= c-sm.Recent {
						ch.forced++
					}
				}
			}
			if ch.n > 0 {
				ch.v, ch.s = ch.forced, ch.n-ch.forced
				chains = append(chains, ch)
			}
		}
	}
	for _, cl := range fixture.Classes {
		t := sm.Targets[cl]
		var of []*chain
		live := 0
		for _, ch := range chains {
			if ch.class == cl {
				of = append(of, ch)
				live += ch.n
			}
		}
		if live != LiveTargets[cl] {
			return nil, fmt.Errorf("%s: %d live %s pairs, want %d", sm.Name, live, cl, LiveTargets[cl])
		}
		// Lose the last retained slots.
		for lost := 0; lost < live-t.Retained; lost++ {
			var can []*chain
			for _, ch := range of {
				if ch.s > 0 {
					can = append(can, ch)
				}
			}
			if len(can) == 0 {
				return nil, fmt.Errorf("%s: cannot lose %d %s pairs", sm.Name, live-t.Retained, cl)
			}
			pick(r, can).s--
		}
		// Contradict some that were lost at their last compaction only,
		// hedges first.
		for x := 0; x < t.Contradicted; x++ {
			var hedges, others []*chain
			for _, ch := range of {
				if ch.lost() == 1 && !ch.x {
					if ch.hedge {
						hedges = append(hedges, ch)
					} else {
						others = append(others, ch)
					}
				}
			}
			switch {
			case len(hedges) > 0:
				pick(r, hedges).x = true
			case len(others) > 0:
				pick(r, others).x = true
			default:
				return nil, fmt.Errorf("%s: no %s item to contradict", sm.Name, cl)
			}
		}
		// Pin more, from the front of the retained slots.
		v := 0
		for _, ch := range of {
			v += ch.v
		}
		pinVerbatim(r, of, v, t.Verbatim)
	}
	return chains, nil
}

// ctxJSON is one file contexts/<system>/<conversation_id>/<n>.json.
type ctxJSON struct {
	ConversationID string    `json:"conversation_id"`
	Compaction     int       `json:"compaction"`
	Turn           int       `json:"turn"`
	System         string    `json:"system"`
	Messages       []msgJSON `json:"messages"`
}

// msgJSON's Content is a string or a list of text parts.
type msgJSON struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type partJSON struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func textParts(texts ...string) []partJSON {
	ps := make([]partJSON, len(texts))
	for i, t := range texts {
		ps[i] = partJSON{"text", t}
	}
	return ps
}

// toFixture is the context as package fixture reads it.
func (c ctxJSON) toFixture() fixture.Context {
	fc := fixture.Context{ConversationID: c.ConversationID, Compaction: c.Compaction, Turn: c.Turn, System: c.System}
	for _, m := range c.Messages {
		fm := fixture.Message{Role: m.Role}
		switch x := m.Content.(type) {
		case string:
			fm.Parts = []fixture.Part{{Type: fixture.TextPart, Text: x}}
		case []partJSON:
			for _, p := range x {
				fm.Parts = append(fm.Parts, fixture.Part{Type: p.Type, Text: p.Text})
			}
		}
		fc.Messages = append(fc.Messages, fm)
	}
	return fc
}

// builtContext is one assembled context with its verdicts.
type builtContext struct {
	System   string
	Conv     *conv
	J        int
	JSON     ctxJSON
	Rendered string
	Verdicts []fixture.Verdict // the recorded judge's, per item of the fixture; "" when not live
	// Truth is what the context's text carries, per item: the judge's
	// verdict except where the judge errs (judgeErrors).
	Truth []fixture.Verdict
}

// The recorded judge's error rates: of the items it calls supported, a
// share whose paraphrase the context does not carry (it reads support
// into a nearby sentence), and of those it calls absent, a share whose
// paraphrase the context does carry (it misses a rewording). Verbatim
// verdicts are the substring check's and contradictions are left exact,
// so the example's verdicts, and its tables, are those of the source
// text; only the contexts' text differs where the judge errs.
const (
	judgeFalseSupport  = 0.06
	judgeMissedSupport = 0.20
)

// judgeErrors is what a context's text carries given the judge's
// verdicts: each supported verdict wrong with probability
// judgeFalseSupport, each absent one with judgeMissedSupport, drawn from
// the context's own stream.
func judgeErrors(r *rand.Rand, verdicts []fixture.Verdict) []fixture.Verdict {
	truth := slices.Clone(verdicts)
	for i, v := range verdicts {
		switch {
		case v == fixture.Supported && r.Float64() < judgeFalseSupport:
			truth[i] = fixture.Absent
		case v == fixture.Absent && r.Float64() < judgeMissedSupport:
			truth[i] = fixture.Supported
		}
	}
	return truth
}

// buildContexts assembles every context of one summariser and checks each
// against its verdicts: a verbatim item's literal is in the rendered
// context and no other live item's literal is.
func buildContexts(seed uint64, sm summariser, convs []*conv, chains []*chain) ([]*builtContext, error) {
	byItem := make(map[[2]int]*chain)
	for _, ch := range chains {
		byItem[[2]int{ch.conv, ch.item}] = ch
	}
	var out []*builtContext
	for ci, cv := range convs {
		for j := range cv.s.Compactions {
			bc := &builtContext{System: sm.Name, Conv: cv, J: j + 1, Verdicts: make([]fixture.Verdict, len(cv.s.Items))}
			for ii := range cv.s.Items {
				if ch := byItem[[2]int{ci, ii}]; ch != nil && ch.first <= j+1 {
					bc.Verdicts[ii] = ch.verdict(j + 1)
				}
			}
			bc.Truth = judgeErrors(stream(seed, fmt.Sprintf("judge-errors/%s/%s/%d", sm.Name, cv.s.ID, j+1)), bc.Verdicts)
			r := stream(seed, fmt.Sprintf("context/%s/%s/%d", sm.like(), cv.s.ID, j+1))
			var err error
			for attempt := 0; attempt < 20; attempt++ {
				bc.JSON = assemble(r, sm, cv, j+1, bc.Truth)
				bc.Rendered = fixture.Render(bc.JSON.toFixture())
				if err = bc.check(); err == nil {
					break
				}
			}
			if err != nil {
				return nil, err
			}
			out = append(out, bc)
		}
	}
	return out, nil
}

// check verifies that the rendered context carries each item as its
// truth says.
func (bc *builtContext) check() error {
	for ii, it := range bc.Conv.items {
		v := bc.Truth[ii]
		where := fmt.Sprintf("%s %s compaction %d item %s", bc.System, bc.Conv.s.ID, bc.J, bc.Conv.fx.MustSurvive[ii].ID)
		if fixture.IsVerbatim(bc.Rendered, it.Literal) != (v == fixture.Verbatim) {
			return fmt.Errorf("%s: verdict %q but literal %q verbatim = %v", where, v, it.Literal, !(v == fixture.Verbatim))
		}
		para := it.Para[paraIndex(bc.System)]
		if (v == fixture.Supported) != strings.Contains(bc.Rendered, para) {
			return fmt.Errorf("%s: verdict %q and paraphrase present = %v", where, v, !(v == fixture.Supported))
		}
		if (v == fixture.Contradicted) != strings.Contains(bc.Rendered, it.Inverted) {
			return fmt.Errorf("%s: verdict %q and inversion present = %v", where, v, !(v == fixture.Contradicted))
		}
	}
	return nil
}

func paraIndex(system string) int {
	for _, sm := range append(summarisers, rerunSummariser()) {
		if sm.Name == system {
			return sm.Para
		}
	}
	return 0
}

// assemble writes one context: the system prompt, the compaction note
// (pinned ledger and summary narrative), then the kept recent turns.
func assemble(r *rand.Rand, sm summariser, cv *conv, j int, verdicts []fixture.Verdict) ctxJSON {
	c := cv.s.Compactions[j-1]
	from := max(1, c-sm.Recent) // first kept turn
	var pinned, decisions, open, refs []string
	var quotes []string
	for ii, it := range cv.items {
		turn := cv.s.Items[ii].Turn
		switch verdicts[ii] {
		case fixture.Verbatim:
			if turn < from {
				pinned = append(pinned, fmt.Sprintf("- [%s · turn %d] %s", it.Class, turn, it.Literal))
				quotes = append(quotes, fmt.Sprintf("\"%s\" (turn %d)", it.Literal, turn))
			}
		case fixture.Supported:
			switch it.Class {
			case fixture.OpenQuestion:
				open = append(open, it.Para[sm.Para])
			case fixture.Reference:
				refs = append(refs, it.Para[sm.Para])
			default:
				decisions = append(decisions, it.Para[sm.Para])
			}
		case fixture.Contradicted:
			decisions = append(decisions, it.Inverted)
		}
	}
	prog := progress(cv.log, from-1)
	ctx := ctxJSON{ConversationID: cv.s.ID, Compaction: j, Turn: c}
	if sm.like() == SystemIncumbent {
		ctx.System = incumbentSystem(cv.log.th.Repo)
		ledger := fmt.Sprintf("<compaction_state compaction=\"%d\" turn=\"%d\">\nPinned ledger — quoted exactly as stated; binding:\n", j, c)
		if len(pinned) == 0 {
			ledger += "- (nothing pinned)\n"
		} else {
			ledger += strings.Join(pinned, "\n") + "\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Summary of turns 1–%d:\nTask: %s.\nProgress:\n", from-1, cv.log.th.Goal)
		for _, p := range prog.lines() {
			b.WriteString("- " + p + "\n")
		}
		section := func(title string, xs []string) {
			if len(xs) > 0 {
				b.WriteString(title + ":\n")
				for _, x := range xs {
					b.WriteString("- " + x + "\n")
				}
			}
		}
		section("Constraints and decisions", decisions)
		section("Open questions", open)
		section("References", refs)
		b.WriteString("</compaction_state>")
		ctx.Messages = append(ctx.Messages, msgJSON{"user", textParts(strings.TrimSuffix(ledger, "\n"), b.String())})
	} else {
		ctx.System = candidateSystem(cv.log.th.Repo)
		var b strings.Builder
		fmt.Fprintf(&b, "State note (compaction %d, turn %d). The user asked us to %s. %s", j, c, cv.log.th.Goal, prog.prose())
		all := append(append(append([]string{}, decisions...), open...), refs...)
		if len(all) > 0 {
			b.WriteString("\n\n" + strings.Join(all, " "))
		}
		if len(quotes) > 0 {
			b.WriteString("\n\nPinned: " + strings.Join(quotes, "; ") + ".")
		}
		ctx.Messages = append(ctx.Messages, msgJSON{"user", b.String()})
	}
	for t := from; t < c; t++ {
		p := cv.log.turn(t)
		if p.User != "" {
			ctx.Messages = append(ctx.Messages, msgJSON{"user", p.User})
		}
		for _, call := range p.Calls {
			ctx.Messages = append(ctx.Messages,
				msgJSON{"assistant", textParts(fmt.Sprintf("[tool_call %s] %s", call.Tool, call.Args))},
				msgJSON{"user", textParts(fmt.Sprintf("[tool_result %s]", call.Tool), toolResult(r, cv.log.th, call, sm.MaxResultLines))})
		}
		if p.Assistant != "" {
			ctx.Messages = append(ctx.Messages, msgJSON{"assistant", p.Assistant})
		}
	}
	return ctx
}

// workDone is what the tool calls of a stretch of turns did.
type workDone struct {
	read, edited []string
	reads, edits int
	tests        int
	lastTest     string
}

// progress tallies the tool calls of turns 1..upto.
func progress(l *sessionLog, upto int) workDone {
	var w workDone
	for t := 1; t <= upto; t++ {
		for _, c := range l.turn(t).Calls {
			switch c.Tool {
			case "read_file":
				w.reads++
				if !slices.Contains(w.read, c.Path) {
					w.read = append(w.read, c.Path)
				}
			case "edit_file":
				w.edits++
				if !slices.Contains(w.edited, c.Path) {
					w.edited = append(w.edited, c.Path)
				}
			case "run_tests":
				w.tests++
				w.lastTest = c.Command
			}
		}
	}
	return w
}

func (w workDone) lines() []string {
	var out []string
	if len(w.read) > 0 {
		out = append(out, fmt.Sprintf("Read %s (%d reads).", strings.Join(w.read, ", "), w.reads))
	}
	if len(w.edited) > 0 {
		out = append(out, fmt.Sprintf("Edited %s (%d edits).", strings.Join(w.edited, ", "), w.edits))
	}
	if w.tests > 0 {
		out = append(out, fmt.Sprintf("Ran tests %d times; last: %s.", w.tests, w.lastTest))
	}
	if len(out) == 0 {
		out = append(out, "Explored the repository; no changes yet.")
	}
	return out
}

func (w workDone) prose() string {
	var parts []string
	if len(w.read) > 0 {
		parts = append(parts, fmt.Sprintf("read %d files", len(w.read)))
	}
	if len(w.edited) > 0 {
		parts = append(parts, "edited "+listing(w.edited))
	}
	if w.tests > 0 {
		parts = append(parts, fmt.Sprintf("run the tests %d times", w.tests))
	}
	if len(parts) == 0 {
		return "Nothing has been changed yet."
	}
	return "So far we have " + listing(parts) + "."
}

// listing joins xs as prose: "a", "a and b", "a, b and c".
func listing(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// contextJSON renders one context file.
func contextJSON(c ctxJSON) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// records are the recorded judge's verdicts for every live item that is
// not verbatim, in both systems.
func records(built []*builtContext) []fixture.Record {
	var out []fixture.Record
	for _, bc := range built {
		for ii, v := range bc.Verdicts {
			if v == "" || v == fixture.Verbatim {
				continue
			}
			it, fi := bc.Conv.items[ii], bc.Conv.fx.MustSurvive[ii]
			rec := fixture.Record{System: bc.System, ConversationID: bc.Conv.s.ID, Compaction: bc.J,
				ItemID: fi.ID, Class: fi.Class, Verdict: v, Judge: RecordedJudge}
			switch v {
			case fixture.Supported:
				rec.Answer = fi.Expect
			case fixture.Absent:
				rec.Answer = "not stated — the context does not mention " + it.Subject
				rec.Expect = fi.Expect
			case fixture.Contradicted:
				rec.Answer = it.InvertedAnswer
				rec.Expect = fi.Expect
				rec.Reason = "the context states the opposite: " + it.Inverted
			}
			out = append(out, rec)
		}
	}
	slices.SortStableFunc(out, func(a, b fixture.Record) int {
		return cmp.Or(cmp.Compare(systemOrder(a.System), systemOrder(b.System)), cmp.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Compaction, b.Compaction))
	})
	return out
}

// systemOrder orders the recorded judge's lines: the incumbent's, the
// candidate's, then the rerun's.
func systemOrder(s string) int {
	switch s {
	case SystemIncumbent:
		return 0
	case SystemCandidate:
		return 1
	}
	return 2
}

// pinVerbatim pins chains of of verbatim, one retained slot at a time and
// each time a random chain with a slot left, until v (the verbatim slots
// already pinned) reaches want or no chain has a slot left.
func pinVerbatim(r *rand.Rand, of []*chain, v, want int) {
	for ; v < want; v++ {
		var can []*chain
		for _, ch := range of {
			if ch.s > 0 {
				can = append(can, ch)
			}
		}
		if len(can) == 0 {
			return
		}
		ch := pick(r, can)
		ch.v++
		ch.s--
	}
}
