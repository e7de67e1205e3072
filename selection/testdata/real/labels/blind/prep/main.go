// Command blindprep builds the blind second-labelling set of repeated
// tool calls after compactions (see ../INSTRUCTIONS.md and ../../README.md,
// "Second, blind reading"). Run it from this folder with TALLY_REAL_LOGS
// set: it reads the first reading's labels (../../repeats.jsonl without
// the lines of labeller 2) and writes cases.md and key.jsonl to
// BLIND_OUT (default: a "blind" folder in the system's temporary folder).
package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/selection"
)

type label struct {
	SessionID      string `json:"session_id"`
	CompactionUUID string `json:"compaction_uuid"`
	FirstUUID      string `json:"first_uuid"`
	RepeatUUID     string `json:"repeat_uuid"`
	Tool           string `json:"tool"`
	Kind           string `json:"kind"`
	Caused         bool   `json:"caused_by_compaction"`
}

type pair struct {
	group      string
	labelKind  string
	session    string
	firstUUID  string
	repeatUUID string
	tool       string
}

type call struct {
	c    *agentlog.ToolCall
	step int
	line int
	turn int
}

func main() {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "blindprep: set TALLY_REAL_LOGS to the folder of the dev set's Claude Code sessions")
		os.Exit(2)
	}
	out := os.Getenv("BLIND_OUT")
	if out == "" {
		out = filepath.Join(os.TempDir(), "blind")
	}
	check(os.MkdirAll(out, 0o755))
	b, err := os.ReadFile(filepath.Join("..", "..", "repeats.jsonl"))
	check(err)
	var labels []label
	byKey := map[string]label{}
	sessions := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(line, `"labeller": 2`) {
			continue // the second reading, which this set was built for
		}
		var l label
		check(json.Unmarshal([]byte(line), &l))
		labels = append(labels, l)
		byKey[l.SessionID+" "+l.RepeatUUID] = l
		sessions[l.SessionID] = true
	}
	for _, id := range []string{"3ae3ab59-52bc-413d-ad30-02b165c91785", "c010174c-a7cd-4bcc-b7d4-61258d6c463f",
		"ca8cc13b-d3df-4615-8f3f-f48a96b1a6f9", "df93cd9c-8436-49e5-af80-61126ae55a83"} {
		sessions[id] = true
	}
	var ids []string
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	sess := map[string]*agentlog.Session{}
	flagged := map[string]selection.ToolRepeat{}
	var groupA, tps []pair
	for _, id := range ids {
		s, err := agentlog.Open(filepath.Join(dir, id+".jsonl.gz"))
		check(err)
		if len(s.Compactions) == 0 {
			panic(id + " has no compaction")
		}
		sess[id] = s
		byRecord := map[string]selection.ToolRepeat{}
		var order []string
		for _, r := range selection.FindToolRepeats(s, selection.DefaultRepeatWindow) {
			key := id + " " + r.Repeat.UUID
			old, ok := byRecord[key]
			if !ok {
				order = append(order, key)
			}
			if !ok || r.Kind.Flagged() && !old.Kind.Flagged() {
				byRecord[key] = r
			}
		}
		for _, key := range order {
			r := byRecord[key]
			if !r.Kind.Flagged() {
				continue
			}
			flagged[key] = r
			l, ok := byKey[key]
			if ok && l.Caused {
				tps = append(tps, pair{"b_true_positive", l.Kind, id, l.FirstUUID, l.RepeatUUID, r.Repeat.Tool})
			} else {
				lk := ""
				if ok {
					lk = l.Kind
				}
				groupA = append(groupA, pair{"a_flagged_not_lost", lk, id, r.First.UUID, r.Repeat.UUID, r.Repeat.Tool})
			}
		}
	}
	var others, missed []pair
	for _, l := range labels {
		key := l.SessionID + " " + l.RepeatUUID
		_, fl := flagged[key]
		switch {
		case l.Caused && !fl:
			missed = append(missed, pair{"d_missed_lost", l.Kind, l.SessionID, l.FirstUUID, l.RepeatUUID, l.Tool})
		case !l.Caused && !fl:
			others = append(others, pair{"c_other_kind_unflagged", l.Kind, l.SessionID, l.FirstUUID, l.RepeatUUID, l.Tool})
		}
	}
	fmt.Fprintf(os.Stderr, "a=%d tp=%d other=%d missed=%d\n", len(groupA), len(tps), len(others), len(missed))
	r1 := rand.New(rand.NewSource(1))
	var groupB, groupC []pair
	for _, i := range r1.Perm(len(tps))[:14] {
		groupB = append(groupB, tps[i])
	}
	for _, i := range r1.Perm(len(others))[:14] {
		groupC = append(groupC, others[i])
	}
	all := append(append(append(append([]pair{}, groupA...), groupB...), groupC...), missed...)
	r7 := rand.New(rand.NewSource(7))
	r7.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })

	var md strings.Builder
	var key strings.Builder
	md.WriteString("# Blind cases: repeated tool calls after a compaction\n\nRead INSTRUCTIONS.md first. Each case is self-contained.\n")
	for n, p := range all {
		k := writeCase(&md, n+1, sess[p.session], p)
		key.WriteString(k + "\n")
	}
	check(os.WriteFile(filepath.Join(out, "cases.md"), []byte(md.String()), 0o644))
	check(os.WriteFile(filepath.Join(out, "key.jsonl"), []byte(key.String()), 0o644))
	cnt := map[string]int{}
	for _, p := range all {
		cnt[p.group]++
	}
	fmt.Fprintln(os.Stderr, cnt, len(all))
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// flat lists the session's calls in order.
func flat(s *agentlog.Session) []call {
	var out []call
	for si := range s.Steps {
		st := &s.Steps[si]
		for ci := range st.Calls {
			out = append(out, call{&st.Calls[ci], si, st.Line, st.Turn})
		}
	}
	return out
}

