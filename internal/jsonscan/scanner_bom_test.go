package jsonscan

import (
	"strings"
	"testing"
)

// TestBOM: a UTF-8 byte order mark where a value or an object should
// start is named as one, in every reader built on the scanner (a re-check
// trial found replay, prompt sizes and reviews saying "invalid character
// '\ufeff'").
func TestBOM(t *testing.T) {
	var s Scanner
	s.Reset([]byte("\xef\xbb\xbf{}"))
	if err := s.BeginObject("", "a JSON object"); err == nil || !strings.Contains(err.Msg, "a UTF-8 byte order mark") || err.Off != 0 {
		t.Errorf("BeginObject: %v", err)
	}
	s.Reset([]byte("\xef\xbb\xbf1"))
	if _, _, _, err := s.DuplicateKey(); err == nil || !strings.Contains(err.Msg, "a UTF-8 byte order mark") {
		t.Errorf("DuplicateKey: %v", err)
	}
}
