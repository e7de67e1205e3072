package selection

import (
	"fmt"
	"time"
)

// parseTime parses an RFC 3339 time such as 2026-01-05T04:55:22Z. The
// common form — UTC, whole seconds — is read directly (time.Parse takes
// several times as long, and a log has a time on every line); any other
// goes through time.Parse. Both accept and reject the same texts
// (TestParseTimeFastPath).
func parseTime(b []byte) (time.Time, bool) {
	if len(b) == 20 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && b[13] == ':' && b[16] == ':' && b[19] == 'Z' {
		year, ok1 := digits(b[0:4])
		month, ok2 := digits(b[5:7])
		day, ok3 := digits(b[8:10])
		hour, ok4 := digits(b[11:13])
		minute, ok5 := digits(b[14:16])
		sec, ok6 := digits(b[17:19])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 {
			if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
				return time.Time{}, false
			}
			return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
		}
	}
	t, err := time.Parse(time.RFC3339, string(b))
	return t, err == nil
}

// digits parses a run of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// plural is "1 session" or "n sessions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
