package selection

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// parseCallInputMap is parseCallInput as it was before it read inputs
// on internal/jsonscan (commit 0692259): encoding/json into a map, and
// any other tool's input re-encoded. The tests below pin the new reading
// to it.
func parseCallInputMap(tool string, raw json.RawMessage, cwd string) callInput {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	num := func(k string) int {
		f, _ := m[k].(float64)
		return int(f)
	}
	var in callInput
	switch tool {
	case "Bash":
		in.cmd = normCommand(str("command"))
		in.key = in.cmd
		in.targets = ghAPIWrites(str("command"))
		if len(in.targets) > 0 {
			in.key = ""
		}
	case "Read":
		in.file = resolvePath(cwd, str("file_path"))
		in.key = in.file
		in.lo = max(num("offset"), 1)
		if l := num("limit"); l > 0 {
			in.hi = in.lo + l - 1
		}
	case "Grep", "Glob":
		in.pat, in.file = str("pattern"), resolvePath(cwd, str("path"))
		if in.file == "" && cwd != "" {
			in.file = resolvePath("", cwd)
		}
		in.key = in.pat + "\x00" + in.file
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		in.file = resolvePath(cwd, str("file_path"))
		if in.file == "" {
			in.file = resolvePath(cwd, str("notebook_path"))
		}
		in.oldStr, in.newStr = str("old_string"), str("new_string")
		if tool == "Write" {
			in.newStr = str("content")
		}
		if edits, ok := m["edits"].([]any); ok {
			for _, e := range edits {
				if e, ok := e.(map[string]any); ok {
					o, _ := e["old_string"].(string)
					n, _ := e["new_string"].(string)
					in.oldStr += o + "\n"
					in.newStr += n + "\n"
				}
			}
		}
		in.key = in.file + "\x00" + in.oldStr
		if tool == "Write" {
			in.key = in.file + "\x00" + in.newStr
		}
	case "TaskOutput":
		in.key = str("task_id")
	default:
		// An input that is no object is its own key (a custom tool's
		// string), its text when it is not JSON.
		if t := strings.TrimSpace(string(raw)); t != "" && t[0] != '{' {
			var v any
			if json.Unmarshal(raw, &v) != nil {
				in.key = string(raw)
				break
			}
			b, _ := json.Marshal(v)
			in.key = string(b)
			break
		}
		for _, k := range []string{"description", "timeout", "run_in_background"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		in.key = string(b)
	}
	return in
}

// genericTool reports whether tool's identity is its canonical input,
// whose spelling changed (only which inputs are equal must not).
func genericTool(tool string) bool {
	switch tool {
	case "Bash", "Read", "Grep", "Glob", "Edit", "MultiEdit", "Write", "NotebookEdit", "TaskOutput":
		return false
	}
	return true
}

// callCase is one tool call's input.
type callCase struct {
	tool string
	raw  string
}

// checkSameIdentity checks that parseCallInput reads every call as
// parseCallInputMap does: the same fields, and for other tools keys
// equal exactly when the old keys are.
func checkSameIdentity(t *testing.T, cwd string, calls []callCase) {
	t.Helper()
	type keyed struct{ tool, old, new string }
	var generic []keyed
	for _, c := range calls {
		old, got := parseCallInputMap(c.tool, json.RawMessage(c.raw), cwd), parseCallInput(c.tool, json.RawMessage(c.raw), cwd)
		if genericTool(c.tool) {
			generic = append(generic, keyed{c.tool, old.key, got.key})
			old.key, got.key = "", ""
		}
		if !reflect.DeepEqual(old, got) {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.tool, c.raw, got, old)
		}
	}
	// Same tool, same old key ⇔ same new key (pairs among the first 3000
	// calls, and each call against its neighbours beyond).
	for i := range generic {
		for j := i + 1; j < len(generic) && (i < 3000 || j < i+50); j++ {
			a, b := generic[i], generic[j]
			if a.tool != b.tool {
				continue
			}
			if (a.old == b.old) != (a.new == b.new) {
				t.Errorf("%s: old keys equal %v, new keys equal %v:\n%s\n%s", a.tool, a.old == b.old, a.new == b.new, a.new, b.new)
			}
		}
	}
}

