package selection

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/jsonenc"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// A tool call's identity (callInput) read from its input JSON: only the
// members a tool's identity needs are decoded (on internal/jsonscan,
// without a tree), and they are read as encoding/json's decoding into a
// map would read them, which is how they were read before: of a
// repeated key the last wins, a member of the wrong type is "" or 0, an
// input that is not a JSON object has no members, and invalid UTF-8
// inside a string reads as U+FFFD.

// callFields are the input members that identity reads.
type callFields struct {
	command, filePath, notebookPath, pattern, path string
	oldString, newString, content, taskID          string
	offset, limit                                  int
	// edits are MultiEdit's edits, each old_string and new_string
	// followed by "\n", joined.
	editsOld, editsNew string
}

// parseCallInput reads a call's input; cwd is the session's working
// directory, against which relative paths are resolved ("" for none).
func parseCallInput(tool string, raw json.RawMessage, cwd string) callInput {
	var sc jsonscan.Scanner
	var f callFields
	var in callInput
	switch tool {
	case "Bash":
		scanCallFields(&sc, raw, &f)
		in.cmd = normCommand(f.command)
		in.key = in.cmd
		in.targets = ghAPIWrites(f.command)
		if len(in.targets) > 0 {
			in.key = ""
		}
	case "Read":
		scanCallFields(&sc, raw, &f)
		in.file = resolvePath(cwd, f.filePath)
		in.key = in.file
		in.lo = max(f.offset, 1)
		if f.limit > 0 {
			in.hi = in.lo + f.limit - 1
		}
	case "Grep", "Glob":
		scanCallFields(&sc, raw, &f)
		in.pat, in.file = f.pattern, resolvePath(cwd, f.path)
		if in.file == "" && cwd != "" { // no path: the cwd
			in.file = resolvePath("", cwd)
		}
		in.key = in.pat + "\x00" + in.file
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		scanCallFields(&sc, raw, &f)
		in.file = resolvePath(cwd, f.filePath)
		if in.file == "" {
			in.file = resolvePath(cwd, f.notebookPath)
		}
		in.oldStr, in.newStr = f.oldString, f.newString
		if tool == "Write" {
			in.newStr = f.content
		}
		in.oldStr += f.editsOld
		in.newStr += f.editsNew
		in.key = in.file + "\x00" + in.oldStr
		if tool == "Write" {
			in.key = in.file + "\x00" + in.newStr
		}
	case "TaskOutput":
		scanCallFields(&sc, raw, &f)
		in.key = f.taskID
	default:
		in.key = genericCallKey(&sc, raw)
	}
	return in
}

// scanCallFields reads the members of input raw that identity uses into
// f. An input that is not valid JSON, or not an object, leaves f empty.
func scanCallFields(sc *jsonscan.Scanner, raw []byte, f *callFields) {
	if scanFields(sc, raw, f) {
		return
	}
	*f = callFields{}
	if fixed, ok := validWithBadUTF8(raw); ok && !scanFields(sc, fixed, f) {
		*f = callFields{}
	}
}

// scanFields is scanCallFields on raw, reporting false when jsonscan
// rejects it.
func scanFields(sc *jsonscan.Scanner, raw []byte, f *callFields) bool {
	sc.ResetDocument(raw)
	if sc.Peek() != '{' {
		return sc.SkipValue() == nil && sc.End() == nil // not an object: no members
	}
	if sc.BeginObject("", "") != nil {
		return false
	}
	for i := 0; ; i++ {
		key, _, ok, err := sc.Member(i)
		if err != nil {
			return false
		}
		if !ok {
			break
		}
		var dst *string
		var num *int
		switch string(key) {
		case "command":
			dst = &f.command
		case "file_path":
			dst = &f.filePath
		case "notebook_path":
			dst = &f.notebookPath
		case "pattern":
			dst = &f.pattern
		case "path":
			dst = &f.path
		case "old_string":
			dst = &f.oldString
		case "new_string":
			dst = &f.newString
		case "content":
			dst = &f.content
		case "task_id":
			dst = &f.taskID
		case "offset":
			num = &f.offset
		case "limit":
			num = &f.limit
		case "edits":
			if !scanEdits(sc, f) {
				return false
			}
			continue
		}
		var ok2 bool
		switch {
		case dst != nil:
			*dst, ok2 = scanString(sc)
		case num != nil:
			*num, ok2 = scanNumber(sc)
		default:
			ok2 = sc.SkipValue() == nil
		}
		if !ok2 {
			return false
		}
	}
	return sc.End() == nil
}

