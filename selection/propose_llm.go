package selection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/jsonscan"
	"github.com/tally-eval/tally/judge"
)

// This file holds the LLM proposer: the same job as Propose, done by a
// model asked through a judge backend (package judge: its backends, its
// cache). It lives in selection, beside the rules, because selection may
// import judge (cmd/tally/layout_test.go forbids no such arrow, and judge
// imports nothing of selection's); the rules stay the offline default.

// LLMPrompt is the prompt the LLM proposer sends, with the session's
// lines after it (LLMProposer.Prompt). It asks for one JSON object and
// nothing else; ParseLLMReply says what a reply must hold.
const LLMPrompt = `You read a coding-agent session and list the items a summary of it must keep, so that an agent continuing from the summary does not go wrong. Classes:

- constraint: a prohibition, a standing obligation or a decision the person set that binds the work after their message: rules ("never commit to main", "always run specs locally before push", "use pnpm, not npm"), decisions of scope and design ("skip 5, 7 and 8 and do the rest", "keep all the color changes we made", "it doesn't make sense to commit in a broken state", "the test should check the content of the version file"), and a requirement said as a judgement or a question ("panics in code are not great either", "should we dry-run by default?"). Not a one-off request done in the next step, not the task itself, not the content of a plan the assistant wrote. Leave out one a later message took back.
- commitment: the assistant binding itself beyond its next step ("I won't amend commits going forward", "I'll leave it in place", "I'll keep the flag off until you say"), including a decision it states to leave something as it is, which later work must not undo ("keeping the retry loop as it is", "the duplicate check stays, on purpose", "not adding the cache: it would only hide the bug"). Not narration of the next step ("I'll read the file", "Let me check").
- open_question: a question of the person's still undecided at the end (not one answered later).
- reference: an identifier a continuing agent needs: a path or file:line the person typed or the assistant created or changed, the place of a diagnosed cause, a URL, a ticket (ABC-123), a commit made or cited, a PR or review-comment id being worked on, a branch or table name worked on. Not a file only read to look around, a code symbol or an example value.

Each line of the session below is "[turn N] user:" (what the person typed), "[turn N] assistant:" and the text, or "[turn N] actions:", what the assistant did in that turn by its tools: the files it changed and the git and gh commands it ran (with the first line of their output). Reply with one JSON object and nothing else:
{"items": [{"class": "constraint", "turn": 3, "literal": "<words copied exactly from one line of that turn>", "probe": "<a question whose answer shows the item survived>", "expect": "<the expected answer>", "confidence": 0.8}]}
"turn" is the turn the item was said in; "literal" must be copied from that turn's text; "confidence" is between 0 and 1. An empty list is {"items": []}.

Session:
`

// LLMProposer proposes a session's must-survive items by asking a model.
type LLMProposer struct {
	// Backend is the model; see package judge (openai, anthropic,
	// command).
	Backend judge.Backend
	// Cache, when not nil, holds replies that parsed, keyed by the
	// backend's identity, the prompt template and the session's lines
	// (judge.KindProposal): the same session asked again is not sent.
	Cache *judge.Cache
	// Reasks is how often a reply that does not parse is asked again,
	// the reason said (0: DefaultLLMReasks; judge.NoReasks: never).
	Reasks int
}

// DefaultLLMReasks is how often LLMProposer asks again after a reply
// that does not parse.
const DefaultLLMReasks = 2

// Prompt is what p sends for session s: LLMPrompt, then one line per
// typed message (pasted output left out) and step text, as Propose
// reads them, and after each turn's lines an "actions" line (llmLines),
// each "[turn N] role: text" with its line breaks shown as " / ".
func (p LLMProposer) Prompt(s *agentlog.Session) string {
	return LLMPrompt + llmSessionLines(llmLines(s))
}

// llmActionsRole is the role of the line that lists a turn's actions.
const llmActionsRole = "actions"

