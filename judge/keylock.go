package judge

import "sync"

// keyLocks serialises the work on one cache key within a run: two
// questions with the same key in flight at once (the same item, context
// and probe reached twice, or by two conversations with one context)
// are answered by one call, the second from the entry the first cached.
// Without it each was sent, each answer went into the verdicts and the
// cache kept the last: a re-run from that cache, which makes no call,
// wrote other verdicts than the run that filled it, and paid calls grew
// with --concurrency (a CI user's trial). The zero value is ready.
type keyLocks struct {
	mu sync.Mutex
	m  map[Key]*keyLock
}

// keyLock is one key's lock and the number of holders and waiters.
type keyLock struct {
	sync.Mutex
	n int
}

// lock takes k's lock and returns its release.
func (l *keyLocks) lock(k Key) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[Key]*keyLock{}
	}
	kl := l.m[k]
	if kl == nil {
		kl = &keyLock{}
		l.m[k] = kl
	}
	kl.n++
	l.mu.Unlock()
	kl.Lock()
	return func() {
		kl.Unlock()
		l.mu.Lock()
		if kl.n--; kl.n == 0 {
			delete(l.m, k)
		}
		l.mu.Unlock()
	}
}
