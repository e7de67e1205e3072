package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Synthetic source code and tool output, for the tool results a context
// keeps from its recent turns. None of it is real code.

var (
	identVars  = []string{"total", "inv", "rows", "tenant", "cur", "req", "resp", "cfg", "limit", "cursor", "batch", "item", "line", "amount", "key", "entry", "acct", "n", "buf", "deadline"}
	identTypes = []string{"Store", "Client", "Invoice", "Handler", "Limiter", "Exporter", "Queue", "Ledger", "Cursor", "Tenant", "Config", "Worker"}
	identWords = []string{"load invoice", "flush batch", "decode body", "resolve tenant", "apply discount", "parse cursor", "fetch rates", "write row", "acquire token", "commit tx"}
)

var codeTemplates = map[string][]string{
	"go": {
		"func (s *%T) %F(ctx context.Context, id string) (*%T, error) {",
		"\tif err != nil {", "\t\treturn nil, fmt.Errorf(\"%w: %%w\", err)", "\t}", "}", "",
		"\t%v := s.%v.Get(ctx, id)", "\tdefer rows.Close()", "\tfor _, %v := range %vs {", "\t\t%v += %v.AmountCents",
		"\treturn %v, nil", "// %F %w for one tenant.", "\tctx, cancel := context.WithTimeout(ctx, s.timeout)", "\tdefer cancel()",
		"\tif %v == nil {", "\t\treturn ErrNotFound", "\tmu.Lock()", "\tmu.Unlock()", "\t%v, err := s.db.QueryContext(ctx, query, %v)",
		"type %T struct {", "\t%v int64", "\t%v string", "\t%v time.Time", "\tlog.Info(\"%w\", zap.String(\"tenant\", %v))",
		"\tif len(%v) > limit {", "\t\t%v = %v[:limit]", "\tswitch %v.Status {", "\tcase StatusOpen:", "\tdefault:",
	},
	"python": {
		"def %f(self, %v, *, timeout=None):", "    if %v is None:", "        raise NotFound(%v)", "    return %v", "",
		"class %T:", "    def __init__(self, %v, %v):", "        self.%v = %v", "    for %v in %vs:", "        %v += %v.amount_cents",
		"    # %w for one tenant", "    with self.session() as s:", "        %v = s.execute(query, {\"id\": %v}).fetchone()",
		"    try:", "    except TimeoutError:", "        log.warning(\"%w\", tenant=%v)", "    if len(%v) > limit:", "        %v = %v[:limit]",
		"@dataclass", "    %v: int", "    %v: str", "    return {\"%v\": %v, \"cursor\": %v}",
	},
	"typescript": {
		"export async function %F(%v: string, opts: Options = {}): Promise<%T> {", "  if (!%v) {", "    throw new NotFoundError(%v);", "  }", "}", "",
		"  const %v = await this.%v.get(%v);", "  for (const %v of %vs) {", "    %v += %v.amountCents;", "  return %v;",
		"// %w for one tenant", "export class %T {", "  private %v: number;", "  constructor(private readonly %v: Client) {}",
		"  logger.info({ tenant: %v }, \"%w\");", "  if (%v.length > limit) {", "    %v = %v.slice(0, limit);", "  switch (%v.status) {", "    case \"open\":", "    default:",
	},
}

// codeLine draws one line of the theme's language.
func codeLine(r *rand.Rand, th *theme) string {
	return fillCode(r, th, pick(r, codeTemplates[th.Lang.Name]))
}

func fillCode(r *rand.Rand, th *theme, s string) string {
	for strings.Contains(s, "%v") {
		s = strings.Replace(s, "%v", pick(r, identVars), 1)
	}
	s = strings.ReplaceAll(s, "%T", pick(r, identTypes))
	s = strings.ReplaceAll(s, "%F", pick(r, th.Funcs))
	s = strings.ReplaceAll(s, "%f", strings.ToLower(pick(r, th.Funcs)))
	s = strings.ReplaceAll(s, "%w", pick(r, identWords))
	return s
}

// toolResult draws what a call returned, at most maxLines lines of it.
func toolResult(r *rand.Rand, th *theme, c toolCall, maxLines int) string {
	var lines []string
	switch c.Tool {
	case "read_file":
		start, end := c.Start, c.End
		if start == 0 {
			start, end = 1, 120+r.IntN(280)
		}
		for n := start; n <= end; n++ {
			lines = append(lines, fmt.Sprintf("%5d\t%s", n, codeLine(r, th)))
		}
	case "grep":
		for range 4 + r.IntN(24) {
			lines = append(lines, fmt.Sprintf("%s:%d: %s", pick(r, th.Files), 1+r.IntN(600), strings.TrimSpace(codeLine(r, th))))
		}
	case "edit_file":
		lines = append(lines, fmt.Sprintf("Applied 1 edit to %s (%d lines changed).", c.Path, 1+r.IntN(6)))
	case "run_tests":
		pass := chance(r, 0.6)
		for _, t := range th.Tests {
			lines = append(lines, "=== RUN   "+t)
			if !pass && chance(r, 0.3) {
				lines = append(lines, fmt.Sprintf("    %s:%d: got %d, want %d", lastElem(pick(r, th.Files)), 20+r.IntN(300), 1199, 1200), "--- FAIL: "+t+fmt.Sprintf(" (0.%02ds)", r.IntN(99)))
				pass = true
				continue
			}
			lines = append(lines, "--- PASS: "+t+fmt.Sprintf(" (0.%02ds)", r.IntN(99)))
		}
		lines = append(lines, fmt.Sprintf("ok  \t%s\t%d.%03ds", th.Dir, r.IntN(3), r.IntN(1000)))
	case "list_dir":
		for _, f := range th.Files {
			lines = append(lines, lastElem(f))
		}
	default:
		switch {
		case strings.HasPrefix(c.Command, "git log"):
			for range 8 {
				lines = append(lines, fmt.Sprintf("%07x %s", r.Uint32()&0xfffffff, pick(r, identWords)))
			}
		case strings.HasPrefix(c.Command, "git status"), strings.HasPrefix(c.Command, "git diff"):
			for range 1 + r.IntN(5) {
				lines = append(lines, fmt.Sprintf(" M %s | %d +++--", pick(r, th.Files), 2+r.IntN(40)))
			}
		default:
			lines = append(lines, "exit status 0")
		}
	}
	if maxLines > 0 && len(lines) > maxLines {
		n := len(lines) - maxLines
		lines = append(lines[:maxLines:maxLines], fmt.Sprintf("[… %d more lines not kept]", n))
	}
	return strings.Join(lines, "\n")
}
