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
	if got := ValueColumn(line, "type"); got != 9 {
		t.Errorf("ValueColumn type: %d, want 9", got)
	}
}
