package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/rule"
)

// Config is a report configuration, report.yaml: what the report is
// made from and the rule it applies. README.md ("The configuration: report.yaml") documents every key.
//
// Paths are kept as written; Resolve turns one into a path usable from
// the working folder (relative paths are relative to the configuration
// file's folder).
type Config struct {
	// File is the configuration file's path, as given to LoadConfig or
	// ParseConfig; every problem names it.
	File string
	// Text is the configuration's text, kept for the report's provenance.
	Text []byte
	// paths are its input paths, where they were given (MissingInputs).
	paths []pathRef

	Title      string
	Period     string
	Confidence float64 // default 0.95

	Fixtures             string
	Incumbent, Candidate SystemConfig
	Replay               string // optional
	// ReplayDrop is d, the drop in task success (a fraction of the
	// replayed conversations) the task-success sentence asks about:
	// a result whose interval does not rule out a drop of d is
	// inconclusive (default DefaultReplayDrop).
	ReplayDrop float64
	Selection  string // optional
	// Reviews is optional: the reviewers' verdicts `tally calibrate`
	// wrote (JSONL); in the contradiction row a reviewer's verdict counts
	// over the judge's, both ways (a contradiction overruled stops
	// counting, one found where the judge saw none counts).
	Reviews  string
	Notebook string // optional

	Gates      Gates
	Regression Regression
	// Noise is optional; without it the report says the rule's error
	// rates are unknown and how to measure them.
	Noise NoiseConfig
}

// SystemConfig names one summariser and its inputs.
type SystemConfig struct {
	// Name is the system's name, as written in its verdict records and
	// prompt-size lines; it defaults to the role ("incumbent",
	// "candidate").
	Name        string
	Verdicts    string // verdict records (JSONL) from `tally check`
	PromptSizes string // optional: JSONL {system, conversation_id, compaction, prompt_tokens}
}

// Gates are the standards each system is held to.
type Gates struct {
	// Retained is the minimum retained share per class; a class that is
	// not listed has no retained-share gate.
	Retained map[fixture.Class]float64
	// MaxContradictions is the most contradicted items a system may
	// have, all classes together (default 0).
	MaxContradictions int
	// MaxMeanPromptTokens is the largest mean prompt size allowed; 0
	// means no gate.
	MaxMeanPromptTokens float64
	// Use is the retention the retained-share gates are decided on:
	// UseJudge (the default) or UseCorrected (the judge's share corrected
	// by the reviews; needs reviews:).
	Use string
}

// What the retained-share gates are decided on (gates.use).
const (
	// UseJudge decides them on the judge's share.
	UseJudge = "judge"
	// UseCorrected decides them on the share corrected for the judge's
	// errors by the reviewers' verdicts (prediction-powered inference).
	UseCorrected = "corrected"
)

// Regression is the rule deciding whether a row got worse under the
// candidate, and what the report says of its error rates.
type Regression struct {
	// Rule is the regression rule (rule.Default when the configuration
	// names none).
	Rule rule.Rule
	// Drops are the drops in a class's retention (shares: 0.03 is 3
	// points) whose probability of blocking the report gives beside the
	// false-block rate; DefaultDrops when the configuration gives none.
	Drops []float64
}

// DefaultDrops are the drops the report gives the rule's power for: 3
// and 10 points of a class's retention.
var DefaultDrops = []float64{0.03, 0.10}

// NoiseConfig names two check runs of one system (the same summariser
// run twice, or the same contexts judged twice), from which the report
// measures the noise its rule's error rates are computed under.
type NoiseConfig struct {
	First, Second string
}

// DefaultConfidence is the confidence level of the report's intervals
// when the configuration does not set one.
const DefaultConfidence = 0.95

// DefaultReplayDrop is the drop in task success the task-success
// sentence asks about when the configuration does not set replay_drop:
// five points.
const DefaultReplayDrop = 0.05

// MaxConfigBytes bounds a configuration file's size.
const MaxConfigBytes = 1 << 20

// Resolve returns path p of the configuration as a path usable from the
// working folder: an absolute path unchanged, a relative one joined to
// the configuration file's folder. It returns "" for "".
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.File), p)
}

