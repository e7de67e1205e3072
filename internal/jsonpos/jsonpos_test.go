package jsonpos

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestSyntaxOffset(t *testing.T) {
	tests := []struct {
		in   string
		want int // the offending character's byte offset
	}{
		{`{"a": x}`, 6},
		{`{"a" 1}`, 5},
		{`{"é": 1,}`, 9},
		{`[1, 2 3]`, 6},
	}
	for _, tt := range tests {
		var v any
		err := json.Unmarshal([]byte(tt.in), &v)
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: %v is not a syntax error", tt.in, err)
		}
		if got := SyntaxOffset([]byte(tt.in), se); got != tt.want {
			t.Errorf("%q (%v): offset %d, want %d (%q)", tt.in, se, got, tt.want, tt.in[tt.want:])
		}
	}
}
