// This file holds `tally propose`: the arrival-time classifier of the
// source text, run over a transcript's original turns, proposing the
// must-survive items a person then only confirms or rejects (`tally
// review`). Here are the entry point (Propose), the candidates file's
// types and the classifier's state over one session; its rules are in
// propose_rules.go and propose_references.go, its text helpers in
// propose_text.go. It reads an agentlog.Session, whatever log format it
// came from.

package selection

import (
	"cmp"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// ReviewStatus is where a proposed item stands in review.
type ReviewStatus string

// The review statuses. Propose leaves every item pending.
const (
	ReviewPending  ReviewStatus = "pending"
	ReviewAccepted ReviewStatus = "accepted"
	ReviewRejected ReviewStatus = "rejected"
)

// Valid reports whether s is one of the three statuses.
func (s ReviewStatus) Valid() bool {
	return s == ReviewPending || s == ReviewAccepted || s == ReviewRejected
}

// Proposal is a candidates file: a fixture in the making. It has the
// fixture's conversation_id, turns and compactions_expected; its items are
// candidates, each with a confidence, the rule that proposed it and a
// review status; and position is the index of the candidate a review
// shows next (len(candidates) once every candidate has been seen), so an
// interrupted review resumes there.
//
//	{"conversation_id": "sess_2026_01_06_75ad", "turns": 82,
//	 "compactions_expected": 3, "position": 0,
//	 "candidates": [{"id": "c1", "class": "constraint", "turn": 3,
//	   "role": "user", "literal": "leave dual_write_orders off by default",
//	   "probe": "Must the agent leave dual_write_orders off by default?",
//	   "expect": "yes", "confidence": 0.9,
//	   "rule": "constraint/lead-in+obligation", "status": "pending",
//	   "message": "Ground rule: leave dual_write_orders off by default."}]}
type Proposal struct {
	ConversationID      string         `json:"conversation_id"`
	Turns               int            `json:"turns"`
	CompactionsExpected int            `json:"compactions_expected"`
	Candidates          []ProposedItem `json:"candidates"`
	Position            int            `json:"position"`
}

// ProposedItem is one candidate must-survive item: a fixture.Item's
// fields plus what review needs.
type ProposedItem struct {
	ID         string        `json:"id"`
	Class      fixture.Class `json:"class"`
	Turn       int           `json:"turn"`
	Role       string        `json:"role"` // who said it: user or assistant
	Literal    string        `json:"literal"`
	Probe      string        `json:"probe"`
	Expect     string        `json:"expect"`
	Confidence float64       `json:"confidence"` // 0..1
	Rule       string        `json:"rule"`       // the classifier rule that fired
	Status     ReviewStatus  `json:"status"`
	Message    string        `json:"message"` // the whole message it was found in
	// Line is the log line of the message, to find it by: a typed
	// prompt's record, the record holding the agent's text, the tool
	// result a reply was typed into (0 when the format does not say).
	Line int `json:"line,omitempty"`
}

// Item returns the fixture item pi stands for.
func (pi ProposedItem) Item() fixture.Item {
	return fixture.Item{ID: pi.ID, Class: pi.Class, Turn: pi.Turn, Literal: pi.Literal, Probe: pi.Probe, Expect: pi.Expect}
}

// DefaultMinConfidence is the confidence below which `tally propose`
// leaves a candidate out: bare file paths (0.3), questions without a
// sign of a pending decision (0.3) and questions answered later (0.2).
const DefaultMinConfidence = 0.5

// ProposeOptions configures Propose.
type ProposeOptions struct {
	// MinConfidence drops candidates below it. The zero value keeps
	// every candidate; the CLI's default is DefaultMinConfidence.
	MinConfidence float64
}

// Propose runs the arrival-time classifier over a session and returns
// the candidates in turn order, ids c1, c2, …, every one pending,
// position 0. It reads only what s holds: the messages a person typed
// (Message.Person: prompts, and prompts queued while the agent worked;
// never injected text — compaction summaries, system
// reminders, command output, skill text; an accepted plan, "Implement
// the following plan: …", is the agent's text and gives references
// only), what a person typed when
// refusing a tool call (Claude Code puts it in the call's result, after
// "the user said:"), and the text of the model's steps (not their
// thinking, tool calls or other results), so a caller may
// pass a prefix of a session (the messages and steps before a
// compaction). A candidate's turn is the 1-based typed turn it was said
// in (a step before the first prompt counts as turn 1). Turns is
// len(s.Turns), compactions_expected len(s.Compactions) and
// conversation_id s.ID.
//
// Each message is split into sentences (at . ! ? followed by a space, and
// at line breaks). A short lead-in is set apart first: a phrase of at most
// six words ending in a colon ("Ground rule:", "Question for later:"), a
// connective ("Also,"), or a previous sentence of at most three words
// ("Thinking ahead."). Each sentence gives the item of the class whose
// rule is most confident; when that is a reference it gives every
// reference in it, and a person's rule or the agent's commitment in a
// sentence with references (one at the default confidence or above,
// other than "follow X", where X is the item) comes with them. The rules:
//
// Constraint (a person's sentences not ending in "?"; a list marker is
// dropped). A sentence that restates an earlier instruction — it opens
// with a restatement marker ("I said", "Again:", "As I mentioned",
// "Reminder:", "Like I said", "Please remember"), or three fifths of its
// content words are in a constraint already proposed — is never a new
// constraint. Otherwise a prohibition or a standing obligation, each a
// rule of the tables propProhibitions and propObligations (name, pattern,
// example, near miss): "never"/"don't" opening a clause or a negative
// modal ("should never", "must not"), "no X in/to/…", an opening "skip"
// or "avoid", a judgement that something is unwanted ("is not great",
// "doesn't make sense to", "we don't need"); an opening always, only,
// keep, leave, use X (not Y), make sure, ensure, pin, limit, target, "I'd
// keep", must, has to, "the X should …", "X follow(s) Y"; work set aside
// ("let's skip", "ignore the existing PR", "as a separate PR"), a dislike
// or preference ("I don't like …", "I'd rather …"), the person reserving
// work ("I'll do it"), a behaviour's intent ("the idea is that …"), an
// order of work ("X first, then …"), test-first in other words ("a test
// that … fails before fixing it"). A sentence ending in "?" that opens
// without an auxiliary or a wh-word is a statement said with a rising
// tone and is read for these rules too; a question proper states a
// constraint when a rule of propObjections fires (a default proposed,
// "should we … by default?", 0.85; an objection, "… just for that?",
// "do we really need …"; an order of work; 0.7). 0.9 with a rule
// lead-in (naming a rule, requirement, constraint, policy, or
// "important", "before you start", "keep in mind"), 0.8 with another
// lead-in, 0.7 for a prohibition alone, 0.6 for an obligation alone; a
// rule lead-in before a plain statement is 0.6. A later sentence of the
// person's that takes an instruction back ("actually", "scratch that",
// "instead", "forget what I said", "never mind", "no longer", "you can
// now", "it's fine to") drops every constraint it shares half, and at
// least two, of the content words of: superseded constraints are not
// proposed. The literal is the sentence after the lead-in, without its
// final full stop. When no rule of those tables fires, the cue rules
// (propCues, propose_cues.go) read a person's sentence that is prose and
// not a request for information: a "don't" or "never" opening a clause
// (0.75), a judgement ("isn't really checking", "is overkill", "on
// purpose", "I would have expected", "I like that", 0.7), a preference
// ("I'd go with", "ideally", "a better idea", "instead of", 0.65), a
// correction ("no, revert …", "no, that is …", 0.6), a rule from now on
// ("from now on", "going forward", 0.65), a limit in time ("for now", "at
// least", 0.55), keep, leave, skip or revert after a connective (0.55), a
// choice among named or numbered options or by position ("let's go with
// the second approach", "let's use X"), a scope ("only for"), a "should"
// or "must" binding the work or a need that will recur ("we would need
// this with any other agent later too"), a specification ("order by", 0.5
// each). A question objects by its form too: a negative auxiliary
// ("doesn't git know …?"), a lapse ("we didn't write any tests?"), a
// problem checked ("the issue is that …, right?"), 0.7, or a request
// that sets a lasting property ("can we … so it always …?", 0.55).
//
// Commitment (assistant sentences): a sentence that opens with "I'll",
// "I will", "I won't", "I'm going to" or "I plan to" (or has one after a
// leading clause ending in a comma or a dash), 0.9 when a rule of
// propCommitments binds it beyond the next step — a refusal ("I won't",
// "I'll never"), a later moment or a condition (until, unless, once, as
// soon as, only after, only if you…, from now on, going forward, for
// now — "only when X is true" is the code's condition, not one), asking or
// waiting first ("I'll ask before deleting"), keeping or leaving
// something ("I'll keep httpx pinned"), a contrast ("against develop, not
// main"). A plain "I'll …" is narration of the next step when its step
// calls a tool, and no commitment; in a step without tool calls, said to
// the person, it is a promise about later work, 0.7. A sentence ending
// in a colon, "I'll start/first …", "First, I'll …" and "I'll keep it
// simple" are never commitments, nor, in a step that calls a tool, a
// sentence ordering the next steps (first, then, now, next). Without
// "I'll", a decision of propDecisions is a commitment: keeping something
// as it is ("leaving it in place is correct", 0.7; "Keep the current
// implementation as-is", 0.55 to 0.6), something skipped on purpose, a
// suggestion declined as overkill, a verdict that needs no change ("not
// part of this change", "Deferred —"), a rule the agent sets itself or
// a scope for the change (0.55 to 0.6).
//
// Steer (a person's follow-up messages, turn 2 on): a message no
// constraint rule read gives one constraint, 0.4 — below
// DefaultMinConfidence — from its sentence that asks for or decides
// something (propose_steer.go).
//
// Open question (a person's sentences ending in "?"): requests ("Can
// you…", "Could you…", "Would you…", "Will you…", "Please…") and
// questions about the work in hand (why, what, how, where, when, who —
// unless they ask what should be done) are not. Otherwise 0.9 after a
// lead-in that defers it ("Question for later:", "Something I haven't
// decided:", "Not for now, but:", "Thinking ahead."), else 0.8 with two
// or more signs of a pending decision (should or shall; we, us or our;
// an alternative " or "; better, acceptable, OK, worth, prefer, still),
// 0.65 with one, 0.3 with none. A question counts as answered — 0.2 —
// when a later message that is not itself a question shares at least
// half (and at least two) of its content words, and as the work in hand
// — 0.3 — when the assistant says something after it in the same turn
// (a deferred question excepted).
//
// Reference (either side), each a row of propRefPatterns with its example
// and near miss: a URL; a file with a line (x.go:12), a revision
// (report.md rev 14) or a section (notes/perf.md §4); a document section
// (runbook section 3.4); a commit ("commit" and 7–40 hex digits, 0.85;
// bare hex with a letter and a digit, 0.6); a pull request (PR #12, or
// #12 alone); a ticket (ticket DATA-4073, 0.85; a bare key such as
// DATA-4073, 0.65); a CI build, job or pipeline number; a numbered run;
// a snapshot; a dashboard panel; a branch whose name looks like one
// ("branch feature/x-2", "parent a/b", origin/x — never "branch is"; the
// name alone is the literal), and any branch the session's git commands
// named, found by name in prose; a long numeric id (a review comment's,
// 0.6); a quoted a/b name (`entire/sessions`, 0.6); a bare path
// (pkg/x.go, x.go, 0.6). What the session's tool calls did decides how
// sure one is (propWorkOf, propRefConfidence): what a person typed keeps
// its confidence; what the assistant names keeps it only when it acted
// on it — a file it edited, wrote, created or moved (or whose place a
// sentence gives as a diagnosed cause: "the bug is at x.go:12"), a hash
// a git command or its output showed, a pull request or issue it
// commented on, reviewed or created (or named in three gh commands), a
// review comment it fetched or answered by id — and is 0.3 (working
// state: files only read, session ids, example values, package paths)
// otherwise. A file changed in a shell loop counts as changed ("for f
// in a.go pkg/*.go; do sed -i … \"$f\"; done": the list's words, a
// pattern matched segment by segment from the end). What a person pasted
// as program output — a typed message of five lines or more, fewer than
// a third of them prose — is read like the agent's text: an identifier
// on a line of it that is not prose is kept only when the agent acted on
// it; a file named on a line typedProse left out of a person's message
// (a linter's "x.go:14:2: …") is read the same way, kept when the agent
// then changed it. A temporary, system or CI runner's path (/tmp, /var/folders,
// tmp.XXXXXX, /usr/bin, /home/runner) is 0.3 whoever names it. A "Section 3" heading with no
// document named is 0.3. In a
// session without tool calls the text decides: an assistant's bare path
// is 0.6 in a sentence about changing files or in a summary line. A
// reference is proposed once, where it first appears: a bare path's and
// a file:line's identity is its file's path, and one path that is the
// tail of another names the same file (a file:line after the bare file
// replaces it), a pull request's its number, a commit's its
// first seven digits; a later, surer mention raises the first one's
// confidence.
//
// Drafted probes and expected answers, per class: a prohibition asks "Is
// the agent forbidden to …?" ("yes"), "Does the user forbid …?" ("yes") or
// "May <subject> …?" ("no"); an obligation "Must the agent …?" ("yes"); a
// plain rule "Does this rule from the user still hold: …?" ("yes"); a
// commitment "What did the assistant commit to about <object>?" (what it
// said it would do); an open question "Has the user decided this question
// yet: …?" ("no — still open"); a reference "Which <kind> does “<the
// sentence, the reference elided>” refer to?" (the reference). "me", "my"
// and "I" of a user become "the user" in a probe. They are drafts: review
// is where a person fixes them.
func Propose(s *agentlog.Session, opts ProposeOptions) Proposal {
	p := &propProposer{seenRefs: map[string]int{}, seenLits: map[string]bool{}, work: propWorkOf(s)}
	p.index(propUtterances(s))
	for i, u := range p.utts {
		p.message(i, u)
		p.pastedRefs(u)
	}
	out := Proposal{ConversationID: s.ID, Turns: len(s.Turns), CompactionsExpected: len(s.Compactions), Candidates: []ProposedItem{}}
	for i, c := range p.items {
		if p.dropped[i] || c.Confidence < opts.MinConfidence {
			continue
		}
		c.ID = "c" + strconv.Itoa(len(out.Candidates)+1)
		out.Candidates = append(out.Candidates, c)
	}
	return out
}

// propConstraint is a constraint proposed: its content words and its
// index in items.
type propConstraint struct {
	words map[string]bool
	item  int
}

// propUtterance is one text the classifier reads: a typed message
// (role "user") or a step's text (role "assistant"), at its 1-based
// typed turn.
type propUtterance struct {
	turn int
	role string
	text string
	// raw is the message as it was typed, when text is a reading of it
	// (propTypedText): a literal must be in it ("" when text is).
	raw string
	// line is the log line the text starts on (a tool result's for a
	// reply typed into one; 0 when the format does not say).
	line int
	// acts is whether the step also calls a tool: its "I'll …" then
	// narrates what the call does.
	acts bool
	// plan is whether the text is a plan the agent wrote that the person
	// accepted (acceptedPlan): its references count, its rules and
	// questions are the agent's.
	plan bool
	// output is whether the typed message is mostly pasted program
	// output (propOutputMessage): an identifier on a line of it that is
	// not prose counts as the agent's mention would, kept only when the
	// agent acted on it.
	output bool
	// reply is whether the person typed the text into a tool call's
	// result — refusing the call, answering the agent's question — and
	// not as a prompt: it is never the task's first prompt.
	reply bool
	// refusal is whether the reply is what the person typed when
	// refusing a tool call (propRejectionText): a redirection.
	refusal bool
	// queued is whether the person typed the message while the agent
	// worked (agentlog.Queued): a follow-up, never the task's first
	// prompt, whatever its turn.
	queued bool
	// pasted is what propProse left out of a typed message (program
	// output, code, quoted lines): its identifiers count as the agent's
	// mentions do, kept only when the agent acted on them (pastedRefs).
	pasted string
	// review is the code review comment the person pasted into a typed
	// message (propReviewText): its sentences name references, and no
	// rule reads them as the person's constraint or question.
	review string
}

// propUtterances returns s's typed messages and step texts in the order
// they were said: a message that Step steps preceded comes before step
// Step. What a person typed when refusing a tool call (propRejectionText)
// or answering the agent's questions (propAnswerText) follows the step
// that made the call.
func propUtterances(s *agentlog.Session) []propUtterance {
	out := make([]propUtterance, 0, len(s.Messages)+len(s.Steps))
	mi := 0
	addMessages := func(upTo int) {
		for ; mi < len(s.Messages) && s.Messages[mi].Step <= upTo; mi++ {
			m := s.Messages[mi]
			if !m.Person() {
				continue
			}
			if text := propTypedText(m); text != "" {
				u := propUtterance{turn: max(1, m.Turn+1), role: "user", text: text, raw: m.Text, plan: acceptedPlan(m.Text), output: !acceptedPlan(m.Text) && propOutputMessage(m.Text), queued: m.Kind == agentlog.Queued, line: m.Line}
				if m.Kind == agentlog.Typed || m.Kind == agentlog.Queued {
					u.pasted = propPastedText(m.Text, text)
					if !u.plan && !u.output {
						u.review = propReviewText(text)
					}
				}
				out = append(out, u)
			}
		}
	}
	for i, st := range s.Steps {
		addMessages(i)
		turn := max(1, st.Turn+1)
		if strings.TrimSpace(st.Text) != "" {
			out = append(out, propUtterance{turn: turn, role: "assistant", text: st.Text, acts: len(st.Calls) > 0, line: cmp.Or(st.TextLine, st.Line)})
		}
		for _, c := range st.Calls {
			line := cmp.Or(c.ResultLine, st.Line)
			if text := propRejectionText(c); text != "" {
				out = append(out, propUtterance{turn: turn, role: "user", text: text, reply: true, refusal: true, line: line})
			}
			if text := propAnswerText(c); text != "" {
				out = append(out, propUtterance{turn: turn, role: "user", text: text, reply: true, line: line})
			}
		}
	}
	addMessages(math.MaxInt)
	return out
}

// propProposer is the classifier's state over one session.
type propProposer struct {
	utts        []propUtterance
	words       []map[string]bool // content words of each utterance
	question    []bool            // the utterance is a question
	items       []ProposedItem
	dropped     []bool           // items[i] was superseded by a later message
	constraints []propConstraint // each constraint proposed
	seenRefs    map[string]int   // a reference's identity → its index in items
	seenLits    map[string]bool  // class + literal already proposed
	lastSent    string           // the person's last message, its words joined by one space
	work        *propWork        // what the session's tool calls worked on
	fileIDs     []string         // the file identities seen (refIdentity), in order
}

func (p *propProposer) index(utts []propUtterance) {
	p.utts = utts
	p.words = make([]map[string]bool, len(utts))
	p.question = make([]bool, len(utts))
	for i, u := range utts {
		p.words[i] = propContentWords(u.text)
		p.question[i] = strings.HasSuffix(strings.TrimSpace(u.text), "?")
	}
}

// message classifies the sentences of utterance i. A message the same,
// word for word, as the person's last one is passed over: sent again
// after an interruption, it says nothing new. (An earlier instruction
// repeated after others is read: it may restore one taken back.)
func (p *propProposer) message(i int, e propUtterance) {
	if e.role == "user" {
		key := strings.Join(strings.Fields(e.text), " ")
		if key != "" && key == p.lastSent {
			return
		}
		p.lastSent = key
	}
	sentences := sentences(e.text)
	prev := ""
	before := len(p.items)
	for k, s := range sentences {
		next := ""
		if k+1 < len(sentences) {
			next = sentences[k+1]
		}
		p.sentence(i, e, s, prev, next)
		prev = s
	}
	if e.role == "user" && !e.plan && !e.output && (e.turn >= 2 || e.reply || e.queued) && !p.ruleSince(before) {
		p.steer(e, before)
	}
}

// propGuess is one classification of a sentence.
type propGuess struct {
	class      fixture.Class
	literal    string
	probe      string
	expect     string
	confidence float64
	rule       string
	// kind and context are a reference's: what it names ("file",
	// "commit") and its sentence with the reference elided, which the
	// probe quotes (propRefProbe).
	kind, context string
}

func (p *propProposer) sentence(i int, e propUtterance, s, prev, next string) {
	lead, body := propLeadIn(s)
	if lead == "" && propShortSentence(prev) {
		// "Thinking ahead. Is …?": a short sentence before counts as a
		// lead-in only when it names a rule or defers a question.
		if pl := propNormalize(prev); propRuleLead.MatchString(pl) || propDeferLead.MatchString(pl) {
			lead = strings.TrimRight(prev, ".!:;, ")
		}
	}
	var best *propGuess
	consider := func(g *propGuess) {
		if g != nil && (best == nil || g.confidence > best.confidence) {
			best = g
		}
	}
	isQuestion := strings.HasSuffix(s, "?")
	if e.role == "user" && !isQuestion && !inReview(e.review, s) && propReversal.MatchString(propNormalize(s)) {
		p.supersede(s)
	}
	switch {
	case e.plan, inReview(e.review, s):
	case e.role == "user":
		if isQuestion && !propDeclarative(body) {
			consider(p.openQuestion(i, lead, body))
			consider(p.objection(s, body))
		} else if isQuestion {
			// A statement said with a rising tone ("I don't like turn,
			// any other suggestions?"): a rule in it is a rule.
			consider(p.openQuestion(i, lead, body))
			consider(p.objection(s, body))
			consider(p.constraint(s, lead, strings.TrimRight(body, "?")))
		} else {
			consider(p.constraint(s, lead, body))
		}
	default:
		consider(propCommitment(s, e.acts))
	}
	refRole := e.role
	if e.output && !propProseSentence(s) {
		refRole = "pasted"
	}
	refs := propReferencesIn(s, refRole, p.work)
	for k := range refs {
		r := &refs[k]
		// "Committed as `abc1234`." says nothing of which commit: the
		// sentence before it in the message does.
		if propRefProbeWords(r.context) < 3 && prev != "" {
			before := strings.Fields(prev)
			if len(before) > propRefContextWords {
				before = append([]string{"…"}, before[len(before)-propRefContextWords:]...)
			}
			r.context = strings.Join(before, " ") + " " + r.context
		}
		// A heading of the agent's summary ("### 3. `strategy/x.go`")
		// says nothing of the file either: the line under it does.
		if propRefProbeWords(r.context) < 2 && next != "" {
			after := strings.Fields(next)
			if len(after) > propRefContextWords {
				after = append(after[:propRefContextWords], "…")
			}
			r.context += " " + strings.Join(after, " ")
		}
		r.probe = propRefProbe(r.kind, r.context, refRole)
	}
	if len(refs) > 0 {
		top := refs[0]
		for _, r := range refs[1:] {
			if r.confidence > top.confidence {
				top = r
			}
		}
		// The references come with the sentence's rule or commitment
		// when that is a person's rule or the agent's commitment (not
		// an open question, which a reference in it outranks).
		withRule := best != nil && best.class != fixture.OpenQuestion && best.confidence >= DefaultMinConfidence && !strings.HasSuffix(best.rule, "obligation/norm")
		if best == nil || top.confidence > best.confidence || withRule {
			p.addRefs(e, refs)
			// A person's rule or the agent's commitment in the same
			// sentence ("write a comment in #172, I'll handle it over
			// there") is proposed beside its references — unless the
			// rule only points at the reference ("follow runbook
			// section 3.4": the reference is the item).
			if !withRule {
				return
			}
		}
	}
	if best != nil && e.role == "user" && best.class == fixture.Constraint {
		p.agentContext(i, best)
	}
	if best != nil {
		// A constraint is remembered only when proposed: the same
		// words proposed before are not proposed again (add).
		if item := len(p.items); p.add(e, *best) && best.class == fixture.Constraint {
			p.constraints = append(p.constraints, propConstraint{words: propContentWords(best.literal), item: item})
		}
	}
}

// add proposes g, found in what e said, unless its class and literal
// were proposed before; it reports whether it did.
func (p *propProposer) add(e propUtterance, g propGuess) bool {
	key := string(g.class) + "\x00" + g.literal
	if p.seenLits[key] {
		return false
	}
	p.seenLits[key] = true
	if src := strings.ReplaceAll(cmp.Or(e.raw, e.text), "\r\n", "\n"); strings.Contains(g.literal, "\n") && !strings.Contains(src, g.literal) {
		// A sentence read across a line break the message does not
		// have as such (a blank line or spaces between, which the
		// reading took out): its first line, which the message has.
		// ("\r\n" is a line break as "\n" is: the verbatim check
		// compares them alike.)
		g.literal, _, _ = strings.Cut(g.literal, "\n")
	}
	if strings.ContainsAny(g.probe+g.expect, "\r\n") { // a question is one line
		g.probe, g.expect = strings.Join(strings.Fields(g.probe), " "), strings.Join(strings.Fields(g.expect), " ")
	}
	p.dropped = append(p.dropped, false)
	p.items = append(p.items, ProposedItem{
		Class: g.class, Turn: e.turn, Role: e.role, Literal: g.literal, Probe: g.probe, Expect: g.expect,
		Confidence: propClamp(g.confidence), Rule: g.rule, Status: ReviewPending, Message: e.text, Line: e.line,
	})
	return true
}

// propReversal marks a person's sentence that takes back or replaces an
// earlier instruction: "actually", "scratch that", "instead", "forget
// what I said", "never mind", "no longer", "you can now", "it's fine to".
var propReversal = regexp.MustCompile(`^(actually|scratch that|change of plan|on second thought|correction)\b|\b(instead|forget (that|what i said|about)|never ?mind|ignore (that$|what i said|my (earlier|previous|last))|changed my mind|no longer|not anymore|any ?more|you can now|go ahead and|it's (fine|ok|okay) to|feel free to)\b`)

// supersede drops every constraint proposed so far that sentence s, which
// takes back or replaces an instruction, is about: at least half, and at
// least two, of the constraint's content words are in s. A constraint s
// states in their place is proposed as usual. The same words sent again
// (a message typed a second time after an interruption) take nothing
// back.
func (p *propProposer) supersede(s string) {
	words := propContentWords(s)
	again := propNormalize(strings.TrimRight(s, ". "))
	kept := p.constraints[:0]
	for _, c := range p.constraints {
		if propNormalize(p.items[c.item].Literal) == again {
			kept = append(kept, c)
			continue
		}
		n := 0
		for w := range c.words {
			if words[w] {
				n++
			}
		}
		if n >= 2 && 2*n >= len(c.words) {
			p.dropped[c.item] = true
			delete(p.seenLits, string(fixture.Constraint)+"\x00"+p.items[c.item].Literal)
			continue
		}
		kept = append(kept, c)
	}
	p.constraints = kept
}

// propClamp keeps a confidence inside [0, 1]; it guards the invariant
// against future rule edits.
func propClamp(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(1, max(0, x))
}
