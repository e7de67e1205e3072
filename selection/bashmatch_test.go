package selection

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// The hand-written matchers of repeats.go pinned to the regexps they
// replaced (as of commit a89e1b4): each must give what the regexp gave.

// oldSegSplit, oldCheckWords and oldNullRedirect are the regexps
// segments, hasCheckWord and redirectsToFile replaced.
var (
	oldNullRedirect = regexp.MustCompile(`\d?>>?\s*/dev/null|\d?>&\s*\d`)
	oldSegSplit     = regexp.MustCompile(`&&|\|\||;|\||\n`)
	oldCheckWords   = regexp.MustCompile(`(^|[\s:/._-])(test|tests|spec|specs|build|lint|vet|check|fmt|format|typecheck|tsc|clippy|compile|ci)([\s:/._-]|$)`)
)

// oldSegments is segments as it was, on oldSegSplit.
func oldSegments(cmd string) []string {
	var out []string
	for _, s := range oldSegSplit.Split(cmd, -1) {
		f := strings.Fields(s)
		for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
			f = f[1:]
		}
		for len(f) > 0 && (f[0] == "sudo" || f[0] == "time" || f[0] == "command" || f[0] == "(" || f[0] == "{") {
			f = f[1:]
		}
		if len(f) > 0 {
			out = append(out, strings.Join(f, " "))
		}
	}
	return out
}

// oldGHAPIWrites is ghAPIWrites without its pre-check.
func oldGHAPIWrites(cmd string) []string {
	var out []string
	for _, seg := range oldSegments(cmd) {
		if t, ok := ghAPIWrite(seg); ok {
			out = append(out, t)
		}
	}
	return out
}

// bashMatchCases are commands that test the separators' edges, the
// check words' boundaries and case folding.
var bashMatchCases = []string{
	"", "|", "||", "|||", "&", "&&", "&&&", "a&b", "a & b", ";;", "\n", "a\nb", "a|b||c&&d;e\nf",
	"FOO=1 sudo BAR=2 gh api -X POST repos/x", "sudo FOO=1 gh api -f a=b /repos/y | cat",
	"gh api repos/x/pulls -X PATCH && gh api repos/y", "ghx apix", "echo gh api", "gh  api\t-XDELETE  x",
	"go test ./...", "go vet", "make ci", "make cix", "npm run typecheck", "tsc", "xtsc", "go_test", "a-lint-b",
	"run.fmt", "build:prod", "test\f", "\vtest", "test\u00a0", "mytest", "cargo clippy -- -D warnings",
	"RAILS_ENV=x bin/rails DB:MIGRATE", "alembic upgrade head", "Prisma db push", "goose postgres up",
	"dbmate up", "knex migrate:latest", "python manage.py migrate", "goo\u017fe x up", "pri\u017fma db push",
	"npx prisma migrate deploy", "flyway MIGRATE", "migrate up", "echo hi > /dev/null", "a 2>&1", "a > out",
	"cat x >> y 2>/dev/null", "x >&2",
	"a 2>/dev/null > b", "1>>/dev/null", "12>/dev/null", "x>& 3", ">>&1", ">&", "2>\t/dev/nullx", "3>&2>&1",
	"a>/dev/nul", "9>>  /dev/null2>&1 >f", "2>&x", ">",
}

// realBashCommands returns the commands of the dev set's Bash calls when
// TALLY_REAL_LOGS names its folder.
func realBashCommands(t *testing.T) []string {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		t.Log("TALLY_REAL_LOGS unset: testing the table only")
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("TALLY_REAL_LOGS=%s holds no *.jsonl.gz files (%v)", dir, err)
	}
	var out []string
	var sc jsonscan.Scanner
	for _, p := range files {
		ss, err := agentlog.OpenAll(p, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			for _, st := range s.Steps {
				for _, c := range st.Calls {
					if c.Name == "Bash" {
						var f callFields
						scanCallFields(&sc, c.Input, &f)
						out = append(out, f.command)
					}
				}
			}
		}
	}
	return out
}

func TestBashMatchersPinned(t *testing.T) {
	cmds := append(slices.Clone(bashMatchCases), realBashCommands(t)...)
	segs := 0
	for _, cmd := range cmds {
		got, want := segments(cmd), oldSegments(cmd)
		if !slices.Equal(got, want) {
			t.Errorf("segments(%q) = %q, the regexp split gives %q", cmd, got, want)
		}
		if got, want := ghAPIWrites(cmd), oldGHAPIWrites(cmd); !slices.Equal(got, want) {
			t.Errorf("ghAPIWrites(%q) = %q, without the pre-check %q", cmd, got, want)
		}
		if got, want := redirectsToFile(cmd), strings.Contains(oldNullRedirect.ReplaceAllString(cmd, ""), ">"); got != want {
			t.Errorf("redirectsToFile(%q) = %v, the regexp %v", cmd, got, want)
		}
		for _, seg := range append([]string{cmd}, want...) {
			segs++
			if got, want := hasCheckWord(seg), oldCheckWords.MatchString(seg); got != want {
				t.Errorf("hasCheckWord(%q) = %v, the regexp %v", seg, got, want)
			}
			if got, want := isMigration(seg), migrationRe.MatchString(seg); got != want {
				t.Errorf("isMigration(%q) = %v, the regexp %v", seg, got, want)
			}
		}
	}
	t.Logf("%d commands, %d segments", len(cmds), segs)
}

// FuzzBashMatchers checks the hand-written matchers against the regexps
// on any text.
func FuzzBashMatchers(f *testing.F) {
	for _, c := range bashMatchCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if got, want := segments(cmd), oldSegments(cmd); !slices.Equal(got, want) {
			t.Errorf("segments(%q) = %q, the regexp split gives %q", cmd, got, want)
		}
		if got, want := ghAPIWrites(cmd), oldGHAPIWrites(cmd); !slices.Equal(got, want) {
			t.Errorf("ghAPIWrites(%q) = %q, without the pre-check %q", cmd, got, want)
		}
		if got, want := redirectsToFile(cmd), strings.Contains(oldNullRedirect.ReplaceAllString(cmd, ""), ">"); got != want {
			t.Errorf("redirectsToFile(%q) = %v, the regexp %v", cmd, got, want)
		}
		if got, want := hasCheckWord(cmd), oldCheckWords.MatchString(cmd); got != want {
			t.Errorf("hasCheckWord(%q) = %v, the regexp %v", cmd, got, want)
		}
		if got, want := isMigration(cmd), migrationRe.MatchString(cmd); got != want {
			t.Errorf("isMigration(%q) = %v, the regexp %v", cmd, got, want)
		}
	})
}
