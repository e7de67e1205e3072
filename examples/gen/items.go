package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// itemText is everything the generator says about one item: the fixture's
// literal, probe and expected answer; the message that states it in the
// event log; how a summary carries it in paraphrase and how one inverts
// it; and, for instructions, other words a user restates it in.
type itemText struct {
	Class   fixture.Class
	Topic   string // two items of one conversation never share a topic
	Literal string
	Probe   string
	Expect  string
	Say     string // the message stating it; contains Literal
	Role    string // who says it: "user" or "assistant"
	// Para is the item in a summary's own words: [0] the incumbent's
	// terse ledger style, [1] the candidate's prose.
	Para [2]string
	// Inverted is what a summary that contradicts the item says, and
	// InvertedAnswer the judge's answer to the probe against it.
	Inverted, InvertedAnswer string
	// Subject names what the item is about, for an absent answer.
	Subject string
	// Restate holds the instruction in other words (constraints only),
	// without a restatement marker.
	Restate []string
	// Hedge marks an item that is a hedge or a condition a summariser
	// can invert into an approval.
	Hedge bool
}

// picker draws an item's parameters.
type picker struct {
	r  *rand.Rand
	th *theme
}

func (p picker) pick(xs []string) string { return pick(p.r, xs) }

func (p picker) file() string { return pick(p.r, p.th.Files) }

// lastElem is the last element of a slash-separated path.
func lastElem(path string) string {
	path = strings.TrimSuffix(path, "/")
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// The templates, by class. Each draws its parameters and returns the
// item's text; a template without parameters can serve only once per
// quarter's fixture set, which the fixture designer enforces by literal.
// Each class's templates are in a file of their own: items_constraints.go,
// items_commitments.go, items_questions.go and items_references.go.
var templates = map[fixture.Class][]func(p picker) itemText{
	fixture.Constraint:   constraintTemplates,
	fixture.Commitment:   commitmentTemplates,
	fixture.OpenQuestion: openQuestionTemplates,
	fixture.Reference:    referenceTemplates,
}

// drawItem draws the text of one item of class c, framing its message.
func drawItem(r *rand.Rand, th *theme, c fixture.Class) itemText {
	t := pick(r, templates[c])(picker{r, th})
	t.Class = c
	if t.Say == "" {
		switch c {
		case fixture.Constraint:
			t.Role = "user"
			t.Say = pick(r, []string{"Before you start: ", "One rule for this task: ", "Important: ", "Also, ", "Please keep this in mind: ", "Ground rule: "}) + t.Literal + "."
		case fixture.Commitment:
			t.Role = "assistant"
			t.Say = t.Literal + "." + pick(r, []string{"", " Starting with the tests.", " Noted in my plan.", " Moving on to the handler."})
		case fixture.OpenQuestion:
			t.Role = "user"
			t.Say = pick(r, []string{"", "Question for later: ", "Something I haven't decided: ", "Not for now, but: ", "Thinking ahead. "}) + t.Literal
		}
	}
	return t
}

// restatement markers: how users restate an instruction they gave. The
// background messages never use them.
var restateMarkers = []string{"I said %s.", "Again: %s.", "As I mentioned, %s.", "Reminder: %s.", "I already told you: %s.", "Like I said earlier, %s.", "Once more: %s.", "Please remember, %s."}

// ccRestateMarkers are the markers of the logs in Claude Code's format:
// the phrasings people use when an agent forgot what they said, as
// issue 12 found them in real sessions ("again: …", "as I said", "I told
// you", "you forgot", "don't forget", "remember …").
var ccRestateMarkers = []string{"Again: %s.", "As I said, %s.", "As I mentioned, %s.", "I already told you: %s.", "Like I said earlier, %s.", "You forgot: %s.", "Don't forget: %s.", "Remember, %s."}

// restatement phrases a constraint again, in other words, opening with
// one of markers.
func restatement(r *rand.Rand, t itemText, markers []string) string {
	return fmt.Sprintf(pick(r, markers), pick(r, t.Restate))
}
