package draft

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/selection"
)

// Proposer proposes candidate items from a session — here, the prefix of
// one before a compaction (Prefix). A candidate's Turn is the 1-based
// typed turn it was stated in, content before the first typed prompt
// counting as turn 1, and its Message the text it was found in; its id,
// status and the proposal's other fields are not read.
type Proposer func(s *agentlog.Session) (selection.Proposal, error)

// ErrNoCompaction is returned (wrapped, with the session) by Build for a
// session with no compaction that has a summary: it has no compacted
// context, so no fixture to draft.
var ErrNoCompaction = errors.New("no compaction with a summary: no fixture to draft")

// Draft is the fixture drafted from one session: its candidates file and
// the incumbent's compacted contexts, with what was made of each
// compaction.
type Draft struct {
	// Source is the log's name (Session.Name) and SessionID the session's
	// id as the log gives it.
	Source, SessionID string
	// Candidates is the candidates file for `tally review`; its
	// conversation_id, turns and compactions_expected are the fixture's.
	Candidates selection.Proposal
	// FirstProposed holds, for each candidate, the number of the context
	// whose turns before first proposed it. A candidate is live at that
	// context; it may be live at earlier ones too, when it was stated
	// before them but proposed only once later turns raised its
	// confidence.
	FirstProposed []int
	// Contexts are the incumbent's compacted contexts, Compaction 1, 2, …
	Contexts []fixture.Context
	// TypedTurns is the number of person-typed turns of the session.
	TypedTurns int
	// Compactions describes each compaction of the log, in order,
	// including those left out.
	Compactions []Compaction
	// Notes are things a reviewer should know: compactions left out,
	// candidates whose turn could only be guessed, candidates no longer
	// proposed before a later compaction.
	Notes []string
}

// Compaction is one compaction of the log and what the draft made of it.
type Compaction struct {
	// Line is the compaction's line in the log (its summary's line when
	// the log has no boundary record); Trigger and PreTokens are the
	// log's.
	Line      int
	Trigger   string
	PreTokens int64
	// TypedTurn is the 1-based typed turn it happened in (0: before the
	// first typed prompt).
	TypedTurn int
	// Context is its number in the fixture, 0 when it was left out (no
	// summary); Turn is the fixture turn its context serves.
	Context, Turn int
	// Messages is the number of messages of its context and
	// SummaryChars the length of the summary, in characters.
	Messages, SummaryChars int
	// Proposed is the number of candidates first proposed from the turns
	// before it, and Live the number of candidates live at it (turn <
	// Turn).
	Proposed, Live int
}

// Build drafts the fixture of session s: for each compaction with a
// summary, the candidates propose finds in the turns before it, and the
// incumbent's compacted context (see the package comment for the
// choices). The conversation id is ConversationID(s). A session with no
// such compaction returns ErrNoCompaction, with a Draft holding only the
// log's compactions and the notes saying why each was left out.
func Build(s *agentlog.Session, propose Proposer) (*Draft, error) {
	return BuildConcurrent(s, propose, 1)
}

