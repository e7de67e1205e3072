package jsonenc

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type failAfter struct {
	n   int
	got bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		return 0, errors.New("disk full")
	}
	return f.got.Write(p)
}

// TestLines: lines pass through the buffer in order, and a failed write
// is sticky: every later call returns it, named by what was written.
func TestLines(t *testing.T) {
	var out bytes.Buffer
	l := NewLines(&out, "records")
	for _, s := range []string{"{\"a\":1}\n", "{\"b\":2}\n"} {
		if err := l.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if out.Len() != 0 {
		t.Errorf("written before Flush: %q", out.String())
	}
	if err := l.Flush(); err != nil || out.String() != "{\"a\":1}\n{\"b\":2}\n" {
		t.Errorf("Flush: %v, %q", err, out.String())
	}
	f := &failAfter{n: 10}
	l = NewLines(f, "reviews")
	big := []byte(strings.Repeat("x", 70<<10) + "\n")
	err := l.Write(big)
	if err == nil || err.Error() != "writing reviews: disk full" {
		t.Fatalf("a write past the failure: %v", err)
	}
	if l.Write([]byte("{}\n")) != err || l.Flush() != err || l.Err() != err {
		t.Error("the error is not sticky")
	}
}
