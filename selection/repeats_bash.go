package selection

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file holds what the repeat detector reads in a Bash command: its
// simple commands, the programs they run, and whether they write to
// another system, to a file, or only look (classifyBash).

// segments splits a shell command at &&, ||, ;, | and newlines into
// simple commands, each without leading env assignments. It does not
// parse quotes: good enough to name the programs a command runs.
func segments(cmd string) []string {
	var out []string
	for rest, more := cmd, true; more; {
		var s string
		s, rest, more = nextSegment(rest)
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

// runnerValueFlags are the options of a runner that take a value
// ("xargs -n 1", "npx -p pkg").
var runnerValueFlags = set("-n", "-I", "-L", "-P", "-d", "-s", "-E", "-a", "-p", "--package")

// withoutRunner is the words of a simple command (of segments) without
// the runner that starts it, so that classifyBash and writesNamed read
// what it runs: "xargs sed -i …",
// "npx prettier --write .", "pnpm exec …", "uv run ruff format ." (a
// new user's trial found "npx prettier --write" and "xargs sed -i" not
// read as writes). A script a package manager runs by name ("npm run
// format") is left as it is.
func withoutRunner(f []string) []string {
	if len(f) == 0 {
		return f
	}
	n := 0
	switch path.Base(f[0]) {
	case "xargs", "npx", "bunx", "pnpx", "uvx":
		n = 1
	case "pnpm", "npm", "yarn", "bun":
		switch {
		case len(f) > 1 && (f[1] == "exec" || f[1] == "dlx" || f[1] == "x"):
			n = 2
		case len(f) > 1 && (checkProgs[f[1]] || alwaysRewrite[f[1]]):
			n = 1 // "yarn prettier --write": a package's program by name
		}
	case "uv", "poetry", "pipenv", "pdm", "hatch", "bundle", "pipx":
		if len(f) > 1 && (f[1] == "run" || f[1] == "exec") {
			n = 2
		}
	case "go":
		if len(f) > 2 && f[1] == "run" && strings.Contains(f[2], "/") {
			// "go run golang.org/x/tools/cmd/goimports@latest -w src"
			g := slices.Clone(f[2:])
			g[0], _, _ = strings.Cut(g[0], "@")
			return g
		}
	}
	if n == 0 {
		return f
	}
	for n < len(f) && strings.HasPrefix(f[n], "-") {
		if runnerValueFlags[f[n]] {
			n++
		}
		n++
	}
	if n >= len(f) {
		return f // the runner alone: nothing else to read
	}
	return f[n:]
}

// feedsRewrite reports whether cmd pipes names into a command that
// rewrites them ("find . -name '*.go' | xargs gofmt -w", "git ls-files
// | xargs sed -i …"): the files it changes are named by the commands
// before it, which writesNamed then reads as rewriting what they name.
func feedsRewrite(cmd string) bool {
	for rest, more := cmd, true; more; {
		var seg string
		seg, rest, more = nextSegment(rest)
		if f := strings.Fields(seg); len(f) > 1 && path.Base(f[0]) == "xargs" {
			if g := withoutRunner(f); len(g) < len(f) && rewritesNamed(g) {
				return true
			}
		}
	}
	return false
}

// nextSegment returns the text of cmd before its first separator (&&,
// ||, ;, | or a line break; a pair before a single bar), the text after
// that separator, and whether there was one.
func nextSegment(cmd string) (seg, rest string, more bool) {
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case '&':
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				return cmd[:i], cmd[i+2:], true
			}
		case '|':
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				return cmd[:i], cmd[i+2:], true
			}
			return cmd[:i], cmd[i+1:], true
		case ';', '\n':
			return cmd[:i], cmd[i+1:], true
		}
	}
	return cmd, "", false
}

// ghAPIWrites returns the identities of the `gh api` writes in cmd.
func ghAPIWrites(cmd string) []string {
	// A write's segment starts with the words gh and api.
	if !strings.Contains(cmd, "api") || !strings.Contains(cmd, "gh") {
		return nil
	}
	var out []string
	for _, seg := range segments(cmd) {
		if t, ok := ghAPIWrite(seg); ok {
			out = append(out, t)
		}
	}
	return out
}