// BuildConcurrent is Build with up to workers calls of propose at once,
// one for each compaction's prefix (a model proposer's calls take
// seconds each); propose must then be safe for concurrent use. The
// result does not depend on workers.
func BuildConcurrent(s *agentlog.Session, propose Proposer, workers int) (*Draft, error) {
	d := &Draft{Source: s.Name, SessionID: s.ID, TypedTurns: len(s.Turns)}
	keep := make([]bool, len(s.Compactions))
	kept := 0
	for i, c := range s.Compactions {
		line := c.Line
		if line == 0 {
			line = c.SummaryLine
		}
		d.Compactions = append(d.Compactions, Compaction{Line: line, Trigger: c.Trigger, PreTokens: c.PreTokens,
			TypedTurn: c.Turn + 1, SummaryChars: len([]rune(c.Summary))})
		if c.Encrypted {
			d.Notes = append(d.Notes, fmt.Sprintf("the compaction at line %d keeps its summary encrypted (a Codex remote compaction): the context the agent continued from cannot be read whole, so it is left out of the fixture", line))
			continue
		}
		if strings.TrimSpace(c.Summary) == "" {
			d.Notes = append(d.Notes, fmt.Sprintf("the compaction at line %d has no summary in the log (cut off after it, or a format that records none): left out of the fixture", line))
			continue
		}
		keep[i] = true
		kept++
	}
	if kept == 0 {
		if n := len(s.Microcompactions); n > 0 {
			// A microcompaction clears old tool results in place and
			// keeps no summary: nothing to check a summary against (a
			// new user's trial took one for a compaction).
			note := fmt.Sprintf("the log has %d microcompaction%s (the first at line %d): it clears old tool results in place and writes no summary, so it gives no fixture",
				n, map[bool]string{true: "", false: "s"}[n == 1], s.Microcompactions[0].Line)
			d.Notes = append(d.Notes, note)
			return d, fmt.Errorf("%s: session %q: %w; %s", s.Name, s.ID, ErrNoCompaction, note)
		}
		if len(d.Notes) > 0 {
			// Why each compaction was left out (an encrypted summary, a
			// log cut off after the boundary), so the error says it
			// (a new user's trial saw only "no compaction with a
			// summary" for a Codex remote compaction).
			return d, fmt.Errorf("%s: session %q: %w; %s", s.Name, s.ID, ErrNoCompaction, strings.Join(d.Notes, "; "))
		}
		return d, fmt.Errorf("%s: session %q: %w", s.Name, s.ID, ErrNoCompaction)
	}
	evs := stream(s)
	tn := numberTurns(s, evs, keep)
	id := ConversationID(s)

	// Propose before each kept compaction; merge by class, literal and
	// the proposer's turn, keeping the first appearance.
	type cand struct {
		item        selection.ProposedItem
		first, last int // the first and last context whose prefix proposed it
	}
	var cands []cand
	seen := map[string]int{}
	props, prefixes, failed, err := proposeAll(s, keep, propose, workers)
	if err != nil {
		return nil, fmt.Errorf("%s: proposing items before the compaction at line %d: %w", s.Name, d.Compactions[failed].Line, err)
	}
	n := 0
	for k := range s.Compactions {
		if !keep[k] {
			continue
		}
		n++
		pre, p := prefixes[k], props[k]
		for _, it := range p.Candidates {
			key := string(it.Class) + "\x00" + strconv.Itoa(it.Turn) + "\x00" + it.Literal
			if i, ok := seen[key]; ok {
				cands[i].last = n
				continue
			}
			turn, note := place(s, tn, pre, it)
			if note != "" {
				d.Notes = append(d.Notes, note)
			}
			if turn == 0 {
				continue
			}
			it.Turn, it.Status = turn, selection.ReviewPending
			seen[key] = len(cands)
			cands = append(cands, cand{item: it, first: n, last: n})
		}
	}
	// Candidates in fixture-turn order, the order review shows them, with
	// ids c1, c2, … in that order.
	slices.SortStableFunc(cands, func(a, b cand) int { return a.item.Turn - b.item.Turn })
	items := make([]selection.ProposedItem, len(cands))
	for i := range cands {
		cands[i].item.ID = "c" + strconv.Itoa(i+1)
		items[i] = cands[i].item
		d.FirstProposed = append(d.FirstProposed, cands[i].first)
		if c := cands[i]; c.last < kept {
			d.Notes = append(d.Notes, fmt.Sprintf("%s (%s, turn %d) is proposed from the turns before compaction %d but not from those before compaction %d (answered or superseded in between?); the fixture checks it at every later compaction: reject or edit it in review",
				c.item.ID, c.item.Class, c.item.Turn, c.last, c.last+1))
		}
	}
	d.Candidates = selection.Proposal{ConversationID: id, Turns: tn.n, CompactionsExpected: kept, Candidates: items}

	n = 0
	for k := range s.Compactions {
		if !keep[k] {
			continue
		}
		n++
		ctx := fixture.Context{ConversationID: id, Compaction: n, Turn: tn.context[k], Messages: contextMessages(s, evs, k)}
		d.Contexts = append(d.Contexts, ctx)
		dc := &d.Compactions[k]
		dc.Context, dc.Turn, dc.Messages = n, ctx.Turn, len(ctx.Messages)
		for _, c := range cands {
			if c.item.Turn < ctx.Turn {
				dc.Live++
			}
			if c.first == n {
				dc.Proposed++
			}
		}
	}
	if err := d.Candidates.Validate(); err != nil {
		return nil, fmt.Errorf("%s: the drafted candidates are not a valid candidates file: %w", s.Name, err)
	}
	return d, nil
}

// proposeAll calls propose on the prefix before each kept compaction of s,
// up to workers at once, and returns the proposals and prefixes by
// compaction index. Its error is the first failure in compaction order,
// whichever failed first in time, with that compaction's index.
func proposeAll(s *agentlog.Session, keep []bool, propose Proposer, workers int) (props []selection.Proposal, prefixes []*agentlog.Session, failed int, err error) {
	props = make([]selection.Proposal, len(s.Compactions))
	prefixes = make([]*agentlog.Session, len(s.Compactions))
	errs := make([]error, len(s.Compactions))
	sem := make(chan struct{}, max(1, workers))
	var wg sync.WaitGroup
	for k := range s.Compactions {
		if !keep[k] {
			continue
		}
		prefixes[k] = Prefix(s, k)
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			props[k], errs[k] = propose(prefixes[k])
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return nil, nil, k, err
		}
	}
	return props, prefixes, 0, nil
}
