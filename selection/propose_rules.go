package selection

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the proposal rules for constraints, commitments and
// open questions (the references are in propose_references.go).

var (
	propRestatement = regexp.MustCompile(`^(i said|i've said|i have said|again[:,]|as i (mentioned|said|told you)|reminder[:,]|i already (told|said)|like i said|once more[:,]|please remember|remember[:,]|to repeat|i told you)`)
	propProhibition = regexp.MustCompile(`\b(never|must not|mustn't|must never|may not|cannot|can't|shouldn't|should not|do not|don't)\b`)
	propProhibitsAt = regexp.MustCompile(`^(no|avoid|stop)\b|[,;] no\b`)
	propObligation  = regexp.MustCompile(`^(always|only|keep|leave|use|target|stick to|make sure|ensure|pin|limit)\b`)
	propNorm        = regexp.MustCompile(`\b(must|has to|have to|needs? to|(is|are) required|required to|follows?|go(es)? through)\b`)
	propTransient   = regexp.MustCompile(`^(keep (going|at it|it up|me (posted|updated|in the loop))|leave it (there|for now|as is))\b`)
	propRuleLead    = regexp.MustCompile(`\b(rule|rules|requirement|constraint|policy|important|before you start|keep (this )?in mind|non-negotiable|heads up|must)\b`)
)

// constraint classifies a user sentence that is not a question.
func (p *propProposer) constraint(s, lead, body string) *propGuess {
	if propRestatement.MatchString(propNormalize(s)) {
		return nil
	}
	lit := strings.TrimRight(body, ". ")
	low := propNormalize(lit)
	if utf8.RuneCountInString(lit) < 8 || propTransient.MatchString(low) {
		return nil
	}
	words := propContentWords(lit)
	for _, c := range p.constraints {
		if propOverlap(words, c) >= 0.6 && len(words) >= 2 {
			return nil // a restatement in other words
		}
	}
	prohibition := propProhibition.MatchString(low) || propProhibitsAt.MatchString(low)
	obligation := propObligation.MatchString(low) || propNorm.MatchString(low)
	ruleLead := lead != "" && propRuleLead.MatchString(propNormalize(lead))
	g := &propGuess{class: fixture.Constraint, literal: lit}
	kind := "obligation"
	if prohibition {
		kind = "prohibition"
	}
	switch {
	case (prohibition || obligation) && ruleLead:
		g.confidence, g.rule = 0.9, "constraint/lead-in+"+kind
	case (prohibition || obligation) && lead != "":
		g.confidence, g.rule = 0.8, "constraint/connective+"+kind
	case prohibition:
		g.confidence, g.rule = 0.7, "constraint/prohibition"
	case obligation:
		g.confidence, g.rule = 0.6, "constraint/obligation"
	case ruleLead:
		g.confidence, g.rule = 0.6, "constraint/lead-in"
	default:
		return nil
	}
	g.probe, g.expect = propConstraintProbe(lit, prohibition, propObligation.MatchString(low))
	return g
}

var (
	propMustNot = regexp.MustCompile(`^(.+?) (must not|mustn't|may not|cannot|can't|should not|shouldn't) (.+)$`)
	propUserMe  = strings.NewReplacer(" me ", " the user ", " my ", " the user's ", " I ", " the user ", " I'm ", " the user is ", " mine ", " the user's ")
)

// propConstraintProbe drafts a constraint's probe and expected answer;
// imperative reports an opening obligation verb.
func propConstraintProbe(lit string, prohibition, imperative bool) (probe, expect string) {
	text := propLowerFirst(lit)
	low := propNormalize(text)
	clause := text
	if i := strings.IndexByte(text, ';'); i > 0 {
		clause = strings.TrimSpace(text[:i])
	}
	switch {
	case strings.HasPrefix(low, "never "):
		probe, expect = "Is the agent forbidden to "+text[len("never "):]+"?", "yes"
	case strings.HasPrefix(low, "don't ") || strings.HasPrefix(low, "don’t "):
		_, rest, _ := strings.Cut(text, " ")
		probe, expect = "Is the agent forbidden to "+rest+"?", "yes"
	case strings.HasPrefix(low, "do not "):
		probe, expect = "Is the agent forbidden to "+text[len("do not "):]+"?", "yes"
	case strings.HasPrefix(low, "no "):
		probe, expect = "Does the user forbid "+text[len("no "):]+"?", "yes"
	case prohibition && propMustNot.MatchString(clause):
		m := propMustNot.FindStringSubmatch(clause)
		probe, expect = "May "+m[1]+" "+m[3]+"?", "no"
	case imperative:
		probe, expect = "Must the agent "+text+"?", "yes"
	default:
		probe, expect = "Does this rule from the user still hold: "+text+"?", "yes"
	}
	return strings.TrimSpace(propUserMe.Replace(" " + probe)), expect
}

