package selection

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestReadIncidents: the sessions a file of flagged sessions names, and
// one error line for each way a line can be wrong, placed by column.
func TestReadIncidents(t *testing.T) {
	in := `{"session_id":"a","file":"x.jsonl.gz","signals":[{"signal":"repeated_tool_call","severe":true}]}

{"week":"2026-W05","session_id":"b"}
{"session_id":"a"}
`
	got, err := ReadIncidents(strings.NewReader(in), "f.jsonl", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("incidents %v, want a and b", ids)
	}
	for _, c := range []struct{ name, in, want string }{
		{"not an object", `["a"]`, "f.jsonl:1:1: want an object with a session_id (a line of tally signals -o), got an array"},
		{"no session_id", "\n" + `{"session":"a"}`, "f.jsonl:2:1: session_id: missing: each line names a session"},
		{"a number", `{"session_id":7}`, "f.jsonl:1:15: session_id: want a string, got the number 7"},
		{"empty", `{"session_id":""}`, "f.jsonl:1:2: session_id: empty"},
		{"twice", `{"session_id":"a","session_id":"b"}`, "f.jsonl:1:19: session_id: given twice"},
		{"not JSON", `{"session_id":"a"`, "f.jsonl:1:18: "},
		{"text after", `{"session_id":"a"} x`, "f.jsonl:1:20: "},
		{"not JSON at all", `not json`, "f.jsonl:1:2: invalid character 'o' in literal null"},
	} {
		_, err := ReadIncidents(strings.NewReader(c.in), "f.jsonl", 0)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting %q", c.name, err, c.want)
		}
	}
}

// TestSelectNamedIncidents: a session an incidents file names is
// selected as an incident whatever its decisions; a name no session has
// is said in the warnings.
func TestSelectNamedIncidents(t *testing.T) {
	in := `{"session_id":"a","turns":9,"compactions":3,"items":5}
{"session_id":"b","turns":9,"compactions":1,"items":1}
{"session_id":"c","turns":9,"compactions":2,"items":2}
`
	cfg := DefaultConfig(2)
	cfg.CompareRandom = 0
	cfg.Incidents = map[string]bool{"b": true, "zz": true}
	res, err := Select(strings.NewReader(in), "s.jsonl", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var picked []string
	for _, p := range res.Selected {
		picked = append(picked, p.ID+" "+string(p.Reason))
	}
	if res.Incidents != 1 || !slices.Equal(picked, []string{"b incident", "a decisions"}) {
		t.Errorf("%d incidents, picked %q; want b as the incident, then a", res.Incidents, picked)
	}
	want := "1 of the 2 sessions named as incidents was not among the sessions read, so not selected: zz"
	if !slices.Contains(res.Warnings, want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}
}

func FuzzReadIncidents(f *testing.F) {
	f.Add([]byte(`{"session_id":"a","signals":[]}` + "\n\n" + `{"session_id":"b"}`))
	f.Add([]byte(`{"session_id":"a","session_id":"a"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadIncidents(bytes.NewReader(b), "fuzz.jsonl", 0)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for id := range got {
			if id == "" {
				t.Errorf("an empty session id read")
			}
		}
	})
}
