package selection

import "cmp"

// candidate is what a selection keeps of a session it may select: a few
// numbers and the id, never the session's lists.
type candidate struct {
	id          string
	turns       int
	compactions int
	items       int
	decisions   int64
	incident    bool
	minutes     float64 // annotation minutes at the budget's rate
	line        int     // where it was read, for a repeated session_id
}

// rate is the candidate's decisions per annotation minute.
func (c *candidate) rate() float64 { return float64(c.decisions) / c.minutes }

// A ranking orders candidates by a primary key, then by session_id
// ascending (byte order). It returns a negative number when a ranks
// before b.
type ranking func(a, b *candidate) int

// decisionsFirst is the primary key of byDecisions: decisions,
// descending.
func decisionsFirst(a, b *candidate) int { return cmp.Compare(b.decisions, a.decisions) }

// rateFirst is the primary key of byRate: decisions per annotation
// minute, descending, then decisions.
func rateFirst(a, b *candidate) int {
	return cmp.Or(cmp.Compare(b.rate(), a.rate()), decisionsFirst(a, b))
}

// byDecisions ranks by decisions, descending, then session_id ascending:
// examples/gen's RankForFixtures within one group.
func byDecisions(a, b *candidate) int {
	return cmp.Or(decisionsFirst(a, b), cmp.Compare(a.id, b.id))
}

// byRate ranks by decisions per annotation minute, then as byDecisions.
func byRate(a, b *candidate) int {
	return cmp.Or(rateFirst(a, b), cmp.Compare(a.id, b.id))
}

// pool keeps the best-ranked candidates seen so far within a budget, as
// a heap with the worst kept candidate at the root: at most maxLen of
// them (a budget in sessions), or the shortest prefix of the ranking
// whose annotation minutes reach maxMinutes (a budget in time; every
// session that can fit the budget taken in rank order is in that prefix,
// and one that falls out of it never comes back, since the prefix only
// gets better). Memory is the budget's size, whatever the input's.
type pool struct {
	h          []candidate
	primary    ranking // the key before session_id
	rank       ranking // primary, then session_id
	maxLen     int     // > 0: a budget in sessions
	maxMinutes float64 // > 0: a budget in minutes
	minutes    float64 // of the candidates kept
}

// wouldKeep reports whether push(c) would keep c, whose session_id is
// id (c.id may not be set yet: most candidates do not make the cut, and
// are never given a string of their own).
func (p *pool) wouldKeep(c *candidate, id []byte) bool {
	if len(p.h) == 0 || p.maxLen > 0 && len(p.h) < p.maxLen || p.maxLen == 0 && p.minutes < p.maxMinutes {
		return true
	}
	if r := p.primary(c, &p.h[0]); r != 0 {
		return r < 0
	}
	return string(id) < p.h[0].id
}

// push adds c, calling evicted for each candidate it drops (c itself
// when it does not make the cut).
func (p *pool) push(c candidate, evicted func(*candidate)) {
	if p.maxLen > 0 {
		if len(p.h) < p.maxLen {
			p.h = append(p.h, c)
			p.up(len(p.h) - 1)
			return
		}
		if p.rank(&c, &p.h[0]) >= 0 {
			evicted(&c)
			return
		}
		evicted(&p.h[0])
		p.h[0] = c
		p.down(0)
		return
	}
	p.h = append(p.h, c)
	p.up(len(p.h) - 1)
	p.minutes += c.minutes
	for len(p.h) > 1 && p.minutes-p.h[0].minutes >= p.maxMinutes {
		p.minutes -= p.h[0].minutes
		evicted(&p.h[0])
		last := len(p.h) - 1
		p.h[0] = p.h[last]
		p.h = p.h[:last]
		p.down(0)
	}
}

// worse reports whether h[i] ranks after h[j] (the heap's order).
func (p *pool) worse(i, j int) bool { return p.rank(&p.h[i], &p.h[j]) > 0 }

func (p *pool) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !p.worse(i, parent) {
			return
		}
		p.h[i], p.h[parent] = p.h[parent], p.h[i]
		i = parent
	}
}

func (p *pool) down(i int) {
	n := len(p.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l
		if r := l + 1; r < n && p.worse(r, l) {
			w = r
		}
		if !p.worse(w, i) {
			return
		}
		p.h[i], p.h[w] = p.h[w], p.h[i]
		i = w
	}
}