// scanString reads a string member's value: a string, or "" for any
// other value.
func scanString(sc *jsonscan.Scanner) (string, bool) {
	if sc.Peek() != '"' {
		return "", sc.SkipValue() == nil
	}
	b, err := sc.String("")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// scanNumber reads a number member's value as encoding/json's float64
// truncated to an int; any other value, or a number out of float64's
// range, is 0.
func scanNumber(sc *jsonscan.Scanner) (int, bool) {
	if c := sc.Peek(); c != '-' && (c < '0' || c > '9') {
		return 0, sc.SkipValue() == nil
	}
	lit, _, err := sc.Number("")
	if err != nil {
		return 0, false
	}
	v, perr := strconv.ParseFloat(string(lit), 64)
	if perr != nil {
		return 0, true
	}
	return int(v), true
}

// scanEdits reads MultiEdit's "edits": an array of objects, each with
// old_string and new_string. A later "edits" replaces an earlier one;
// one that is not an array is none; an element that is not an object is
// left out.
func scanEdits(sc *jsonscan.Scanner, f *callFields) bool {
	f.editsOld, f.editsNew = "", ""
	if sc.Peek() != '[' {
		return sc.SkipValue() == nil
	}
	if sc.BeginArray("", "") != nil {
		return false
	}
	var olds, news strings.Builder
	for i := 0; ; i++ {
		more, err := sc.Element(i)
		if err != nil {
			return false
		}
		if !more {
			break
		}
		if sc.Peek() != '{' {
			if sc.SkipValue() != nil {
				return false
			}
			continue
		}
		if sc.BeginObject("", "") != nil {
			return false
		}
		var o, n string
		for j := 0; ; j++ {
			key, _, ok, err := sc.Member(j)
			if err != nil {
				return false
			}
			if !ok {
				break
			}
			var ok2 bool
			switch string(key) {
			case "old_string":
				o, ok2 = scanString(sc)
			case "new_string":
				n, ok2 = scanString(sc)
			default:
				ok2 = sc.SkipValue() == nil
			}
			if !ok2 {
				return false
			}
		}
		olds.WriteString(o + "\n")
		news.WriteString(n + "\n")
	}
	f.editsOld, f.editsNew = olds.String(), news.String()
	return true
}

// validWithBadUTF8 returns raw with each byte of invalid UTF-8 replaced
// by U+FFFD, as encoding/json decodes it, when raw is valid JSON that
// jsonscan rejects for its invalid UTF-8; ok is false for input that is
// not valid JSON.
func validWithBadUTF8(raw []byte) (fixed []byte, ok bool) {
	if utf8.Valid(raw) || !json.Valid(raw) {
		return nil, false
	}
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 {
			fixed = utf8.AppendRune(fixed, utf8.RuneError)
		} else {
			fixed = append(fixed, raw[i:i+size]...)
		}
		i += size
	}
	return fixed, true
}

// descriptiveField reports whether a top-level input member describes a
// call rather than saying what it does: it is left out of a generic
// tool's identity.
func descriptiveField(k []byte) bool {
	switch string(k) {
	case "description", "timeout", "run_in_background":
		return true
	}
	return false
}

// genericCallKey is the identity of a call to any other tool: its input
// as canonical JSON (jsonscan.Canonical: members sorted by key, no white
// space, strings escaped one way), without the descriptive top-level
// members; of a repeated top-level key the last counts (inside a
// member's value, an object's repeated keys all count, where
// encoding/json's re-encoding kept the last: agents' logs do not repeat
// keys). An input that is not a JSON object is its canonical JSON (its
// text when it is not JSON); an empty one is "null". An input with a
// number that float64 does not hold as written (a fraction, an
// exponent, more than 15 digits) is keyed as encoding/json re-encodes
// it, so that 1.0 and 1 stay one call.
func genericCallKey(sc *jsonscan.Scanner, raw []byte) string {
	// An input that is no object (a custom tool's string: Codex's
	// apply_patch) is its own key; keying them all "null" had made any
	// two patches one call (a new user's trial).
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '{' {
		for _, b := range [][]byte{raw, nil} {
			if b == nil {
				// Invalid UTF-8 inside a string reads as U+FFFD, as
				// encoding/json reads it.
				fixed, ok := validWithBadUTF8(raw)
				if !ok {
					break
				}
				b = fixed
			}
			sc.ResetDocument(b)
			if canon, err := sc.Canonical(nil); err == nil && sc.End() == nil {
				return string(canon)
			}
		}
		return string(raw)
	}
	key, ok := canonicalKey(sc, raw)
	if !ok {
		if fixed, valid := validWithBadUTF8(raw); valid {
			key, ok = canonicalKey(sc, fixed)
		}
	}
	if !ok || plainNumbers(key) {
		return key
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"description", "timeout", "run_in_background"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m) // map keys are sorted: canonical
	return string(b)
}

// keySpan is one member of a canonical key being built: its bytes in
// the buffer, and its key's (quoted) within them.
type keySpan struct{ m0, k1, m1 int }

