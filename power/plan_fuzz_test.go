package power

import (
	"math"
	"testing"
)

// FuzzPlanFor: for any rate, size, catastrophic count, level, power and
// stated assumption the CLI passes on, PlanFor returns an input error or
// figures that hang together: probabilities in [0,1], p_lost − p_gained
// equal to the drop, and — for a target power of at least one half,
// where Connor's power falls as noise is added — no stated noise giving
// a smaller minimum detectable effect or fewer pairs than none, and the
// largest tolerable discordance on the right side of the assumed one.
func FuzzPlanFor(f *testing.F) {
	f.Add(0.80, 300, 9, 0.05, 0.8, uint8(1), 0.04)
	f.Add(0.80, 300, 9, 0.05, 0.8, uint8(2), 0.11)
	f.Add(0.83, 200, 3, 0.05, 0.8, uint8(0), 0.0)
	f.Add(0.6, 100, 40, 0.05, 0.8, uint8(1), 0.05)
	f.Add(1.0, 50, 50, 0.05, 0.8, uint8(2), 1.0)
	f.Add(0.02, 100, 1, 0.05, 0.3, uint8(1), 0.5)
	f.Add(0.5, 1, 0, 0.5, 0.5, uint8(2), math.NaN())
	f.Fuzz(func(t *testing.T, rate float64, n, k int, alpha, target float64, basis uint8, v float64) {
		a := PairedAssumption{}
		switch basis % 3 {
		case 1:
			a = PairedAssumption{Basis: StatedGained, PGained: v}
		case 2:
			a = PairedAssumption{Basis: StatedDiscordance, Discordance: v}
		}
		if n > 1e7 {
			n = 1 + n%10000000
		}
		in := PlanInput{Rate: rate, Conversations: n, Catastrophic: k, Alpha: alpha, Power: target, Paired: a}
		p, err := PlanFor(in)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("%+v: error %q does not match ErrInput", in, err)
			}
			return
		}
		in01 := func(what string, x float64) {
			if math.IsNaN(x) || x < 0 || x > 1 {
				t.Fatalf("%+v: %s = %v", in, what, x)
			}
		}
		in01("paired MDE", p.MinimumDetectable.Paired.Effect)
		base, err := Plan(rate, n, k, alpha, target)
		if err != nil {
			t.Fatalf("%+v: stated assumption works, none fails: %v", in, err)
		}
		if target >= 0.5 && p.MinimumDetectable.Paired.Detectable {
			bm := base.MinimumDetectable.Paired
			if !bm.Detectable || bm.Effect > p.MinimumDetectable.Paired.Effect+1e-9 {
				t.Fatalf("%+v: MDE %v under the assumption, %+v with no noise", in, p.MinimumDetectable.Paired.Effect, bm)
			}
		}
		c := p.Catastrophic
		if c == nil {
			return
		}
		pc := c.Paired
		in01("p_lost", pc.PLost)
		in01("p_gained", pc.PGained)
		in01("paired power", pc.Power)
		if math.Abs(pc.PLost-pc.PGained-c.Drop) > 1e-9 {
			t.Fatalf("%+v: p_lost %v − p_gained %v ≠ drop %v", in, pc.PLost, pc.PGained, c.Drop)
		}
		if target >= 0.5 && c.ConversationsNeeded.Paired < base.Catastrophic.ConversationsNeeded.Paired {
			t.Fatalf("%+v: %d pairs under the assumption, %d with no noise", in, c.ConversationsNeeded.Paired, base.Catastrophic.ConversationsNeeded.Paired)
		}
		if pc.MaxDiscordanceDefined {
			in01("max discordance", pc.MaxDiscordance)
			psi := pc.PLost + pc.PGained
			if pc.MaxDiscordance < c.Drop-1e-9 || (pc.Resolvable && pc.MaxDiscordance < psi-1e-9) || (!pc.Resolvable && pc.MaxDiscordance > psi+1e-9) {
				t.Fatalf("%+v: max discordance %v against drop %v, assumed %v, resolvable %v", in, pc.MaxDiscordance, c.Drop, psi, pc.Resolvable)
			}
		}
	})
}