func find(calls []call, uuid, tool string) int {
	for i, c := range calls {
		if c.c.UUID == uuid && (tool == "" || c.c.Name == tool) {
			return i
		}
	}
	panic("call not found: " + uuid)
}

func writeCase(md *strings.Builder, n int, s *agentlog.Session, p pair) string {
	calls := flat(s)
	fi := find(calls, p.firstUUID, p.tool)
	ri := find(calls, p.repeatUUID, p.tool)
	first, rep := calls[fi], calls[ri]
	ci := -1
	for i, c := range s.Compactions {
		if c.Step <= rep.step && c.Step > first.step {
			ci = i
		}
	}
	if ci < 0 {
		panic("no compaction between " + p.firstUUID + " and " + p.repeatUUID)
	}
	comp := s.Compactions[ci]
	nComp := 0
	for _, c := range s.Compactions {
		if c.Step > first.step && c.Step <= rep.step {
			nComp++
		}
	}
	t := target(s.Cwd, rep.c)

	fmt.Fprintf(md, "\n---\n\n## Case %d\n\n", n)
	fmt.Fprintf(md, "Session `%s` (cwd `%s`). Tool: **%s**.\n\n", s.ID, s.Cwd, rep.c.Name)
	fmt.Fprintf(md, "- Earlier call: line %d, record uuid `%s`, result line %d\n", first.line, first.c.UUID, first.c.ResultLine)
	fmt.Fprintf(md, "- Compaction: boundary line %d, uuid `%s`, trigger %s, summary line %d", comp.Line, comp.UUID, comp.Trigger, comp.SummaryLine)
	if nComp > 1 {
		fmt.Fprintf(md, " (%d compactions lie between the two calls; this is the last one)", nComp)
	}
	md.WriteString("\n")
	fmt.Fprintf(md, "- Repeat: line %d, record uuid `%s`, result line %d\n", rep.line, rep.c.UUID, rep.c.ResultLine)
	fmt.Fprintf(md, "- Distance: repeat is %d model steps after the compaction; %d person-typed prompts between the compaction and the repeat\n",
		rep.step-comp.Step+1, typedBetween(s, comp.Step, rep.step))

	md.WriteString("\n### 1. Earlier call\n\n")
	writeCall(md, first.c, 40)

	fmt.Fprintf(md, "\n### 2. Activity on the same file/command between the earlier call and the compaction\n\n")
	writeBetween(md, s, calls, fi+1, comp.Step, t, true)

	md.WriteString("\n### 3. The compaction summary (first 60 lines; the mention check below reads the whole summary)\n\n")
	md.WriteString(mentions(comp.Summary, t) + "\n\n")
	md.WriteString(fence(head(comp.Summary, 60, 400)))

	md.WriteString("\n### 4. Between the compaction and the repeat\n\n")
	md.WriteString("Person-typed prompts:\n\n")
	np := 0
	for _, m := range s.Messages {
		if m.Typed() && m.Step >= comp.Step && m.Step <= rep.step {
			fmt.Fprintf(md, "- line %d: %s\n", m.Line, oneLine(m.Text, 400))
			np++
		}
	}
	if np == 0 {
		md.WriteString("- (none)\n")
	}
	md.WriteString("\nActivity on the same file/command:\n\n")
	writeBetween(md, s, calls, -1, rep.step, t, false, comp.Step, ri)

	md.WriteString("\n### 5. The repeat\n\n")
	if txt := agentText(s, comp.Step, rep.step); txt != "" {
		md.WriteString("What the agent wrote just before it (its text in the last steps up to and including the repeat's, last 600 characters):\n\n")
		md.WriteString(fence(txt))
		md.WriteString("\n")
	}
	writeCall(md, rep.c, 25)

	k := map[string]any{"case": n, "group": p.group, "first_label_kind": p.labelKind, "session_id": s.ID,
		"first_uuid": first.c.UUID, "repeat_uuid": rep.c.UUID, "compaction_uuid": comp.UUID, "tool": rep.c.Name}
	kb, _ := json.Marshal(k)
	return string(kb)
}

