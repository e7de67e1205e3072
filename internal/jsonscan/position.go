package jsonscan

import (
	"sort"
	"unicode/utf8"
)

// Column converts byte offset off of a one-line text into a 1-based
// column counted in Unicode characters (each byte of invalid UTF-8
// counts one).
func Column(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}

// Position converts byte offset off of data into a 1-based line and a
// 1-based column counted in Unicode characters (each byte of invalid
// UTF-8 counts one). Lines end at "\n"; a "\r" before it counts as a
// character of its line. For many offsets into one text, use Lines.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(data[start:off]) + 1
}

// Lines converts byte offsets of one text into 1-based line and column,
// as Position does, for many offsets.
//
// It indexes the text once, on first use: where each line starts, and
// every markStep bytes (at an ASCII byte, where counting runes can start
// afresh) how many runes come before. A column is then the rune count
// from the nearest mark, at most markStep bytes away, so that reporting
// many problems on one long line (a minified fixture, a JSONL line) costs
// time in proportion to the problems, not to problems × line length.
type Lines struct {
	data   []byte
	first  int    // the line number of data[0]
	starts []int  // offsets at which lines start
	marks  []mark // rune counts at offsets about markStep apart, ascending
}

// NewLines returns the index of data, whose first byte is on line first.
func NewLines(data []byte, first int) *Lines {
	return &Lines{data: data, first: first}
}

// mark is the number of runes in data[:off]; data[off] is ASCII (or off
// is 0), so utf8.RuneCount(data[:off]) + utf8.RuneCount(data[off:x]) is
// utf8.RuneCount(data[:x]).
type mark struct{ off, runes int }

// markStep is the distance between marks: 4 KiB keeps the index at about
// 1/256 of the input and a column lookup to one short count.
const markStep = 4 << 10

// index builds starts and marks in one pass.
func (l *Lines) index() {
	l.starts = append(make([]int, 0, 8), 0)
	l.marks = append(make([]mark, 0, len(l.data)/markStep+1), mark{})
	next, runes, from := markStep, 0, 0
	for i, c := range l.data {
		if c == '\n' {
			l.starts = append(l.starts, i+1)
		}
		if i >= next && c < utf8.RuneSelf {
			runes += utf8.RuneCount(l.data[from:i])
			l.marks = append(l.marks, mark{i, runes})
			from, next = i, i+markStep
		}
	}
}

// runesTo returns utf8.RuneCount(l.data[:off]).
func (l *Lines) runesTo(off int) int {
	j := sort.Search(len(l.marks), func(j int) bool { return l.marks[j].off > off }) - 1
	m := l.marks[j]
	return m.runes + utf8.RuneCount(l.data[m.off:off])
}

// Pos returns the line and column (in runes, from 1) of byte offset off.
func (l *Lines) Pos(off int) (line, col int) {
	if l.starts == nil {
		l.index()
	}
	off = min(max(off, 0), len(l.data))
	i := sort.SearchInts(l.starts, off+1) - 1
	start := l.starts[i]
	if off-start <= markStep {
		return l.first + i, utf8.RuneCount(l.data[start:off]) + 1
	}
	// A line starts after '\n', which is ASCII: counts add up there too.
	return l.first + i, l.runesTo(off) - l.runesTo(start) + 1
}

// ValueColumn is the column (in runes, from 1) of the value of the
// top-level member key of the JSON object on line; 1 when the line is
// not an object or has no such member. It places an error found after a
// record parsed on the field it is about.
func ValueColumn(line []byte, key string) int { return PathColumn(line, key) }

// PathColumn is ValueColumn for a value nested in objects and lists:
// the value of path[len(path)-1] in the value of path[len(path)-2], and
// so on from the top level. An element "[N]" is the Nth element of a list
// (from 0), any other a member of an object: "payload", "id" is
// payload.id, and "message", "content", "[2]", "content" is
// message.content[2].content. It is 1 when a step of the path is
// missing or the value there is not of its kind.
func PathColumn(line []byte, path ...string) int {
	var s Scanner
	s.Reset(line)
	if len(path) == 0 {
		return 1
	}
	for _, p := range path {
		if !s.enter(p) {
			return 1
		}
	}
	return Column(line, s.Pos())
}

// enter moves s from the start of a value to the start of its member
// or element p (PathColumn's step); false when there is none.
func (s *Scanner) enter(p string) bool {
	if n, ok := pathIndex(p); ok {
		if s.BeginArray("", "") != nil {
			return false
		}
		for i := 0; ; i++ {
			more, err := s.Element(i)
			if err != nil || !more {
				return false
			}
			if i == n {
				s.SkipSpace()
				return true
			}
			if s.SkipValue() != nil {
				return false
			}
		}
	}
	if s.BeginObject("", "") != nil {
		return false
	}
	for i := 0; ; i++ {
		k, _, more, err := s.Member(i)
		if err != nil || !more {
			return false
		}
		if string(k) == p {
			s.SkipSpace()
			return true
		}
		if s.SkipValue() != nil {
			return false
		}
	}
}

// pathIndex reads a PathColumn element "[N]".
func pathIndex(p string) (int, bool) {
	if len(p) < 3 || p[0] != '[' || p[len(p)-1] != ']' {
		return 0, false
	}
	n := 0
	for _, c := range p[1 : len(p)-1] {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return n, true
}
