package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listed is the part of `go list -json` the layout test reads.
type listed struct {
	ImportPath string
	Imports    []string // non-test imports: the arrows between packages
	Module     *struct{ Path string }
}

// renderers are the renderer packages under report/: each writes one
// format from the report model and none builds on another.
var renderers = []string{"report/html", "report/xlsx", "report/markdown"}

// layoutRules are the arrows the packages may not draw, one rule a row.
// A rule is about the packages it applies to (paths relative to the
// module) and the tally packages they import (relative too); the
// standard library and third-party modules are always allowed.
var layoutRules = []struct {
	name    string
	applies func(pkg string) bool
	allowed func(pkg, imp string) bool
	reason  string
}{
	{
		name:    "internal/ imports only internal/",
		applies: func(pkg string) bool { return strings.HasPrefix(pkg, "internal/") },
		allowed: func(_, imp string) bool { return strings.HasPrefix(imp, "internal/") },
		reason:  "internal/ holds the helpers the lowest packages (fixture, selection, report) share; an import of a package above it would run an arrow back up and make a cycle the next time that package needs the helper",
	},
	{
		name:    "stats imports only internal/",
		applies: func(pkg string) bool { return pkg == "stats" },
		allowed: func(_, imp string) bool { return strings.HasPrefix(imp, "internal/") },
		reason:  "stats is the bottom of the computations (STYLE.md: inputs → computations → model → renderers); everything statistical builds on it, so it builds on nothing of tally's",
	},
	{
		name:    "power imports only stats and internal/",
		applies: func(pkg string) bool { return pkg == "power" },
		allowed: func(_, imp string) bool { return imp == "stats" || strings.HasPrefix(imp, "internal/") },
		reason:  "power is the paired and planning statistics on top of stats; it knows no fixture, judge or report",
	},
	{
		name:    "rule imports only power, stats and internal/",
		applies: func(pkg string) bool { return pkg == "rule" },
		allowed: func(_, imp string) bool {
			return imp == "power" || imp == "stats" || strings.HasPrefix(imp, "internal/")
		},
		reason: "rule is the regression rules and their error rates, computed from counts; it reads no file, so the report, the gate and plan fixtures share one decision and one model of noise",
	},
	{
		name:    "noise imports only fixture, stats, power and internal/",
		applies: func(pkg string) bool { return pkg == "noise" },
		allowed: func(_, imp string) bool {
			return imp == "fixture" || imp == "stats" || imp == "power" || strings.HasPrefix(imp, "internal/")
		},
		reason: "noise reads two verdict files with fixture's record reader and computes on stats; the report reads noise, never the other way",
	},
	{
		name:    "reviews imports only fixture and internal/",
		applies: func(pkg string) bool { return pkg == "reviews" },
		allowed: func(_, imp string) bool { return imp == "fixture" || strings.HasPrefix(imp, "internal/") },
		reason:  "reviews is an input format (the reviewers' verdicts) that the workbook writer and the report read; importing report or a renderer would turn the flow around",
	},
	{
		name:    "calibration imports only fixture, reviews, stats and internal/",
		applies: func(pkg string) bool { return pkg == "calibration" },
		allowed: func(_, imp string) bool {
			return imp == "fixture" || imp == "reviews" || imp == "stats" || strings.HasPrefix(imp, "internal/")
		},
		reason: "calibration computes on verdicts and reviews it is given (the judge against the reviewers, corrected retention, the review queue's plan); the report and calibrate queue call it, never the other way",
	},
	{
		name:    "fixture imports only internal/",
		applies: func(pkg string) bool { return pkg == "fixture" },
		allowed: func(_, imp string) bool { return strings.HasPrefix(imp, "internal/") },
		reason:  "fixture is an input format: judge, selection, report and the CLI read it, so it can import none of them",
	},
	{
		name:    "no renderer imports another renderer",
		applies: func(pkg string) bool { return slices.Contains(renderers, pkg) },
		allowed: func(pkg, imp string) bool { return imp == pkg || !slices.Contains(renderers, imp) },
		reason:  "each renderer writes one format from the report model (STYLE.md); what two of them share belongs in the model or in report/internal, not in a renderer the other one calls",
	},
	{
		name:    "report imports nothing under report/ but report/internal/",
		applies: func(pkg string) bool { return pkg == "report" },
		allowed: func(_, imp string) bool {
			return !strings.HasPrefix(imp, "report/") || strings.HasPrefix(imp, "report/internal/")
		},
		reason: "report is the model and the computations the renderers read; a renderer imports report, so report importing a renderer would turn the flow around (and is a cycle)",
	},
}