func typedBetween(s *agentlog.Session, from, to int) int {
	n := 0
	for _, m := range s.Messages {
		if m.Typed() && m.Step >= from && m.Step <= to {
			n++
		}
	}
	return n
}

// agentText is the text of the steps just before and at the repeat.
func agentText(s *agentlog.Session, from, to int) string {
	var parts []string
	for si := max(from, to-2); si <= to; si++ {
		if t := strings.TrimSpace(s.Steps[si].Text); t != "" {
			parts = append(parts, t)
		}
	}
	t := strings.Join(parts, "\n…\n")
	if r := []rune(t); len(r) > 600 {
		t = "…" + string(r[len(r)-600:])
	}
	return t
}

func writeCall(md *strings.Builder, c *agentlog.ToolCall, lines int) {
	in := string(c.Input)
	var pretty map[string]any
	if json.Unmarshal(c.Input, &pretty) == nil {
		b, _ := json.MarshalIndent(pretty, "", "  ")
		in = string(b)
	}
	fmt.Fprintf(md, "Tool **%s**, input:\n\n", c.Name)
	md.WriteString(fence(head(in, 30, 300)))
	status := "ok"
	if c.IsError {
		status = "ERROR"
	}
	if !c.HasResult {
		status = "no result in the log"
	}
	nl := strings.Count(c.Result, "\n") + 1
	fmt.Fprintf(md, "\nResult (%s; %d lines; first %d shown):\n\n", status, nl, lines)
	md.WriteString(fence(head(c.Result, lines, 300)))
}

// tgt is what the repeated call is about.
type tgt struct {
	tool, file, base, cmd, pat, task string
	endpoint                         string // gh api endpoint in a Bash command
}