// llmLines are the lines the LLM proposer quotes: propUtterances, and
// after each turn's an "actions" line listing what the assistant did by
// its tools in that turn — the files it edited or wrote, and its git and
// gh commands with their output's first line — in order, each once;
// failed calls are left out. The text alone cannot say which files the
// work changed, and those are the references a summary must keep (the
// labelling rules, testdata/real/labels/README.md).
func llmLines(s *agentlog.Session) []propUtterance {
	acts := map[int][]string{}
	seen := map[string]bool{}
	for _, st := range s.Steps {
		turn := max(1, st.Turn+1)
		for _, c := range st.Calls {
			a := llmAction(c)
			if a == "" || seen[strconv.Itoa(turn)+a] {
				continue
			}
			seen[strconv.Itoa(turn)+a] = true
			acts[turn] = append(acts[turn], a)
		}
	}
	base := propUtterances(s)
	out := make([]propUtterance, 0, len(base)+len(acts))
	i := 0
	for turn := 1; turn <= max(len(s.Turns), 1); turn++ {
		for ; i < len(base) && base[i].turn <= turn; i++ {
			out = append(out, base[i])
		}
		if a := acts[turn]; len(a) > 0 {
			out = append(out, propUtterance{turn: turn, role: llmActionsRole, text: strings.Join(a, "; ")})
		}
	}
	return append(out, base[i:]...)
}

// llmAction words one tool call for the actions line: "edited F" or
// "wrote F" for a file tool, "ran `git …` → first output line" for a
// git or gh command; "" for anything else and for a call that failed.
func llmAction(c agentlog.ToolCall) string {
	if c.IsError {
		return ""
	}
	name := c.Name
	kind, file, command, patch := propCallOf(c.Name, c.Input)
	if !claudeTools[name] {
		// Another agent's tools, by what they do: a file tool edits,
		// a patch edits the files it names, a shell runs a command.
		switch kind {
		case "file":
			name = "Edit"
		case "shell":
			name = "Bash"
		case "patch":
			var files []string
			for _, m := range propPatchFile.FindAllStringSubmatch(patch, -1) {
				files = append(files, m[1])
			}
			if len(files) > 0 {
				return "edited " + strings.Join(files, ", ")
			}
		}
	}
	switch name {
	case "Edit", "MultiEdit", "NotebookEdit":
		if file != "" {
			return "edited " + file
		}
	case "Write":
		if file != "" {
			return "wrote " + file
		}
	case "Bash":
		cmd := strings.TrimSpace(command)
		if i := strings.IndexByte(cmd, '\n'); i >= 0 {
			cmd = cmd[:i] + " …"
		}
		if !strings.HasPrefix(cmd, "git ") && !strings.HasPrefix(cmd, "gh ") {
			return ""
		}
		if len(cmd) > 160 {
			cmd = head(cmd, 160)
		}
		a := "ran `" + cmd + "`"
		if out := strings.TrimSpace(c.Result); out != "" {
			if i := strings.IndexByte(out, '\n'); i >= 0 {
				out = out[:i]
			}
			a += " → " + head(out, 120)
		}
		return a
	}
	return ""
}

// llmSessionLines renders the utterances the prompt quotes.
func llmSessionLines(utts []propUtterance) string {
	var b strings.Builder
	for _, u := range utts {
		text := strings.Join(strings.Fields(strings.ReplaceAll(u.text, "\n", " / ")), " ")
		fmt.Fprintf(&b, "[turn %d] %s: %s\n", u.turn, u.role, text)
	}
	return b.String()
}

