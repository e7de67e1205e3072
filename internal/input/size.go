package input

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size formats n bytes for a message: "64 MiB", "4 GiB", "1500 bytes".
// Only exact multiples get a unit, so the text is never rounded.
func Size(n int64) string {
	for _, u := range units {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + " " + u.name
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

var units = []struct {
	name string
	n    int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// ParseSize parses a size written on the command line: a whole number of
// bytes, optionally followed by a binary unit — K, KiB, M, MiB, G, GiB,
// T, TiB (any case; K, M, G and T mean KiB, MiB, GiB and TiB) — or B,
// with or without a space: "64MiB", "4 GiB", "1500". It must be at least
// 1 byte and at most 2^63−1.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a whole number of bytes, optionally with a unit (KiB, MiB, GiB, TiB), e.g. 64MiB", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	mult := int64(1)
	switch strings.ToLower(strings.TrimSpace(t[i:])) {
	case "", "b", "byte", "bytes":
	case "k", "kib":
		mult = 1 << 10
	case "m", "mib":
		mult = 1 << 20
	case "g", "gib":
		mult = 1 << 30
	case "t", "tib":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, KiB, MiB, GiB or TiB)", s, strings.TrimSpace(t[i:]))
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q: must be at least 1 byte", s)
	}
	return n * mult, nil
}

// SizeValue is a command-line flag value holding a size in bytes, parsed
// with ParseSize and shown with Size: a flag.Value and a pflag.Value.
type SizeValue struct{ P *int64 }

// String shows the size, or "0" (the default limit) when none is set.
func (v SizeValue) String() string {
	if v.P == nil || *v.P == 0 {
		return "0"
	}
	return strings.ReplaceAll(Size(*v.P), " ", "")
}

// Set parses s with ParseSize.
func (v SizeValue) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	*v.P = n
	return nil
}

// Type names the value for help text.
func (v SizeValue) Type() string { return "size" }
