package judge_test

import (
	"fmt"

	"github.com/tally-eval/tally/judge"
)

// A model rarely replies with bare JSON; the parser finds the object in a
// code fence amid prose, and reads the verdict whatever its case.
func ExampleParseReply() {
	reply := "Looking at the context, turn 19 settles it.\n" +
		"```json\n" +
		`{"reasoning": "The plan says PRs go to {develop}.", "answer": "develop", "verdict": " Supported "}` + "\n" +
		"```"
	r, err := judge.ParseReply(reply)
	if err != nil {
		panic(err)
	}
	fmt.Printf("verdict %s, answer %q\n", r.Verdict, r.Answer)

	_, err = judge.ParseReply(`{"answer": "develop", "verdict": "probably"}`)
	fmt.Println(err)
	// Output:
	// verdict supported, answer "develop"
	// verdict "probably" is not one of supported, absent, contradicted
}

// The agreement question's reply is read strictly: "yes" or "no".
func ExampleParseAgreement() {
	agree, err := judge.ParseAgreement(`{"agree": "no"}`)
	fmt.Println(agree, err)
	_, err = judge.ParseAgreement(`{"agree": "sort of"}`)
	fmt.Println(err)
	// Output:
	// false <nil>
	// agree "sort of" is not "yes" or "no"
}
