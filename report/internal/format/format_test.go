package format

import "testing"

// TestPIs: a p-value after its name, "p < 0.0001" below the printed
// precision, never "p = < 0.0001".
func TestPIs(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{
		{0.054, "p = 0.054"},
		{0.00042, "p = 0.0004"},
		{0.00001, "p < 0.0001"},
	} {
		if got := PIs(c.p); got != c.want {
			t.Errorf("PIs(%g) = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestVisible pins which characters every rendering shows as escapes:
// the bidirectional controls of Unicode's UAX #9 (§2, "Explicit
// Directional Formatting Characters", and the marks U+200E, U+200F,
// U+061C), the zero-width space, word joiner and BOM, and control
// characters other than newline, tab and CR; the joiners U+200C and
// U+200D, which emoji sequences (UTS #51) and Persian need, are text.
func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"evil\u202Eexe.txt\u202C", `evil\u202Eexe.txt\u202C`},
		{"a\u2066b\u2069c\u200Ed\u061C", `a\u2066b\u2069c\u200Ed\u061C`},
		{"zero\u200Bwidth\u2060join\uFEFF", `zero\u200Bwidth\u2060join\uFEFF`},
		// Every other format character and the Hangul fillers (a CI
		// user's trial: tag characters smuggle text past a reader).
		{"soft\u00ADhyphen tag\U000E0041\U000E007F filler\u3164x", `soft\u00ADhyphen tag\U000E0041\U000E007F filler\u3164x`},
		{"👩\u200D👩\u200D👧 می\u200Cخواهم", "👩\u200D👩\u200D👧 می\u200Cخواهم"},
		{"nul\x00 esc\x1B del\x7F c1\u0085", `nul\x00 esc\x1B del\x7F c1\x85`},
		{"tab\there\rcr\nline", "tab\there\rcr\nline"},
		{"plain", "plain"},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCut: a cut keeps whole grapheme clusters (Unicode Standard Annex
// #29: a base and its combining marks, a flag's regional-indicator pair,
// an emoji modifier sequence) within max runes; a new user's trial found
// the report cutting a flag and an accent in half.
func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"abcdef", 3, "abc"},
		{"abc", 3, "abc"},
		{"abc", 10, "abc"},
		{"テスト\U0001F1EF\U0001F1F5x", 4, "テスト"},
		{"テスト\U0001F1EF\U0001F1F5x", 5, "テスト\U0001F1EF\U0001F1F5"},
		{"Ae\u0301x", 2, "A"},
		{"Ae\u0301x", 3, "Ae\u0301"},
		{"\U0001F44D\U0001F3FDok", 1, ""},
		{"größe", 3, "grö"},
	}
	for _, tt := range tests {
		if got := tt.s[:Cut(tt.s, tt.max)]; got != tt.want {
			t.Errorf("Cut(%q, %d): %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

// TestPercent: one decimal, more where one would round a share below 1
// up to 100.0 or one above 0 down to 0.0 (a new user's trial: 32999 of
// 33000 and 44983 of 45000 both read 100.0% on a row marked worse).
func TestPercent(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0.75, "75.0"},
		{1, "100.0"},
		{0, "0.0"},
		{32999.0 / 33000, "99.997"},
		{44983.0 / 45000, "99.96"},
		{0.9996, "99.96"},
		{0.99999999, ">99.9999"},
		{1e-9, "<0.0001"},
		{3.0 / 33000, "0.01"},
		{0.0004, "0.04"},
		{0.999, "99.9"},
	}
	for _, tt := range tests {
		if got := Percent(tt.x); got != tt.want {
			t.Errorf("Percent(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}

// TestThreshold: a gate's share as written, not as the float's digits.
func TestThreshold(t *testing.T) {
	for x, want := range map[float64]string{0.95: "95", 0.975: "97.5", 0.99999: "99.999", 0.9995: "99.95", 1: "100", 0: "0"} {
		if got := Threshold(x); got != want {
			t.Errorf("Threshold(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestBoundary: the cut backs off to the start of a split character.
func TestBoundary(t *testing.T) {
	s := "ab\U0001F1E9\U0001F1EAcd"
	if got := Boundary(s, 9); got != 2 {
		t.Errorf("Boundary inside the flag = %d, want 2", got)
	}
	if got := Boundary(s, 10); got != 10 {
		t.Errorf("Boundary after the flag = %d, want 10", got)
	}
	if got := Boundary("e\u0301x", 1); got != 0 {
		t.Errorf("Boundary between a letter and its accent = %d, want 0", got)
	}
}
