package report

import (
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tally-eval/tally/rule"
)

// regressionKeys says which rule each of regression's rule-specific keys
// belongs to.
var regressionKeys = map[string][]rule.Kind{
	"alpha":                   {rule.McNemar, rule.NonInferiority},
	"mid_p":                   {rule.McNemar},
	"clustered":               {rule.McNemar, rule.NonInferiority},
	"margin":                  {rule.NonInferiority},
	"retained_tolerance":      {rule.Count},
	"contradiction_tolerance": {rule.Count},
}

// regression reads the regression mapping: the rule, its parameters, and
// the drops the report gives its power for. A key of another rule than
// the one named is a problem at the key, saying whose it is.
func (p *configParser) regression(n *yaml.Node, field string, reg *Regression) {
	var (
		kind              string
		r                 rule.Rule
		clustered, hasClu bool
	)
	nodes := map[string]*yaml.Node{}
	keep := func(name string, set func(*yaml.Node, string)) cfgKey {
		return cfgKey{name, func(v *yaml.Node, f string) { nodes[name] = v; set(v, f) }}
	}
	p.mapping(n, field, []cfgKey{
		keep("rule", p.str(&kind)),
		keep("alpha", p.number(&r.Alpha, math.SmallestNonzeroFloat64, math.Nextafter(0.5, 0), "a one-sided level strictly between 0 and 0.5, such as 0.05")),
		keep("mid_p", p.boolean(&r.MidP)),
		keep("clustered", func(v *yaml.Node, f string) { hasClu = true; p.boolean(&clustered)(v, f) }),
		keep("margin", p.number(&r.Margin, math.SmallestNonzeroFloat64, math.Nextafter(1, 0), "a share of retention strictly between 0 and 1, such as 0.05 for 5 points")),
		keep("retained_tolerance", p.count(&r.Tolerance, "items of a class the candidate may lose net")),
		keep("contradiction_tolerance", p.count(&r.ContradictionTolerance, "items the candidate may newly contradict net")),
		keep("drops", p.shares(&reg.Drops, "drops in retention to give the rule's power for, such as [0.03, 0.10]")),
	})
	r.Kind = rule.Default.Kind
	if kind != "" {
		k, err := rule.ParseKind(kind)
		if err != nil {
			p.add(deref(nodes["rule"]), cfgJoin(field, "rule"), "%v", err)
			return
		}
		r.Kind = k
	}
	for name, kinds := range regressionKeys {
		v, ok := nodes[name]
		if !ok {
			continue
		}
		own := false
		for _, k := range kinds {
			own = own || k == r.Kind
		}
		if !own {
			p.add(deref(v), cfgJoin(field, name), "%s belongs to rule: %s, and the rule here is %s (regression.rule; %s when not set)", name, kindList(kinds), r.Kind, rule.Default.Kind)
		}
	}
	if r.Kind != rule.Count {
		r.Clustered = !hasClu || clustered
	}
	if r.Kind == rule.McNemar && r.MidP && r.Clustered {
		at := nodes["mid_p"]
		p.add(deref(at), cfgJoin(field, "mid_p"), "mid_p applies to the unclustered test: add clustered: false, or remove mid_p (the clustered test is asymptotic)")
	}
	if len(reg.Drops) == 0 {
		reg.Drops = DefaultDrops
	}
	reg.Rule = r.Normalized()
}

func kindList(kinds []rule.Kind) string {
	s := ""
	for i, k := range kinds {
		if i > 0 {
			s += " or "
		}
		s += string(k)
	}
	return s
}

// boolean reads true or false.
func (p *configParser) boolean(dst *bool) func(*yaml.Node, string) {
	return func(n *yaml.Node, field string) {
		n = deref(n)
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			p.add(n, field, "want true or false, got %s", describeNode(n))
			return
		}
		var v bool
		if err := n.Decode(&v); err != nil {
			p.add(n, field, "want true or false, got %q", previewText(n.Value))
			return
		}
		*dst = v
	}
}

// shares reads a list of shares strictly between 0 and 1.
func (p *configParser) shares(dst *[]float64, what string) func(*yaml.Node, string) {
	return func(n *yaml.Node, field string) {
		n = deref(n)
		if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
			p.add(n, field, "want a list of %s, got %s", what, describeNode(n))
			return
		}
		var out []float64
		for i, v := range n.Content {
			if i+1 < len(n.Content) {
				// [0,03, 0,10]: a decimal comma, which a flow list
				// reads as the end of an item.
				if w := n.Content[i+1]; v.Kind == yaml.ScalarNode && w.Kind == yaml.ScalarNode && w.Line == v.Line && w.Column == v.Column+len(v.Value)+1 &&
					strings.Trim(v.Value, "0123456789") == "" && strings.Trim(w.Value, "0123456789") == "" {
					p.add(v, field, "want %s, got %s,%s: a decimal comma? A list is split at commas, so write decimals with a point (%s.%s)", what, v.Value, w.Value, v.Value, w.Value)
					return
				}
			}
			var x float64
			before := len(p.probs)
			p.number(&x, math.SmallestNonzeroFloat64, math.Nextafter(1, 0), "a drop strictly between 0 and 1, such as 0.03 for 3 points")(v, field)
			if len(p.probs) > before {
				return
			}
			if slices.Contains(out, x) {
				p.add(v, field, "%v is given twice", x)
				return
			}
			out = append(out, x)
		}
		*dst = out
	}
}
