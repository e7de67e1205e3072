package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"

	"github.com/tally-eval/tally/internal/input"
)

// DefaultTemplateText is the source text's JUDGE prompt, adapted to ask
// for a short reasoning before the answer and the verdict, and to put the
// context in a delimited block. It is a text/template over [PromptData].
const DefaultTemplateText = `Here is the entire context an agent will see on its next turn, between the <{{.Tag}}> tags.
Answer ONLY from this context.

<{{.Tag}}>
{{.Context}}
</{{.Tag}}>

Question: {{.Probe}}

The verdict is "supported" if the context answers the question, "absent" if it does not say, and "contradicted" if it says conflicting things about it.
Reply with JSON: {"reasoning": "<one or two sentences>", "answer": "<short answer>", "verdict": "supported" | "absent" | "contradicted"}
`

// agreementTemplateText is the agreement question. It is part of every
// agreement cache key.
const agreementTemplateText = `Two answers were given to the same question. Do these two answers to the question agree?
They agree when they give the same answer to what the question asks, even in other words or with more or less detail; they disagree when one says something the other rules out.

Question: {{.Probe}}

<{{.FirstTag}}>
{{.First}}
</{{.FirstTag}}>

<{{.SecondTag}}>
{{.Second}}
</{{.SecondTag}}>

Reply with JSON: {"agree": "yes"} or {"agree": "no"}
`

// The corrective instructions appended to a prompt when a reply could not
// be parsed; the parse error is inserted between the two halves.
const (
	reaskVerdict   = "Reply with only a JSON object: {\"reasoning\": \"<one or two sentences>\", \"answer\": \"<short answer>\", \"verdict\": \"supported\" | \"absent\" | \"contradicted\"}"
	reaskAgreement = "Reply with only a JSON object: {\"agree\": \"yes\"} or {\"agree\": \"no\"}"
)

// PromptData is what a verdict template is executed with.
type PromptData struct {
	// Probe is the fixture's closed question.
	Probe string
	// Context is the rendered compacted context, verbatim.
	Context string
	// Tag is a name for the tags delimiting Context: "context", or
	// "context-" and a hash of the context when the context itself
	// contains "<context" or "</context", so it cannot close its own
	// block.
	Tag string
}

// agreementData is what the agreement template is executed with.
type agreementData struct {
	Probe, First, Second, FirstTag, SecondTag string
}

// Template renders verdict prompts. Probe and context are inserted as
// values: text/template does not interpret them, so "{{", "%s" or "$(…)"
// in a probe or a context reach the model unchanged.
type Template struct {
	text string
	tmpl *template.Template
}

var (
	defaultTemplate   = mustParseTemplate("judge", DefaultTemplateText)
	agreementTemplate = template.Must(template.New("agreement").Option("missingkey=error").Parse(agreementTemplateText))
)

func mustParseTemplate(name, text string) *Template {
	t, err := ParseTemplate(name, text)
	if err != nil {
		panic(err)
	}
	return t
}

// DefaultTemplate returns the template of DefaultTemplateText.
func DefaultTemplate() *Template { return defaultTemplate }

// ParseTemplate parses a verdict template: text/template source over
// [PromptData] ({{.Probe}}, {{.Context}}, {{.Tag}}). The template must
// insert both the probe and the context whole; name is used in errors.
func ParseTemplate(name, text string) (*Template, error) {
	tmpl, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("judge template: %w", err)
	}
	t := &Template{text: text, tmpl: tmpl}
	const probe, context = "\x00tally-probe-sentinel\x00", "\x00tally-context-sentinel\x00"
	out, err := t.Render(probe, context)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(out, probe) {
		return nil, fmt.Errorf("judge template %s: never inserts the whole probe ({{.Probe}})", name)
	}
	if !strings.Contains(out, context) {
		return nil, fmt.Errorf("judge template %s: never inserts the whole context ({{.Context}})", name)
	}
	return t, nil
}

// LoadTemplate reads and parses a verdict template file, under lim (zero
// fields: package input's defaults): a path that is no regular file, or
// a file larger than lim.MaxLine (a template is read whole), is an error
// naming it. A UTF-8 byte order mark at its start (Windows Notepad
// writes one) is not part of the template's text, and is not sent.
func LoadTemplate(path string, lim input.Limits) (*Template, error) {
	b, err := input.ReadFile(path, lim)
	if err != nil {
		return nil, fmt.Errorf("judge template: %w", err)
	}
	return ParseTemplate(path, strings.TrimPrefix(string(b), "\ufeff"))
}

// Text is the template's source; it is part of every verdict cache key.
func (t *Template) Text() string { return t.text }

// Render renders the verdict prompt for a probe and a context.
func (t *Template) Render(probe, context string) (string, error) {
	var b strings.Builder
	b.Grow(len(t.text) + len(probe) + len(context))
	data := PromptData{Probe: probe, Context: context, Tag: tagFor("context", context)}
	if err := t.tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("judge template: %w", err)
	}
	return b.String(), nil
}

// renderAgreement renders the agreement prompt: the fixture's expected
// answer first, the judge's answer second.
func renderAgreement(probe, expect, answer string) (string, error) {
	var b strings.Builder
	data := agreementData{
		Probe: probe, First: expect, Second: answer,
		FirstTag: tagFor("first_answer", expect), SecondTag: tagFor("second_answer", answer),
	}
	if err := agreementTemplate.Execute(&b, data); err != nil {
		return "", fmt.Errorf("agreement template: %w", err)
	}
	return b.String(), nil
}

// reask appends a corrective instruction, naming what was wrong, to a
// prompt whose reply could not be parsed.
func reask(prompt string, parseErr error, instruction string) string {
	return prompt + "\n\nYour previous reply could not be used: " + parseErr.Error() + ".\n" + instruction + "\n"
}

// tagFor returns base, or base with a hash of content when content
// mentions the tag itself.
func tagFor(base, content string) string {
	lower := strings.ToLower(content)
	if !strings.Contains(lower, "<"+base) && !strings.Contains(lower, "</"+base) {
		return base
	}
	sum := sha256.Sum256([]byte(content))
	return base + "-" + hex.EncodeToString(sum[:6])
}
