package jsonscan

import (
	"bytes"
	"cmp"
	"strconv"
	"testing"
	"time"
)

// benchDoc is a context-like document of about 50 KB: an object of
// messages whose text has the odd escape and non-ASCII character.
var benchDoc = func() []byte {
	b := []byte(`{"conversation_id":"conv_00042","compaction":2,"turn":80,"system":"You are a careful coding agent.\nPinned ledger:\n- never modify /migrations","messages":[`)
	for m := 0; len(b) < 50<<10; m++ {
		if m > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":"user","content":"At turn `...)
		b = strconv.AppendInt(b, int64(m), 10)
		b = append(b, ` the agent read internal/store/orders.go and listed the functions that touch the status column — \"status\" is a varchar.\nThe test run failed in TestOrderStatus with 3 assertions about the string form of the status."}`...)
	}
	return append(b, "]}"...)
}()

// rawMBps measures a pass over data that touches every byte and decodes
// nothing (counting its quotes), the floor any reader of these bytes
// pays: the baseline of the ratios (the best of three runs).
func rawMBps(data []byte) float64 {
	const reps = 200
	best := 0.0
	for range 3 { // the best of three: the first warms the cache
		start := time.Now()
		n := 0
		for range reps {
			n += bytes.Count(data, []byte{'"'})
		}
		if n == 0 {
			panic("no quotes")
		}
		best = max(best, float64(len(data)*reps)/1e6/time.Since(start).Seconds())
	}
	return best
}

// benchRaw runs pass over benchDoc and reports, besides its speed, the
// raw pass's (raw-MB/s) and its speed over that (x-raw), measured in the
// same run.
func benchRaw(b *testing.B, pass func(s *Scanner) *Error) {
	raw := rawMBps(benchDoc)
	var s Scanner
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset(benchDoc)
		if err := pass(&s); err != nil {
			b.Fatal(err)
		}
	}
	mbps := float64(len(benchDoc)) * float64(b.N) / 1e6 / b.Elapsed().Seconds()
	b.ReportMetric(raw, "raw-MB/s")
	b.ReportMetric(mbps/raw, "x-raw")
}

// BenchmarkSkipValue checks a 50 KB document.
//
//	go test ./internal/jsonscan -run XXX -bench . -benchmem
func BenchmarkSkipValue(b *testing.B) {
	benchRaw(b, (*Scanner).SkipValue)
}

// BenchmarkStrings decodes every string of the document's messages,
// walking its objects with Member.
func BenchmarkStrings(b *testing.B) {
	benchRaw(b, func(s *Scanner) *Error {
		if err := s.BeginObject("", "an object"); err != nil {
			return err
		}
		for i := 0; ; i++ {
			key, _, ok, err := s.Member(i)
			if err != nil || !ok {
				return err
			}
			if string(key) != "messages" {
				if err := s.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if err := s.BeginArray("messages", "a list"); err != nil {
				return err
			}
			for j := 0; ; j++ {
				more, err := s.Element(j)
				if err != nil {
					return err
				}
				if !more {
					break
				}
				if err := s.BeginObject("", "an object"); err != nil {
					return err
				}
				for k := 0; ; k++ {
					_, _, ok, err := s.Member(k)
					if err != nil {
						return err
					}
					if !ok {
						break
					}
					if _, err := s.String(""); err != nil {
						return err
					}
				}
			}
		}
	})
}

// BenchmarkFields does BenchmarkStrings' work with Fields and KeySets:
// the two differ by what Fields costs over a loop written out.
func BenchmarkFields(b *testing.B) {
	top, msg := NewKeySet("messages"), StrictKeySet("role", "content")
	fail := &Error{Msg: "Fields declined"}
	benchRaw(b, func(s *Scanner) *Error {
		var err *Error
		str := func(int) bool {
			_, err = s.String("")
			return err == nil
		}
		_, ok := s.Fields(top, func(int) bool {
			if err = s.BeginArray("messages", "a list"); err != nil {
				return false
			}
			for j := 0; ; j++ {
				more, e := s.Element(j)
				if e != nil || !more {
					err = e
					return e == nil
				}
				if _, ok := s.Fields(msg, str); !ok {
					return false
				}
			}
		})
		if !ok {
			return cmp.Or(err, fail)
		}
		return nil
	})
}
