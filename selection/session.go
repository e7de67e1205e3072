package selection

import (
	"fmt"
	"slices"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// MaxTurns bounds a session's turns and its item count: a larger number
// in a summary is taken for a corrupt line rather than a session.
const MaxTurns = 1 << 24

// Session is one line of a session summary file (DESIGN.md, "Session
// summary"): {"session_id","turns","started"?,"incident"?,
// "compactions":[{"turn"}] | N,"items":[{"class","turn"}] | N}.
//
// An older client reports compactions or items as a count rather than a
// list with turns; then CountsOnly is set, the list is nil and only the
// count is known.
type Session struct {
	ID       string
	Turns    int
	Started  time.Time // zero when the summary has none
	Incident bool
	// Compactions are the turns at which a compaction ran (nil when the
	// summary gave only a count).
	Compactions []int
	// Items are the items stated in the session (nil when the summary
	// gave only a count).
	Items []Item
	// CompactionCount and ItemCount are the numbers of compactions and
	// items, whether the summary listed them or only counted them.
	CompactionCount int
	ItemCount       int
	// CountsOnly reports that compactions or items came as a count, so
	// their turns are unknown.
	CountsOnly bool
}

// Item is one item a session summary lists: its class and the turn at
// which it was stated.
type Item struct {
	Class fixture.Class
	Turn  int
}

// Decisions is the number of compaction decisions the session exercises,
// the unit the source text counts evidence in: for each compaction, one
// decision per item stated before that compaction's turn (item turn <
// compaction turn), and at least one per compaction, since a compaction
// with no live item still decides what to keep. Items stated after the
// last compaction count nothing, and a session that never compacts has
// none.
//
// With counts only (no turns) every item is taken to be live at every
// compaction: CompactionCount × max(1, ItemCount). This is exactly
// examples/gen's Decisions, the ranking the example fixtures were built
// by.
func (s *Session) Decisions() int64 {
	if s.CountsOnly || s.Compactions == nil || s.Items == nil {
		return int64(s.CompactionCount) * int64(max(1, s.ItemCount))
	}
	if len(s.Compactions)*len(s.Items) <= 4096 {
		var n int64
		for _, c := range s.Compactions {
			live := 0
			for _, it := range s.Items {
				if it.Turn < c {
					live++
				}
			}
			n += int64(max(1, live))
		}
		return n
	}
	turns := make([]int, len(s.Items))
	for i, it := range s.Items {
		turns[i] = it.Turn
	}
	slices.Sort(turns)
	var n int64
	for _, c := range s.Compactions {
		live, _ := slices.BinarySearch(turns, c) // items with turn < c
		n += int64(max(1, live))
	}
	return n
}

// Clone returns a copy of s that shares no memory with it: a
// SessionReader reuses the lists of the session it returned last.
func (s Session) Clone() Session {
	if s.Compactions != nil {
		s.Compactions = slices.Clone(s.Compactions)
	}
	if s.Items != nil {
		s.Items = slices.Clone(s.Items)
	}
	return s
}

// Validate checks a session built in code by the rules a summary line is
// read by: a session_id, 1 ≤ turns ≤ MaxTurns, every compaction and item
// turn in 1..turns, known item classes, counts that match the lists and
// at most one compaction per turn in number.
func (s *Session) Validate() error {
	fail := func(field, format string, args ...any) error {
		return fixture.Problem{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case s.ID == "":
		return fail("session_id", "empty")
	case s.Turns < 1 || s.Turns > MaxTurns:
		return fail("turns", "want a whole number from 1 to %d, got %d", MaxTurns, s.Turns)
	case s.Compactions != nil && len(s.Compactions) != s.CompactionCount:
		return fail("compactions", "%d listed but CompactionCount is %d", len(s.Compactions), s.CompactionCount)
	case s.Items != nil && len(s.Items) != s.ItemCount:
		return fail("items", "%d listed but ItemCount is %d", len(s.Items), s.ItemCount)
	case s.CompactionCount < 0 || s.CompactionCount > s.Turns:
		return fail("compactions", "%d compactions in %d turns: at most one per turn", s.CompactionCount, s.Turns)
	case s.ItemCount < 0 || s.ItemCount > MaxTurns:
		return fail("items", "want a count from 0 to %d, got %d", MaxTurns, s.ItemCount)
	case !s.CountsOnly && (s.Compactions == nil || s.Items == nil):
		return fail("", "CountsOnly is false but a list is nil")
	}
	for i, c := range s.Compactions {
		if c < 1 || c > s.Turns {
			return fail(fmt.Sprintf("compactions[%d].turn", i), "want a turn from 1 to %d, got %d", s.Turns, c)
		}
	}
	for i, it := range s.Items {
		if it.Turn < 1 || it.Turn > s.Turns {
			return fail(fmt.Sprintf("items[%d].turn", i), "want a turn from 1 to %d, got %d", s.Turns, it.Turn)
		}
		if !it.Class.Valid() {
			return fail(fmt.Sprintf("items[%d].class", i), "unknown class %q (want constraint, commitment, open_question or reference)", it.Class)
		}
	}
	return nil
}

// parseSession decodes one summary line into s, reusing its lists. Keys
// other than the six of the format are ignored (production summaries
// carry more); a key given twice is an error.
func parseSession(sc *jsonscan.Scanner, line []byte, s *Session, bufs *sessionBufs) *jsonscan.Error {
	sc.Reset(line)
	comps, items := bufs.comps[:0], bufs.items[:0]
	compOffs, itemOffs := bufs.compOffs[:0], bufs.itemOffs[:0]
	defer func() {
		bufs.comps, bufs.items, bufs.compOffs, bufs.itemOffs = comps[:0], items[:0], compOffs[:0], itemOffs[:0]
	}()
	*s = Session{}
	if err := sc.BeginObject("", "a JSON object (one session summary)"); err != nil {
		return err
	}
	const (
		fID = 1 << iota
		fTurns
		fStarted
		fIncident
		fCompactions
		fItems
	)
	seen := 0
	once := func(bit int, key string, off int) *jsonscan.Error {
		if seen&bit != 0 {
			return sc.Errorf(off, key, "given twice")
		}
		seen |= bit
		return nil
	}
	compOff := 0
	var compList, itemList bool
	for i := 0; ; i++ {
		key, keyOff, ok, err := sc.Member(i)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "session_id":
			if err := once(fID, "session_id", keyOff); err != nil {
				return err
			}
			b, off, _, err := sc.StringOrNull("session_id")
			if err != nil {
				return err
			}
			if len(b) == 0 {
				return sc.Errorf(off, "session_id", "want a non-empty string")
			}
			if bufs.rawID {
				bufs.id = append(bufs.id[:0], b...)
			} else {
				s.ID = string(b)
			}
		case "turns":
			if err := once(fTurns, "turns", keyOff); err != nil {
				return err
			}
			n, err := sc.Integer("turns", 1, MaxTurns)
			if err != nil {
				return err
			}
			s.Turns = n
		case "started":
			if err := once(fStarted, "started", keyOff); err != nil {
				return err
			}
			b, off, isNull, err := sc.StringOrNull("started")
			if err != nil {
				return err
			}
			if !isNull {
				t, ok := parseTime(b)
				if !ok {
					return sc.Errorf(off, "started", "want an RFC 3339 time such as 2026-01-05T04:55:22Z, got %q", b)
				}
				s.Started = t
			}
		case "incident":
			if err := once(fIncident, "incident", keyOff); err != nil {
				return err
			}
			// null reads as false, as an absent incident does.
			if isNull, err := sc.Null(); err != nil {
				return err
			} else if !isNull {
				b, err := sc.Bool("incident")
				if err != nil {
					return err
				}
				s.Incident = b
			}
		case "compactions":
			if err := once(fCompactions, "compactions", keyOff); err != nil {
				return err
			}
			compOff = sc.Pos()
			isList, n, err := listOrCount(sc, "compactions", `{"turn"}`, func(j int) *jsonscan.Error {
				t, off, err := turnObject(sc, "compactions", j, nil)
				comps, compOffs = append(comps, t), append(compOffs, off)
				return err
			})
			if err != nil {
				return err
			}
			compList, s.CompactionCount = isList, n
		case "items":
			if err := once(fItems, "items", keyOff); err != nil {
				return err
			}
			isList, n, err := listOrCount(sc, "items", `{"class","turn"}`, func(j int) *jsonscan.Error {
				var class fixture.Class
				t, off, err := turnObject(sc, "items", j, &class)
				items, itemOffs = append(items, Item{Class: class, Turn: t}), append(itemOffs, off)
				return err
			})
			if err != nil {
				return err
			}
			itemList, s.ItemCount = isList, n
		default:
			if err := sc.SkipValue(); err != nil {
				return err
			}
		}
	}
	if err := sc.End(); err != nil {
		return err
	}
	for _, f := range []struct {
		bit  int
		name string
	}{{fID, "session_id"}, {fTurns, "turns"}, {fCompactions, "compactions"}, {fItems, "items"}} {
		if seen&f.bit == 0 {
			return sc.Errorf(0, "", "missing %q", f.name)
		}
	}
	if compList {
		if comps == nil {
			comps = []int{}
		}
		s.Compactions = comps
		s.CompactionCount = len(comps)
		for j, t := range comps {
			if t > s.Turns {
				return sc.Errorf(compOffs[j], fmt.Sprintf("compactions[%d].turn", j), "turn %d is after the session's last turn %d", t, s.Turns)
			}
		}
	} else {
		s.CountsOnly = true
	}
	if s.CompactionCount > s.Turns {
		return sc.Errorf(compOff, "compactions", "%d compactions in %d turns: at most one per turn", s.CompactionCount, s.Turns)
	}
	if itemList {
		if items == nil {
			items = []Item{}
		}
		s.Items = items
		s.ItemCount = len(items)
		for j, it := range items {
			if it.Turn > s.Turns {
				return sc.Errorf(itemOffs[j], fmt.Sprintf("items[%d].turn", j), "turn %d is after the session's last turn %d", it.Turn, s.Turns)
			}
		}
	} else {
		s.CountsOnly = true
	}
	if s.CountsOnly {
		// The turns of one list say nothing without the other's.
		s.Compactions, s.Items = nil, nil
	}
	return nil
}

// sessionBufs are the lists a reader reuses from line to line.
type sessionBufs struct {
	comps              []int
	items              []Item
	compOffs, itemOffs []int // where each turn is in the line
	// rawID leaves Session.ID empty and the session_id in id.
	rawID bool
	id    []byte
}

// turnObject reads {"turn":N} (and {"class":C} when class is non-nil),
// element j of list, ignoring other keys.
func turnObject(sc *jsonscan.Scanner, list string, j int, class *fixture.Class) (turn, turnOff int, err *jsonscan.Error) {
	field := func(sub string) string { return fmt.Sprintf("%s[%d]%s", list, j, sub) }
	off := sc.Pos()
	what := `an object {"turn"}`
	if class != nil {
		what = `an object {"class","turn"}`
	}
	if sc.Peek() != '{' {
		return 0, 0, sc.Errorf(sc.Pos(), field(""), "want %s, got %s", what, sc.Describe())
	}
	if err := sc.BeginObject("", what); err != nil {
		return 0, 0, err
	}
	haveTurn, haveClass := false, false
	for i := 0; ; i++ {
		key, keyOff, ok, err := sc.Member(i)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			break
		}
		switch {
		case string(key) == "turn":
			if haveTurn {
				return 0, 0, sc.Errorf(keyOff, field(".turn"), "given twice")
			}
			haveTurn = true
			sc.SkipSpace()
			turnOff = sc.Pos()
			if turn, err = sc.Integer("", 1, MaxTurns); err != nil {
				err.Field = field(".turn")
				return 0, 0, err
			}
		case string(key) == "class" && class != nil:
			if haveClass {
				return 0, 0, sc.Errorf(keyOff, field(".class"), "given twice")
			}
			haveClass = true
			b, off, _, err := sc.StringOrNull("")
			if err != nil {
				if err.Field == "" && off == err.Off {
					err.Field = field(".class")
				}
				return 0, 0, err
			}
			c, ok := classOf(b)
			if !ok {
				return 0, 0, sc.Errorf(off, field(".class"), "unknown class %q (want constraint, commitment, open_question or reference)", b)
			}
			*class = c
		default:
			if err := sc.SkipValue(); err != nil {
				return 0, 0, err
			}
		}
	}
	if !haveTurn {
		return 0, 0, sc.Errorf(off, field(""), `missing "turn"`)
	}
	if class != nil && !haveClass {
		return 0, 0, sc.Errorf(off, field(""), `missing "class"`)
	}
	return turn, turnOff, nil
}

// classOf returns the class named b without allocating.
func classOf(b []byte) (fixture.Class, bool) {
	for _, c := range fixture.Classes {
		if string(b) == string(c) {
			return c, true
		}
	}
	return "", false
}

// listOrCount reads a field that is either a list of objects, calling
// each for element j, or a count from 0 to MaxTurns (the session summary's
// "compactions" and "items"); shape names the list's objects in errors.
func listOrCount(sc *jsonscan.Scanner, field, shape string, each func(j int) *jsonscan.Error) (isList bool, count int, err *jsonscan.Error) {
	switch c := sc.Peek(); {
	case c == '[':
		if err := sc.BeginArray(field, "a list"); err != nil {
			return true, 0, err
		}
		for j := 0; ; j++ {
			more, err := sc.Element(j)
			if err != nil {
				return true, 0, err
			}
			if !more {
				return true, 0, nil
			}
			if err := each(j); err != nil {
				return true, 0, err
			}
		}
	case c == '-' || ('0' <= c && c <= '9'):
		n, err := sc.Integer(field, 0, MaxTurns)
		return false, n, err
	default:
		desc := sc.Describe()
		return false, 0, sc.Errorf(sc.Pos(), field, "want a list of %s or a count, got %s", shape, desc)
	}
}
