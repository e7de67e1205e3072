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
		// A member named twice is found exactly when encoding/json,
		// which keeps the last, decodes fewer members than the text has.
		s.Reset(data)
		_, off, dup, derr := s.DuplicateKey()
		if derr != nil {
			t.Fatalf("%q: DuplicateKey: %v on a valid value", data, derr)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // 1E700 is valid JSON, and no float64
		if dec.Decode(&v) != nil {
			t.Fatalf("%q: encoding/json cannot read a valid value", data)
		}
		if written, decoded := fuzzMembers(t, data), fuzzDecodedMembers(v); dup != (written != decoded) || dup && data[off] != '"' {
			t.Fatalf("%q: DuplicateKey found %v at %d; %d members written, %d decoded", data, dup, off, written, decoded)
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

// fuzzMembers counts the members of every object in the valid value
// data, as written.
func fuzzMembers(t *testing.T, data []byte) int {
	var s Scanner
	s.Reset(data)
	n := 0
	var walk func() *Error
	walk = func() *Error {
		s.SkipSpace()
		switch s.Peek() {
		case '{':
			if err := s.BeginObject("", ""); err != nil {
				return err
			}
			for i := 0; ; i++ {
				_, _, more, err := s.Member(i)
				if err != nil || !more {
					return err
				}
				n++
				if err := walk(); err != nil {
					return err
				}
			}
		case '[':
			if err := s.BeginArray("", ""); err != nil {
				return err
			}
			for i := 0; ; i++ {
				more, err := s.Element(i)
				if err != nil || !more {
					return err
				}
				if err := walk(); err != nil {
					return err
				}
			}
		}
		return s.SkipValue()
	}
	if err := walk(); err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	return n
}

// fuzzDecodedMembers counts the members of every object in v, a value
// encoding/json decoded.
func fuzzDecodedMembers(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			n += 1 + fuzzDecodedMembers(x)
		}
	case []any:
		for _, x := range v {
			n += fuzzDecodedMembers(x)
		}
	}
	return n
}
