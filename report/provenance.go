package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tally-eval/tally/internal/input"
)

// Input roles, in the order Provenance lists them.
const (
	RoleConfig      = "configuration"
	RoleFixtures    = "fixtures"
	RoleVerdicts    = "verdicts"     // "verdicts (incumbent)", "verdicts (candidate)"
	RolePromptSizes = "prompt sizes" // with the system, or both when shared
	RoleReplay      = "replay"
	RoleSelection   = "selection"
	RoleNotebook    = "notebook"
	RoleNoise       = "noise" // "noise (first)", "noise (second)"
	RoleReviews     = "reviews"
)

// hashReader counts and hashes what is read through it, so that an input
// is hashed in the same pass that parses it.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func newHashReader(r io.Reader) *hashReader { return &hashReader{r: r, h: sha256.New()} }

func (hr *hashReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
}

// input returns the Input of everything read through hr. It reads what
// the parser left unread first, so the hash covers the whole file.
func (hr *hashReader) input(role, path string) (Input, error) {
	if _, err := io.Copy(io.Discard, hr); err != nil {
		return Input{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return Input{Role: role, Path: filepath.ToSlash(path), SHA256: hex.EncodeToString(hr.h.Sum(nil)), Bytes: hr.n}, nil
}

// hashFile hashes the file at path (resolved), a regular file under lim,
// and names it shown.
func hashFile(role, shown, path string, lim input.Limits) (Input, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	return newHashReader(f).input(role, shown)
}

// hashFixtures hashes the fixtures at path: a file's SHA-256, or, for a
// folder, the SHA-256 of the listing sha256sum(1) prints for the files
// fixture.Load reads there — every *.json file directly inside, not
// starting with ".", sorted by name: "<hex>  <name>\n" per file. Bytes
// is the files' total size.
func hashFixtures(shown, path string, lim input.Limits) (Input, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Input{}, err
	}
	if !info.IsDir() {
		return hashFile(RoleFixtures, shown, path, lim)
	}
	entries, err := input.ReadDir(path)
	if err != nil {
		return Input{}, err
	}
	list := sha256.New()
	var total int64
	for _, e := range entries { // sorted by name
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || filepath.Ext(name) != ".json" {
			continue
		}
		in, err := hashFile(RoleFixtures, name, filepath.Join(path, name), lim)
		if err != nil {
			return Input{}, err
		}
		fmt.Fprintf(list, "%s  %s\n", in.SHA256, name)
		total += in.Bytes
	}
	return Input{Role: RoleFixtures, Path: filepath.ToSlash(shown), SHA256: hex.EncodeToString(list.Sum(nil)), Bytes: total}, nil
}

// sha256Hex is the hex SHA-256 of data.
func sha256Hex(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// baseName is the last element of path, with forward slashes.
func baseName(path string) string { return filepath.Base(filepath.ToSlash(path)) }
