package input

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    int64
		errPart string
		reason  string
	}{
		{"1500", 1500, "", "plain bytes"},
		{"64MiB", 64 << 20, "", "binary unit"},
		{"4 GiB", 4 << 30, "", "a space before the unit"},
		{"16m", 16 << 20, "", "short units mean binary ones, any case"},
		{"10B", 10, "", "explicit bytes"},
		{"1TiB", 1 << 40, "", "tebibytes"},
		{"0", 0, "at least 1 byte", "a zero limit would refuse everything"},
		{"", 0, "want a whole number", "empty"},
		{"-5", 0, "want a whole number", "negative"},
		{"1.5GiB", 0, "unknown unit", "fractions are not sizes"},
		{"12XB", 0, "unknown unit", "unknown unit named"},
		{"9999999999999999999", 0, "too large", "overflows int64"},
		{"8388608TiB", 0, "too large", "overflows after the unit"},
	} {
		got, err := ParseSize(tc.in)
		if tc.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errPart) {
				t.Errorf("ParseSize(%q) = %d, %v; want an error with %q (%s)", tc.in, got, err, tc.errPart, tc.reason)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (%s)", tc.in, got, err, tc.want, tc.reason)
		}
	}
}

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{64 << 20, "64 MiB"}, {4 << 30, "4 GiB"}, {1500, "1500 bytes"}, {1, "1 byte"}, {3 << 10, "3 KiB"}, {(1 << 20) + 1, "1048577 bytes"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// FuzzParseSize checks that ParseSize never panics, accepts only
// positive sizes, and reads back what Size and SizeValue write.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"64MiB", "4 GiB", "1500", "0", "", "1.5G", "9999999999999999999TiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 1 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		v := SizeValue{P: new(int64)}
		*v.P = n
		back, err := ParseSize(v.String())
		if err != nil || back != n {
			t.Fatalf("round trip of %d via %q = %d, %v", n, v.String(), back, err)
		}
	})
}
