package noise

import (
	"math"
	"os"
	"testing"
)

// TestExampleRerun measures the bundled example's A/A pair — the
// incumbent checked twice, examples/quarterly/verdicts/incumbent.jsonl and
// incumbent-rerun.jsonl — and pins every figure to values computed
// without tally: the counts, clusters and agreement table with jq (the
// join by item-compaction of cmd/tally's TestNoiseExample, grouped by
// class and conversation), then R 4.2 on them (anova_icc as in
// /work/i13refs/final/icc.R; psych::cohen.kappa; prop.test for Wilson):
//
//	lost/gained: constraint 7/8, commitment 7/4, open_question 5/4, reference 0/3
//	table (rows A, columns B; V S A C): 122 24 4 0 / 20 84 14 1 / 8 11 5 0 / 0 0 0 2
//	commitment:    clusters=25 N=51  K=11 icc=0.2447029622  deff=1.4126363676
//	constraint:    clusters=30 N=80  K=15 icc=0.4905321239  deff=2.3857532500
//	open_question: clusters=33 N=103 K=9  icc=0.0250326627  deff=1.0802017347
//	reference:     clusters=27 N=61  K=3  icc=-0.2464887640 deff=1 (ρ taken as 0)
//	> ck <- cohen.kappa(tab, n.obs=295); ck$confid[1,]; sqrt(ck$var.kappa)
//	0.4307384228 0.5143155443 0.5978926658
//	[1] 0.04264217209
//	> prop.test(15, 80, correct=FALSE)$conf.int
//	[1] 0.1170531047 0.2865832263
func TestExampleRerun(t *testing.T) {
	const dir = "../examples/quarterly/verdicts/"
	fa, err := os.Open(dir + "incumbent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open(dir + "incumbent-rerun.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	m, err := Compare(fa, fb, "incumbent.jsonl", "incumbent-rerun.jsonl", 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		pairs, lost, gained, convs int
		icc, deff                  float64
	}{
		{80, 7, 8, 30, 0.4905321239, 2.3857532500},
		{51, 7, 4, 25, 0.2447029622, 1.4126363676},
		{103, 5, 4, 33, 0.0250326627, 1.0802017347},
		{61, 0, 3, 27, -0.2464887640, 1},
	}
	if len(m.Classes) != len(want) {
		t.Fatalf("%d classes", len(m.Classes))
	}
	for i, c := range m.Classes {
		w := want[i]
		if c.Pairs != w.pairs || c.Lost != w.lost || c.Gained != w.gained || c.Conversations != w.convs {
			t.Errorf("%s: %d pairs, %d lost, %d gained, %d conversations; want %+v", c.Class, c.Pairs, c.Lost, c.Gained, c.Conversations, w)
		}
		if math.Abs(c.ICC.Rho-w.icc) > 1e-9 || math.Abs(c.ICC.DesignEffect-w.deff) > 1e-9 {
			t.Errorf("%s: ICC %.10f, design effect %.10f; R gives %.10f, %.10f", c.Class, c.ICC.Rho, c.ICC.DesignEffect, w.icc, w.deff)
		}
	}
	for i, row := range [][]int{{122, 24, 4, 0}, {20, 84, 14, 1}, {8, 11, 5, 0}, {0, 0, 0, 2}} {
		for j, x := range row {
			if m.Table[i][j] != x {
				t.Errorf("table[%d][%d] = %d, jq counts %d", i, j, m.Table[i][j], x)
			}
		}
	}
	k := m.Agreement
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"kappa", k.Kappa, 0.5143155443},
		{"kappa standard error", k.StandardError, 0.04264217209},
		{"kappa lower", k.Interval.Lower, 0.4307384228},
		{"kappa upper", k.Interval.Upper, 0.5978926658},
		{"constraint wilson lower", m.Classes[0].DiscordanceInterval.Lower, 0.1170531047},
		{"constraint wilson upper", m.Classes[0].DiscordanceInterval.Upper, 0.2865832263},
	} {
		if math.Abs(f.got-f.want) > 1e-9 {
			t.Errorf("%s: %.10f, R gives %.10f", f.name, f.got, f.want)
		}
	}
}