func target(cwd string, c *agentlog.ToolCall) tgt {
	var m map[string]any
	_ = json.Unmarshal(c.Input, &m)
	str := func(k string) string { v, _ := m[k].(string); return v }
	t := tgt{tool: c.Name}
	switch c.Name {
	case "Read", "Edit", "Write", "MultiEdit":
		t.file = res(cwd, str("file_path"))
	case "Grep", "Glob":
		t.file, t.pat = res(cwd, str("path")), str("pattern")
		if t.file == "" {
			t.file = cwd
		}
	case "Bash":
		t.cmd = strings.Join(strings.Fields(str("command")), " ")
		if strings.Contains(t.cmd, "gh api ") {
			for _, w := range strings.Fields(t.cmd) {
				if w = strings.Trim(w, `"'`); strings.HasPrefix(strings.TrimPrefix(w, "/"), "repos/") {
					t.endpoint = strings.TrimPrefix(w, "/")
					break
				}
			}
		}
	case "TaskOutput":
		t.task = str("task_id")
	}
	if t.file != "" {
		t.base = path.Base(t.file)
	}
	return t
}

func res(cwd, p string) string {
	if p == "" {
		return ""
	}
	if cwd != "" && !path.IsAbs(p) {
		return path.Join(cwd, p)
	}
	return path.Clean(p)
}

func mentions(sum string, t tgt) string {
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	switch {
	case t.tool == "Grep" || t.tool == "Glob":
		return fmt.Sprintf("Summary mentions the pattern `%s`: %s; the path `%s`: %s (its last element `%s`: %s).",
			oneLine(t.pat, 80), yn(strings.Contains(sum, t.pat)), t.file, yn(strings.Contains(sum, t.file)), t.base, yn(strings.Contains(sum, t.base)))
	case t.file != "":
		return fmt.Sprintf("Summary mentions the full path `%s`: %s; the file name `%s`: %s.",
			t.file, yn(strings.Contains(sum, t.file)), t.base, yn(strings.Contains(sum, t.base)))
	case t.cmd != "":
		norm := strings.Join(strings.Fields(sum), " ")
		short := t.cmd
		if len(short) > 40 {
			short = short[:40]
		}
		out := fmt.Sprintf("Summary contains the whole command: %s; its first 40 characters `%s`: %s.",
			yn(strings.Contains(norm, t.cmd)), oneLine(short, 40), yn(strings.Contains(norm, short)))
		if t.endpoint != "" {
			id := path.Base(strings.TrimSuffix(t.endpoint, "/replies"))
			out += fmt.Sprintf(" The API endpoint `%s`: %s; the id `%s`: %s.", t.endpoint, yn(strings.Contains(sum, t.endpoint)), id, yn(strings.Contains(sum, id)))
		}
		return out
	case t.task != "":
		return fmt.Sprintf("Summary mentions the task id `%s`: %s.", t.task, yn(strings.Contains(sum, t.task)))
	}
	return ""
}

var gitWords = []string{"merge", "rebase", "checkout", "switch", "pull", "reset", "stash", "cherry-pick", "revert", "apply", "restore", "rm", "mv", "commit", "push", "am"}
var testWords = []string{"go test", "go build", "go vet", "mise run", "make", "npm ", "pnpm ", "yarn ", "cargo ", "pytest", "golangci-lint", "gofmt", "staticcheck", "tsc", "eslint", "ruff"}

// relevant says whether call c touches what t is about, and why.
func relevant(cwd string, c *agentlog.ToolCall, t tgt) bool {
	var m map[string]any
	_ = json.Unmarshal(c.Input, &m)
	str := func(k string) string { v, _ := m[k].(string); return v }
	file := res(cwd, str("file_path"))
	if file == "" {
		file = res(cwd, str("notebook_path"))
	}
	cmd := str("command")
	isEdit := c.Name == "Edit" || c.Name == "Write" || c.Name == "MultiEdit" || c.Name == "NotebookEdit"
	gitChange := false
	if c.Name == "Bash" && strings.Contains(cmd, "git ") {
		for _, w := range gitWords {
			if strings.Contains(cmd, "git "+w) || strings.Contains(cmd, "git -C") {
				gitChange = true
			}
		}
	}
	isTest := false
	if c.Name == "Bash" {
		for _, w := range testWords {
			if strings.Contains(cmd, w) {
				isTest = true
			}
		}
	}
	switch {
	case t.task != "":
		return str("task_id") == t.task || strings.Contains(string(c.Input), t.task)
	case t.cmd != "":
		// a command: every change to the workspace, every git and test run,
		// and the same command
		if t.endpoint != "" && c.Name == "Bash" && strings.Contains(cmd, path.Base(strings.TrimSuffix(t.endpoint, "/replies"))) {
			return true
		}
		return isEdit || gitChange || isTest || c.Name == "Bash" && strings.Join(strings.Fields(cmd), " ") == t.cmd
	case t.pat != "":
		// a search: edits under the path, git changes, the same search
		return isEdit && strings.HasPrefix(file, t.file) || gitChange ||
			(c.Name == "Grep" || c.Name == "Glob") && str("pattern") == t.pat
	default:
		// a file: edits, reads of it, commands naming it, git changes
		return file == t.file || gitChange || c.Name == "Bash" && t.base != "" && strings.Contains(cmd, t.base)
	}
}