// Propose asks p's model for s's items and returns them as Propose does:
// in turn order, ids c1, c2, …, every one pending, those below
// opts.MinConfidence left out, each with rule "llm/" and the backend's
// name, its role the speaker of the turn's line that holds the literal;
// an item listed again (same class, turn and literal) is left out, and
// so is a constraint or open question found only in an accepted plan
// (llmFromPlan): the plan is the agent's words sent as the person's,
// which the prompt's classes leave out but its lines cannot mark, and
// which the rules read only for references. On the labelled sets the
// model had proposed 45 such constraints for each reader, none of them
// labelled (testdata/real/labels/README.md, "After the second trial").
// The reply must parse (ParseLLMReply); an error names what was wrong
// with it. A reply that parsed is cached (p.Cache).
func (p LLMProposer) Propose(ctx context.Context, s *agentlog.Session, opts ProposeOptions) (Proposal, error) {
	if p.Backend == nil {
		return Proposal{}, errors.New("llm proposer: no backend")
	}
	utts := llmLines(s)
	lines := llmSessionLines(utts)
	id := p.Backend.Name()
	if i, ok := p.Backend.(judge.Identifier); ok {
		id = i.Identity()
	}
	key := judge.KeyParts{Kind: judge.KindProposal, Backend: id, Template: LLMPrompt, Context: lines}.Key()
	var reply string
	cached := false
	if p.Cache != nil {
		if e, ok := p.Cache.Get(key); ok {
			reply, cached = *e.Text, true
		}
	}
	var items []ProposedItem
	var err error
	if cached {
		items, err = parseLLMReply(reply, s, utts)
	} else {
		reply, items, err = p.ask(ctx, LLMPrompt+lines, s, utts)
	}
	if err != nil {
		return Proposal{}, err
	}
	if p.Cache != nil && !cached {
		// A cache that cannot be written costs a second call next time,
		// not this answer; Cache.Stats counts the failure.
		_ = p.Cache.Put(key, judge.Entry{Kind: judge.KindProposal, Judge: p.Backend.Name(), Text: &reply})
	}
	out := Proposal{ConversationID: s.ID, Turns: len(s.Turns), CompactionsExpected: len(s.Compactions), Candidates: []ProposedItem{}}
	seen := map[string]bool{}
	for _, it := range items {
		// The same item listed twice (a model repeats itself) is one.
		key := string(it.Class) + "\x00" + strconv.Itoa(it.Turn) + "\x00" + llmSquash(it.Literal)
		if it.Confidence < opts.MinConfidence || seen[key] || llmFromPlan(utts, it) || !llmSubstantial(it.Literal) {
			continue
		}
		seen[key] = true
		it.ID = "c" + strconv.Itoa(len(out.Candidates)+1)
		it.Rule = "llm/" + p.Backend.Name()
		out.Candidates = append(out.Candidates, it)
	}
	return out, nil
}

// ask sends prompt, and asks again, saying why, after a reply that does
// not parse, up to p.Reasks times; the last reply's problem is the error.
func (p LLMProposer) ask(ctx context.Context, prompt string, s *agentlog.Session, utts []propUtterance) (string, []ProposedItem, error) {
	reasks := DefaultLLMReasks
	switch {
	case p.Reasks < 0:
		reasks = 0
	case p.Reasks > 0:
		reasks = p.Reasks
	}
	ask := prompt
	for n := 0; ; n++ {
		reply, err := p.Backend.Complete(ctx, ask)
		if err != nil {
			return "", nil, fmt.Errorf("llm proposer: %w", err)
		}
		items, err := parseLLMReply(reply, s, utts)
		if err == nil {
			return reply, items, nil
		}
		if n == reasks {
			return "", nil, fmt.Errorf("llm proposer: %s's reply (%d asked): %w", p.Backend.Name(), n+1, err)
		}
		ask = prompt + "\n\nYour previous reply could not be used: " + err.Error() +
			". Reply again with one JSON object {\"items\": [...]} as described above, and nothing else."
	}
}

// llmFromPlan reports whether it, a constraint or an open question, was
// found only in an accepted plan: a plan of its turn holds its literal
// and no other line of the turn does (the person may repeat the plan's
// words in their own).
func llmFromPlan(utts []propUtterance, it ProposedItem) bool {
	if it.Class != fixture.Constraint && it.Class != fixture.OpenQuestion {
		return false
	}
	want, plan := llmSquash(it.Literal), false
	for _, u := range utts {
		if u.turn != it.Turn || !strings.Contains(llmSquash(u.text), want) {
			continue
		}
		if !u.plan {
			return false
		}
		plan = true
	}
	return plan
}

