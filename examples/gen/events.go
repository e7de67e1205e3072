package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// NumLogged is the number of sessions whose full event log is kept.
const NumLogged = 2_000

// toolCall is one tool call of a turn: the tool, its arguments as
// canonical JSON, and what the arguments say (for the tool's result).
type toolCall struct {
	Tool    string
	Args    string
	Path    string
	Start   int // read_file: first line (0: the whole file)
	End     int
	Pattern string
	Command string
	// Sure marks an edit that must succeed in the log: the change a work
	// look-alike hinges on (signals_work.go).
	Sure bool
}

// key identifies a call: tool and arguments.
func (c toolCall) key() string { return c.Tool + " " + c.Args }

// turnPlan is what happens in one turn, in this order: the compaction (if
// one runs), the user's message, the tool calls, the assistant's message.
type turnPlan struct {
	Compaction bool
	User       string
	Calls      []toolCall
	Assistant  string
	Item       int  // the index of the item stated at this turn, or -1
	Injected   bool // the user message is an injected restatement
}

// sessionLog is one session's event log while it is built.
type sessionLog struct {
	s     *Session
	th    *theme
	items []itemText // parallel to s.Items
	turns []turnPlan // turns[t-1] is turn t
	seen  map[string]bool
	truth []truthLine
	// cc: the log is written in Claude Code's format, so the plan keeps
	// its truth under Claude Code's identity of calls (ccplan.go).
	cc bool
}

func (l *sessionLog) turn(t int) *turnPlan { return &l.turns[t-1] }

