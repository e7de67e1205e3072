package jsonscan

import "testing"

// TestPathColumn: the column (runes, from 1) of a nested member's value;
// 1 when the path is missing or passes through something not an object.
func TestPathColumn(t *testing.T) {
	line := []byte(`{"type":"session_meta","payload":{"cwd":"/é","id": "b"},"id":7}`)
	for _, c := range []struct {
		path []string
		want int
	}{
		{[]string{"id"}, 62},
		{[]string{"payload", "id"}, 52},
		{[]string{"payload", "nope"}, 1},
		{[]string{"type", "id"}, 1},
		{nil, 1},
	} {
		if got := PathColumn(line, c.path...); got != c.want {
			t.Errorf("%v: column %d, want %d", c.path, got, c.want)
		}
	}
	// A list's elements, by index: the column of the second part's
	// content is counted by hand (the "[" of [1,2] is rune 72).
	parts := []byte(`{"message":{"content":[{"type":"text"},{"type":"tool_result","content":[1,2]}]}}`)
	for _, c := range []struct {
		path []string
		want int
	}{
		{[]string{"message", "content", "[1]", "content"}, 72},
		{[]string{"message", "content", "[0]"}, 24},
		{[]string{"message", "content", "[2]"}, 1},
		{[]string{"message", "[0]"}, 1},
		{[]string{"message", "content", "[x]"}, 1},
	} {
		if got := PathColumn(parts, c.path...); got != c.want {
			t.Errorf("%v: column %d, want %d", c.path, got, c.want)
		}
	}
	if got := ValueColumn(line, "type"); got != 9 {
		t.Errorf("ValueColumn type: %d, want 9", got)
	}
}
