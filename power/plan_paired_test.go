package power

import (
	"math"
	"testing"
)

// connorR is the base R the paired references below come from (R 4.2,
// run here; Connor 1987, Biometrics 43:207, p. 209, with ψ = pL + pG and
// Δ = pL − pG):
//
//	connor_n <- function(pL, pG, alpha = 0.05, power = 0.8) {
//	  psi <- pL + pG; d <- pL - pG
//	  (qnorm(1 - alpha/2) * sqrt(psi) + qnorm(power) * sqrt(psi - d^2))^2 / d^2
//	}
//	connor_power <- function(n, pL, pG, alpha = 0.05) {
//	  psi <- pL + pG; d <- abs(pL - pG)
//	  pnorm((sqrt(n) * d - qnorm(1 - alpha/2) * sqrt(psi)) / sqrt(psi - d^2))
//	}
//	connor_n(0.45, 0.05)         # 22.011324427435785 (the worked example: 23)
//	connor_n(0.07, 0.04)         # 956.94626153182617
//	connor_n(0.03, 0)            # 259.25889013793744
//	connor_power(300, 0.03, 0)    # 0.85451511129863822
//	connor_power(300, 0.07, 0.04) # 0.34646431103537539
//	connor_power(100, 0.45, 0.05) # 0.99999632233280211
//	connor_power(200, 0.015, 0)   # 0.40918498399078901
//	power.prop.test(n = 300, p1 = 0.80, p2 = 0.77)$power  # 0.14314085066246157
//	power.prop.test(p1 = 0.80, p2 = 0.77, power = 0.8)$n   # 2942.5867372100652
//	# the largest noise g at which 300 pairs still see a drop of 0.03:
//	uniroot(function(g) connor_power(300, 0.03 + g, g) - 0.8, c(0, 0.1), tol = 1e-14)$root
//	                              # 0.0023357126634917652 → discordance 0.034671425326983529
//	# minimum detectable drop of 300 pairs, p_gained fixed at 0, at 0.04, and discordance fixed at 0.11:
//	uniroot(function(d) connor_power(300, d, 0) - 0.8, c(1e-6, 0.5), tol = 1e-14)$root          # 0.025957975235000656
//	uniroot(function(d) connor_power(300, 0.04 + d, 0.04) - 0.8, c(1e-6, 0.5), tol = 1e-14)$root # 0.060361390874145104
//	uniroot(function(d) connor_power(300, (0.11 + d)/2, (0.11 - d)/2) - 0.8, c(1e-6, 0.11), tol = 1e-14)$root # 0.053435730329527913
const connorR = "base R implementing Connor (1987) p. 209 (see connorR's comment)"

