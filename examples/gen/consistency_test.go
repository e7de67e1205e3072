package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// TestSessions: the session summaries have the shape the issue asks for.
func TestSessions(t *testing.T) {
	ss := loadSessions(t)
	if len(ss) != NumSessions {
		t.Fatalf("%d sessions, want %d", len(ss), NumSessions)
	}
	idRE := regexp.MustCompile(`^sess_(\d{4}_\d{2}_\d{2})_[0-9a-f]{4}$`)
	end := QuarterStart.AddDate(0, 0, 7*Weeks)
	ids := make(map[string]bool)
	var turns []int
	never, incidents, over150, counts := 0, 0, 0, 0
	for _, s := range ss {
		if ids[s.SessionID] {
			t.Errorf("%s: duplicate id", s.SessionID)
		}
		ids[s.SessionID] = true
		started, err := time.Parse(time.RFC3339, s.Started)
		if err != nil || started.Before(QuarterStart) || !started.Before(end) {
			t.Errorf("%s: started %q outside the quarter", s.SessionID, s.Started)
		}
		if m := idRE.FindStringSubmatch(s.SessionID); m == nil || m[1] != started.Format("2006_01_02") {
			t.Errorf("%s: id does not match its start date %s", s.SessionID, s.Started)
		}
		prev := 1
		for _, c := range s.compactions {
			if c <= prev || c > s.Turns {
				t.Errorf("%s: compaction turns %v not ascending within 2..%d", s.SessionID, s.compactions, s.Turns)
				break
			}
			prev = c
		}
		used := make(map[int]bool)
		for _, it := range s.items {
			if !fixture.Class(it.Class).Valid() || it.Turn < 2 || it.Turn > s.Turns || used[it.Turn] {
				t.Errorf("%s: item %+v", s.SessionID, it)
			}
			used[it.Turn] = true
		}
		turns = append(turns, s.Turns)
		if s.nCompact == 0 {
			never++
		}
		if s.Incident {
			incidents++
		}
		if s.Turns > 150 {
			over150++
		}
		if s.countsOnly {
			counts++
		}
	}
	slices.Sort(turns)
	share := float64(never) / float64(len(ss))
	t.Logf("never compact %.3f, median turns %d, >150 turns %d, incidents %d, counts only %d", share, turns[len(turns)/2], over150, incidents, counts)
	if share < 0.62 || share > 0.71 {
		t.Errorf("%.3f of sessions never compact, want about two thirds", share)
	}
	if m := turns[len(turns)/2]; m < 10 || m > 14 {
		t.Errorf("median turns %d, want about 12", m)
	}
	if over150 < 20 {
		t.Errorf("only %d sessions past 150 turns", over150)
	}
	if incidents < 80 || incidents > 120 {
		t.Errorf("%d incidents, want about 0.5%%", incidents)
	}
	if counts == 0 {
		t.Error("no session reports counts only")
	}
}

// rankDecisions is the selection rule, written again from its
// definition: for each compaction the items stated before its turn, at
// least 1; with counts only, compactions × max(1, items).
func rankDecisions(s *sessionRec) int {
	if s.countsOnly {
		return s.nCompact * max(1, s.nItems)
	}
	n := 0
	for _, c := range s.compactions {
		live := 0
		for _, it := range s.items {
			if it.Turn < c {
				live++
			}
		}
		n += max(1, live)
	}
	return n
}

