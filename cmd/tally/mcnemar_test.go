package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMcNemarClusters: --clusters on Obuchowski's thyroid data
// (testdata/clusters_thyroid.csv, from clust.bin.pair's thyroids page:
// lost = ck, gained = bk, pairs = ak+bk+ck+dk per patient) prints the
// package's documented Obuchowski χ² 2.8571, p 0.09097 and Yang's 3.1317,
// p 0.07679, and the JSON carries them.
func TestMcNemarClusters(t *testing.T) {
	out, errOut, code := cli(t, "mcnemar", "--table", "39,7,1,4", "--clusters", "testdata/clusters_thyroid.csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"21 conversations, 51 pairs, 7 lost, 1 gained",
		"obuchowski      2.8571  0.0910",
		"yang            3.1317  0.0768",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q (clust.bin.pair documentation):\n%s", want, out)
		}
	}
	out, _, _ = cli(t, "mcnemar", "--table", "39,7,1,4", "--clusters", "testdata/clusters_thyroid.csv", "--format", "json")
	var j struct {
		Clustered struct {
			Clusters int
			Tests    []struct {
				Method    string
				ChiSquare float64 `json:"chi_square"`
				PValue    float64 `json:"p_value"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Clustered.Clusters != 21 || len(j.Clustered.Tests) != 3 {
		t.Fatalf("JSON clustered %+v", j.Clustered)
	}
	for _, c := range []struct {
		method  string
		chi2, p float64
	}{{"obuchowski", 2.8571, 0.09097}, {"yang", 3.1317, 0.07679}} {
		for _, x := range j.Clustered.Tests {
			if x.Method == c.method && (math.Abs(x.ChiSquare-c.chi2) > 5e-5 || math.Abs(x.PValue-c.p) > 5e-6) {
				t.Errorf("%s: χ² %v p %v, clust.bin.pair documents %v, %v", c.method, x.ChiSquare, x.PValue, c.chi2, c.p)
			}
		}
	}
}

// TestMcNemarClustersErrors: a bad clusters file is one error line naming
// file, line, column and field, exit 1 (bad input, as a bad --table);
// nothing goes to stdout.
func TestMcNemarClustersErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const h = "conversation_id,pairs,lost,gained\n"
	bad := write("bad.csv", h+"c1,3,1,0\nc2,3,x,0\n")
	over := write("over.csv", h+"c1,3,2,2\n")
	short := write("short.csv", h+"c1,3,1\n")
	nohead := write("nohead.csv", "c1,3,1,0\n")
	sum := write("sum.csv", h+"c1,3,1,0\nc2,3,0,1\n")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--clusters", bad}, 1, "tally: --clusters: " + bad + ":3:6: lost: \"x\" is not a whole number"},
		{[]string{"--clusters", over}, 1, "tally: --clusters: " + over + ":2:6: lost: lost 2 + gained 2 exceed the 3 pairs"},
		{[]string{"--clusters", short}, 1, "tally: --clusters: " + short + ":2:7: gained: only 3 of the 4 fields"},
		{[]string{"--clusters", nohead}, 1, "tally: --clusters: " + nohead + ":1:1: header: column 1 is \"c1\""},
		{[]string{"--clusters", sum}, 1, "tally: --clusters " + sum + ": its 2 conversations add up to 6 pairs, 1 lost, 1 gained, but --table 39,7,1,4 has 51 pairs"},
		{[]string{"--clusters", filepath.Join(dir, "missing.csv")}, 1, "tally: --clusters: reading clusters: "},
		{[]string{"--clusters", dir}, 1, "tally: --clusters: reading clusters: "},
	} {
		args := append([]string{"mcnemar", "--table", "39,7,1,4"}, c.args...)
		out, errOut, code := cli(t, args...)
		if code != c.code || !strings.HasPrefix(errOut, c.msg) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d and one line starting %q", c.args, code, errOut, out, c.code, c.msg)
		}
	}
}
