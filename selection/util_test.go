package selection

import (
	"testing"
	"time"
)

// TestParseTimeFastPath: the direct reading of UTC whole-second times
// accepts and rejects exactly what time.Parse does, with the same value.
func TestParseTimeFastPath(t *testing.T) {
	for _, s := range []string{
		"2026-01-05T04:55:22Z", "2024-02-29T23:59:59Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
		"2026-00-10T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-05T24:00:00Z",
		"2026-01-05T23:60:00Z", "2026-01-05T23:59:60Z", "2026-01-05T04:55:22z", "2026-01-05t04:55:22Z",
		"2026-01-05T04:55:2xZ", "0000-01-01T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
		"2026-01-05T04:55:22.5Z", "2026-01-05T04:55:22+01:00", "2026-01-05 04:55:22Z", "",
	} {
		want, err := time.Parse(time.RFC3339, s)
		got, ok := parseTime([]byte(s))
		if ok != (err == nil) || ok && !got.Equal(want) {
			t.Errorf("%q: parseTime = %v, %v; time.Parse = %v, %v", s, got, ok, want, err)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	f.Add("2026-01-05T04:55:22Z")
	f.Add("2024-02-29T23:59:59Z")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := time.Parse(time.RFC3339, s)
		got, ok := parseTime([]byte(s))
		if ok != (err == nil) || ok && !got.Equal(want) {
			t.Errorf("%q: parseTime = %v, %v; time.Parse = %v, %v", s, got, ok, want, err)
		}
	})
}