// TestSelectionPicksTheFixtures: incidents first, decisions descending,
// session id ascending; the first 40 are exactly the fixtures.
func TestSelectionPicksTheFixtures(t *testing.T) {
	ss := loadSessions(t)
	slices.SortFunc(ss, func(a, b *sessionRec) int {
		if a.Incident != b.Incident {
			if a.Incident {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(rankDecisions(b), rankDecisions(a)), cmp.Compare(a.SessionID, b.SessionID))
	})
	fixtures, err := fixture.Load(filepath.Join(committed, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, f := range fixtures {
		want = append(want, f.ConversationID)
	}
	for _, s := range ss[:FixtureBudget] {
		got = append(got, s.SessionID)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the ranking's top %d:\n%v\nthe fixtures:\n%v", FixtureBudget, got, want)
	}
	if !ss[FixtureBudget].Incident {
		t.Errorf("incidents do not exceed the budget")
	}
	if d40, d41 := rankDecisions(ss[FixtureBudget-1]), rankDecisions(ss[FixtureBudget]); d41 > d40 {
		t.Errorf("the 41st has %d decisions, the 40th %d", d41, d40)
	}
}

// TestFixturesMatchSessions: each fixture's turns and compactions are its
// session's, its items are a subset of its session's items (class and
// turn, in order), the session's other items are unannotated (at a turn
// no fixture item has), and the fixtures share no literal.
func TestFixturesMatchSessions(t *testing.T) {
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	fixtures, err := fixture.Load(filepath.Join(committed, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	literals := make(map[string]string)
	live := make(map[fixture.Class]int)
	unannotated := 0
	for _, f := range fixtures {
		s := sessions[f.ConversationID]
		if s == nil || s.countsOnly || !s.Incident {
			t.Fatalf("%s: no incident session with lists", f.ConversationID)
		}
		if f.Turns != s.Turns || f.CompactionsExpected != s.nCompact {
			t.Errorf("%s: fixture %d turns/%d compactions, session %d/%d", f.ConversationID, f.Turns, f.CompactionsExpected, s.Turns, s.nCompact)
		}
		var fi []itemRec
		for _, it := range f.MustSurvive {
			fi = append(fi, itemRec{string(it.Class), it.Turn})
			if other, dup := literals[it.Literal]; dup {
				t.Errorf("%s and %s share the literal %q", other, f.ConversationID, it.Literal)
			}
			literals[it.Literal] = f.ConversationID
			for _, c := range s.compactions {
				if it.Turn < c {
					live[it.Class]++
				}
			}
			if it.Class == fixture.Commitment && !strings.HasPrefix(it.Literal, "I'll ") {
				t.Errorf("%s %s: a commitment %q not in the first person", f.ConversationID, it.ID, it.Literal)
			}
		}
		var annotated, extra []itemRec
		for _, it := range s.items {
			if slices.Contains(fi, it) {
				annotated = append(annotated, it)
			} else {
				extra = append(extra, it)
			}
		}
		if !slices.Equal(fi, annotated) {
			t.Errorf("%s: fixture items %v are not among the session's items %v", f.ConversationID, fi, s.items)
		}
		for _, it := range extra {
			if slices.ContainsFunc(fi, func(a itemRec) bool { return a.Turn == it.Turn }) {
				t.Errorf("%s: session item %+v is at an annotated item's turn", f.ConversationID, it)
			}
		}
		unannotated += len(extra)
	}
	if unannotated == 0 {
		t.Error("no fixture session lists an item its annotation leaves out")
	}
	for c, n := range LiveTargets {
		if live[c] != n {
			t.Errorf("%s: %d live item-compaction pairs, want %d", c, live[c], n)
		}
	}
}

// TestEventLogs: 2,000 logs, every fixture's among them; events in turn
// order with compactions where the summary puts them; every item's
// message at its turn, and each fixture literal in it.
func TestEventLogs(t *testing.T) {
	events, where := loadEvents(t)
	if len(events) != NumLogged {
		t.Errorf("%d logged sessions, want %d", len(events), NumLogged)
	}
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	fixtureOf := loggedFixtures(t, committed, func(id string) bool { return events[id] != nil })
	tools := []string{"read_file", "grep", "edit_file", "run_tests", "list_dir", "run_command"}
	for id, evs := range events {
		s := sessions[id]
		if s == nil || s.countsOnly {
			t.Errorf("%s: logged but not in sessions.jsonl with lists", id)
			continue
		}
		started, _ := time.Parse(time.RFC3339, s.Started)
		if week := int(started.Sub(QuarterStart).Hours()/(24*7)) + 1; !strings.HasSuffix(where[id], filepathWeek(week)) {
			t.Errorf("%s: started in week %d but logged in %s", id, week, where[id])
		}
		prevTurn, prevTS := 0, ""
		var comps []int
		for _, e := range evs {
			if e.Turn < prevTurn || e.Turn < 1 || e.Turn > s.Turns || e.TS < prevTS {
				t.Errorf("%s: event %+v out of order", id, e)
				break
			}
			prevTurn, prevTS = e.Turn, e.TS
			switch e.Kind {
			case "compaction":
				comps = append(comps, e.Turn)
			case "tool_call":
				var args map[string]any
				if !slices.Contains(tools, e.Tool) || json.Unmarshal(e.Args, &args) != nil || len(args) == 0 {
					t.Errorf("%s: tool call %+v", id, e)
				}
			case "message":
				if e.Role != "user" && e.Role != "assistant" || e.Text == "" {
					t.Errorf("%s: message %+v", id, e)
				}
			default:
				t.Errorf("%s: kind %q", id, e.Kind)
			}
		}
		if !slices.Equal(comps, s.compactions) {
			t.Errorf("%s: compaction events at %v, summary says %v", id, comps, s.compactions)
		}
		x := indexEvents(evs)
		if x.user[1] == "" {
			t.Errorf("%s: no task at turn 1", id)
		}
		for _, e := range evs {
			if strings.Contains(e.Text, "I'll") && !(e.Role == "assistant" && slices.Contains(s.items, itemRec{"commitment", e.Turn})) {
				t.Errorf("%s turn %d: %q says \"I'll\" but states no commitment", id, e.Turn, e.Text)
			}
		}
		checkStatedItems(t, id, s, fixtureOf, x.user, x.assistant, func(lit string) int {
			n := 0
			for _, e := range evs {
				n += strings.Count(e.Text, lit)
			}
			return n
		})
	}
}

func filepathWeek(w int) string { return filepath.Join("events", fmt.Sprintf("week-%02d.jsonl", w)) }

// loggedFixtures loads the fixtures of the example in dir by
// conversation id, and reports each one whose session has no log
// (logged says whether one has).
func loggedFixtures(t *testing.T, dir string, logged func(id string) bool) map[string]fixture.Fixture {
	t.Helper()
	fixtures, err := fixture.Load(filepath.Join(dir, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	fixtureOf := make(map[string]fixture.Fixture)
	for _, f := range fixtures {
		fixtureOf[f.ConversationID] = f
		if !logged(f.ConversationID) {
			t.Errorf("fixture %s has no log", f.ConversationID)
		}
	}
	return fixtureOf
}

// checkStatedItems checks that a session's log states its items (user
// and assistant are its messages by turn): each in a message at its turn
// from whoever states its class. A fixture session's log states its
// annotated items, not the items its summary lists besides, each with
// its literal, which occurs once in the log (count counts a string's
// occurrences), and an open question gets no answer at its turn.
func checkStatedItems(t *testing.T, id string, s *sessionRec, fixtureOf map[string]fixture.Fixture,
	user, assistant map[int]string, count func(string) int) {
	t.Helper()
	f, isFixture := fixtureOf[id]
	stated := s.items
	if isFixture {
		stated = nil
		for _, it := range f.MustSurvive {
			stated = append(stated, itemRec{string(it.Class), it.Turn})
		}
	}
	for i, it := range stated {
		var text string
		switch it.Class {
		case "constraint", "open_question":
			text = user[it.Turn]
		case "commitment":
			text = assistant[it.Turn]
		default:
			text = user[it.Turn] + assistant[it.Turn]
		}
		if text == "" {
			t.Errorf("%s: no message states the %s at turn %d", id, it.Class, it.Turn)
			continue
		}
		if !isFixture {
			continue
		}
		lit := f.MustSurvive[i].Literal
		if !strings.Contains(text, lit) {
			t.Errorf("%s %s: the message at turn %d, %q, lacks the literal %q", id, f.MustSurvive[i].ID, it.Turn, text, lit)
		}
		if n := count(lit); n != 1 {
			t.Errorf("%s %s: the literal %q occurs %d times in the log", id, f.MustSurvive[i].ID, lit, n)
		}
		if it.Class == "open_question" && assistant[it.Turn] != "" {
			t.Errorf("%s %s: the open question at turn %d gets an answer", id, f.MustSurvive[i].ID, it.Turn)
		}
	}
}

// TestReplay: the paired table exactly, over logged sessions that compacted.
func TestReplay(t *testing.T) {
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	events, _ := loadEvents(t)
	var cells [2][2]int
	kinds := make(map[string][]int)
	ids := make(map[string]bool)
	eachLine(t, filepath.Join(committed, "replay.jsonl"), func(l replayLine) {
		s := sessions[l.ConversationID]
		if s == nil || s.nCompact == 0 || events[l.ConversationID] == nil || ids[l.ConversationID] {
			t.Errorf("%s: not a distinct logged session that compacted", l.ConversationID)
			return
		}
		ids[l.ConversationID] = true
		outcome := map[string]int{"success": 0, "failure": 1}
		r, okR := outcome[l.Reference]
		c, okC := outcome[l.Candidate]
		if !okR || !okC || l.ReferenceKind != "uncompacted" && l.ReferenceKind != "accepted_trace" {
			t.Errorf("%+v: bad values", l)
			return
		}
		cells[r][c]++
		kinds[l.ReferenceKind] = append(kinds[l.ReferenceKind], s.Turns)
	})
	if want := [2][2]int{{ReplayA, ReplayB}, {ReplayC, ReplayD}}; cells != want || len(ids) != ReplayConversations {
		t.Errorf("table %v over %d conversations, want %v over %d", cells, len(ids), want, ReplayConversations)
	}
	if cells[0][0]+cells[0][1] != 166 || cells[0][0]+cells[1][0] != 168 || cells[0][1]+cells[1][0] != 20 {
		t.Errorf("reference %d, candidate %d successes, %d discordant; want 166, 168, 20", cells[0][0]+cells[0][1], cells[0][0]+cells[1][0], cells[0][1]+cells[1][0])
	}
	mean := func(xs []int) float64 { return float64(sum(xs)) / float64(len(xs)) }
	if len(kinds["accepted_trace"]) == 0 || mean(kinds["accepted_trace"]) <= mean(kinds["uncompacted"]) {
		t.Errorf("accepted traces (%d) are not the longer sessions", len(kinds["accepted_trace"]))
	}
}

// TestContextsAndPromptSizes: one context per compaction per system (the
// incumbent's rerun too) at the compaction's turn, both content forms in use, and prompt sizes that
// are the documented estimate, the incumbent within budget and the
// candidate about 30% smaller.
func TestContextsAndPromptSizes(t *testing.T) {
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	type key struct {
		system, conv string
		n            int
	}
	sizes := make(map[key]int)
	eachLine(t, filepath.Join(committed, "prompt_sizes.jsonl"), func(p promptSize) {
		sizes[key{p.System, p.ConversationID, p.Compaction}] = p.PromptTokens
	})
	forms := make(map[string]bool)
	total := make(map[string]int)
	count := make(map[string]int)
	for _, system := range Systems {
		dirs, err := os.ReadDir(filepath.Join(committed, "contexts", system))
		if err != nil {
			t.Fatal(err)
		}
		if len(dirs) != FixtureBudget {
			t.Errorf("%s: %d conversations", system, len(dirs))
		}
		for _, d := range dirs {
			s := sessions[d.Name()]
			paths, err := fixture.ContextFiles(filepath.Join(committed, "contexts", system), d.Name())
			if err != nil || s == nil || len(paths) != s.nCompact {
				t.Fatalf("%s %s: %d contexts for %v compactions (%v)", system, d.Name(), len(paths), s, err)
			}
			for _, p := range paths {
				c, err := fixture.LoadContext(p)
				if err != nil {
					t.Fatal(err)
				}
				if c.Turn != s.compactions[c.Compaction-1] || c.System == "" {
					t.Errorf("%s: turn %d, compaction at %d", p, c.Turn, s.compactions[c.Compaction-1])
				}
				var raw struct {
					Messages []struct{ Content json.RawMessage }
				}
				data, _ := os.ReadFile(p)
				json.Unmarshal(data, &raw)
				for _, m := range raw.Messages {
					forms[string(m.Content[:1])] = true
				}
				k := key{system, c.ConversationID, c.Compaction}
				tokens, ok := sizes[k]
				delete(sizes, k)
				if want := (len(fixture.Render(c)) + 3) / 4; !ok || tokens != want {
					t.Errorf("%s: prompt_tokens %d, want %d", p, tokens, want)
				}
				total[system] += tokens
				count[system]++
			}
		}
	}
	if len(sizes) != 0 {
		t.Errorf("%d prompt sizes without a context", len(sizes))
	}
	if !forms[`"`] || !forms["["] {
		t.Errorf("content forms in use: %v, want both a string and a list of parts", forms)
	}
	inc := float64(total[SystemIncumbent]) / float64(count[SystemIncumbent])
	cand := float64(total[SystemCandidate]) / float64(count[SystemCandidate])
	t.Logf("mean prompt tokens: incumbent %.0f, candidate %.0f (%.1f%% smaller)", inc, cand, 100*(1-cand/inc))
	if inc > PromptBudget {
		t.Errorf("incumbent mean %.0f tokens exceeds the budget %d", inc, PromptBudget)
	}
	if r := cand / inc; r < 0.62 || r > 0.78 {
		t.Errorf("candidate/incumbent = %.3f, want about 0.7", r)
	}
}

// TestREADME: the README states the incumbent's table and the budget.
func TestREADME(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(committed, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"synthetic", "| constraint | 80 |", "71/80", "44/51", "96/103", "58/61", "**12000**", "never compact", "RankForFixtures"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("README lacks %q", want)
		}
	}
}
