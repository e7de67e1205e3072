package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Word pools the templates draw from. Everything here is invented.
var (
	services  = []string{"billing", "auth", "search", "notifications", "ingest", "checkout", "inventory", "reporting", "payments", "scheduler", "ledger", "shipping", "catalog", "accounts"}
	modules   = []string{"handler", "store", "client", "invoice", "rounding", "retry", "cache", "config", "router", "worker", "queue", "parser", "export", "schema", "limits", "session", "token", "webhook", "pagination", "refunds", "ratelimit", "backoff", "audit", "tenant", "currency", "batch"}
	forbidden = []string{"/migrations", "db/migrations", "infra/terraform", "deploy/helm", "vendor", "third_party", ".github/workflows", "internal/legacy", "api/v1", "proto", "generated", "config/prod", "scripts/release", "charts", "sql/schema", "ops/ansible", "pkg/wire", "testdata/golden"}
	branches  = []string{"develop", "release/2.4", "release/3.1", "staging", "integration", "next", "hotfix/1.9.3", "dev", "rc/2026.03", "release/2026-q1", "trunk-next", "feature/ledger-v2"}
	columns   = []string{"orders.status", "users.email", "invoices.total_cents", "payments.provider", "sessions.expires_at", "events.payload", "accounts.plan", "shipments.carrier", "refunds.reason", "subscriptions.tier", "tickets.priority", "products.sku", "audit_log.actor", "coupons.kind", "tenants.region", "webhooks.state"}
	tables    = []string{"orders", "invoices", "payments", "users", "shipments", "refunds", "subscriptions", "ledger_entries", "audit_log", "tenants", "webhook_deliveries", "api_keys", "price_rules"}
	docFiles  = []string{"report.md", "CHANGELOG.md", "docs/design.md", "notes/perf.md", "bench/results.md", "docs/rfc-0042.md", "RUNBOOK.md", "PLAN.md", "docs/adr/0007-retries.md", "MIGRATION_NOTES.md", "docs/latency.md", "notes/rollout.md", "docs/postmortem-0311.md"}
	ticketKey = []string{"BILL", "AUTH", "SRCH", "PAY", "OPS", "INFRA", "CHK", "NOTIF", "DATA", "LEDG", "SHIP", "PLAT"}
	ciNames   = []string{"Buildkite", "GitHub Actions", "CircleCI", "Jenkins", "GitLab CI"}
	envs      = []string{"staging", "prod", "canary", "eu-west", "sandbox", "perf", "us-east-2"}
	flags     = []string{"new_checkout_flow", "async_invoices", "v2_search_ranker", "batch_webhooks", "strict_tokens", "fast_export", "dual_write_orders", "tenant_quotas", "lazy_catalog", "sse_notifications", "multi_currency"}
	endpoints = []string{"/v1/orders", "/v1/invoices/export", "/v2/search", "/v1/users/me", "/v1/webhooks/stripe", "/v1/reports", "/v2/payments", "/v1/refunds", "/v2/catalog/items", "/v1/tenants", "/v1/shipments/track"}
	providers = []string{"Stripe", "Adyen", "GitHub", "Shopify", "Twilio", "SendGrid", "PayPal", "Slack"}
	deps      = []string{"the Stripe client", "S3", "the geocoding API", "Twilio", "the search cluster", "the tax service", "Redis", "the FX rates API"}
	things    = []string{"S3 objects", "feature flags", "database rows", "cron jobs", "queues", "Kafka topics", "DNS records", "API keys", "old snapshots"}
	suites    = []string{"integration", "e2e", "contract", "load", "migration", "smoke"}
	runtimes  = []string{"Go 1.21", "Python 3.9", "Node 18", "Postgres 12", "Redis 6", "Java 11", "Ubuntu 20.04 runners"}
	caches    = []string{"price", "session", "catalog", "permission", "rate-limit", "tenant config", "FX rate"}
	dashboard = []string{"checkout-latency", "billing-errors", "search-p99", "ingest-lag", "webhook-failures", "db-connections", "queue-depth"}
	bugs      = []string{"the JPY rounding bug", "the double-charge on retry", "the nil currency panic", "the off-by-one in pagination", "the timezone drift in reports", "the lost webhook on redeploy", "the duplicate refund", "the stale cache after logout"}
	reports   = []string{"monthly revenue", "tenant usage", "refunds", "chargebacks", "audit", "churn"}
	libs      = []string{"pgx", "go-redis", "grpc", "aws-sdk", "sqlalchemy", "httpx", "prisma", "axios", "kafka-go", "protobuf", "openapi-generator"}
)

// language is a session's codebase language, which decides file names,
// test commands and the code tool results show.
type language struct {
	Name     string
	Ext      string
	Manifest string
	Logger   []string
	Print    string
	TestCmd  func(pkg, test string) string
}