var (
	propIWill      = regexp.MustCompile(`^(?:(?:[^,]{1,60}), )?(I'll|I’ll|I will|I'm going to|I’m going to|I am going to|I plan to) (.+)$`)
	propCondition  = regexp.MustCompile(`\b(before|until|once|after|only|not|never|ask|asking|separate|against|pinned|unless)\b`)
	propObjectStop = map[string]bool{"in": true, "into": true, "to": true, "against": true, "until": true, "before": true, "after": true, "once": true, "for": true,
		"at": true, "on": true, "with": true, "from": true, "by": true, "so": true, "and": true, "but": true, "because": true, "when": true, "while": true,
		"if": true, "unless": true, "only": true, "behind": true, "pinned": true, "as": true, "then": true, "first": true, "now": true}
)

// propCommitment classifies an assistant sentence.
func propCommitment(s string) *propGuess {
	lit := strings.TrimRight(s, ". ")
	m := propIWill.FindStringSubmatch(lit)
	if m == nil {
		return nil
	}
	rest := strings.TrimSpace(m[2])
	if utf8.RuneCountInString(rest) < 6 {
		return nil
	}
	g := &propGuess{class: fixture.Commitment, literal: lit, expect: rest, confidence: 0.7, rule: "commitment/i-will"}
	if propCondition.MatchString(propNormalize(lit)) {
		g.confidence, g.rule = 0.9, "commitment/i-will+condition"
	}
	words := strings.Fields(rest)
	var object []string
	for _, w := range words[1:] {
		if propObjectStop[strings.ToLower(strings.Trim(w, ",;"))] || len(object) == 6 {
			break
		}
		object = append(object, strings.TrimRight(w, ",;"))
		if strings.HasSuffix(w, ",") || strings.HasSuffix(w, ";") {
			break
		}
	}
	if len(object) > 0 {
		g.probe = "What did the assistant commit to about " + strings.Join(object, " ") + "?"
	} else {
		n := min(len(words), 4)
		g.probe = "What did the assistant commit to (“" + m[1] + " " + strings.Join(words[:n], " ") + " …”)?"
	}
	return g
}

var (
	propRequest   = regexp.MustCompile(`^(can|could|would|will) (you|u)\b|^(please|mind|show me|can i|could i)\b`)
	propWh        = regexp.MustCompile(`^(why|what|what's|how|how's|where|when|who|which)\b`)
	propDecideWh  = regexp.MustCompile(`\b(should|shall|better|prefer|do we|would we)\b`)
	propDecision  = []*regexp.Regexp{regexp.MustCompile(`^(should|shall)\b|\b(should|shall) (we|i)\b`), regexp.MustCompile(`\b(we|us|our)\b`), regexp.MustCompile(` or `), regexp.MustCompile(`\b(better|acceptable|ok|okay|worth|prefer|still)\b`)}
	propDeferLead = regexp.MustCompile(`\b(later|decided|not for now|thinking ahead|open question|undecided|no rush|down the road|eventually|at some point|to think about)\b`)
)

// openQuestion classifies a user question, utterance i.
func (p *propProposer) openQuestion(i int, lead, body string) *propGuess {
	low := propNormalize(body)
	if propRequest.MatchString(low) || (propWh.MatchString(low) && !propDecideWh.MatchString(low)) {
		return nil
	}
	if utf8.RuneCountInString(body) < 8 {
		return nil
	}
	signs := 0
	for _, re := range propDecision {
		if re.MatchString(low) {
			signs++
		}
	}
	g := &propGuess{class: fixture.OpenQuestion, literal: body, expect: "no — still open",
		probe: "Has the user decided this question yet: " + propUserMe.Replace(" " + body)[1:]}
	switch {
	case lead != "" && propDeferLead.MatchString(propNormalize(lead)):
		g.confidence, g.rule = 0.9, "open_question/deferred"
	case signs >= 2:
		g.confidence, g.rule = 0.8, "open_question/decision"
	case signs == 1:
		g.confidence, g.rule = 0.65, "open_question/decision-weak"
	default:
		g.confidence, g.rule = 0.3, "open_question/plain"
	}
	if p.answered(i, body) {
		g.confidence, g.rule = 0.2, g.rule+"+answered-later"
	}
	return g
}

// answered reports whether an utterance after i that is not a
// question shares at least half, and at least two, of q's content words.
func (p *propProposer) answered(i int, q string) bool {
	words := propContentWords(q)
	need := max(2, (len(words)+1)/2)
	if len(words) < 2 {
		return false
	}
	for j := i + 1; j < len(p.utts); j++ {
		if p.question[j] {
			continue
		}
		n := 0
		for w := range words {
			if p.words[j][w] {
				n++
			}
		}
		if n >= need {
			return true
		}
	}
	return false
}
