package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/selection"
)

// The quarter with its logs in Claude Code's format, read as any
// consumer reads it: week files through agentlog, truth.jsonl and
// sessions.jsonl as JSON. It is the committed data once that is in this
// format; until then a generation into a temporary folder
// (go run ./examples/gen -format claude-code).

var ccQuarter = &quarterDir{format: FormatClaudeCode, committedIs: committedIsClaudeCode}

// TestMain removes the temporary generations, if any were made.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, q := range []*quarterDir{ccQuarter, tallyQuarter} {
		if q.tmp != "" {
			os.RemoveAll(q.tmp)
		}
	}
	os.Exit(code)
}

// committedIsClaudeCode is whether the committed logs are in Claude
// Code's format.
func committedIsClaudeCode() bool {
	_, err := os.Stat(filepath.Join(committed, "events", "week-01.jsonl.gz"))
	return err == nil
}

// ccDir is a folder holding the quarter in Claude Code's format.
func ccDir(t *testing.T) string { t.Helper(); return ccQuarter.path(t) }

// ccLogs is what the Claude Code-format quarter holds.
type ccLogs struct {
	dir      string
	sessions map[string]*agentlog.Session
	where    map[string]string // the week file each session is in
	truth    []truthRec
}

var (
	ccLogsOnce sync.Once
	ccLogsData *ccLogs
	ccLogsErr  error
)

func loadCCLogs(t *testing.T) *ccLogs {
	t.Helper()
	dir := ccDir(t)
	ccLogsOnce.Do(func() {
		d := &ccLogs{dir: dir, sessions: map[string]*agentlog.Session{}, where: map[string]string{}}
		files, err := filepath.Glob(filepath.Join(dir, "events", "week-*.jsonl.gz"))
		if err != nil || len(files) != Weeks {
			ccLogsErr = fmt.Errorf("%d week files (%v), want %d", len(files), err, Weeks)
			return
		}
		for _, f := range files {
			ss, err := agentlog.OpenAll(f, "")
			if err != nil {
				ccLogsErr = err
				return
			}
			for _, s := range ss {
				if d.sessions[s.ID] != nil {
					ccLogsErr = fmt.Errorf("%s: %s's records are not together", f, s.ID)
					return
				}
				d.sessions[s.ID], d.where[s.ID] = s, f
			}
		}
		ccLogsData = d
	})
	if ccLogsErr != nil {
		t.Fatal(ccLogsErr)
	}
	if ccLogsData.truth == nil {
		eachLine(t, filepath.Join(dir, "events", "truth.jsonl"), func(x truthRec) { ccLogsData.truth = append(ccLogsData.truth, x) })
	}
	return ccLogsData
}

// ccIndex is one session's log by plan turn (turns count typed prompts
// from 1).
type ccIndex struct {
	s           *agentlog.Session
	compactions []int
	user        map[int]string // the typed prompt of a turn
	assistant   map[int]string // the text of a turn's steps
	calls       map[string]ccRef
}

// ccRef is one call and where it is.
type ccRef struct {
	turn int
	call agentlog.ToolCall
}

