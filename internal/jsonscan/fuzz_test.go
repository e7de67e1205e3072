package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzScanner holds the scanner to encoding/json: it accepts exactly
// what json.Valid accepts in valid UTF-8, and a canonical form is valid
// JSON that canonicalises to itself.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\n",true,null,{"b":-2.5e3}]}`, `"\ud83d\ude00"`, `[1,]`, `{"a" 1}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Scanner
		s.Reset(data)
		err := s.SkipValue()
		if err == nil {
			err = s.End()
		}
		want := json.Valid(data) && utf8.Valid(data)
		if (err == nil) != want {
			t.Fatalf("%q: scanner error %v, encoding/json valid %v", data, err, want)
		}
		if err != nil {
			if err.Off < 0 || err.Off > len(data) {
				t.Fatalf("%q: offset %d out of range", data, err.Off)
			}
			return
		}
		s.Reset(data)
		canon, cerr := s.Canonical(nil)
		if cerr != nil || !json.Valid(canon) {
			t.Fatalf("%q: canonical %q, %v", data, canon, cerr)
		}
		s.Reset(canon)
		again, aerr := s.Canonical(nil)
		if aerr != nil || !bytes.Equal(again, canon) {
			t.Fatalf("canonical %q is not a fixed point: %q, %v", canon, again, aerr)
		}
		if len(data) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '"' {
			var want string
			if json.Unmarshal(data, &want) != nil {
				t.Fatalf("%q: encoding/json cannot read a valid string", data)
			}
			s.Reset(data)
			got, _ := s.String("")
			s.Reset(data)
			raw, _, _ := s.RawString("")
			if string(got) != want || string(AppendUnescaped(nil, raw)) != want {
				t.Fatalf("%q: decoded %q and %q, encoding/json %q", data, got, AppendUnescaped(nil, raw), want)
			}
		}
	})
}
