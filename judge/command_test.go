package judge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// fakeJudge sets up testdata/fakejudge.sh with canned replies and returns
// its backend and its working directory.
func fakeJudge(t *testing.T, verdict, agree string) (*Command, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"verdict.json": verdict, "agree.json": agree} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", "testdata/fakejudge.sh", dir}, Label: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The prompt reaches the program on stdin byte for byte, however hostile,
// and never as an argument; nothing in it is evaluated.
func TestCommandPromptOnStdin(t *testing.T) {
	c, dir := fakeJudge(t, replyAbsent, agreeYes)
	canary := filepath.Join(dir, "pwned")
	prompt := "$(rm -rf /)\n$(touch " + canary + ")\n`touch " + canary + "`\n" +
		"%s %d %v %!(EXTRA) %[1]*d\n\"double\" 'single' \\back\\slash ; | & > " + canary + "\n" +
		"{{.Probe}}\x00nul\r\ncrlf\xff\xfe invalid UTF-8 ünïcödé\n--help\n-e\n"
	reply, err := c.Complete(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	if reply != replyAbsent {
		t.Fatalf("reply %q", reply)
	}
	if got := readFile(t, filepath.Join(dir, "prompt.1")); !bytes.Equal(got, []byte(prompt)) {
		t.Fatalf("stdin was\n%q\nwant\n%q", got, prompt)
	}
	argv := strings.Split(strings.TrimSuffix(string(readFile(t, filepath.Join(dir, "argv.1"))), "\x00"), "\x00")
	if want := []string{"testdata/fakejudge.sh", dir}; strings.Join(argv, "|") != strings.Join(want, "|") {
		t.Fatalf("argv = %q, want %q", argv, want)
	}
	for _, a := range argv {
		if strings.Contains(a, "rm -rf") || strings.Contains(a, "%s") {
			t.Fatalf("an argument carries the prompt: %q", a)
		}
	}
	if _, err := os.Stat(canary); !os.IsNotExist(err) {
		t.Fatal("text in the prompt was executed")
	}
}

// Through the model judge: the verdict prompt is exactly the rendered
// template, the agreement question follows, and a disagreement is kept.
func TestCommandModel(t *testing.T) {
	c, dir := fakeJudge(t, "Here you go: "+replySupported, "```json\n"+agreeNo+"\n```")
	q := sampleQuestion()
	q.Probe = "Which branch? $(id) `id` %s"
	q.Context = "'; rm -rf ~ #\n\"$HOME\"\n"
	a, err := (&Model{Backend: c}).Judge(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != fixture.Contradicted || a.Answer != "the develop branch" || a.Expect != "develop" || a.Judge != "command/fake" || a.Calls != 2 {
		t.Fatalf("%+v", a)
	}
	want, _ := DefaultTemplate().Render(q.Probe, q.Context)
	if got := readFile(t, filepath.Join(dir, "prompt.1")); string(got) != want {
		t.Fatalf("verdict prompt\n%q\nwant\n%q", got, want)
	}
	if !isAgreement(string(readFile(t, filepath.Join(dir, "prompt.2")))) {
		t.Fatal("second call is not the agreement question")
	}
}

// A non-zero exit is an error quoting stderr's last line; through the
// model it is an error verdict.
func TestCommandFailure(t *testing.T) {
	c, dir := fakeJudge(t, replyAbsent, agreeYes)
	os.WriteFile(filepath.Join(dir, "fail"), []byte("warming up\nfatal: model file missing\n\n"), 0o600)
	_, err := c.Complete(context.Background(), "p")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), `"fatal: model file missing"`) || strings.Contains(err.Error(), "warming") {
		t.Fatalf("err = %v", err)
	}
	a, err := (&Model{Backend: c}).Judge(context.Background(), sampleQuestion())
	if err != nil || a.Verdict != fixture.Error || !strings.Contains(a.Reason, "fatal: model file missing") || a.Calls != 1 {
		t.Fatalf("%+v, %v", a, err)
	}
}

func TestCommandTimeout(t *testing.T) {
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", "testdata/hang.sh"}, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Complete(context.Background(), "p")
	if err == nil || !strings.Contains(err.Error(), "no reply within 100ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if c.Name() != "command/sh testdata/hang.sh" {
		t.Fatalf("Name = %q", c.Name())
	}
}

func TestNewCommandErrors(t *testing.T) {
	for _, cfg := range []CommandConfig{
		{},
		{Argv: []string{""}},
		{Argv: []string{"/nonexistent/tally-judge"}},
		{Argv: []string{"sh"}, Timeout: -1},
		{Argv: []string{"sh"}, PerSecond: -2},
	} {
		if _, err := NewCommand(cfg); err == nil {
			t.Errorf("NewCommand(%+v) succeeded", cfg)
		}
	}
}

func TestBuffers(t *testing.T) {
	b := &cappedBuffer{limit: 4}
	b.Write([]byte("ab"))
	b.Write([]byte("cdef"))
	if b.String() != "abcd" || !b.overflow {
		t.Fatalf("capped: %q, %v", b.String(), b.overflow)
	}
	tb := &tailBuffer{limit: 4}
	for _, s := range []string{"12345", "678", "9abcdef"} {
		tb.Write([]byte(s))
	}
	if !strings.HasSuffix(tb.String(), "cdef") || len(tb.String()) > 8 {
		t.Fatalf("tail: %q", tb.String())
	}
	if lastLine("a\nb \n\n") != "b" || lastLine("") != "" {
		t.Fatal("lastLine")
	}
}

// TestCommandIdentityArgs: with a label (--model), an argument that names
// a file counts by its contents and any other by its words, so that a
// wrapper run with "--mode absent" and then "--mode supported" is two
// judges, not one whose cached replies answer both (a new user's trial).
func TestCommandIdentityArgs(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "judge.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := func(args ...string) string {
		c, err := NewCommand(CommandConfig{Argv: append([]string{"sh", script}, args...), Label: "mine"})
		if err != nil {
			t.Fatal(err)
		}
		return c.Identity()
	}
	if id("--mode", "absent") == id("--mode", "supported") {
		t.Error("two option values share an identity")
	}
	if a, b := id("--mode", "absent"), id("--mode", "absent"); a != b {
		t.Error("one command line has two identities")
	}
	moved := filepath.Join(t.TempDir(), "judge.sh")
	if err := os.WriteFile(moved, []byte("#!/bin/sh\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", moved}, Label: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity() != id() {
		t.Error("the same script in another folder has another identity")
	}
}