// orderedArgs renders key/value pairs as a JSON object in the given
// order: the canonical form of a tool call's arguments.
func orderedArgs(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, _ := marshalNoEscape(kv[i+1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func readFile(path string, start, end int) toolCall {
	if start == 0 {
		return toolCall{Tool: "read_file", Args: orderedArgs("path", path), Path: path}
	}
	return toolCall{Tool: "read_file", Args: orderedArgs("path", path, "start_line", start, "end_line", end), Path: path, Start: start, End: end}
}

func grepCall(pattern, path string) toolCall {
	return toolCall{Tool: "grep", Args: orderedArgs("pattern", pattern, "path", path), Path: path, Pattern: pattern}
}

func testCall(cmd string) toolCall {
	return toolCall{Tool: "run_tests", Args: orderedArgs("command", cmd), Command: cmd}
}

// drawCall draws one background tool call; it may repeat an earlier
// one, which the caller rejects.
func (l *sessionLog) drawCall(r *rand.Rand) toolCall {
	th := l.th
	f := pick(r, th.Files)
	switch weighted(r, []float64{0.34, 0.15, 0.18, 0.15, 0.05, 0.13}) {
	case 0:
		if chance(r, 0.35) {
			return readFile(f, 0, 0)
		}
		a := 1 + r.IntN(420)
		return readFile(f, a, a+20+r.IntN(180))
	case 1:
		pat := pick(r, th.Funcs)
		if chance(r, 0.4) {
			pat = pick(r, []string{"TODO", "FIXME", "panic(", "context.Background", "time.Now", "retry", "deleted_at", "Round", "cursor", "Println", "rate", "tenant_id", "ErrNotFound", "mock"})
			if l.cc && pat == "panic(" {
				pat = `panic\(` // Grep takes a regular expression
			}
		}
		return grepCall(pat, pick(r, []string{th.Dir, ".", th.Dir + "/...", "cmd", "tests"}))
	case 2:
		a, b := editLine(r, th), editLine(r, th)
		return toolCall{Tool: "edit_file", Args: orderedArgs("path", f, "old", a, "new", b), Path: f}
	case 3:
		cmd := th.Lang.TestCmd(th.Dir, pick(r, th.Tests))
		if chance(r, 0.3) {
			cmd += pick(r, []string{" -count=1", " -race", " -v", " --maxfail=1", " --reporter=verbose"})
		}
		return testCall(cmd)
	case 4:
		return toolCall{Tool: "list_dir", Args: orderedArgs("path", pick(r, []string{th.Dir, ".", "cmd", "docs", "tests", th.Dir + "/testdata"})), Path: th.Dir}
	default:
		cmd := pick(r, []string{"git status --short", "git diff --stat", "git log --oneline -8", "make lint", "git diff " + f, "git log -p -3 -- " + f, "git blame -L " + fmt.Sprint(1+r.IntN(300)) + ",+20 " + f, "make build", "git stash list", "wc -l " + f})
		if l.cc && cmd == "git stash list" {
			cmd = "git branch --show-current" // a repeat classifier reads any git stash as changing the tree
		}
		return toolCall{Tool: "run_command", Args: orderedArgs("command", cmd), Command: cmd}
	}
}

// editLine draws a line specific enough to be an edit's old or new text.
func editLine(r *rand.Rand, th *theme) string {
	for {
		if l := codeLine(r, th); len(strings.TrimSpace(l)) >= 12 {
			return strings.TrimSpace(l)
		}
	}
}

// uniqueCall draws a background call at turn t that repeats no earlier
// call of the session (and, in Claude Code's format, makes no repeat
// across a compaction: ccConflict), or reports false.
func (l *sessionLog) uniqueCall(r *rand.Rand, t int) (toolCall, bool) {
	for range 12 {
		c := l.drawCall(r)
		if !l.seen[c.key()] && !(l.cc && l.ccConflict(c, t)) {
			l.seen[c.key()] = true
			return c, true
		}
	}
	return toolCall{}, false
}

var backgroundUser = []string{
	"ok, go ahead", "Sounds good, carry on.", "What does the failing test say?", "Can you show me the diff so far?",
	"Thanks. Keep going.", "How far along are you?", "Looks right to me.", "Good catch.", "Let's see the test output.",
	"Fine by me.", "Does %f need changes too?", "Can you check %f as well?", "Why is %t failing?", "Try the other approach then.",
	"Yes, that's what I meant.", "Makes sense.", "Go with the simpler version.", "Nice, that reads better.", "Hm, not what I expected. Dig into %f.",
}

var backgroundAssistant = []string{
	"Reading %f to see how %u is wired.", "%t fails: expected 1200, got 1199.", "Edited %f: %u now returns the wrapped error.",
	"Tests in %d pass except %t.", "Running %t with the race detector.", "Found the caller of %u in %f.",
	"The fix works locally; checking the other callers.", "Looking for other uses of %u.", "%u is only called from %f.",
	"Split %u into two smaller functions.", "Added a table test for %u.", "All tests in %d pass.",
	"The failure is a nil map write in %u.", "That grep found three call sites; updating them.", "%t passes now.",
	"The diff is 40 lines so far, all in %f.", "Lint is clean.", "%u takes the tenant from the context now.",
}

// fill substitutes a file (%f), test (%t), function (%u) and folder (%d).
func fill(r *rand.Rand, th *theme, s string) string {
	s = strings.ReplaceAll(s, "%f", pick(r, th.Files))
	s = strings.ReplaceAll(s, "%t", pick(r, th.Tests))
	s = strings.ReplaceAll(s, "%u", pick(r, th.Funcs))
	return strings.ReplaceAll(s, "%d", th.Dir)
}

// newSessionLog lays out a session's turns: the task, background
// messages and tool calls, the items' messages at their turns, and the
// compactions.
func newSessionLog(seed uint64, s *Session, items []itemText, th *theme, cc bool) *sessionLog {
	r := stream(seed, "events/"+s.ID)
	l := &sessionLog{s: s, th: th, items: items, turns: make([]turnPlan, s.Turns), seen: make(map[string]bool), cc: cc}
	usedUser := make(map[int]bool)
	for t := 1; t <= s.Turns; t++ {
		p := l.turn(t)
		p.Item = -1
		if t == 1 {
			p.User = th.Task
		} else if chance(r, 0.15) {
			i := r.IntN(len(backgroundUser))
			if !l.cc || !usedUser[i] { // in Claude Code's format, each at most once a session
				p.User = fill(r, th, backgroundUser[i])
				usedUser[i] = true
			}
		}
		n := []int{0, 0, 1, 1, 1, 1, 1, 2}[r.IntN(8)]
		for range n {
			if c, ok := l.uniqueCall(r, t); ok {
				p.Calls = append(p.Calls, c)
			}
		}
		switch {
		case t == 1:
			p.Assistant = fill(r, th, pick(r, []string{"Starting with %f to get the lay of the land.", "First a look at %d.", "Let me find where %u lives."}))
		case len(p.Calls) == 0 || chance(r, 0.25):
			p.Assistant = fill(r, th, pick(r, backgroundAssistant))
		}
	}
	for _, c := range s.Compactions {
		l.turn(c).Compaction = true
	}
	for i, it := range s.Items {
		p := l.turn(it.Turn)
		p.Item = i
		if items[i].Role == "user" {
			p.User = items[i].Say
			if items[i].Class == "open_question" {
				p.Assistant = "" // nobody answers it
				if len(p.Calls) == 0 {
					if c, ok := l.uniqueCall(r, it.Turn); ok {
						p.Calls = append(p.Calls, c)
					}
				}
			}
		} else {
			p.Assistant = items[i].Say
		}
	}
	return l
}

// event is one line of an event log.
type event struct {
	SessionID string          `json:"session_id"`
	Turn      int             `json:"turn"`
	TS        string          `json:"ts,omitempty"`
	Kind      string          `json:"kind"`
	Role      string          `json:"role,omitempty"`
	Text      string          `json:"text,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
}

// writeEvents appends the session's events to buf, with timestamps that
// advance through the session.
func (l *sessionLog) writeEvents(seed uint64, buf *bytes.Buffer) error {
	r := stream(seed, "timestamps/"+l.s.ID)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	at := l.s.Started
	emit := func(e event) error {
		e.SessionID, e.TS = l.s.ID, at.Format(time.RFC3339)
		at = at.Add(time.Duration(1+r.IntN(4)) * time.Second)
		return enc.Encode(e)
	}
	for t := 1; t <= l.s.Turns; t++ {
		p := l.turn(t)
		if p.Compaction {
			if err := emit(event{Turn: t, Kind: "compaction"}); err != nil {
				return err
			}
		}
		if p.User != "" {
			if t > 1 {
				at = at.Add(time.Duration(15+r.IntN(240)) * time.Second) // the user reads and types
			}
			if err := emit(event{Turn: t, Kind: "message", Role: "user", Text: p.User}); err != nil {
				return err
			}
		}
		for _, c := range p.Calls {
			at = at.Add(time.Duration(2+r.IntN(20)) * time.Second)
			if err := emit(event{Turn: t, Kind: "tool_call", Tool: c.Tool, Args: json.RawMessage(c.Args)}); err != nil {
				return err
			}
		}
		if p.Assistant != "" {
			at = at.Add(time.Duration(3+r.IntN(25)) * time.Second)
			if err := emit(event{Turn: t, Kind: "message", Role: "assistant", Text: p.Assistant}); err != nil {
				return err
			}
		}
		at = at.Add(time.Duration(5+r.IntN(30)) * time.Second)
	}
	return nil
}
