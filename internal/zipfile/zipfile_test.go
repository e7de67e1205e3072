package zipfile

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// write writes the entries (name, text) in the order given and returns
// the archive.
func write(t *testing.T, mod time.Time, entries [][2]string) []byte {
	t.Helper()
	z := New(mod)
	defer z.Discard()
	for _, e := range entries {
		w, err := z.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, e[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := z.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const types = `<?xml version="1.0"?><Types>` +
	`<Override PartName="/xl/workbook.xml" ContentType="w"></Override>` +
	`<Default Extension="xml" ContentType="x"></Default>` +
	`<Default Extension="png" ContentType="p"></Default>` +
	`<Override PartName="/docProps/app.xml" ContentType="a"></Override>` +
	`</Types>`

// TestSaveFixedOrder: entries written in any order give the same bytes,
// [Content_Types].xml first and the rest by name, with its elements
// sorted, every entry with the one time given, and readable by
// archive/zip.
func TestSaveFixedOrder(t *testing.T) {
	mod := time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)
	a := write(t, mod, [][2]string{{"xl/worksheets/sheet2.xml", "two"}, {ContentTypes, types}, {"xl/worksheets/sheet1.xml", "one"}})
	b := write(t, mod, [][2]string{{"xl/worksheets/sheet1.xml", "one"}, {"xl/worksheets/sheet2.xml", "two"}, {ContentTypes, types}})
	if !bytes.Equal(a, b) {
		t.Fatal("the same entries in another order gave other bytes")
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(mod) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, mod)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if f.Name == ContentTypes {
			want := `<?xml version="1.0"?><Types>` +
				`<Default Extension="png" ContentType="p"></Default>` +
				`<Default Extension="xml" ContentType="x"></Default>` +
				`<Override PartName="/docProps/app.xml" ContentType="a"></Override>` +
				`<Override PartName="/xl/workbook.xml" ContentType="w"></Override>` +
				`</Types>`
			if string(data) != want {
				t.Errorf("%s:\n got %s\nwant %s", f.Name, data, want)
			}
		}
	}
	if got := strings.Join(names, " "); got != ContentTypes+" xl/worksheets/sheet1.xml xl/worksheets/sheet2.xml" {
		t.Errorf("entries in the order %s", got)
	}
}

// TestSaveTwice: an entry written twice is an error, not two entries.
func TestSaveTwice(t *testing.T) {
	z := New(time.Unix(0, 0).UTC().AddDate(11, 0, 0))
	defer z.Discard()
	for range 2 {
		if _, err := z.Create("a.xml"); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Save(io.Discard); err == nil || !strings.Contains(err.Error(), "a.xml written twice") {
		t.Errorf("Save: %v, want an error naming a.xml", err)
	}
}

// TestWriteWithoutEntry: a Write before any Create is an error, and
// every later call returns it.
func TestWriteWithoutEntry(t *testing.T) {
	z := New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	defer z.Discard()
	if _, err := z.Write([]byte("x")); err == nil {
		t.Fatal("Write with no open entry: no error")
	}
	if _, err := z.Create("a.xml"); err == nil {
		t.Error("Create after an error: no error")
	}
}

// TestSpoolToFile: entries larger than the in-memory spool go through a
// temporary file and come back whole.
func TestSpoolToFile(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", spoolMemory/8) // after the noise, so written to the file too
	var noise strings.Builder
	x := uint32(1)
	for noise.Len() < spoolMemory+1<<20 {
		x = x*1664525 + 1013904223
		noise.WriteByte(byte(x >> 24))
	}
	out := write(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), [][2]string{{"noise.bin", noise.String()}, {"big.txt", big}})
	zr, err := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		want := map[string]string{"noise.bin": noise.String(), "big.txt": big}[f.Name]
		if string(data) != want {
			t.Errorf("%s: %d bytes back, want %d", f.Name, len(data), len(want))
		}
	}
}
