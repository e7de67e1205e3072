package main

import "fmt"

// This file holds the templates of open questions, and oq, which builds
// one.

// openQuestionTemplates are the templates of class open_question.
var openQuestionTemplates = []func(p picker) itemText{
	func(p picker) itemText {
		col := p.pick(columns)
		return oq("enum:"+col, "Would an enum be better than a varchar for "+col+"?",
			fmt.Sprintf("Has the user decided whether %s becomes an enum?", col),
			[2]string{fmt.Sprintf("Undecided: enum or varchar for %s.", col), fmt.Sprintf("Whether %s should become an enum is still an open question.", col)},
			fmt.Sprintf("Decision: %s becomes an enum.", col), fmt.Sprintf("yes — %s becomes an enum", col), "the type of "+col)
	},
	func(p picker) itemText {
		pr := p.pick(providers)
		return oq("webhooks:"+pr, "Should we retry failed "+pr+" webhooks or drop them after three attempts?",
			fmt.Sprintf("Has the retry policy for failed %s webhooks been settled?", pr),
			[2]string{fmt.Sprintf("Open: retry vs drop-after-3 for %s webhooks.", pr), fmt.Sprintf("Nobody has yet chosen between retrying failed %s webhooks and dropping them after three tries.", pr)},
			fmt.Sprintf("Decided: failed %s webhooks are dropped after three attempts.", pr), "yes — they are dropped after three attempts", pr+" webhook retries")
	},
	func(p picker) itemText {
		ver := p.pick([]string{"3.0", "4.0", "4.5", "2.8", "5.2"})
		return oq("oldclients", "Do we still need to support clients older than "+ver+"?",
			fmt.Sprintf("Has the user said whether clients older than %s must still be supported?", ver),
			[2]string{fmt.Sprintf("Unresolved: support for pre-%s clients.", ver), fmt.Sprintf("It is not yet known whether clients below %s still need support.", ver)},
			fmt.Sprintf("Support for clients older than %s has been dropped.", ver), fmt.Sprintf("yes — clients older than %s are no longer supported", ver), "old client support")
	},
	func(p picker) itemText {
		lib := p.pick(libs)
		return oq("major:"+lib, "Is it OK to bump "+lib+" to the next major version, or do we pin it?",
			fmt.Sprintf("Has the user decided whether %s moves to its next major version?", lib),
			[2]string{fmt.Sprintf("Pending: major upgrade of %s vs pinning.", lib), fmt.Sprintf("The choice between upgrading %s a major version and pinning it has not been made.", lib)},
			fmt.Sprintf("Approved: %s moves to the next major version.", lib), fmt.Sprintf("yes — %s gets the major upgrade", lib), "the "+lib+" upgrade")
	},
	func(p picker) itemText {
		c := p.pick(caches)
		return oq("ttl:"+c, "Should the "+c+" cache TTL be per-tenant or global?",
			fmt.Sprintf("Has it been decided whether the %s cache TTL is per-tenant or global?", c),
			[2]string{fmt.Sprintf("Open: per-tenant vs global TTL for the %s cache.", c), fmt.Sprintf("How the %s cache expiry should be scoped, per tenant or globally, is still undecided.", c)},
			fmt.Sprintf("Decided: the %s cache uses one global TTL.", c), "yes — a single global TTL", "the "+c+" cache TTL")
	},
	func(p picker) itemText {
		tbl := p.pick(tables)
		a, b := p.pick(services), p.pick(services)
		if a == b {
			b = "platform"
		}
		return oq("owner:"+tbl, "Does "+a+" own the "+tbl+" table, or does "+b+"?",
			fmt.Sprintf("Has it been settled which service owns the %s table?", tbl),
			[2]string{fmt.Sprintf("Ownership of %s (%s or %s) not settled.", tbl, a, b), fmt.Sprintf("Whether %s belongs to %s or to %s remains open.", tbl, a, b)},
			fmt.Sprintf("Settled: %s owns the %s table.", a, tbl), fmt.Sprintf("yes — %s owns it", a), "ownership of "+tbl)
	},
	func(p picker) itemText {
		ep := p.pick(endpoints)
		return oq("paginate:"+ep, "Should "+ep+" paginate with cursors or offsets?",
			fmt.Sprintf("Has the user chosen cursor or offset pagination for %s?", ep),
			[2]string{fmt.Sprintf("Undecided: cursors vs offsets on %s.", ep), fmt.Sprintf("The pagination style for %s — cursor or offset — is still to be chosen.", ep)},
			fmt.Sprintf("Decided: %s paginates with cursors.", ep), "yes — cursors", "pagination of "+ep)
	},
	func(p picker) itemText {
		col := p.pick(columns)
		return oq("backfill:"+col, "Do we backfill "+col+" for old rows or leave them NULL?",
			fmt.Sprintf("Has the user decided whether to backfill %s for existing rows?", col),
			[2]string{fmt.Sprintf("Open: backfill %s or leave old rows NULL.", col), fmt.Sprintf("Whether %s gets backfilled for existing rows or stays NULL is unresolved.", col)},
			fmt.Sprintf("Decided: %s is backfilled for all old rows.", col), "yes — old rows get backfilled", "backfilling "+col)
	},
	func(p picker) itemText {
		pkg := p.pick([]string{p.th.Dir, "pkg/client", "internal/store", "pkg/queue", "lib/http"})
		return oq("errors:"+pkg, "Should errors from "+pkg+" be wrapped or returned as sentinel values?",
			fmt.Sprintf("Has the error style for %s (wrapping vs sentinels) been decided?", pkg),
			[2]string{fmt.Sprintf("Pending: wrapped errors vs sentinels in %s.", pkg), fmt.Sprintf("How %s should report errors, wrapped or as sentinels, is not decided.", pkg)},
			fmt.Sprintf("Decided: %s returns sentinel errors.", pkg), "yes — sentinel errors", "error handling in "+pkg)
	},
	func(p picker) itemText {
		ep, ms := p.pick(endpoints), p.pick([]string{"150", "200", "250", "300", "400", "800"})
		return oq("p99:"+ep, "Is "+ms+" ms an acceptable p99 for "+ep+"?",
			fmt.Sprintf("Has the user agreed that a %s ms p99 is acceptable for %s?", ms, ep),
			[2]string{fmt.Sprintf("Unconfirmed: whether %s ms p99 is OK for %s.", ms, ep), fmt.Sprintf("It is still open whether a p99 of %s ms would be good enough on %s.", ms, ep)},
			fmt.Sprintf("The user accepted a %s ms p99 for %s.", ms, ep), fmt.Sprintf("yes — %s ms is accepted", ms), "the latency target for "+ep)
	},
	func(p picker) itemText {
		fl := p.pick(flags)
		return oq("keepflag:"+fl, "Do we keep the "+fl+" flag after launch?",
			fmt.Sprintf("Has it been decided whether %s stays after launch?", fl),
			[2]string{fmt.Sprintf("Open: keep or remove %s post-launch.", fl), fmt.Sprintf("Whether %s survives the launch is not settled yet.", fl)},
			fmt.Sprintf("Decided: %s is removed after launch.", fl), "yes — it is removed after launch", "the future of "+fl)
	},
	func(p picker) itemText {
		rep := p.pick(reports)
		return oq("softdel:"+rep, "Should the "+rep+" CSV export include soft-deleted rows?",
			fmt.Sprintf("Has the user decided whether the %s export includes soft-deleted rows?", rep),
			[2]string{fmt.Sprintf("Undecided: soft-deleted rows in the %s CSV.", rep), fmt.Sprintf("Nobody has said yet whether deleted rows belong in the %s export.", rep)},
			fmt.Sprintf("Decided: the %s export includes soft-deleted rows.", rep), "yes — they are included", "soft-deleted rows in the "+rep+" export")
	},
	func(p picker) itemText {
		rt := p.pick(runtimes)
		return oq("drop:"+rt, "Can we drop support for "+rt+"?",
			fmt.Sprintf("Has the user decided whether support for %s can be dropped?", rt),
			[2]string{fmt.Sprintf("Open: dropping %s.", rt), fmt.Sprintf("Whether %s can be retired is still an open question.", rt)},
			fmt.Sprintf("Support for %s is being dropped.", rt), "yes — it is dropped", "support for "+rt)
	},
}

// oq builds an open question: the user asks it, nobody answers it, and
// any correct context still says it is open.
func oq(topic, literal, probe string, para [2]string, inverted, invertedAnswer, subject string) itemText {
	return itemText{Topic: topic, Literal: literal, Probe: probe, Expect: "no — still open",
		Para: para, Inverted: inverted, InvertedAnswer: invertedAnswer, Subject: subject, Hedge: true}
}
