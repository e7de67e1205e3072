package judge

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tally-eval/tally/internal/input"
)

// Kind is the kind of question a cache entry answers.
type Kind string

// The kinds of question.
const (
	KindVerdict   Kind = "verdict"   // the three-way verdict question
	KindAgreement Kind = "agreement" // do the judge's and the fixture's answers agree
	KindProposal  Kind = "proposal"  // a session's must-survive items (selection's LLM proposer)
)

// TempMaxAge is the age past which OpenCache removes a cache's stray
// temporary files: a write takes milliseconds, so an older one was left by
// a killed process.
const TempMaxAge = time.Hour

// tempPrefix starts every temporary file's name; entries never start
// with it.
const tempPrefix = ".tmp-"

// cacheVersion is written into every entry; entries of another version
// are misses, counted as OldFormat. Version 1 entries had no checksum.
const cacheVersion = 2

// KeyParts is everything a cached reply depends on. Backend is the
// backend's Name ("backend/model"), or its Identity when it is an
// Identifier (the command backend: its program's and argument files'
// SHA-256 too); Template is the source text of the
// template that made the prompt. For a verdict question Context is the
// rendered context and Answer is empty; for an agreement question Answer
// is the judge's answer and Context is empty, since the agreement prompt
// does not include the context — so the same answer to the same probe is
// asked about once, whichever compaction it came from.
type KeyParts struct {
	Kind     Kind
	Backend  string
	Template string
	Probe    string
	Expect   string
	Context  string
	Answer   string
}

// Key is the SHA-256 of a KeyParts.
type Key [sha256.Size]byte

