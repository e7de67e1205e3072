package reviews

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// FuzzReader: any input reads without a panic, each line gives a review
// or problems with a position, and every review read is written and
// read back unchanged.
func FuzzReader(f *testing.F) {
	f.Add([]byte(okLine + "\n" + okLine + "\n"))
	f.Add([]byte(`{"conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","system":"s","item":"x","judge_verdict":"verbatim","verdict":"supported","reviewer":"=1+1","note":"\u0000\u2028","source":"r.xlsx"}`))
	f.Add([]byte(`{"conversation_id":7,"compaction":1e3}` + "\n[1]\n\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), "f.jsonl", 1<<16)
		for {
			r, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				ps := fixture.AsProblems(err)
				if len(ps) == 0 {
					t.Fatalf("error without problems: %v", err)
				}
				for _, p := range ps {
					if p.File != "f.jsonl" || p.Line != rd.Line() {
						t.Fatalf("problem %v not at line %d", p, rd.Line())
					}
				}
				continue
			}
			var b bytes.Buffer
			w := NewWriter(&b)
			if err := w.Write(r); err != nil {
				t.Fatalf("a review read does not write: %+v: %v", r, err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			back, err := ReadAll(&b, "g.jsonl", 0)
			if err != nil || len(back) != 1 || back[0] != r {
				t.Fatalf("round trip of %+v: %+v, %v", r, back, err)
			}
		}
	})
}

// FuzzCollectCSV: any CSV after the Items sheet's header gives reviews
// that validate, or problems, never a panic.
func FuzzCollectCSV(f *testing.F) {
	f.Add("c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,supported,absent,'=x,\"a\nb\"\n")
	f.Add("c2,1,q,open_question,,,,contradicted,,,,supported,,,,TRUE,unsure,Contradicted ,,\n")
	f.Add("c9,x,,rule,,,,,,,,,,,,,nope,,,\n\"")
	f.Fuzz(func(t *testing.T, body string) {
		tab, err := ReadCSV(strings.NewReader(csvHeader+body), "r.csv")
		if err != nil {
			return
		}
		for _, chk := range []*Check{csvCheck, nil} {
			got, err := Collect(tab, chk)
			if err != nil {
				continue
			}
			for _, r := range got.Reviews {
				if err := r.Validate(); err != nil {
					t.Fatalf("review %+v does not validate: %v", r, err)
				}
			}
		}
	})
}