// ghAPIWrite recognises a `gh api` call that writes (a method other than
// GET, or body fields without a method, which gh sends as POST) and
// returns its identity: method and endpoint.
func ghAPIWrite(cmd string) (string, bool) {
	for _, seg := range segments(cmd) {
		f := strings.Fields(seg)
		if len(f) < 3 || f[0] != "gh" || f[1] != "api" {
			continue
		}
		method, endpoint, fields := "", "", false
		for i := 2; i < len(f); i++ {
			w := f[i]
			switch {
			case w == "-X" || w == "--method":
				if i+1 < len(f) {
					method = strings.ToUpper(strings.Trim(f[i+1], `"'`))
					i++
				}
			case strings.HasPrefix(w, "-X") && len(w) > 2:
				method = strings.ToUpper(w[2:])
			case strings.HasPrefix(w, "--method="):
				method = strings.ToUpper(w[len("--method="):])
			case w == "-f" || w == "-F" || w == "--field" || w == "--raw-field" || w == "--input":
				fields = true
				i++
			case strings.HasPrefix(w, "-"):
			case endpoint == "":
				endpoint = strings.Trim(w, `"'`)
			}
		}
		if method == "" && fields {
			method = "POST"
		}
		if method != "" && method != "GET" && endpoint != "" {
			return "gh api " + method + " " + strings.TrimPrefix(endpoint, "/"), true
		}
	}
	return "", false
}

// Command classes, by the program (and subcommand) a segment runs.
var (
	orientProgs = set("ls", "pwd", "wc", "cat", "head", "tail", "sed", "nl", "tree", "find", "du", "df", "stat", "file",
		"which", "whoami", "date", "echo", "env", "printenv", "uname", "hostname", "realpath", "dirname", "basename",
		"grep", "rg", "ag", "sort", "uniq", "cut", "awk", "jq", "less", "more", "diff", "true", "cd", "test", "[")
	orientGit = set("status", "log", "diff", "show", "branch", "remote", "rev-parse", "describe", "ls-files",
		"blame", "reflog", "tag", "config", "shortlog", "ls-remote", "worktree", "fetch")
	// gitTree changes the working tree or history.
	gitTree    = set("merge", "rebase", "checkout", "switch", "pull", "reset", "stash", "cherry-pick", "am", "revert", "apply", "restore", "rm", "mv")
	gitCommit  = set("commit", "merge", "rebase", "pull", "cherry-pick", "am", "revert")
	checkProgs = set("pytest", "tox", "ruff", "mypy", "eslint", "prettier", "golangci-lint", "staticcheck", "gofmt",
		"goimports", "gofumpt", "rspec", "jest", "vitest", "phpunit", "rubocop", "flake8", "black", "isort", "pylint", "shellcheck",
		"rustfmt", "autopep8", "yapf", "clang-format", "biome", "dprint", "shfmt", "stylua", "ktlint", "swiftformat")
	// writeProgs change files in the workspace.
	writeProgs = set("rm", "mv", "cp", "mkdir", "touch", "tee", "patch", "ln", "chmod", "truncate", "unzip", "tar")
)

// gitPathsOnly reports whether git's sub-command sub with arguments args
// changes only the files it names (git-checkout(1), git-restore(1),
// git-rm(1), git-mv(1), git-reset(1)): a checkout or reset with "--"
// and paths after it, a restore, rm or mv of named paths. A write that
// names its files is matched to a re-read by name (writesNamed); the
// rest of the tree is unchanged (a new user's trial: one file's
// checkout hid a lost re-read of another). A path of "." or ":/" is the
// whole tree.
func gitPathsOnly(sub string, args []string) bool {
	var paths []string
	switch sub {
	case "checkout", "reset":
		k := slices.Index(args, "--")
		if k < 0 {
			return false
		}
		paths = args[k+1:]
	case "restore", "rm", "mv":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				paths = append(paths, a)
			}
		}
	default:
		return false
	}
	for _, p := range paths {
		if p == "." || p == "./" || strings.HasPrefix(p, ":") || strings.ContainsAny(p, "*?[") {
			return false
		}
	}
	return len(paths) > 0
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// bashClass is what a Bash command does, from its segments.
type bashClass struct {
	external   bool // writes outside the workspace
	ships      bool // pushes or deploys the current state (a new commit is a new cause)
	check      bool // test/build/lint/format
	orient     bool // every segment only looks
	writes     bool // changes files in the workspace
	treeChange bool // git changes the tree or history
	commits    bool // git makes a new commit
}