// TestPlanPairedAssumptions pins the paired figures of `tally plan` under
// each stated assumption to Connor's formula in R. The case: 9
// of 300 conversations failing outright at a rate of 0.80 is beyond two
// independent runs (power 0.14) but within a paired run of 260 when the
// runs disagree on nothing else; with p_gained 0.04 (discordance 0.11),
// the pairs needed are 957 and a paired run of 300 has power 0.35.
func TestPlanPairedAssumptions(t *testing.T) {
	tests := []struct {
		name                 string
		rate                 float64
		n, k                 int
		assume               PairedAssumption
		pLost, pGained       float64
		pairedPower          float64
		pairedNeeded         int
		pairedMDE            float64
		maxDisc              float64 // NaN: undefined
		atRateLimit          bool
		indPower             float64 // NaN: not checked
		indNeeded            int     // 0: not checked
		resolvable, pairedOK bool
	}{
		{
			name: "issue 13: 9 of 300 at 0.80, nothing stated", rate: 0.80, n: 300, k: 9,
			assume: PairedAssumption{}, pLost: 0.03, pGained: 0,
			pairedPower: 0.85451511129863822, pairedNeeded: 260, pairedMDE: 0.025957975235000656,
			maxDisc: 0.034671425326983529, indPower: 0.14314085066246157, indNeeded: 2943,
			resolvable: false, pairedOK: true,
		},
		{
			name: "issue 13: the same with p_gained 0.04", rate: 0.80, n: 300, k: 9,
			assume: PairedAssumption{Basis: StatedGained, PGained: 0.04}, pLost: 0.07, pGained: 0.04,
			pairedPower: 0.34646431103537539, pairedNeeded: 957, pairedMDE: 0.060361390874145104,
			maxDisc: 0.034671425326983529, indPower: 0.14314085066246157, indNeeded: 2943,
			resolvable: false, pairedOK: false,
		},
		{
			name: "issue 13: the same as discordance 0.11", rate: 0.80, n: 300, k: 9,
			assume: PairedAssumption{Basis: StatedDiscordance, Discordance: 0.11}, pLost: 0.07, pGained: 0.04,
			pairedPower: 0.34646431103537539, pairedNeeded: 957, pairedMDE: 0.053435730329527913,
			maxDisc: 0.034671425326983529, indPower: 0.14314085066246157, indNeeded: 2943,
			resolvable: false, pairedOK: false,
		},
		{
			name: "Connor's worked example (0.45 lost, 0.05 gained: n = 22.0113 → 23)", rate: 0.6, n: 100, k: 40,
			assume: PairedAssumption{Basis: StatedGained, PGained: 0.05}, pLost: 0.45, pGained: 0.05,
			pairedPower: 0.99999632233280211, pairedNeeded: 23, pairedMDE: math.NaN(),
			// 100 pairs see the drop of 0.4 even at p_gained 0.2, p_lost
			// 0.6 (connor_power(100, 0.6, 0.2) = 0.9975), the most a rate
			// of 0.6 allows.
			maxDisc: 0.8, atRateLimit: true, indPower: math.NaN(),
			resolvable: true, pairedOK: true,
		},
		{
			name: "the seed: 3 of 200 at 0.83", rate: 0.83, n: 200, k: 3,
			assume: PairedAssumption{}, pLost: 0.015, pGained: 0,
			pairedPower: 0.40918498399078901, pairedNeeded: 521, pairedMDE: 0.038783996659100664,
			maxDisc: math.NaN(), indPower: 0.05847678601624131, indNeeded: 10185,
			resolvable: false, pairedOK: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PlanFor(PlanInput{Rate: tt.rate, Conversations: tt.n, Catastrophic: tt.k, Alpha: 0.05, Power: 0.8, Paired: tt.assume})
			if err != nil {
				t.Fatal(err)
			}
			if p.PairedMethod != Connor {
				t.Errorf("paired method %q, want connor", p.PairedMethod)
			}
			if want := tt.assume.Basis; p.PairedAssumption.Basis != want && !(want == "" && p.PairedAssumption.Basis == NoNoise) {
				t.Errorf("basis %q, want %q", p.PairedAssumption.Basis, want)
			}
			c := p.Catastrophic
			check(t, "p_lost", c.Paired.PLost, tt.pLost, 1e-15, "drop + stated gains")
			check(t, "p_gained", c.Paired.PGained, tt.pGained, 1e-15, "stated")
			check(t, "paired power at N", c.Paired.Power, tt.pairedPower, 1e-9, connorR)
			if c.ConversationsNeeded.Paired != tt.pairedNeeded {
				t.Errorf("paired needs %d, want %d (%s)", c.ConversationsNeeded.Paired, tt.pairedNeeded, connorR)
			}
			if c.Paired.Resolvable != tt.pairedOK || c.Resolvable != tt.resolvable {
				t.Errorf("resolvable: independent %v paired %v, want %v %v", c.Resolvable, c.Paired.Resolvable, tt.resolvable, tt.pairedOK)
			}
			if !math.IsNaN(tt.pairedMDE) {
				if !p.MinimumDetectable.Paired.Detectable {
					t.Error("paired MDE not detectable")
				}
				check(t, "paired MDE", p.MinimumDetectable.Paired.Effect, tt.pairedMDE, 1e-9, connorR)
			}
			if math.IsNaN(tt.maxDisc) {
				if c.Paired.MaxDiscordanceDefined {
					t.Errorf("max discordance %v defined; N pairs fall short even with no noise", c.Paired.MaxDiscordance)
				}
			} else {
				if !c.Paired.MaxDiscordanceDefined || c.Paired.AtRateLimit != tt.atRateLimit {
					t.Errorf("max discordance undefined or at-limit %v, want %v", c.Paired.AtRateLimit, tt.atRateLimit)
				}
				check(t, "max discordance", c.Paired.MaxDiscordance, tt.maxDisc, 1e-9, connorR)
			}
			if !math.IsNaN(tt.indPower) {
				check(t, "independent power", c.Power, tt.indPower, 1e-9, "R power.prop.test")
			}
			if tt.indNeeded != 0 && c.ConversationsNeeded.Independent != tt.indNeeded {
				t.Errorf("independent needs %d, want %d (R power.prop.test)", c.ConversationsNeeded.Independent, tt.indNeeded)
			}
		})
	}
}