// llmItem is one item of a reply, as the model writes it.
type llmItem struct {
	Class      *fixture.Class `json:"class"`
	Turn       *int           `json:"turn"`
	Literal    *string        `json:"literal"`
	Probe      *string        `json:"probe"`
	Expect     *string        `json:"expect"`
	Confidence *float64       `json:"confidence"`
}

// ParseLLMReply parses a reply to LLMPrompt about session s. The reply is one JSON object
// {"items": [...]}, alone but for white space (a ```json fence around it
// is allowed; so is prose around it when one object alone has an
// "items" field, judge.FindObject), with no field but those of LLMPrompt; each item has all
// six fields: a class of fixture.Classes, a turn of the session, a
// literal found (white space aside) in a line of that turn, a probe and
// an expected answer that are not empty, a confidence in [0, 1]. The
// first problem is the error, naming the item by its index
// ("items[2].turn: 14 is not a turn of the session (1…9)"). The items
// are returned in turn order (stable), status pending, Message the line
// the literal was found in.
func ParseLLMReply(reply string, s *agentlog.Session) ([]ProposedItem, error) {
	return parseLLMReply(reply, s, llmLines(s))
}

// parseLLMReply is ParseLLMReply with s's lines already made.
func parseLLMReply(reply string, s *agentlog.Session, utts []propUtterance) ([]ProposedItem, error) {
	text := strings.TrimSpace(reply)
	if rest, ok := strings.CutPrefix(text, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		if body, ok := strings.CutSuffix(strings.TrimSpace(rest), "```"); ok {
			text = strings.TrimSpace(body)
		}
	}
	if text == "" {
		return nil, errors.New("empty reply, want one JSON object {\"items\": [...]}")
	}
	if !strings.HasPrefix(text, "{") || !json.Valid([]byte(text)) {
		// Prose around the object ("Here are the items: {…}", or the
		// object and then "Let me know…"): the one object with an "items"
		// field, found as the judge's replies are.
		obj, err := judge.FindObject(text, "items")
		switch {
		case err == nil:
			text = obj
		case !errors.Is(err, judge.ErrNoJSON):
			// Two different lists: say so, not "invalid character".
			return nil, fmt.Errorf("%w (reply starts %q)", err, propPreview(text))
		}
	}
	// encoding/json lets a name given twice win silently over the first
	// ("items" twice, or "confidence" twice in an item).
	var sc jsonscan.Scanner
	sc.Reset([]byte(text))
	if key, _, found, _ := sc.DuplicateKey(); found {
		return nil, fmt.Errorf("%q is given twice in one object, and tally will not guess which is meant (reply starts %q)", key, propPreview(text))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var r struct {
		Items *[]llmItem `json:"items"`
	}
	if err := dec.Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && strings.HasPrefix(te.Field, "items.") {
			// "items.turn" of the third item: say which, in the reply's
			// words, not Go's.
			return nil, fmt.Errorf("an item's %s: a JSON %s where the prompt asks for %s (reply starts %q)", strings.TrimPrefix(te.Field, "items."), te.Value, llmWant(te.Type.Kind()), propPreview(text))
		}
		return nil, fmt.Errorf("not one JSON object of the form {\"items\": [...]}: %w (reply starts %q)", err, propPreview(text))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the JSON object (reply starts %q)", propPreview(text))
	}
	if r.Items == nil {
		return nil, errors.New(`no "items" list`)
	}
	items := make([]ProposedItem, 0, len(*r.Items))
	for i, it := range *r.Items {
		at := func(field string) string { return "items[" + strconv.Itoa(i) + "]." + field }
		switch {
		case it.Class == nil:
			return nil, fmt.Errorf("%s: missing", at("class"))
		case !it.Class.Valid():
			return nil, fmt.Errorf("%s: %q is not a class (want constraint, commitment, open_question or reference)", at("class"), propPreview(string(*it.Class)))
		case it.Turn == nil:
			return nil, fmt.Errorf("%s: missing", at("turn"))
		case *it.Turn < 1 || *it.Turn > len(s.Turns):
			return nil, fmt.Errorf("%s: %d is not a turn of the session (1…%d)", at("turn"), *it.Turn, len(s.Turns))
		case it.Literal == nil || strings.TrimSpace(*it.Literal) == "":
			return nil, fmt.Errorf("%s: missing or empty", at("literal"))
		case it.Probe == nil || strings.TrimSpace(*it.Probe) == "":
			return nil, fmt.Errorf("%s: missing or empty", at("probe"))
		case it.Expect == nil || strings.TrimSpace(*it.Expect) == "":
			return nil, fmt.Errorf("%s: missing or empty", at("expect"))
		case it.Confidence == nil:
			return nil, fmt.Errorf("%s: missing", at("confidence"))
		case !(*it.Confidence >= 0 && *it.Confidence <= 1):
			return nil, fmt.Errorf("%s: %v is not between 0 and 1", at("confidence"), *it.Confidence)
		}
		lit := strings.TrimSpace(*it.Literal)
		u, ok := llmFind(utts, *it.Turn, lit)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not in the text of turn %d", at("literal"), propPreview(lit), *it.Turn)
		}
		role := u.role
		if role == llmActionsRole {
			if *it.Class != fixture.Reference {
				return nil, fmt.Errorf("%s: %q is only in tally's list of the turn's actions, which names files and commands, not a %s", at("literal"), propPreview(lit), *it.Class)
			}
			role = "assistant"
		}
		// The literal as the session wrote it: the model matched white
		// space, the prompt's " / " for a line break and typographic
		// quotes loosely, and a fixture's literal must be the session's
		// own text for the verbatim check to find it.
		lit = llmOriginal(u.text, lit)
		items = append(items, ProposedItem{Class: *it.Class, Turn: *it.Turn, Role: role, Literal: lit,
			Probe: strings.TrimSpace(*it.Probe), Expect: strings.TrimSpace(*it.Expect), Confidence: *it.Confidence,
			Status: ReviewPending, Message: u.text, Line: u.line})
	}
	// Turn order, stable: the model may list by class.
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && items[j].Turn < items[j-1].Turn; j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
	return items, nil
}