// canonicalKey is genericCallKey on raw, ok false when jsonscan rejects
// raw ("null" then, as for any input that is not an object).
func canonicalKey(sc *jsonscan.Scanner, raw []byte) (string, bool) {
	sc.ResetDocument(raw)
	if sc.Peek() != '{' || sc.BeginObject("", "") != nil {
		return "null", false
	}
	var spansArr [16]keySpan
	var bufArr [512]byte
	ms, buf := spansArr[:0], append(bufArr[:0], '{')
	sorted := true
	for i := 0; ; i++ {
		key, _, ok, err := sc.Member(i)
		if err != nil {
			return "null", false
		}
		if !ok {
			break
		}
		if descriptiveField(key) {
			if sc.SkipValue() != nil {
				return "null", false
			}
			continue
		}
		if len(ms) > 0 {
			buf = append(buf, ',')
		}
		m0 := len(buf)
		buf = jsonenc.AppendString(buf, key)
		k1 := len(buf)
		buf = append(buf, ':')
		if buf, err = sc.Canonical(buf); err != nil {
			return "null", false
		}
		if n := len(ms); n > 0 && string(buf[ms[n-1].m0:ms[n-1].k1]) >= string(buf[m0:k1]) {
			sorted = false // out of order, or a repeated key
		}
		ms = append(ms, keySpan{m0, k1, len(buf)})
	}
	if sc.End() != nil {
		return "null", false
	}
	if sorted { // buf is the key already
		return string(append(buf, '}')), true
	}
	keyOf := func(m keySpan) string { return string(buf[m.m0:m.k1]) }
	slices.SortStableFunc(ms, func(a, b keySpan) int { return strings.Compare(keyOf(a), keyOf(b)) })
	var out strings.Builder
	out.Grow(len(buf) + 1)
	out.WriteByte('{')
	for i, m := range ms {
		if i+1 < len(ms) && keyOf(ms[i+1]) == keyOf(m) {
			continue // a later member has this key: the last counts
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.Write(buf[m.m0:m.m1])
	}
	out.WriteByte('}')
	return out.String(), true
}

// plainNumbers reports whether every number in canonical JSON text c is
// an integer of at most 15 digits, which float64 holds exactly and
// encoding/json writes back as it was written.
func plainNumbers(c string) bool {
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch == '"': // skip the string
			for i++; i < len(c) && c[i] != '"'; i++ {
				if c[i] == '\\' {
					i++
				}
			}
		case ch == '-' || '0' <= ch && ch <= '9':
			j := i
			if ch == '-' {
				j++
			}
			d := j
			for j < len(c) && '0' <= c[j] && c[j] <= '9' {
				j++
			}
			if j-d > 15 || j < len(c) && (c[j] == '.' || c[j] == 'e' || c[j] == 'E') {
				return false
			}
			i = j - 1
		}
	}
	return true
}

// resolvePath cleans a path and, when it is relative and cwd is not "",
// joins it to cwd: "./a//b" is "a/b", or "/repo/a/b" in /repo. "" stays
// "". When either is a Windows path (a drive letter, or backslashes
// and no slash), both are read the Windows way: backslashes are
// separators and case does not count (NTFS's default), so
// `C:\Repo\main.go`, `c:/repo/main.go` and `.\main.go` in `C:\Repo` are
// one file.
func resolvePath(cwd, p string) string {
	if p == "" {
		return ""
	}
	if isWindowsPath(cwd) || isWindowsPath(p) {
		cwd, p = windowsSlash(cwd), windowsSlash(p)
		if cwd != "" && !path.IsAbs(p) && !hasDrive(p) {
			return path.Join(cwd, p)
		}
		return path.Clean(p)
	}
	if cwd != "" && !path.IsAbs(p) {
		return path.Join(cwd, p)
	}
	return path.Clean(p)
}

// isWindowsPath reports whether p is written the Windows way: it starts
// with a drive letter ("C:") or has backslashes and no slash.
func isWindowsPath(p string) bool {
	return hasDrive(p) || strings.Contains(p, `\`) && !strings.Contains(p, "/")
}

// hasDrive reports whether p starts with a drive letter and a colon.
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z')
}

// windowsSlash is a Windows path with slashes for separators, lower-cased.
func windowsSlash(p string) string {
	return strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
}

// normCommand drops whole-line comments (labels, like a description),
// collapses whitespace and cleans "./"-prefixed and
// doubled-slash path words.
func normCommand(c string) string {
	lines := strings.Split(c, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			kept = append(kept, l)
		}
	}
	c = strings.Join(kept, "\n")
	f := strings.Fields(c) // every run of white space is one separator
	for i, w := range f {
		if strings.HasPrefix(w, "./") && len(w) > 2 || strings.Contains(w, "//") && !strings.Contains(w, "://") {
			f[i] = path.Clean(w)
		}
	}
	return strings.Join(f, " ")
}