// The inputs a decoder gets wrong: repeated keys, members of the wrong
// type, numbers as floats, inputs that are not objects or not JSON,
// escapes and invalid UTF-8, MultiEdit's edits in every shape.
func TestParseCallInputEdgeCases(t *testing.T) {
	calls := []callCase{
		{"Bash", `{"command":"go  test ./...\n# label\n  ./x"}`},
		{"Bash", `{"command":"a","command":"b"}`},
		{"Bash", `{"command":"a","command":5}`},
		{"Bash", `{"command":"gh api -X POST repos/o/r/pulls/1/comments -f body=x"}`},
		{"Bash", `{"command":"ls \u00e9\ud83d\ude00 \ud800 x\/y"}`},
		{"Bash", "{\"command\":\"ls \xff\xfe z\"}"},
		{"Bash", `[1,2]`},
		{"Bash", `null`},
		{"Bash", `{"command":"ls"`},
		{"Bash", `{"command":"ls"} x`},
		{"Bash", ``},
		{"Read", `{"file_path":"a/../b.go","offset":10,"limit":5}`},
		{"Read", `{"file_path":"/r/b.go","offset":10.7,"limit":"5"}`},
		{"Read", `{"file_path":"/r/b.go","offset":-3,"limit":1e400}`},
		{"Read", `{"file_path":"/r/b.go","offset":1e3,"limit":2,"limit":null}`},
		{"Read", `{"file_path":"b.go","offset":5,"offset":7}`},
		{"Grep", `{"pattern":"func \\w+","path":"./sel"}`},
		{"Glob", `{"pattern":"**/*.go"}`},
		{"Edit", `{"file_path":"a.go","old_string":"x","new_string":"y","replace_all":true}`},
		{"Write", `{"file_path":"a.go","content":"package a\n"}`},
		{"NotebookEdit", `{"notebook_path":"n.ipynb","new_string":"x"}`},
		{"MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"a","new_string":"b"},3,{"old_string":1},{"new_string":"c","new_string":"d"}]}`},
		{"MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"a","new_string":"b"}],"edits":"none"}`},
		{"MultiEdit", `{"file_path":"a.go","edits":{"old_string":"a"}}`},
		{"TaskOutput", `{"task_id":"t1","block":true}`},
		{"TaskOutput", `{"task_id":7}`},
	}
	for _, tool := range []string{"TodoWrite", "mcp__x__y"} {
		for _, raw := range []string{
			`{"a":1,"b":[1,2,{"z":1,"y":2}],"description":"d"}`,
			`{"b":[1,2,{"y":2,"z":1}],"a":1}`,
			`{ "a" : 1 , "b" : [ 1 , 2 , { "y" : 2 , "z" : 1 } ] , "timeout" : 5 }`,
			`{"a":1.0,"b":[1,2,{"y":2,"z":1}]}`,
			`{"a":1e0,"b":[1,2,{"y":2,"z":1}]}`,
			`{"a":10000000000000001}`, `{"a":10000000000000000}`,
			`{"a":"<&>","b":"\u003c&>"}`, `{"a":"<&>","b":"<&>"}`,
			`{"a":"x","a":"y"}`, `{"a":"y"}`, `{"a":"x"}`,
			`{}`, `{"description":"only"}`, `[]`, `null`, `"s"`, `{bad`,
			// Inputs that are no object (a custom tool's string): their
			// own key, bad UTF-8 read as U+FFFD, and bytes that are no
			// JSON kept as they are (a fuzzer's "\x00").
			"\"\xff\"", "\"\xfe\"", "\"\ufffd\"", "\x00", "\x01", ` "patch text" `,
			"{\"a\":\"\xff\"}", "{\"a\":\"\ufffd\"}",
			`{"a":"\ud800"}`, `{"a":"\ufffd"}`,
			`{"é":1}`, `{"\u00e9":1}`,
		} {
			calls = append(calls, callCase{tool, raw})
		}
	}
	checkSameIdentity(t, "/r", calls)
	checkSameIdentity(t, "", calls)
}

// Every tool call of this package's real-format test sessions and, when
// TALLY_REAL_LOGS names the dev set's folder, of the dev set.
func TestParseCallInputLikeEncodingJSON(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "re*", "*.jsonl"))
	if dir := os.Getenv("TALLY_REAL_LOGS"); dir != "" {
		real, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
		paths = append(paths, real...)
	} else {
		t.Log("TALLY_REAL_LOGS is not set: checking testdata's sessions only, not the dev set")
	}
	n := 0
	for _, p := range paths {
		ss, err := agentlog.OpenAll(p, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			var calls []callCase
			for _, st := range s.Steps {
				for _, c := range st.Calls {
					calls = append(calls, callCase{c.Name, string(c.Input)})
				}
			}
			n += len(calls)
			checkSameIdentity(t, s.Cwd, calls)
		}
	}
	t.Logf("%d calls in %d files", n, len(paths))
	if n == 0 {
		t.Fatal("no calls read")
	}
}

// FuzzParseCallInput: parseCallInput reads any input as
// parseCallInputMap does.
func FuzzParseCallInput(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"file_path":"a","offset":1.5}`, `{"edits":[{"old_string":"a"}]}`, `{"a":[1,{"b":2}]}`} {
		f.Add("Bash", s)
		f.Add("Read", s)
		f.Add("MultiEdit", s)
		f.Add("TodoWrite", s)
	}
	f.Fuzz(func(t *testing.T, tool, raw string) {
		checkSameIdentity(t, "/r", []callCase{{tool, raw}, {tool, `{}`}, {tool, `null`}})
	})
}

// TestResolvePathWindows: a Windows session's paths name one file
// however they are written (backslashes or slashes, a drive letter's
// case, relative to the session's directory); POSIX paths keep their
// case.
func TestResolvePathWindows(t *testing.T) {
	tests := []struct{ cwd, p, want string }{
		{`C:\Users\Jörg\repo`, `main.go`, "c:/users/jörg/repo/main.go"},
		{`C:\Users\Jörg\repo`, `.\main.go`, "c:/users/jörg/repo/main.go"},
		{`C:\Users\Jörg\repo`, `C:/Users/Jörg/repo/main.go`, "c:/users/jörg/repo/main.go"},
		{`C:\Users\Jörg\repo`, `c:\users\jörg\repo\sub\..\main.go`, "c:/users/jörg/repo/main.go"},
		{`C:\Users\Jörg\repo`, `D:\other\x.go`, "d:/other/x.go"},
		{"", `C:\repo\x.go`, "c:/repo/x.go"},
		{"/home/jörg/repo", "Main.go", "/home/jörg/repo/Main.go"},
		{"/home/jörg/repo", "/etc/x", "/etc/x"},
		{"/repo", `a\b`, "/repo/a/b"}, // backslashes and no slash: read as Windows
	}
	for _, tt := range tests {
		if got := resolvePath(tt.cwd, tt.p); got != tt.want {
			t.Errorf("resolvePath(%q, %q) = %q, want %q", tt.cwd, tt.p, got, tt.want)
		}
	}
}