// llmFind returns the line of turn turn whose text holds lit, comparing
// with runs of white space (and the prompt's " / " for a line break) as
// one space.
func llmFind(utts []propUtterance, turn int, lit string) (propUtterance, bool) {
	want := llmSquash(lit)
	for _, u := range utts {
		if u.turn == turn && strings.Contains(llmSquash(u.text), want) {
			return u, true
		}
	}
	return propUtterance{}, false
}

// llmOriginal returns the text of line that lit stands for when compared
// as llmFind compares (white space runs, the prompt's " / " for a line
// break, typographic quotes and the space a French quote has inside
// it): the line's own characters, line breaks included. It returns lit
// when no such span is found.
func llmOriginal(line, lit string) string {
	q := llmSquash(lit)
	if q == "" {
		return lit
	}
	const space = `[\s\p{Zs}]`
	var b strings.Builder
	for _, r := range q {
		switch r {
		case ' ':
			b.WriteString(`(?:` + space + `+/)*` + space + `+`)
		case '\'':
			b.WriteString(`['’‘‚‹›]`)
		case '"':
			b.WriteString(space + `*["“”„«»]` + space + `*`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return lit
	}
	if m := strings.TrimFunc(re.FindString(line), unicode.IsSpace); m != "" {
		return m
	}
	return lit
}

// llmSubstantial reports whether lit is long enough to measure
// anything: 3 letters or digits, or 2 in a script written without spaces
// ("支付"). A bare "3" (a person's pick among options) or "a" is found
// verbatim in almost any context, so the item would count as kept
// whatever the summary says; Propose leaves such items out, as it does
// those below the confidence cut.
func llmSubstantial(lit string) bool {
	alnum, wide := 0, 0
	for _, r := range lit {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
			if r >= 0x2E80 { // CJK and other scripts without spaces
				wide++
			}
		}
	}
	return alnum >= 3 || wide >= 2
}

// llmWant names the JSON a field of kind k wants.
func llmWant(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	}
	return "another type"
}

