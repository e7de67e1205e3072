package power

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tally-eval/tally/internal/input"
)

func TestReadClusters(t *testing.T) {
	in := "\xef\xbb\xbfconversation_id,pairs,lost,gained\r\n" +
		"conv-1,4,1,0\r\n" +
		"\n" +
		"\"conv, two\",6, 0 ,2\n" +
		"\"say \"\"hi\"\"\",3,1,1\n" +
		"ünïcode,1,0,0"
	cs, err := ReadClusters(strings.NewReader(in), "c.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []ClusterCounts{{4, 1, 0}, {6, 0, 2}, {3, 1, 1}, {1, 0, 0}}
	if len(cs) != len(want) {
		t.Fatalf("got %v, want %v", cs, want)
	}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("cluster %d: %v, want %v", i+1, cs[i], want[i])
		}
	}
}

// TestReadClustersErrors: every problem is one line naming the file,
// line, column (in characters) and field.
func TestReadClustersErrors(t *testing.T) {
	const h = "conversation_id,pairs,lost,gained\n"
	for _, c := range []struct {
		in, want string
	}{
		{"", "c.csv: empty file: want the header conversation_id,pairs,lost,gained and one line per conversation"},
		{h, "c.csv: no conversations after the header"},
		{"conversation_id,pairs,lost\n", "c.csv:1:27: gained: only 3 of the 4 fields"},
		{"id,pairs,lost,gained\n", "c.csv:1:1: header: column 1 is \"id\"; the header must be conversation_id,pairs,lost,gained"},
		{"conversation_id,pairs,gained,lost\n", "c.csv:1:23: header: column 3 is \"gained\""},
		{h + "a,4,1,0,9\n", "c.csv:2:8: more than 4 comma-separated fields"},
		{h + "a,4,1\n", "c.csv:2:6: gained: only 3 of the 4 fields"},
		{h + "a,four,1,0\n", "c.csv:2:3: pairs: \"four\" is not a whole number"},
		{h + "ü,4,x,0\n", "c.csv:2:5: lost: \"x\" is not a whole number"},
		{h + "a,4,1,-1\n", "c.csv:2:7: gained: -1 is negative"},
		{h + "a,4,1,99999999999999999999\n", "c.csv:2:7: gained: \"99999999999999999999\" is more than 10000000"},
		{h + "a,0,0,0\n", "c.csv:2:3: pairs: a conversation must have at least 1 item pair"},
		{h + "a,4,3,2\n", "c.csv:2:5: lost: lost 3 + gained 2 exceed the 4 pairs"},
		{h + ",4,1,0\n", "c.csv:2:1: conversation_id: empty conversation_id"},
		{h + "a,4,1,0\nb,2,0,0\na,3,0,0\n", "c.csv:4:1: conversation_id: conversation_id \"a\" repeats line 2"},
		{h + "\"a,4,1,0\n", "c.csv:2:1: conversation_id: unterminated or malformed quoted field"},
		{h + "\"a\"x,4,1,0\n", "c.csv:2:1: conversation_id: unterminated or malformed quoted field"},
		{h + "a\"b,4,1,0\n", "c.csv:2:2: conversation_id: a quote inside an unquoted field"},
		{h + "a,10000000,0,0\nb,1,0,0\n", "c.csv:3:3: pairs: the conversations hold more than 10000000 pairs in all"},
	} {
		_, err := ReadClusters(strings.NewReader(c.in), "c.csv")
		var p FileError
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || !errors.As(err, &p) || !errors.Is(err, ErrInput) {
			t.Errorf("%q: error %v, want one line starting %q", c.in, err, c.want)
		}
	}
	long := "conversation_id,pairs,lost,gained\n" + strings.Repeat("x", MaxClusterLine+1) + ",1,0,0\n"
	if _, err := ReadClusters(strings.NewReader(long), "c.csv"); !errors.Is(err, input.ErrTooLarge) || !strings.HasPrefix(err.Error(), "c.csv:2: line longer than") {
		t.Errorf("long line: %v", err)
	}
}

func TestLoadClusters(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(p, []byte("conversation_id,pairs,lost,gained\nx,2,1,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := LoadClusters(p, input.Limits{})
	if err != nil || len(cs) != 1 || cs[0] != (ClusterCounts{2, 1, 0}) {
		t.Errorf("LoadClusters: %v, %v", cs, err)
	}
	if _, err := LoadClusters(dir, input.Limits{}); !errors.Is(err, input.ErrNotRegular) {
		t.Errorf("a folder: %v", err)
	}
	if _, err := LoadClusters(p, input.Limits{MaxFile: 10}); !errors.Is(err, input.ErrTooLarge) {
		t.Errorf("over --max-file: %v", err)
	}
}

// FuzzReadClusters: ReadClusters never panics; what it accepts is valid
// for the clustered tests and reads back the same when written out again
// with every id quoted.
func FuzzReadClusters(f *testing.F) {
	const h = "conversation_id,pairs,lost,gained\n"
	for _, s := range []string{
		h + "a,4,1,0\nb,6,0,2\n",
		h + "\"a,b\",3,1,1\r\n\"q\"\"\",2,0,0",
		h + "a,4,1\n", h + "\"a,4,1,0\n", "", h, h + "a, 7 ,0,0\n\n",
		"\xef\xbb\xbf" + h + "ü,1,1,0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ReadClusters(bytes.NewReader(data), "f.csv")
		if err != nil {
			if cs != nil {
				t.Fatal("clusters with an error")
			}
			return
		}
		if _, err := ClusteredMcNemar(cs, ClusterYang); err != nil {
			t.Fatalf("accepted %v, which the tests refuse: %v", cs, err)
		}
		var b strings.Builder
		b.WriteString(h)
		for i, c := range cs {
			b.WriteString("\"" + strconv.Itoa(i) + "\"," + strconv.Itoa(c.N) + "," + strconv.Itoa(c.Lost) + "," + strconv.Itoa(c.Gained) + "\n")
		}
		again, err := ReadClusters(strings.NewReader(b.String()), "g.csv")
		if err != nil || len(again) != len(cs) {
			t.Fatalf("round trip: %v, %v", again, err)
		}
		for i := range cs {
			if again[i] != cs[i] {
				t.Fatalf("round trip cluster %d: %v, want %v", i, again[i], cs[i])
			}
		}
	})
}