// commandReads returns the files a command prints (cat, head, tail, nl,
// sed -n, grep and rg with a path; shellReads of each segment): an
// agent without a Read tool reads files so. Only such agents' repeats
// ask for it, so classifyBash, on every Bash call, does not.
func commandReads(cmd string) []string {
	var out []string
	for _, seg := range segments(cmd) {
		f := strings.Fields(seg)
		out = append(out, shellReads(path.Base(f[0]), f)...)
	}
	return out
}

// valueFlags are the reader flags that take a value ("head -n 50").
var valueFlags = set("head -n", "head -c", "tail -n", "tail -c", "sed -e", "sed -f",
	"grep -e", "grep -f", "grep -A", "grep -B", "grep -C", "grep -m",
	"rg -e", "rg -f", "rg -A", "rg -B", "rg -C", "rg -m", "rg -g", "rg -t", "rg --type", "rg --glob",
	"ag -A", "ag -B", "ag -C", "ag -m", "ag -G")

// readerProgs print files: cat, sed -n and the like.
var readerProgs = set("cat", "head", "tail", "nl", "less", "more", "sed", "awk", "grep", "rg", "ag")

// shellReads returns the files a segment (program prog, words f) prints
// when it only reads: the operands of cat, head, tail, nl, less and
// more, those after sed's script (without -i), those after grep's, rg's
// or ag's pattern; nil for any other segment. Flags, and the values of
// the flags that take one (-n 50, -e PAT), are not files.
func shellReads(prog string, f []string) []string {
	if !readerProgs[prog] || prog == "awk" {
		return nil
	}
	var ops []string
	for i := 1; i < len(f); i++ {
		w := f[i]
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			if prog == "sed" && (w == "-i" || strings.HasPrefix(w, "-i") || w == "--in-place") {
				return nil
			}
			if valueFlags[prog+" "+w] {
				i++ // its value
			}
			continue
		}
		ops = append(ops, strings.Trim(w, `'"`))
	}
	switch prog {
	case "sed", "grep", "rg", "ag":
		if len(ops) == 0 {
			return nil
		}
		ops = ops[1:] // the script or the pattern
	}
	if ops == nil {
		ops = []string{}
	}
	return ops
}

// inPlace is sed's or perl's in-place flag, alone, in a cluster ("perl
// -pi -e", "sed -Ei") or long ("sed --in-place"; a re-check trial found
// the last two missed).
var inPlace = regexp.MustCompile(`\s-(?:[a-zA-Z]*i[a-zA-Z.]*|-in-place)(?:[\s=]|$)`)