// llmSquash joins s's fields with one space, a line break (" / " in the
// prompt, one or several) counting as white space, typographic quotes
// as ASCII ones, and no space beside a double quote.
func llmSquash(s string) string {
	f := strings.Fields(llmQuotes.Replace(s))
	out := f[:0]
	for _, w := range f {
		if w != "/" {
			out = append(out, w)
		}
	}
	return llmQuoteSpace.Replace(strings.Join(out, " "))
}

// llmQuoteSpace drops the space beside a double quote: French writes
// « non » with a space inside each guillemet, which a model copies as
// "non".
var llmQuoteSpace = strings.NewReplacer(` " `, `"`, ` "`, `"`, `" `, `"`)

// sameItemText reports whether two literals stand for one item: one
// contains the other once normalised, or half the content words of the
// shorter are in the longer.
func sameItemText(a, b string) bool {
	na, nb := normaliseText(a), normaliseText(b)
	if strings.Contains(na, nb) || strings.Contains(nb, na) {
		return true
	}
	wa, wb := contentWords(a), contentWords(b)
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	return len(wa) > 0 && 2*len(commonWords(wa, wb)) >= len(wa)
}

// llmQuotes folds typographic quotes and apostrophes into ASCII ones,
// English, German („…“, ‚…‘) and French or Swiss (« », ‹ ›): a model may
// write "let’s" for the person's "let's", or "alte" for „alte“.
var llmQuotes = strings.NewReplacer("’", "'", "‘", "'", "‚", "'", "‹", "'", "›", "'",
	"“", `"`, "”", `"`, "„", `"`, "«", `"`, "»", `"`)

// Hybrid joins two proposals of one session: the references of rules
// (Propose); the constraints and commitments of both, a rule's left out
// when the model proposes the same one (same turn, sameItemText); the
// model's open questions. In turn order (stable: rules' items first
// within a turn), ids renumbered c1, c2, …, position 0. On sessions
// neither was written on, the rules' references carried over and the
// model's did not (it misses the files changed without discussing
// them); each found constraints and commitments the other missed, and
// a person who confirms candidates loses nothing to a wrong one but a
// keystroke, while an item neither proposes is never measured
// (testdata/real/labels/README.md, "Blind sets", "Blind set 6", "Blind
// set 7" and "After the blind sets").
func Hybrid(rules, model Proposal) Proposal {
	out := rules
	out.Position = 0
	out.Candidates = make([]ProposedItem, 0, len(rules.Candidates)+len(model.Candidates))
	for _, c := range rules.Candidates {
		switch c.Class {
		case fixture.Reference:
			out.Candidates = append(out.Candidates, c)
		case fixture.Constraint, fixture.Commitment:
			if !slices.ContainsFunc(model.Candidates, func(m ProposedItem) bool {
				return m.Class == c.Class && m.Turn == c.Turn && sameItemText(m.Literal, c.Literal)
			}) {
				out.Candidates = append(out.Candidates, c)
			}
		}
	}
	for _, c := range model.Candidates {
		if c.Class != fixture.Reference {
			out.Candidates = append(out.Candidates, c)
		}
	}
	sort.SliceStable(out.Candidates, func(i, j int) bool { return out.Candidates[i].Turn < out.Candidates[j].Turn })
	for i := range out.Candidates {
		out.Candidates[i].ID = "c" + strconv.Itoa(i+1)
	}
	return out
}