// TestLayout checks the import graph of the module, from
// `go list -deps -json ./...` run at the module root, against
// layoutRules.
func TestLayout(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == "/dev/null" {
		t.Fatalf("go env GOMOD: %q %v", gomod, err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -json ./... in %s: %v\n%s", cmd.Dir, err, stderr.String())
	}
	pkgs, err := readListed(out)
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Path == module {
			mine++
		}
	}
	if mine == 0 {
		t.Fatalf("go list listed no package of %s", module)
	}
	violations := checkLayout(pkgs)
	for _, v := range violations {
		t.Error(v)
	}
	// A rule that matches no package has stopped checking anything: a
	// package was renamed or moved, and the rule must follow it. The
	// renderers may not exist yet.
	for _, r := range layoutRules {
		n := 0
		for _, p := range pkgs {
			if rel, ok := relative(p.ImportPath); ok && r.applies(rel) {
				n++
			}
		}
		switch {
		case n > 0:
		case r.name == "no renderer imports another renderer":
			t.Logf("rule %q: none of %s exists yet; nothing to check", r.name, strings.Join(renderers, ", "))
		default:
			t.Errorf("rule %q applies to no package of %s: update the rule", r.name, module)
		}
	}
}

// TestLayoutCatchesViolations: the rules fire on a forbidden arrow of each
// kind (a fabricated graph, so this does not depend on the tree).
func TestLayoutCatchesViolations(t *testing.T) {
	tally := func(rel string) string { return module + "/" + rel }
	pkg := func(rel string, imports ...string) listed {
		return listed{ImportPath: tally(rel), Imports: imports, Module: &struct{ Path string }{module}}
	}
	tests := []struct {
		pkg  listed
		want string // the rule broken, "" for none
	}{
		{pkg("internal/jsonpos", "fmt", tally("internal/input"), "golang.org/x/sys/unix"), ""},
		{pkg("internal/jsonpos", tally("selection")), "internal/ imports only internal/"},
		{pkg("internal/input", tally("cmd/tally/internal/review")), "internal/ imports only internal/"},
		{pkg("stats", "math", tally("internal/input")), ""},
		{pkg("stats", tally("power")), "stats imports only internal/"},
		{pkg("power", tally("stats"), tally("internal/input")), ""},
		{pkg("power", tally("fixture")), "power imports only stats and internal/"},
		{pkg("rule", tally("power"), tally("stats")), ""},
		{pkg("rule", tally("fixture")), "rule imports only power, stats and internal/"},
		{pkg("noise", tally("report")), "noise imports only fixture, stats, power and internal/"},
		{pkg("reviews", tally("report")), "reviews imports only fixture and internal/"},
		{pkg("fixture", tally("stats")), "fixture imports only internal/"},
		{pkg("calibration", tally("reviews"), tally("stats"), tally("fixture")), ""},
		{pkg("calibration", tally("report")), "calibration imports only fixture, reviews, stats and internal/"},
		{pkg("report/html", tally("report"), tally("report/internal/svg"), tally("stats")), ""},
		{pkg("report/html", tally("report/xlsx")), "no renderer imports another renderer"},
		{pkg("report/markdown", tally("report/html")), "no renderer imports another renderer"},
		{pkg("report", tally("report/internal/svg"), tally("stats"), tally("fixture")), ""},
		{pkg("report", tally("report/markdown")), "report imports nothing under report/ but report/internal/"},
		{pkg("cmd/tally", tally("report"), tally("report/html"), tally("cmd/tally/internal/review")), ""},
		{pkg("cmd/tally/internal/review", tally("selection"), tally("internal/atomicfile")), ""},
	}
	for _, tt := range tests {
		got := checkLayout([]listed{tt.pkg})
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%s %v: unexpected %v", tt.pkg.ImportPath, tt.pkg.Imports, got)
		case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%s %v: got %v, want a violation of %q", tt.pkg.ImportPath, tt.pkg.Imports, got, tt.want)
		}
	}
}

// module is the path of tally's module.
const module = "github.com/tally-eval/tally"

// readListed decodes the stream of JSON objects `go list -json` writes.
func readListed(out []byte) ([]listed, error) {
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// relative returns path inside the module, and whether it is inside.
func relative(path string) (string, bool) {
	return strings.CutPrefix(path, module+"/")
}

// checkLayout returns one line per forbidden import: the package, the
// import, the rule and its reason.
func checkLayout(pkgs []listed) []string {
	var out []string
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok || p.Module == nil || p.Module.Path != module {
			continue
		}
		for _, r := range layoutRules {
			if !r.applies(rel) {
				continue
			}
			for _, imp := range p.Imports {
				irel, ok := relative(imp)
				if ok && !r.allowed(rel, irel) {
					out = append(out, rel+" imports "+irel+": breaks the rule "+r.name+" — "+r.reason)
				}
			}
		}
	}
	return out
}