var languages = []language{
	{"go", ".go", "go.mod", []string{"zap", "zerolog", "slog"}, "fmt.Println",
		func(pkg, test string) string { return fmt.Sprintf("go test ./%s/... -run %s", pkg, test) }},
	{"python", ".py", "requirements.txt", []string{"structlog", "loguru", "the logging module"}, "print()",
		func(pkg, test string) string { return fmt.Sprintf("pytest %s -k %s", pkg, test) }},
	{"typescript", ".ts", "package.json", []string{"pino", "winston", "the shared logger"}, "console.log",
		func(pkg, test string) string { return fmt.Sprintf("npx vitest run %s -t %s", pkg, test) }},
}

// theme is what one session is about: its repository, service, files,
// tests and task.
type theme struct {
	Lang    language
	Repo    string
	Service string
	Dir     string   // the service's source folder
	Files   []string // files the agent works on
	Tests   []string // test names
	Funcs   []string // function names
	Task    string   // the user's first message
	Goal    string   // the task in a summary's words
}

// newTheme draws a session's theme.
func newTheme(r *rand.Rand) *theme {
	th := &theme{Lang: languages[weighted(r, []float64{0.5, 0.3, 0.2})]}
	th.Service = pick(r, services)
	th.Repo = pick(r, []string{"acme", "northwind", "globex", "initech", "umbrella", "hooli"}) + "/" + th.Service + pick(r, []string{"-api", "-service", "", "-svc", "-core"})
	switch th.Lang.Name {
	case "go":
		th.Dir = "internal/" + th.Service
	case "python":
		th.Dir = strings.ReplaceAll(th.Service, "-", "_")
	default:
		th.Dir = "src/" + th.Service
	}
	mods := append([]string(nil), modules...)
	r.Shuffle(len(mods), func(i, j int) { mods[i], mods[j] = mods[j], mods[i] })
	n := between(r, 5, 12)
	for _, m := range mods[:n] {
		th.Files = append(th.Files, th.Dir+"/"+m+th.Lang.Ext)
		th.Funcs = append(th.Funcs, funcName(r, m))
		th.Tests = append(th.Tests, "Test"+title(m)+pick(r, []string{"", "Totals", "Retry", "Empty", "Concurrent", "RoundTrip", "Errors", "Limits", "Pagination"}))
	}
	th.Task, th.Goal = drawTask(r, th)
	return th
}

func funcName(r *rand.Rand, m string) string {
	return pick(r, []string{"Load", "Apply", "Build", "Parse", "Flush", "Resolve", "Compute", "Handle", "Sync", "Validate"}) + title(m)
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// drawTask draws the user's opening request and a summary's one-line
// statement of it.
func drawTask(r *rand.Rand, th *theme) (task, goal string) {
	f, test := pick(r, th.Files), pick(r, th.Tests)
	ep, dep, tbl := pick(r, endpoints), pick(r, deps), pick(r, tables)
	switch r.IntN(10) {
	case 0:
		return fmt.Sprintf("%s is flaky on CI, about one run in five. Can you find out why and fix it?", test),
			fmt.Sprintf("make %s stop flaking on CI", test)
	case 1:
		return fmt.Sprintf("Add cursor pagination to %s in the %s service; large tenants time out.", ep, th.Service),
			fmt.Sprintf("add cursor pagination to %s", ep)
	case 2:
		return fmt.Sprintf("The %s service logs with plain prints. Please move it to structured logging.", th.Service),
			fmt.Sprintf("move %s to structured logging", th.Service)
	case 3:
		return fmt.Sprintf("Invoices for JPY come out wrong by one unit. The rounding lives somewhere around %s.", f),
			"fix the JPY rounding error in invoice totals"
	case 4:
		return fmt.Sprintf("The %s export times out for big tenants. Make it stream instead of building everything in memory.", tbl),
			fmt.Sprintf("make the %s export stream", tbl)
	case 5:
		return fmt.Sprintf("Add retries with exponential backoff to the calls we make to %s.", dep),
			fmt.Sprintf("add retries with backoff around %s", dep)
	case 6:
		return fmt.Sprintf("%s has grown past 1,400 lines. Break it up so it can be reviewed.", f),
			fmt.Sprintf("split %s into reviewable pieces", f)
	case 7:
		return fmt.Sprintf("Implement soft delete for %s: a deleted_at column, filtered reads, and a purge job.", tbl),
			fmt.Sprintf("implement soft delete for %s", tbl)
	case 8:
		return fmt.Sprintf("Write a per-tenant rate limiter for %s.", ep),
			fmt.Sprintf("add a per-tenant rate limiter to %s", ep)
	default:
		return fmt.Sprintf("Upgrade the %s client library in %s and fix whatever breaks.", pick(r, libs), th.Repo),
			fmt.Sprintf("upgrade a client library in %s", th.Repo)
	}
}
