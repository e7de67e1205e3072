package selection

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds what the proposer knows of a code review a person
// pasted. People paste a review bot's comments into the prompt (GitHub
// Copilot's, Cursor Bugbot's "Medium Severity" findings, CodeRabbit's)
// for the agent to address: "The RunGitCommand function is defined in
// testenv.go but never called anywhere in the codebase." Such text is
// well-formed, third person, about code, and full of the words the
// constraint rules read ("consider …", "should be …", "instead of …");
// on the labelled sessions (testdata/real/labels) 30 typed messages
// carried one, the rules proposed 29 constraints from them, and readers
// labelled a constraint in one: the person's own line beside the paste,
// which stays theirs. What the person asks is to address the comment,
// said in their own words around it; the comment's files still count as
// references.

var (
	// propReviewPerson marks a line in the person's voice: a first- or
	// second-person word. A review bot writes in the third person.
	propReviewPerson = regexp.MustCompile(`(?i)\b(i|i'm|i've|i'd|i'll|me|my|we|we're|we've|we'd|we'll|us|our|let's|lets|you|your|you're|you've|u)\b`)
	// propReviewCue is a phrase of a reviewer's finding: a severity, a
	// consequence, a suggestion worded as reviewers word it.
	propReviewCue = regexp.MustCompile(`(?i)\b(consider(ing)?|(low|medium|high|critical) severity|severity:|this (means|could|would|may|might|will|can) (cause|lead|result|allow|break|make|be)|which (could|would|may|might|can) (cause|lead|result|allow|make)|potentially|lacks?|(is|are) (never|not) (called|used|cleared|set|shown|displayed|checked|handled|validated|tested|updated|closed|filtered|captured|reset)|never (called|used|executed|shown|displayed|cleared|captured)|unused|only used (in|by)|never shown|dead code|misleading|inconsistent|incorrect(ly)?|unnecessary|silently|to avoid|maintainability|for consistency|(leading|leads|resulting|results) (to|in)|(easier|harder) to (diagnose|debug|read|maintain|understand|test|reason about)|without (any )?(context|diagnostic)|duplicates (the )?logic|adds (unnecessary )?complexity)\b`)
	// propReviewCode is a code identifier: backquoted, camelCase or
	// MixedCase, snake_case, a call, a dotted name.
	propReviewCode = regexp.MustCompile("`[^`]+`|\\b[a-z]+[A-Z]\\w*|\\b[A-Z][a-z]+[A-Z]\\w*|\\b[A-Za-z]+_\\w+|\\w\\(\\)|\\b[A-Za-z]\\w*\\.[A-Za-z]\\w*")
	// propReviewLead is a person's lead-in before a pasted comment on
	// the same line: "can you also check: When reusing …", "now do:
	// Medium: …".
	propReviewLead = regexp.MustCompile(`^[^:]{1,40}:\s+`)
)

// propReviewText is the part of a typed message's prose that is a code
// review's comment the person pasted, "" when there is none: the lines
// not in the person's voice (propReviewPerson; a short lead-in ending in
// ":" on a line is the person's when in their voice or in lower case), when together they are 100 characters
// or more, open with a capital letter, a quote, a backquote or a code
// identifier, name code (propReviewCode) and word a finding
// (propReviewCue).
func propReviewText(text string) string {
	var keep []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		// A lead-in is the person's when it is in their voice or opens
		// in lower case, as no review bot's comment does.
		if lead := propReviewLead.FindString(line); lead != "" && (propReviewPerson.MatchString(lead) || propLowerStart(lead)) {
			line = line[len(lead):]
		}
		if line == "" || strings.HasSuffix(line, ":") || propReviewPerson.MatchString(line) {
			continue
		}
		keep = append(keep, line)
	}
	body := strings.Join(keep, "\n")
	code := propReviewCode.FindStringIndex(body)
	if len(body) < 100 || code == nil || !propReviewCue.MatchString(body) ||
		!strings.ContainsAny(body[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ\"`") && code[0] != 0 {
		return ""
	}
	return body
}

// inReview reports whether sentence s of a person's message is part of
// the review comment review (propReviewText) they pasted: s itself, or
// what follows a lead-in ending in ":".
func inReview(review, s string) bool {
	if review == "" {
		return false
	}
	if strings.Contains(review, s) {
		return true
	}
	if lead := propReviewLead.FindString(s); lead != "" {
		return strings.Contains(review, s[len(lead):])
	}
	return false
}

// propLowerStart reports whether s opens with a lower-case letter.
func propLowerStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}