// TestPlanPairedMatchesPowerPaired: the plan's paired sample size is the
// one `tally power paired --p-lost 0.07 --p-gained 0.04 --power 0.8`
// gives (Connor's n = 956.946 → 957), so the two commands cannot drift
// apart.
func TestPlanPairedMatchesPowerPaired(t *testing.T) {
	ss, err := Paired{PLost: 0.07, PGained: 0.04, Alpha: 0.05, Method: Connor}.SampleSize(0.8)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "unrounded n", ss.Unrounded, 956.94626153182617, 1e-8, connorR)
	p, err := PlanFor(PlanInput{Rate: 0.8, Conversations: 300, Catastrophic: 9, Alpha: 0.05, Power: 0.8,
		Paired: PairedAssumption{Basis: StatedGained, PGained: 0.04}})
	if err != nil {
		t.Fatal(err)
	}
	if ss.N != 957 || p.Catastrophic.ConversationsNeeded.Paired != ss.N {
		t.Errorf("power paired needs %d, plan %d; Connor gives 957", ss.N, p.Catastrophic.ConversationsNeeded.Paired)
	}
}

// TestPlanNoNoiseMDEIsPairedMDE: with nothing stated the plan's paired
// MDE is PairedMDE's (R uniroot, reference.R) wherever that drop is one
// the rate allows; where it is not, the plan says no drop is detectable
// instead of reporting a drop larger than the rate.
func TestPlanNoNoiseMDEIsPairedMDE(t *testing.T) {
	for _, n := range []int{20, 50, 200, 300, 1000, 100000} {
		want, err := PairedMDE(n, 0.05, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Plan(0.5, n, 0, 0.05, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		got := p.MinimumDetectable.Paired
		if !got.Detectable || !want.Detectable {
			t.Fatalf("n %d: detectable %v, PairedMDE %v", n, got.Detectable, want.Detectable)
		}
		check(t, "paired MDE", got.Effect, want.Effect, 1e-10, "PairedMDE")
	}
	p, err := Plan(0.02, 100, 0, 0.05, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := PairedMDE(100, 0.05, 0.8); want.Effect <= 0.02 || p.MinimumDetectable.Paired.Detectable {
		t.Errorf("rate 0.02, 100 pairs: PairedMDE %v, plan %+v; a drop above the rate is no drop", want.Effect, p.MinimumDetectable.Paired)
	}
}

// TestPlanPairedErrors: assumptions that cannot hold are input errors
// naming what is wrong.
func TestPlanPairedErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     PlanInput
		reason string
	}{
		{"discordance below the drop", PlanInput{Rate: 0.8, Conversations: 300, Catastrophic: 9, Paired: PairedAssumption{Basis: StatedDiscordance, Discordance: 0.02}},
			"9 of 300 lost is a discordance of at least 0.03"},
		{"gains beyond the failures", PlanInput{Rate: 0.8, Conversations: 300, Paired: PairedAssumption{Basis: StatedGained, PGained: 0.25}},
			"a pair is gained only where the reference failed (0.2)"},
		{"losses beyond the successes", PlanInput{Rate: 0.8, Conversations: 300, Catastrophic: 240, Paired: PairedAssumption{Basis: StatedGained, PGained: 0.1}},
			"p_lost 0.9 > rate 0.8"},
		{"discordance beyond twice the rate", PlanInput{Rate: 0.1, Conversations: 300, Paired: PairedAssumption{Basis: StatedDiscordance, Discordance: 0.3}},
			"with no more gained than lost, ψ ≤ 2·rate"},
		{"NaN p_gained", PlanInput{Rate: 0.8, Conversations: 300, Paired: PairedAssumption{Basis: StatedGained, PGained: math.NaN()}}, "NaN"},
		{"negative discordance", PlanInput{Rate: 0.8, Conversations: 300, Paired: PairedAssumption{Basis: StatedDiscordance, Discordance: -0.1}}, "negative"},
		{"unknown basis", PlanInput{Rate: 0.8, Conversations: 300, Paired: PairedAssumption{Basis: "vibes"}}, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Alpha, tt.in.Power = 0.05, 0.8
			if _, err := PlanFor(tt.in); !errorsIsInput(err) {
				t.Errorf("got %v, want an input error (%s)", err, tt.reason)
			}
		})
	}
}

// TestPlanPairedMonotone: more stated noise never makes the paired
// design look better — the MDE grows and the pairs needed grow with
// p_gained — and no stated noise is the best case.
func TestPlanPairedMonotone(t *testing.T) {
	prevMDE, prevN := 0.0, 0
	for _, g := range []float64{0, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15} {
		p, err := PlanFor(PlanInput{Rate: 0.8, Conversations: 300, Catastrophic: 9, Alpha: 0.05, Power: 0.8,
			Paired: PairedAssumption{Basis: StatedGained, PGained: g}})
		if err != nil {
			t.Fatal(err)
		}
		m, n := p.MinimumDetectable.Paired.Effect, p.Catastrophic.ConversationsNeeded.Paired
		if m < prevMDE || n < prevN {
			t.Errorf("p_gained %v: MDE %v, n %d after %v, %d", g, m, n, prevMDE, prevN)
		}
		prevMDE, prevN = m, n
	}
}