func indexCC(s *agentlog.Session) *ccIndex {
	x := &ccIndex{s: s, user: map[int]string{}, assistant: map[int]string{}, calls: map[string]ccRef{}}
	for _, c := range s.Compactions {
		x.compactions = append(x.compactions, c.Turn+1)
	}
	for i, tn := range s.Turns {
		x.user[i+1] = s.Messages[tn.Message].Text
	}
	for _, st := range s.Steps {
		if st.Text != "" {
			x.assistant[st.Turn+1] = join(x.assistant[st.Turn+1], st.Text)
		}
		for _, c := range st.Calls {
			x.calls[c.UUID] = ccRef{st.Turn + 1, c}
		}
	}
	return x
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// ccCallIdentity is what makes two calls the same call, written here
// from Claude Code's inputs alone (Bash: the command, whatever the
// description; Read: the file and its line range; Grep: pattern and
// folder, no path meaning the working directory).
type ccCallIdentity struct {
	tool, key string
	lo, hi    int // Read's lines; hi 0: to the end
}

func identify(cwd string, c agentlog.ToolCall) (ccCallIdentity, error) {
	var in struct {
		Command, Pattern, Path string
		FilePath               string `json:"file_path"`
		OldString              string `json:"old_string"`
		Offset, Limit          int
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return ccCallIdentity{}, err
	}
	id := ccCallIdentity{tool: c.Name}
	switch c.Name {
	case "Bash":
		id.key = strings.Join(strings.Fields(in.Command), " ")
	case "Read":
		id.key, id.lo = in.FilePath, max(in.Offset, 1)
		if in.Limit > 0 {
			id.hi = id.lo + in.Limit - 1
		}
	case "Grep":
		p := in.Path
		if p == "" {
			p = cwd
		}
		id.key = in.Pattern + "\x00" + path.Clean(p)
	case "Edit":
		id.key = in.FilePath + "\x00" + in.OldString
	default:
		return id, fmt.Errorf("tool %s", c.Name)
	}
	return id, nil
}

// same is whether two identities are the same call.
func (a ccCallIdentity) same(b ccCallIdentity) bool {
	if a.tool != b.tool || a.key != b.key {
		return false
	}
	if a.tool == "Read" {
		return (a.hi == 0 || b.lo <= a.hi) && (b.hi == 0 || a.lo <= b.hi)
	}
	return true
}

// TestClaudeCodeEventLogs: 2,000 logs in Claude Code's format, every
// fixture's among them, in the week they started; each read whole (no
// record skipped, no result without its call, every call with its
// result, uuids unique), with a typed prompt for every turn, the
// compactions where the summary puts them and a summary after each, the
// tools and inputs of Claude Code, and every item's message at its turn
// with each fixture literal in it.
func TestClaudeCodeEventLogs(t *testing.T) {
	d := loadCCLogs(t)
	if len(d.sessions) != NumLogged {
		t.Errorf("%d logged sessions, want %d", len(d.sessions), NumLogged)
	}
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	fixtureOf := loggedFixtures(t, d.dir, func(id string) bool { return d.sessions[id] != nil })
	for id, ls := range d.sessions {
		s := sessions[id]
		if s == nil || s.countsOnly {
			t.Errorf("%s: logged but not in sessions.jsonl with lists", id)
			continue
		}
		if !strings.HasSuffix(d.where[id], fmt.Sprintf("week-%02d.jsonl.gz", weekOf(t, s))) {
			t.Errorf("%s: started in week %d but logged in %s", id, weekOf(t, s), d.where[id])
		}
		// Skipped: a file-history snapshot after each prompt, and turn
		// durations; nothing else.
		skipOK := ls.Records.Skipped["file-history-snapshot"] == s.Turns && len(ls.Records.Skipped) <= 2
		for k := range ls.Records.Skipped {
			skipOK = skipOK && (k == "file-history-snapshot" || k == "system/turn_duration")
		}
		if !skipOK || ls.OrphanResults > 0 || ls.Cwd == "" {
			t.Errorf("%s: skipped %v, %d orphan results, cwd %q", id, ls.Records.Skipped, ls.OrphanResults, ls.Cwd)
		}
		if len(ls.Turns) != s.Turns {
			t.Errorf("%s: %d typed prompts, the summary says %d turns", id, len(ls.Turns), s.Turns)
			continue
		}
		x := indexCC(ls)
		if !slices.Equal(x.compactions, s.compactions) {
			t.Errorf("%s: compactions at turns %v, summary says %v", id, x.compactions, s.compactions)
		}
		uuids := map[string]bool{}
		unique := func(u string) {
			if u == "" || uuids[u] {
				t.Errorf("%s: uuid %q missing or used twice", id, u)
			}
			uuids[u] = true
		}
		for _, c := range ls.Compactions {
			if c.Trigger != "auto" || c.PreTokens < CompactionThreshold || !strings.HasPrefix(c.Summary, "This session is being continued") {
				t.Errorf("%s: compaction at line %d: trigger %q, %d tokens before, summary %.40q", id, c.Line, c.Trigger, c.PreTokens, c.Summary)
			}
			unique(c.UUID)
			unique(c.SummaryUUID)
		}
		for _, m := range ls.Messages {
			if m.Kind != agentlog.CompactSummary {
				unique(m.UUID)
			}
		}
		for _, st := range ls.Steps {
			for _, u := range st.UUIDs {
				unique(u)
			}
			for _, c := range st.Calls {
				if !c.HasResult {
					t.Errorf("%s: %s call %s has no result", id, c.Name, c.ID)
				}
				if _, err := identify(ls.Cwd, c); err != nil {
					t.Errorf("%s: call %s %s: %v", id, c.Name, c.Input, err)
				}
				var in map[string]any
				_ = json.Unmarshal(c.Input, &in)
				fp, _ := in["file_path"].(string)
				switch {
				case c.Name == "Bash" && (in["command"] == nil || in["description"] == nil),
					(c.Name == "Read" || c.Name == "Edit") && !strings.HasPrefix(fp, ls.Cwd+"/"),
					c.Name == "Grep" && in["pattern"] == nil:
					t.Errorf("%s: %s input %s", id, c.Name, c.Input)
				}
			}
		}
		if x.user[1] == "" {
			t.Errorf("%s: no task at turn 1", id)
		}
		for turn := 1; turn <= s.Turns; turn++ {
			for _, text := range []string{x.user[turn], x.assistant[turn]} {
				if strings.Contains(text, "I'll") && !(text == x.assistant[turn] && slices.Contains(s.items, itemRec{"commitment", turn})) {
					t.Errorf("%s turn %d: %q says \"I'll\" but states no commitment", id, turn, text)
				}
			}
		}
		checkStatedItems(t, id, s, fixtureOf, x.user, x.assistant, func(lit string) int {
			n := 0 // in the conversation (summaries may quote it)
			for turn := 1; turn <= s.Turns; turn++ {
				n += strings.Count(x.user[turn], lit) + strings.Count(x.assistant[turn], lit)
			}
			return n
		})
	}
}

// weekOf is the week of the quarter a session started in.
func weekOf(t *testing.T, s *sessionRec) int {
	t.Helper()
	started, err := time.Parse(time.RFC3339, s.Started)
	if err != nil {
		t.Fatalf("%s: started %q: %v", s.SessionID, s.Started, err)
	}
	return int(started.Sub(QuarterStart).Hours()/(24*7)) + 1
}

// TestClaudeCodeSignalTruth checks every line of events/truth.jsonl
// against the Claude Code logs, by the records its uuids name: each
// signal really is one, each look-alike is what it claims; and the
// repeated-tool-call signal of selection (FindToolRepeats, the real-log
// rules) flags exactly the truth's repeats, naming the same records, and
// none of the look-alikes.
func TestClaudeCodeSignalTruth(t *testing.T) {
	d := loadCCLogs(t)
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	idx := make(map[string]*ccIndex)
	for id, s := range d.sessions {
		idx[id] = indexCC(s)
	}
	isRestatement := func(text string) bool {
		for _, m := range ccRestateMarkers {
			if strings.HasPrefix(text, strings.SplitN(m, "%s", 2)[0]) {
				return true
			}
		}
		return false
	}
	counts := map[string]int{}
	seen := map[string]bool{}
	restated := map[string]bool{}
	for _, tr := range d.truth {
		kind := tr.Signal + tr.Lookalike
		counts[kind]++
		where := fmt.Sprintf("%s turn %d (%s)", tr.SessionID, tr.Turn, kind)
		x, s := idx[tr.SessionID], sessions[tr.SessionID]
		if x == nil || s == nil || (tr.Signal == "") == (tr.Lookalike == "") || seen[where] {
			t.Errorf("%s: no log, not exactly one of signal and look-alike, or a second line", where)
			continue
		}
		seen[where] = true
		if tr.CompactionTurn > 0 {
			i := slices.Index(x.compactions, tr.CompactionTurn)
			if i < 0 || x.s.Compactions[i].UUID != tr.CompactionUUID {
				t.Errorf("%s: compaction_uuid %s is not the boundary at turn %d", where, tr.CompactionUUID, tr.CompactionTurn)
			}
		}
		latest := func(turn int) int { // the latest compaction at a turn ≤ turn
			c := 0
			for _, x := range x.compactions {
				if x <= turn {
					c = x
				}
			}
			return c
		}
		switch kind {
		case SignalRepeatedToolCall, LookalikeRereadOtherArgs, LookalikeIdenticalNoCompac, LookalikeRereadAfterEdit, LookalikeRerunAfterChange:
			a, okA := x.calls[tr.UUID]
			b, okB := x.calls[tr.EvidenceUUID]
			if !okA || !okB || a.turn != tr.Turn || b.turn != tr.EvidenceTurn || a.call.Name != tr.ClaudeCodeTool || b.call.Name != tr.ClaudeCodeTool {
				t.Errorf("%s: uuid %s / evidence_uuid %s are not %s calls at turns %d and %d", where, tr.UUID, tr.EvidenceUUID, tr.ClaudeCodeTool, tr.Turn, tr.EvidenceTurn)
				continue
			}
			ia, _ := identify(x.s.Cwd, a.call)
			ib, _ := identify(x.s.Cwd, b.call)
			switch kind {
			case LookalikeRereadAfterEdit, LookalikeRerunAfterChange:
				ch, ok := x.calls[tr.ChangeUUID]
				var ea, ec struct {
					FilePath string `json:"file_path"`
				}
				_ = json.Unmarshal(a.call.Input, &ea)
				_ = json.Unmarshal(ch.call.Input, &ec)
				switch {
				case !ia.same(ib) || !(tr.EvidenceTurn < tr.CompactionTurn && tr.CompactionTurn < tr.Turn && tr.Turn-tr.CompactionTurn <= SignalWindow-1) || latest(tr.Turn) != tr.CompactionTurn:
					t.Errorf("%s: %s and %s are not the same call across the latest compaction, within the window", where, a.call.Input, b.call.Input)
				case !ok || ch.call.Name != "Edit" || ch.call.IsError || ch.turn != tr.ChangeTurn || ch.turn < tr.EvidenceTurn || ch.turn > tr.Turn:
					t.Errorf("%s: change_uuid %s is not an edit that succeeded between the calls", where, tr.ChangeUUID)
				case kind == LookalikeRereadAfterEdit && ea.FilePath != ec.FilePath:
					t.Errorf("%s: the edit between is of %s, not of the file read, %s", where, ec.FilePath, ea.FilePath)
				}
			case SignalRepeatedToolCall:
				if !ia.same(ib) || !(tr.EvidenceTurn < tr.CompactionTurn && tr.CompactionTurn < tr.Turn && tr.Turn-tr.CompactionTurn <= SignalWindow-1) || latest(tr.Turn) != tr.CompactionTurn {
					t.Errorf("%s: %s and %s are not the same call across the latest compaction, within the window", where, a.call.Input, b.call.Input)
				}
			case LookalikeRereadOtherArgs:
				var pa, pb struct {
					FilePath string `json:"file_path"`
					Pattern  string
				}
				_ = json.Unmarshal(a.call.Input, &pa)
				_ = json.Unmarshal(b.call.Input, &pb)
				if ia.same(ib) || pa.FilePath != pb.FilePath || pa.Pattern != pb.Pattern || !(tr.EvidenceTurn < tr.CompactionTurn && tr.CompactionTurn < tr.Turn && tr.Turn-tr.CompactionTurn < SignalWindow) {
					t.Errorf("%s: %s and %s are not other lines or another folder, within the window", where, a.call.Input, b.call.Input)
				}
			default:
				if !ia.same(ib) {
					t.Errorf("%s: %s and %s are not the same call", where, a.call.Input, b.call.Input)
				}
				for _, c := range x.compactions {
					if c >= tr.EvidenceTurn && c <= tr.Turn {
						t.Errorf("%s: a compaction at turn %d between the two calls", where, c)
					}
				}
			}
		case SignalRestatedInstruction, LookalikeRestateBefore:
			msg := func(turn int) agentlog.Message { return x.s.Messages[x.s.Turns[turn-1].Message] }
			if tr.Turn < 1 || tr.Turn > len(x.s.Turns) || tr.EvidenceTurn < 1 || tr.EvidenceTurn >= tr.Turn {
				t.Errorf("%s: turns out of range", where)
				continue
			}
			m, e := msg(tr.Turn), msg(tr.EvidenceTurn)
			if m.UUID != tr.UUID || e.UUID != tr.EvidenceUUID || !m.Typed() || !isRestatement(m.Text) || m.Text == e.Text {
				t.Errorf("%s: %q (uuid %s) is not a typed restatement of the prompt at turn %d", where, m.Text, m.UUID, tr.EvidenceTurn)
			}
			if !slices.Contains(s.items, itemRec{"constraint", tr.EvidenceTurn}) {
				t.Errorf("%s: turn %d states no constraint", where, tr.EvidenceTurn)
			}
			if kind == SignalRestatedInstruction && (tr.CompactionTurn <= tr.EvidenceTurn || tr.CompactionTurn >= tr.Turn || latest(tr.Turn) != tr.CompactionTurn) {
				t.Errorf("%s: compaction %d is not the latest between the instruction and the restatement", where, tr.CompactionTurn)
			}
			if kind == LookalikeRestateBefore && len(x.compactions) > 0 && x.compactions[0] <= tr.Turn {
				t.Errorf("%s: a compaction at turn %d comes first", where, x.compactions[0])
			}
			restated[fmt.Sprint(tr.SessionID, "/", tr.Turn)] = true
		default:
			t.Errorf("%s: unknown kind", where)
		}
	}
	for id, x := range idx {
		for turn, text := range x.user {
			if isRestatement(text) && !restated[fmt.Sprint(id, "/", turn)] {
				t.Errorf("%s turn %d: %q reads as a restatement but is not in the truth", id, turn, text)
			}
		}
	}
	for _, k := range []string{SignalRepeatedToolCall, SignalRestatedInstruction, LookalikeRereadOtherArgs, LookalikeIdenticalNoCompac, LookalikeRestateBefore, LookalikeRereadAfterEdit, LookalikeRerunAfterChange} {
		if counts[k] < 20 {
			t.Errorf("%s: only %d lines", k, counts[k])
		}
	}
	t.Logf("truth lines: %v", counts)

	sc := scoreRepeats(d.sessions, d.truth)
	if sc.tp < 20 || sc.lookalikes < 20 {
		t.Errorf("only %d repeats and %d look-alikes to score", sc.tp, sc.lookalikes)
	}
	t.Logf("repeated_tool_call, selection.FindToolRepeats on the Claude Code logs: precision %d/%d, recall %d/%d; look-alikes flagged %d/%d; work look-alikes found with their kind, not flagged: %d/%d",
		sc.tp, sc.tp+sc.fp, sc.tp, sc.tp+sc.fn, sc.lookalikesFlagged, sc.lookalikes, sc.workFound, counts[LookalikeRereadAfterEdit]+counts[LookalikeRerunAfterChange])
	if n := counts[LookalikeRereadAfterEdit] + counts[LookalikeRerunAfterChange]; sc.workFound != n {
		t.Errorf("%d of %d work look-alikes found with their kind", sc.workFound, n)
	}
	for why, n := range sc.missed {
		t.Errorf("missed %d: %s (e.g. %s)", n, why, sc.missedEx[why])
	}
	for why, n := range sc.extra {
		t.Errorf("flagged %d not in the truth: %s (e.g. %s)", n, why, sc.extraEx[why])
	}
	if sc.wrongEvidence > 0 {
		t.Errorf("%d of %d repeats found name other records than the truth's uuids", sc.wrongEvidence, sc.tp)
	}

	rs := scoreRestatements(d.sessions, d.truth)
	t.Logf("restated_instruction, selection.FindRestatements on the Claude Code logs: precision %d/%d, recall %d/%d; the earlier message is the instruction's prompt in %d/%d",
		rs.tp, rs.tp+rs.fp, rs.tp, rs.tp+rs.fn, rs.earlierRight, rs.tp)
	for _, ex := range rs.examples {
		t.Error(ex)
	}
	if rs.wrongEvidence > 0 {
		t.Errorf("%d of %d restatements found name another message or compaction than the truth's uuids", rs.wrongEvidence, rs.tp)
	}
}

// TestRepeatWindow: the truth's window is selection's, so the signal is
// scored on the window it uses.
func TestRepeatWindow(t *testing.T) {
	if selection.DefaultRepeatWindow.Turns != repeatWindow {
		t.Errorf("selection.DefaultRepeatWindow.Turns is %d, the truth's window %d", selection.DefaultRepeatWindow.Turns, repeatWindow)
	}
}
