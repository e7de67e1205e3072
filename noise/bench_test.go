package noise

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// benchFiles are two runs of 20,000 records each (1,000 conversations,
// 5 compactions, 4 items), differing on every 7th record.
func benchFiles() (a, b []byte) {
	var ba, bb bytes.Buffer
	verdicts := []string{"verbatim", "supported", "absent", "contradicted"}
	n := 0
	for c := range 1000 {
		for comp := 1; comp <= 5; comp++ {
			for i, class := range fixture.Classes {
				v := verdicts[n%3]
				w := v
				if n%7 == 0 {
					w = verdicts[(n+2)%4]
				}
				f := `{"system":"s","conversation_id":"sess_%05d","compaction":%d,"item_id":"i%d","class":%q,"verdict":%q,"item":"0123456789abcdef"}` + "\n"
				fmt.Fprintf(&ba, f, c, comp, i, class, v)
				fmt.Fprintf(&bb, f, c, comp, i, class, w)
				n++
			}
		}
	}
	return ba.Bytes(), bb.Bytes()
}

// BenchmarkCompare is Compare on the two runs; BenchmarkReadOnly, its
// baseline, only reads the same records with fixture.RecordReader: the
// ratio of the two is what pairing, the line tap and the statistics
// cost over reading.
func BenchmarkCompare(b *testing.B) {
	fa, fb := benchFiles()
	b.SetBytes(int64(len(fa) + len(fb)))
	for b.Loop() {
		if _, err := Compare(bytes.NewReader(fa), bytes.NewReader(fb), "a", "b", 0.95); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadOnly(b *testing.B) {
	fa, fb := benchFiles()
	b.SetBytes(int64(len(fa) + len(fb)))
	for b.Loop() {
		for _, f := range [][]byte{fa, fb} {
			rr := fixture.NewRecordReader(bytes.NewReader(f), "f")
			for {
				if _, err := rr.Next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
