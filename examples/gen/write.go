package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is one generated file, its path relative to the output folder
// (slash-separated).
type File struct {
	Path string
	Data []byte
}

// writeAtomic writes files into a fresh folder beside out and then
// renames it into place, so a failed run leaves the old data untouched:
// until the final renames nothing under out changes, and if the second
// rename fails the first is undone.
func writeAtomic(out string, files []File) (err error) {
	out = filepath.Clean(out)
	parent, base := filepath.Dir(out), filepath.Base(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".new-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	if err := carryOver(out, tmp); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(out); err == nil {
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("moving the old %s aside: %w", out, err)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			if rerr := os.Rename(old, out); rerr != nil {
				return fmt.Errorf("%w; and restoring the old data from %s failed: %v", err, old, rerr)
			}
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Kept are the paths under the output folder that tally's own commands
// make from the generated data (the verdicts of `tally check`, the
// selection summary of `tally select`, the report configuration). The
// generator does not write them; a regeneration carries them over
// unchanged, and their own tests check they agree with the data.
var Kept = []string{"report.yaml", "selection.json", "verdicts"}

// carryOver copies the Kept paths that exist under old into tmp.
func carryOver(old, tmp string) error {
	for _, k := range Kept {
		src := filepath.Join(old, k)
		if _, err := os.Lstat(src); err != nil {
			continue
		}
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(old, p)
			if err != nil {
				return err
			}
			dst := filepath.Join(tmp, rel)
			if d.IsDir() {
				return os.MkdirAll(dst, 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			return fmt.Errorf("keeping %s: %w", src, err)
		}
	}
	return nil
}