// LoadConfig reads and parses the configuration file at path. A file
// that is missing, unreadable, a folder or no regular file (a named pipe
// or a device, refused without blocking) is one error naming it, as
// PATH: what is wrong.
func LoadConfig(path string) (*Config, error) {
	f, err := input.Open(path, input.Limits{})
	var nr *input.NotRegularError
	switch {
	case errors.As(err, &nr) && nr.Mode.IsDir():
		return nil, fmt.Errorf("%s: is a folder, not a configuration file: give the path of the report's YAML file (report.yaml)", path)
	case errors.As(err, &nr):
		return nil, err
	case err != nil:
		return nil, fileError(path, "cannot read the configuration", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, fileError(path, "cannot read the configuration", err)
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes; a report configuration is a few dozen lines", path, MaxConfigBytes)
	}
	return ParseConfig(path, data)
}

// fileError is "PATH: what is wrong", the operating system's reason
// without its repetition of the path; it wraps err, so that
// errors.Is(err, fs.ErrNotExist) holds for a missing file.
func fileError(path, what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &configFileError{path: path, msg: "no such file", err: err}
	}
	return &configFileError{path: path, msg: what + ": " + err.Error(), err: err}
}

// configFileError is a configuration file that cannot be read.
type configFileError struct {
	path, msg string
	err       error
}

func (e *configFileError) Error() string { return e.path + ": " + e.msg }
func (e *configFileError) Unwrap() error { return e.err }

// ParseConfig parses a configuration from data; path names the file in
// problems and anchors relative paths.
//
// Every problem is reported, as fixture.Problems, each naming the file,
// line, column and key: an unknown or repeated key, a value of the wrong
// type or out of range, a missing required key. A file that is not YAML
// is one problem at its line and column: a byte that is not UTF-8, a
// control character, a tab in the indentation (YAML indents with spaces)
// exactly where they are; another syntax error at the first character
// of the line the YAML parser names (it gives no column).
func ParseConfig(path string, data []byte) (*Config, error) {
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes; a report configuration is a few dozen lines", path, MaxConfigBytes)
	}
	if err := yamlTextError(path, data); err != nil {
		return nil, err
	}
	doc, err := parseYAML(data)
	if err != nil {
		return nil, yamlSyntaxError(path, data, err)
	}
	p := &configParser{file: path}
	cfg := &Config{File: path, Text: bytes.Clone(data), Confidence: DefaultConfidence, ReplayDrop: DefaultReplayDrop}
	cfg.Incumbent.Name = "incumbent"
	cfg.Candidate.Name = "candidate"
	cfg.Gates.Retained = map[fixture.Class]float64{}
	cfg.Gates.Use = UseJudge
	cfg.Regression = Regression{Rule: rule.Default.Normalized(), Drops: DefaultDrops}
	p.root(doc, cfg)
	if len(p.probs) > 0 {
		return nil, p.probs
	}
	cfg.paths = p.paths
	return cfg, nil
}

// configParser walks the YAML tree, collecting problems.
type configParser struct {
	file  string
	probs fixture.Problems
	// paths are the input paths read, where they were given.
	paths []pathRef
	// useNode is gates.use's value, for the check that it has reviews.
	useNode *yaml.Node
}