func callLine(s *agentlog.Session, cl call) string {
	c := cl.c
	var m map[string]any
	_ = json.Unmarshal(c.Input, &m)
	str := func(k string) string { v, _ := m[k].(string); return v }
	var d string
	switch c.Name {
	case "Edit":
		d = fmt.Sprintf("%s old=%q new=%q", str("file_path"), trunc(str("old_string"), 60), trunc(str("new_string"), 60))
	case "Write":
		d = fmt.Sprintf("%s (%d chars)", str("file_path"), len(str("content")))
	case "MultiEdit":
		e, _ := m["edits"].([]any)
		d = fmt.Sprintf("%s (%d edits)", str("file_path"), len(e))
	case "Read":
		d = str("file_path")
		if o, ok := m["offset"]; ok {
			d += fmt.Sprintf(" offset=%v", o)
		}
		if l, ok := m["limit"]; ok {
			d += fmt.Sprintf(" limit=%v", l)
		}
	case "Bash":
		d = str("command")
	default:
		d = string(c.Input)
	}
	status := "ok"
	if c.IsError {
		status = "ERROR: " + oneLine(c.Result, 100)
	} else if !c.HasResult {
		status = "no result"
	} else if c.Name == "Bash" {
		status = "ok: " + oneLine(lastLines(c.Result, 2), 100)
	}
	return fmt.Sprintf("- line %d, %s: `%s` → %s", cl.line, c.Name, strings.ReplaceAll(oneLine(d, 220), "`", "'"), status)
}

// writeBetween lists the relevant calls in [from, to) (call indices) —
// before: the calls after the earlier call up to the compaction step;
// otherwise the calls from the compaction step to the repeat.
func writeBetween(md *strings.Builder, s *agentlog.Session, calls []call, from, compStep int, t tgt, before bool, rest ...int) {
	var lines []string
	if before {
		for i := from; i < len(calls) && calls[i].step < compStep; i++ {
			if relevant(s.Cwd, calls[i].c, t) {
				lines = append(lines, callLine(s, calls[i]))
			}
		}
	} else {
		cs, ri := rest[0], rest[1]
		for i := 0; i < ri; i++ {
			if calls[i].step >= cs && relevant(s.Cwd, calls[i].c, t) {
				lines = append(lines, callLine(s, calls[i]))
			}
		}
	}
	if len(lines) == 0 {
		md.WriteString("- (none)\n")
		return
	}
	if len(lines) > 40 {
		k := len(lines) - 40
		lines = append(append(append([]string{}, lines[:15]...), fmt.Sprintf("- … %d more calls left out …", k)), lines[15+k:]...)
	}
	md.WriteString(strings.Join(lines, "\n") + "\n")
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " / ")
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func oneLine(s string, n int) string {
	return trunc(strings.Join(strings.Fields(s), " "), n)
}

func head(s string, n, width int) string {
	ls := strings.Split(s, "\n")
	more := 0
	if len(ls) > n {
		more = len(ls) - n
		ls = ls[:n]
	}
	for i, l := range ls {
		ls[i] = trunc(l, width)
	}
	out := strings.Join(ls, "\n")
	if more > 0 {
		out += fmt.Sprintf("\n[… %d more lines]", more)
	}
	return out
}

func fence(s string) string {
	run, best := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, best+1))
	return f + "text\n" + s + "\n" + f + "\n"
}
