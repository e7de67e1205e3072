package selection

import (
	"bytes"
	"errors"
	"io"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// ReadIncidents reads the sessions to select as incidents, whatever
// their decisions: JSON Lines whose objects each name one session in
// "session_id" — the flagged sessions `tally signals -o` writes, or any
// file of {"session_id": …} lines (other members are not read). Blank
// lines are skipped. A line that is not such an object is an error
// naming file, line, column and field; a session named twice is one
// incident. maxLine bounds each line (0: input.DefaultMaxLine).
func ReadIncidents(r io.Reader, name string, maxLine int64) (map[string]bool, error) {
	lines := input.NewLines(r, name, maxLine)
	var sc jsonscan.Scanner
	out := map[string]bool{}
	for {
		line, err := lines.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			var le *input.LineError
			if errors.As(err, &le) {
				return nil, le
			}
			return nil, fixture.Problem{File: name, Line: lines.Line() + 1, Msg: err.Error()}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		id, e := incidentID(&sc, line)
		if e != nil {
			return nil, problemAt(name, lines.Line(), line, e)
		}
		out[id] = true
	}
}

// incidentID reads the session_id of one incidents line.
func incidentID(sc *jsonscan.Scanner, line []byte) (string, *jsonscan.Error) {
	// Not JSON at all is said as that ("not json" would otherwise read
	// as a null that is not an object).
	sc.Reset(line)
	if e := sc.SkipValue(); e != nil {
		return "", e
	}
	if e := sc.End(); e != nil {
		return "", e
	}
	sc.Reset(line)
	if e := sc.BeginObject("", "an object with a session_id (a line of tally signals -o)"); e != nil {
		return "", e
	}
	id, found := "", false
	for i := 0; ; i++ {
		key, keyOff, more, e := sc.Member(i)
		if e != nil {
			return "", e
		}
		if !more {
			if !found {
				return "", &jsonscan.Error{Off: 0, Field: "session_id", Msg: "missing: each line names a session"}
			}
			return id, sc.End()
		}
		if string(key) != "session_id" {
			if e := sc.SkipValue(); e != nil {
				return "", e
			}
			continue
		}
		if found {
			return "", &jsonscan.Error{Off: keyOff, Field: "session_id", Msg: "given twice"}
		}
		b, e := sc.String("session_id")
		if e != nil {
			return "", e
		}
		if len(b) == 0 {
			return "", &jsonscan.Error{Off: keyOff, Field: "session_id", Msg: "empty"}
		}
		id, found = string(b), true
	}
}