func classifyBash(cmd string) bashClass {
	var c bashClass
	c.orient = true
	if redirectsToFile(cmd) {
		c.writes = true // a redirection to a file
	}
	for _, seg := range segments(cmd) {
		f := withoutRunner(strings.Fields(seg))
		seg = strings.Join(f, " ")
		prog := path.Base(f[0])
		sub := ""
		if len(f) > 1 {
			sub = f[1]
		}
		segOrient := false
		switch {
		case prog == "git":
			// skip global options such as -C dir
			i := 1
			for i < len(f) && strings.HasPrefix(f[i], "-") {
				if f[i] == "-C" || f[i] == "-c" {
					i++
				}
				i++
			}
			if i < len(f) {
				sub = f[i]
			}
			switch {
			case sub == "push":
				c.external, c.ships = true, true
			case gitTree[sub] || gitCommit[sub]:
				c.treeChange = c.treeChange || gitTree[sub] && !gitPathsOnly(sub, f[min(i+1, len(f)):])
				c.writes = true
				c.commits = c.commits || gitCommit[sub]
			case orientGit[sub]:
				segOrient = true
			case sub == "add":
				c.writes = true
			}
		case prog == "gh":
			if _, ok := ghAPIWrite(seg); ok {
				c.external = true
			} else if len(f) > 2 && (sub == "pr" || sub == "issue" || sub == "release" || sub == "repo" || sub == "label" || sub == "workflow" || sub == "run") {
				switch f[2] {
				case "view", "list", "status", "diff", "checks", "watch", "download":
					segOrient = true
				case "merge":
					c.external, c.ships = true, true
				default:
					c.external = true
				}
			} else if sub == "api" {
				segOrient = true
			}
		case prog == "curl" || prog == "http" || prog == "wget":
			if curlWrite.MatchString(" " + seg + " ") {
				c.external = true
			}
		case shipsCommand(prog, f):
			c.external, c.ships = true, true
		case isMigration(seg):
			c.external = true
		case (prog == "sed" || prog == "perl") && inPlace.MatchString(seg):
			c.writes = true
		case writeProgs[prog]:
			c.writes = true
		case orientProgs[prog]:
			segOrient = true
		}
		// A file a reader prints is no test run, whatever its name
		// ("sed -n '60,120p' orders_test.go").
		if checkProgs[prog] || !segOrient && !readerProgs[prog] && prog != "git" && prog != "gh" && hasCheckWord(seg) {
			c.check = true
			if formatterWrites(prog, seg) {
				c.writes = true
			}
		}
		if !segOrient {
			c.orient = false
		}
	}
	if c.writes || c.external || c.check {
		c.orient = false
	}
	return c
}

// alwaysRewrite are formatters that rewrite the files they are given
// unless asked only to check or show the difference.
var alwaysRewrite = set("black", "isort", "rustfmt")

// formatterWrites reports whether a check or formatting segment (program
// prog) rewrites files: a write or fix flag (gofmt -w, prettier --write,
// eslint --fix, clang-format -i, rubocop -a); a formatter that always
// rewrites (black, isort, rustfmt); a formatting subcommand or task
// ("cargo fmt", "go fmt", "ruff format", "npm run format", "make fmt") —
// the last two unless asked only to check or show the difference. A
// formatter that only prints (gofmt without -w, eslint --format json,
// ruff check --output-format=github) does not write: a re-check trial
// found those hid lost results.
func formatterWrites(prog, seg string) bool {
	f := strings.Fields(seg)
	has := func(flags ...string) bool {
		for _, w := range f[1:] {
			for _, x := range flags {
				if w == x || strings.HasPrefix(w, x+"=") {
					return true
				}
			}
		}
		return false
	}
	checking := has("--check", "--check-only", "--diff", "-l", "--list-different", "-d", "--dry-run")
	switch {
	case has("-w", "--write", "--fix", "-i", "--in-place"):
		return true
	case prog == "rubocop":
		return has("-a", "-A", "--autocorrect", "--autocorrect-all", "--auto-correct")
	case alwaysRewrite[prog]:
		return !checking
	}
	return formatTask(f) && !checking
}

// shipsCommand recognises deploys and publishes.
func shipsCommand(prog string, f []string) bool {
	has := func(ws ...string) bool {
		for _, w := range f[1:] {
			for _, x := range ws {
				if w == x {
					return true
				}
			}
		}
		return false
	}
	switch prog {
	case "npm", "pnpm", "yarn", "cargo", "twine", "gem", "poetry":
		return has("publish", "upload", "push")
	case "docker", "podman":
		return has("push")
	case "kubectl":
		return has("apply", "delete", "rollout", "scale", "patch", "replace", "create")
	case "helm":
		return has("install", "upgrade", "uninstall", "rollback")
	case "terraform", "tofu", "pulumi":
		return has("apply", "destroy", "up")
	case "fly", "flyctl", "vercel", "netlify", "heroku", "firebase", "wrangler", "serverless", "sls":
		return has("deploy", "--prod", "publish", "releases:rollback")
	case "aws", "gcloud", "az":
		return has("deploy", "create", "delete", "update", "put-object", "cp", "sync", "invoke")
	}
	return strings.Contains(strings.Join(f, " "), "deploy")
}

