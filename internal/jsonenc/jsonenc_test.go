package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// encodingJSON is the reference: encoding/json with HTML escaping off.
func encodingJSON(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "tab\tnl\ncr\rbs\bff\f\x00\x1f", "<script>&", "é ünïcode 日本", "line\u2028para\u2029end", "\u2027\u202a"} {
		want := encodingJSON(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got := AppendString(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("AppendString([]byte(%q)) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\u2028\"\\\x01é")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // AppendString requires valid UTF-8
		}
		if got, want := AppendString(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