// Key hashes the parts: a version tag, then each field as its length (a
// uvarint) and its bytes, so no two different KeyParts share an encoding.
func (p KeyParts) Key() Key {
	h := sha256.New()
	buf := make([]byte, 4096)
	field := func(s string) {
		h.Write(buf[:binary.PutUvarint(buf, uint64(len(s)))])
		for len(s) > 0 { // copy through buf: no copy of a large context
			n := copy(buf, s)
			h.Write(buf[:n])
			s = s[n:]
		}
	}
	field("tally-judge-cache-v1")
	for _, s := range []string{string(p.Kind), p.Backend, p.Template, p.Probe, p.Expect, p.Context, p.Answer} {
		field(s)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// String is the key in lower-case hex.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Entry is one cached reply.
type Entry struct {
	Version int       `json:"version"`
	Key     string    `json:"key"` // the hex key, so a misplaced file is noticed
	Kind    Kind      `json:"kind"`
	Judge   string    `json:"judge"` // the backend's Name
	Created time.Time `json:"created"`
	// Reply is the parsed verdict reply (KindVerdict).
	Reply *Reply `json:"reply,omitempty"`
	// Agree is the parsed agreement reply (KindAgreement).
	Agree *bool `json:"agree,omitempty"`
	// Text is the reply's text (KindProposal), stored once it parsed.
	Text *string `json:"text,omitempty"`
	// Sum is the hex SHA-256 of the entry's canonical content (see
	// checksum), verified on every read: an entry changed by anything but
	// Put — a flipped bit, a hand edit — is a miss, counted as damaged.
	Sum string `json:"sum"`
}

// checksum is the hex SHA-256 of e's canonical content: the JSON of its
// key, kind, judge and reply (Reply or Agree), fields in that order,
// Created and Sum left out.
func (e *Entry) checksum() string {
	b, err := json.Marshal(struct {
		Key   string  `json:"key"`
		Kind  Kind    `json:"kind"`
		Judge string  `json:"judge"`
		Reply *Reply  `json:"reply"`
		Agree *bool   `json:"agree"`
		Text  *string `json:"text,omitempty"` // omitted when nil: older entries keep their sums
	}{e.Key, e.Kind, e.Judge, e.Reply, e.Agree, e.Text})
	if err != nil {
		panic("judge: encoding a cache entry's checksum: " + err.Error()) // plain strings and bools always encode
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// validate reports whether e is a complete, usable entry.
func (e *Entry) validate() error {
	switch e.Kind {
	case KindVerdict:
		if e.Reply == nil {
			return errors.New("verdict entry without a reply")
		}
		for _, v := range judgeVerdicts {
			if e.Reply.Verdict == v {
				return nil
			}
		}
		return fmt.Errorf("verdict entry with verdict %q", e.Reply.Verdict)
	case KindAgreement:
		if e.Agree == nil {
			return errors.New("agreement entry without agree")
		}
		return nil
	case KindProposal:
		if e.Text == nil {
			return errors.New("proposal entry without text")
		}
		return nil
	}
	return fmt.Errorf("entry of unknown kind %q", e.Kind)
}

// Cache is an on-disk cache of judge replies, one file per entry (see the
// package documentation for the layout). It is safe for concurrent use by
// many goroutines and many processes.
type Cache struct {
	dir string
	now func() time.Time

	hits, misses, damaged, oldFormat, writes, writeErrors atomic.Int64
	mu                                                    sync.Mutex
	firstErr, lastErr                                     string
	// unusable holds the keys whose entry has been counted as Damaged or
	// OldFormat, so a dry run's Lookup and the run's Get, or a verdict
	// looked up twice, count one entry once.
	unusable sync.Map // Key → struct{}
}

// CacheStats counts a Cache's lookups and writes since it was opened.
type CacheStats struct {
	// Hits and Misses count the lookups; Damaged and OldFormat count the
	// misses that found a file but could not use it.
	Hits, Misses int64
	// Damaged counts entries that could not be read or decoded, or whose
	// checksum, key or contents do not verify (they are replaced on the
	// next write), each entry once however often it is looked up.
	Damaged int64
	// OldFormat counts entries written by another cache version (version
	// 1 entries have no checksum): not trusted, replaced like damaged
	// ones, and counted once each like them.
	OldFormat int64
	// Writes counts entries written; WriteErrors those that failed, the
	// first with FirstWriteError and the last with LastWriteError. A
	// failed write loses no verdict, only the chance to skip its call
	// next time.
	Writes, WriteErrors             int64
	FirstWriteError, LastWriteError string
}

// OpenCache opens (creating if need be) the cache in dir and removes the
// temporary files older than TempMaxAge that killed processes left.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("judge cache: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	c := &Cache{dir: dir, now: time.Now}
	if _, err := c.Sweep(TempMaxAge); err != nil {
		return nil, err
	}
	return c, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Path is the file that holds (or would hold) the entry for k.
func (c *Cache) Path(k Key) string {
	h := k.String()
	return filepath.Join(c.dir, h[:2], h+".json")
}

// Get returns the entry for k, counting a hit or a miss. An entry that
// cannot be read or decoded, does not verify against its checksum, or is
// of another version is a miss, counted as Damaged or OldFormat the first
// time it is looked up (by Get, Has or Lookup).
func (c *Cache) Get(k Key) (Entry, bool) {
	e, ok := c.read(k)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return e, ok
}

// Has reports whether k has a usable entry, without counting a hit or a
// miss (for dry runs).
func (c *Cache) Has(k Key) bool {
	_, ok := c.read(k)
	return ok
}

// Lookup is Has returning the entry too, again without counting.
func (c *Cache) Lookup(k Key) (Entry, bool) { return c.read(k) }

func (c *Cache) read(k Key) (Entry, bool) {
	// Only a regular file, of at most input.DefaultMaxLine bytes: a
	// named pipe or a device in the cache would block the run, and is
	// counted as a damaged entry like one over the limit.
	b, err := input.ReadFile(c.Path(k), input.Limits{})
	if err != nil {
		// A missing entry, or a missing shard (a file where the shard's
		// folder should be is a write failure's business, not a read's).
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			c.unusableEntry(k, &c.damaged)
		}
		return Entry{}, false
	}
	var e Entry
	if json.Unmarshal(b, &e) != nil {
		c.unusableEntry(k, &c.damaged)
		return Entry{}, false
	}
	if e.Version != cacheVersion {
		c.unusableEntry(k, &c.oldFormat)
		return Entry{}, false
	}
	if e.Key != k.String() || e.validate() != nil || e.Sum != e.checksum() {
		c.unusableEntry(k, &c.damaged)
		return Entry{}, false
	}
	return e, true
}

// unusableEntry counts k's entry in n (Damaged or OldFormat) unless it
// has been counted already.
func (c *Cache) unusableEntry(k Key, n *atomic.Int64) {
	if _, seen := c.unusable.LoadOrStore(k, struct{}{}); !seen {
		n.Add(1)
	}
}

// Put writes the entry for k atomically: to a temporary file in the same
// directory, then renamed over the entry's name. Concurrent
// writers of one key leave one complete entry; a reader never sees part of
// one. Version, Key and (if zero) Created are filled in.
func (c *Cache) Put(k Key, e Entry) error {
	err := c.put(k, e)
	if err != nil {
		c.writeErrors.Add(1)
		c.mu.Lock()
		if c.firstErr == "" {
			c.firstErr = err.Error()
		}
		c.lastErr = err.Error()
		c.mu.Unlock()
		return err
	}
	c.writes.Add(1)
	return nil
}

func (c *Cache) put(k Key, e Entry) error {
	e.Version, e.Key = cacheVersion, k.String()
	if e.Created.IsZero() {
		e.Created = c.now().UTC()
	}
	if err := e.validate(); err != nil {
		return fmt.Errorf("judge cache: refusing to write %s: %w", e.Key, err)
	}
	e.Sum = e.checksum()
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("judge cache: %w", err)
	}
	path := c.Path(k)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("judge cache: %w", err)
	}
	f, err := os.CreateTemp(dir, tempPrefix+e.Key+"-*")
	if err != nil {
		return fmt.Errorf("judge cache: %w", err)
	}
	tmp := f.Name()
	// No fsync: a killed process cannot lose page-cache data, and after a
	// power cut a damaged entry fails to decode and is a miss.
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("judge cache: writing %s: %w", path, werr)
	}
	return nil
}

// Sweep removes the temporary files older than age from every shard and
// returns how many it removed. Files another process is writing right now
// are young and are left alone.
func (c *Cache) Sweep(age time.Duration) (int, error) {
	shards, err := os.ReadDir(c.dir)
	if err != nil {
		return 0, fmt.Errorf("judge cache: %w", err)
	}
	removed := 0
	cutoff := c.now().Add(-age)
	for _, s := range shards {
		if !s.IsDir() || len(s.Name()) != 2 {
			continue
		}
		dir := filepath.Join(c.dir, s.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return removed, fmt.Errorf("judge cache: %w", err)
		}
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), tempPrefix) {
				continue
			}
			info, err := f.Info()
			if err != nil || !info.ModTime().Before(cutoff) {
				continue // gone already, or still being written
			}
			if os.Remove(filepath.Join(dir, f.Name())) == nil {
				removed++
			}
		}
	}
	return removed, nil
}

// Stats returns the counts since the cache was opened.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	first, last := c.firstErr, c.lastErr
	c.mu.Unlock()
	return CacheStats{
		Hits: c.hits.Load(), Misses: c.misses.Load(),
		Damaged: c.damaged.Load(), OldFormat: c.oldFormat.Load(),
		Writes: c.writes.Load(), WriteErrors: c.writeErrors.Load(),
		FirstWriteError: first, LastWriteError: last,
	}
}