// redirectsToFile reports whether cmd has a '>' outside the redirections
// that write no file, `\d?>>?\s*/dev/null` and `\d?>&\s*\d`, found left
// to right as a regexp finds them (\d and \s are ASCII's).
func redirectsToFile(cmd string) bool {
	for i := 0; ; {
		k := strings.IndexByte(cmd[i:], '>')
		if k < 0 {
			return false
		}
		k += i
		// A redirection starts at the '>' or at a digit right before it:
		// nothing between i and k can start one.
		if k > i && isDigit(cmd[k-1]) {
			if n := nullRedirectAt(cmd[k-1:]); n > 0 {
				i = k - 1 + n
				continue
			}
		}
		n := nullRedirectAt(cmd[k:])
		if n == 0 {
			return true
		}
		i = k + n
	}
}

// nullRedirectAt is the length of the redirection that writes no file at
// the start of s, 0 if there is none.
func nullRedirectAt(s string) int {
	p := 0
	if p < len(s) && isDigit(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != '>' {
		return 0
	}
	p++
	if p < len(s) && s[p] == '&' {
		q := skipSpace(s, p+1)
		if q < len(s) && isDigit(s[q]) {
			return q + 1
		}
		return 0
	}
	if p < len(s) && s[p] == '>' {
		p++
	}
	p = skipSpace(s, p)
	if strings.HasPrefix(s[p:], "/dev/null") {
		return p + len("/dev/null")
	}
	return 0
}

// skipSpace returns the index of the first byte of s at or after i that
// is not ASCII white space as regexp's \s is (tab, newline, form feed,
// carriage return, space).
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

var curlWrite = regexp.MustCompile(`(?i)(-X\s*(POST|PUT|PATCH|DELETE)|--request\s+(POST|PUT|PATCH|DELETE)|\s(-d|--data\S*|-F|--form)\s)`)

var migrationRe = regexp.MustCompile(`(?i)\b(db:migrate|migrate (up|deploy|apply)|alembic upgrade|flyway migrate|manage\.py migrate|prisma (migrate deploy|db push)|knex migrate:latest|goose .*\bup\b|dbmate up)\b`)

func isMigration(seg string) bool {
	// Every migration command names one of these (in any case); the
	// check is exact for ASCII text, and other text goes to the regexp,
	// whose case folding reaches beyond ASCII ("ſ" for "s").
	if asciiOnly(seg) && !containsFoldASCII(seg, "migrate") && !containsFoldASCII(seg, "alembic") &&
		!containsFoldASCII(seg, "prisma") && !containsFoldASCII(seg, "goose") && !containsFoldASCII(seg, "dbmate") {
		return false
	}
	return migrationRe.MatchString(seg)
}

// hasCheckWord reports whether a run of seg
// between its ends and the separators (ASCII white space, ':', '/',
// '.', '_', '-') is one of the check words.
func hasCheckWord(seg string) bool {
	start := 0
	for i := 0; i <= len(seg); i++ {
		if i < len(seg) {
			switch seg[i] {
			case ' ', '\t', '\n', '\f', '\r', ':', '/', '.', '_', '-':
			default:
				continue
			}
		}
		if i-start >= 2 && checkWordSet[seg[start:i]] {
			return true
		}
		start = i + 1
	}
	return false
}

// checkWordSet holds the words that name test, build, lint and format
// runs.
var checkWordSet = set("test", "tests", "spec", "specs", "build", "lint", "vet", "check", "fmt", "format",
	"typecheck", "tsc", "clippy", "compile", "ci")

// asciiOnly reports whether s is all ASCII.
func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s holds sub, a lower-case ASCII
// word, in any mix of ASCII case.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}