func (p *configParser) add(n *yaml.Node, field, format string, args ...any) {
	p.probs = append(p.probs, fixture.Problem{File: p.file, Line: n.Line, Col: n.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// deref follows aliases (a few levels; the parser rejects cycles).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// key is one entry of a mapping the parser knows.
type cfgKey struct {
	name string
	set  func(v *yaml.Node, field string)
}

// mapping checks that n is a mapping and hands each known key's value to
// its setter; an unknown or repeated key is a problem. It returns the
// names of the keys present.
func (p *configParser) mapping(n *yaml.Node, field string, keys []cfgKey) map[string]bool {
	seen := map[string]bool{}
	n = deref(n)
	if n == nil || isNull(n) {
		return seen
	}
	if n.Kind != yaml.MappingNode {
		p.add(n, field, "want a mapping of keys (%s), got %s", keyNames(keys), describeNode(n))
		return seen
	}
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		name := k.Value
		sub := cfgJoin(field, name)
		if k.Kind != yaml.ScalarNode {
			p.add(k, field, "a key must be a plain name, got %s", describeNode(k))
			continue
		}
		if f, dup := first[name]; dup {
			p.add(k, sub, "repeated key (first at line %d)", f.Line)
			continue
		}
		first[name] = k
		var set func(*yaml.Node, string)
		for _, kk := range keys {
			if kk.name == name {
				set = kk.set
			}
		}
		if set == nil {
			p.add(k, sub, "unknown key %q (want %s)", previewText(name), keyNames(keys))
			continue
		}
		seen[name] = true
		set(v, sub)
	}
	return seen
}

func keyNames(keys []cfgKey) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

func cfgJoin(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", previewText(n.Value))
	}
	return "something else"
}

// preview shortens s for a message.
func previewText(s string) string {
	const max = 40
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// str reads a string scalar; null reads as "" (unset).
func (p *configParser) str(dst *string) func(*yaml.Node, string) {
	return func(n *yaml.Node, field string) {
		n = deref(n)
		if isNull(n) {
			return
		}
		if n.Kind != yaml.ScalarNode {
			p.add(n, field, "want text, got %s", describeNode(n))
			return
		}
		if strings.ContainsRune(n.Value, 0) {
			p.add(n, field, "contains a NUL character")
			return
		}
		*dst = n.Value
	}
}

// path reads a path: a non-empty string. Null leaves an optional path
// unset and is a problem for a required one.
func (p *configParser) path(dst *string, required bool) func(*yaml.Node, string) {
	return func(n *yaml.Node, field string) {
		n = deref(n)
		if isNull(n) {
			if required {
				p.add(n, field, "empty: want a path")
			}
			return
		}
		var s string
		before := len(p.probs)
		p.str(&s)(n, field)
		if len(p.probs) > before {
			return
		}
		if strings.TrimSpace(s) == "" {
			p.add(n, field, "empty path")
			return
		}
		*dst = s
		p.paths = append(p.paths, pathRef{field: field, value: s, line: n.Line, col: n.Column})
	}
}

// pathRef is one input path of a configuration and where it was given.
type pathRef struct {
	field, value string
	line, col    int
}

// MissingInputs checks that every input path the configuration names
// exists, resolved against its folder (Resolve), and reports each that
// does not at the key that names it: "report.yaml:16:15:
// systems.candidate.verdicts: verdicts/nope.jsonl: no such file (looked
// for /q/verdicts/nope.jsonl)", all of them at once (a stakeholder's
// trial had Go's "stat …" and no place in report.yaml). It returns nil
// when they all exist. A named pipe, a device or a socket is refused here
// too, before the build reads anything; other faults (no permission, a
// folder where a file belongs) are left to the reader, which names them.
func (c *Config) MissingInputs() error {
	var probs fixture.Problems
	for _, ref := range c.paths {
		path := c.Resolve(ref.value)
		info, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			probs = append(probs, fixture.Problem{File: c.File, Line: ref.line, Col: ref.col, Field: ref.field,
				Msg: fmt.Sprintf("%s: no such file (looked for %s)", ref.value, path)})
		case err == nil && !info.Mode().IsRegular() && !info.IsDir():
			// A named pipe or a device would block the build when read,
			// maybe after minutes of work on the other inputs: refused
			// before any (folders are the fixtures' to take).
			probs = append(probs, fixture.Problem{File: c.File, Line: ref.line, Col: ref.col, Field: ref.field,
				Msg: (&input.NotRegularError{Path: path, Mode: info.Mode()}).Error()})
		}
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}

// number reads a finite number in [lo, hi].
func (p *configParser) number(dst *float64, lo, hi float64, what string) func(*yaml.Node, string) {
	return func(n *yaml.Node, field string) {
		n = deref(n)
		var v float64
		if n.Kind != yaml.ScalarNode || isNull(n) || (n.Tag != "!!int" && n.Tag != "!!float") {
			if fixed, sep, ok := NumberSpelling(n.Value); n.Kind == yaml.ScalarNode && ok {
				if sep {
					// 12,000 tokens: whose "decimal" reading (12.000)
					// would be 12 (a re-check trial).
					p.add(n, field, "want a number (%s), got %s: write it without a thousands separator (%s)", what, describeNode(n), fixed)
				} else {
					p.add(n, field, "want a number (%s), got %s: a decimal comma? Write decimals with a point (%s)", what, describeNode(n), fixed)
				}
				return
			}
			p.add(n, field, "want a number (%s), got %s", what, describeNode(n))
			return
		}
		if err := n.Decode(&v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			p.add(n, field, "want a finite number (%s), got %q", what, previewText(n.Value))
			return
		}
		if v < lo || v > hi {
			p.add(n, field, "%v is out of range: want %s", v, what)
			return
		}
		*dst = v
	}
}

// NumberSpelling reads s, a number a person typed that did not parse,
// for the two spellings of other locales: thousands separators
// ("12,000": sep true, fixed "12000") or a decimal comma ("0,95": fixed
// "0.95", as a German or French user types it). ok is false for
// anything else. Every parser of numbers in tally's input words its
// error with it (a new user's trial; a re-check found 12,000 advised
// to become 12.000, which is 12).
func NumberSpelling(s string) (fixed string, sep, ok bool) {
	s = strings.TrimSpace(s)
	switch {
	case thousands.MatchString(s):
		return strings.ReplaceAll(s, ",", ""), true, true
	case decimalComma.MatchString(s):
		return strings.Replace(s, ",", ".", 1), false, true
	}
	return "", false, false
}

var (
	// decimalComma is a number written with a decimal comma.
	decimalComma = regexp.MustCompile(`^-?[0-9]*,[0-9]+$`)
	// thousands is a whole number written with thousands separators:
	// its first group is not 0 and the others have three digits.
	thousands = regexp.MustCompile(`^[1-9][0-9]{0,2}(,[0-9]{3})+$`)
)

// count reads a whole number ≥ 0.
func (p *configParser) count(dst *int, what string) func(*yaml.Node, string) {
	return func(n *yaml.Node, field string) {
		n = deref(n)
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			p.add(n, field, "want a whole number (%s), got %s", what, describeNode(n))
			return
		}
		var v int64
		if err := n.Decode(&v); err != nil || v < 0 || v > math.MaxInt32 {
			p.add(n, field, "want a whole number from 0 to %d (%s), got %s", math.MaxInt32, what, previewText(n.Value))
			return
		}
		*dst = int(v)
	}
}

func (p *configParser) root(doc *yaml.Node, cfg *Config) {
	top := doc
	if top.Kind == yaml.DocumentNode {
		if len(top.Content) == 0 {
			p.add(top, "", "empty: want a mapping of report settings")
			return
		}
		top = top.Content[0]
	}
	if deref(top).Kind != yaml.MappingNode {
		p.add(top, "", "want a mapping of report settings (title, fixtures, systems, gates, …), got %s", describeNode(deref(top)))
		return
	}
	var systemsNode *yaml.Node
	seen := p.mapping(top, "", []cfgKey{
		{"title", p.str(&cfg.Title)},
		{"period", p.str(&cfg.Period)},
		{"confidence", p.number(&cfg.Confidence, math.SmallestNonzeroFloat64, math.Nextafter(1, 0), "a level strictly between 0 and 1, such as 0.95")},
		{"fixtures", p.path(&cfg.Fixtures, true)},
		{"systems", func(n *yaml.Node, field string) { systemsNode = n; p.systems(n, field, cfg) }},
		{"replay", p.path(&cfg.Replay, false)},
		{"replay_drop", p.number(&cfg.ReplayDrop, math.SmallestNonzeroFloat64, math.Nextafter(1, 0), "a drop in task success strictly between 0 and 1, such as 0.05 for five points")},
		{"selection", p.path(&cfg.Selection, false)},
		{"reviews", p.path(&cfg.Reviews, false)},
		{"notebook", p.path(&cfg.Notebook, false)},
		{"gates", func(n *yaml.Node, field string) { p.gates(n, field, &cfg.Gates) }},
		{"regression", func(n *yaml.Node, field string) { p.regression(n, field, &cfg.Regression) }},
		{"noise", func(n *yaml.Node, field string) {
			seen := p.mapping(n, field, []cfgKey{
				{"first", p.path(&cfg.Noise.First, true)},
				{"second", p.path(&cfg.Noise.Second, true)},
			})
			for _, k := range []string{"first", "second"} {
				if !seen[k] {
					p.add(deref(n), cfgJoin(field, k), "missing: noise names two check runs of one system, first and second (tally noise FIRST SECOND)")
				}
			}
		}},
	})
	if cfg.Confidence <= 0 || cfg.Confidence >= 1 {
		cfg.Confidence = DefaultConfidence // a problem was reported
	}
	where := deref(top)
	if !seen["fixtures"] {
		p.add(where, "fixtures", "missing: the fixtures (a folder of .json fixtures, a .json or a .jsonl file)")
	}
	if !seen["systems"] {
		p.add(where, "systems", "missing: systems.incumbent and systems.candidate, each with its verdicts")
		return
	}
	if cfg.Gates.MaxMeanPromptTokens > 0 {
		for _, s := range []struct {
			role string
			sys  *SystemConfig
		}{{"incumbent", &cfg.Incumbent}, {"candidate", &cfg.Candidate}} {
			if s.sys.PromptSizes == "" && systemsNode != nil {
				// At the system's own key, not the first system's.
				at := deref(systemsNode)
				for i := 0; i+1 < len(at.Content); i += 2 {
					if at.Content[i].Value == s.role {
						at = at.Content[i]
						break
					}
				}
				p.add(at, "systems."+s.role+".prompt_sizes", "missing: gates.max_mean_prompt_tokens needs each system's prompt sizes")
			}
		}
	}
	if cfg.Gates.Use == UseCorrected && cfg.Reviews == "" && p.useNode != nil {
		p.add(deref(p.useNode), "gates.use", "corrected needs the reviewers' verdicts: add reviews: (a file tally calibrate writes), or use judge")
	}
	if systemsNode != nil && len(p.probs) == 0 && cfg.Incumbent.Name == cfg.Candidate.Name {
		p.add(deref(systemsNode), "systems", "the incumbent and the candidate are both named %q; give them different names", previewText(cfg.Incumbent.Name))
	}
}

func (p *configParser) systems(n *yaml.Node, field string, cfg *Config) {
	seen := p.mapping(n, field, []cfgKey{
		{"incumbent", func(v *yaml.Node, f string) { p.system(v, f, &cfg.Incumbent) }},
		{"candidate", func(v *yaml.Node, f string) { p.system(v, f, &cfg.Candidate) }},
	})
	for _, role := range []string{"incumbent", "candidate"} {
		if !seen[role] {
			p.add(deref(n), cfgJoin(field, role), "missing: the %s's verdicts (systems.%s.verdicts)", role, role)
		}
	}
}

func (p *configParser) system(n *yaml.Node, field string, s *SystemConfig) {
	seen := p.mapping(n, field, []cfgKey{
		{"name", p.str(&s.Name)},
		{"verdicts", p.path(&s.Verdicts, true)},
		{"prompt_sizes", p.path(&s.PromptSizes, false)},
	})
	if !seen["verdicts"] {
		p.add(deref(n), cfgJoin(field, "verdicts"), "missing: the verdict records `tally check` wrote for this system")
	}
	if strings.TrimSpace(s.Name) == "" {
		p.add(deref(n), cfgJoin(field, "name"), "empty name")
	}
}

func (p *configParser) gates(n *yaml.Node, field string, g *Gates) {
	var useNode *yaml.Node
	defer func() { p.useNode = useNode }()
	mcp := p.count(&g.MaxContradictions, "contradicted items allowed")
	p.mapping(n, field, []cfgKey{
		{"retained", func(v *yaml.Node, f string) {
			var keys []cfgKey
			for _, cl := range fixture.Classes {
				keys = append(keys, cfgKey{string(cl), func(v *yaml.Node, f string) {
					var share float64
					before := len(p.probs)
					p.number(&share, 0, 1, "a share from 0 to 1, such as 0.95")(v, f)
					if len(p.probs) == before {
						g.Retained[cl] = share
					}
				}})
			}
			p.mapping(v, f, keys)
		}},
		{"max_contradictions", mcp},
		{"max_mean_prompt_tokens", p.number(&g.MaxMeanPromptTokens, 0, math.MaxFloat64, "tokens, 0 for no gate")},
		{"use", func(v *yaml.Node, f string) {
			p.str(&g.Use)(v, f)
			if g.Use != UseJudge && g.Use != UseCorrected {
				p.add(deref(v), f, "%q is not what the gates can use: want %s (the judge's share) or %s (corrected by the reviews)", previewText(g.Use), UseJudge, UseCorrected)
				g.Use = UseJudge
			}
			useNode = v
		}},
	})
	if g.Use == "" {
		g.Use = UseJudge
	}
}
