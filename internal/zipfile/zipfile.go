//lint:file-ignore SA1019 archive/zip's CreateRaw takes the MS-DOS time from ModifiedDate/ModifiedTime only; see the writer below.

// Package zipfile writes ZIP archives that are the same bytes from run to
// run, for Office Open XML packages such as XLSX workbooks: excelize
// writes its parts in map order and archive/zip stamps them with the
// time of the run. A [Writer] takes the parts in any order (it is an
// excelize.ZipWriter), compresses each as it comes into a spool, and
// [Writer.Save] writes them in a fixed order, [Content_Types].xml first
// and then by name, all with one modification time.
package zipfile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// spoolMemory is how much compressed data spool keeps in
// memory before it moves to a temporary file.
const spoolMemory = 8 << 20

// Writer collects the entries of an archive. excelize writes its
// streamed sheets in the order of a Go map, lists the image types of
// [Content_Types].xml in map order too, and archive/zip's Create gives
// entries no time; all of these change from run to run. Writer
// compresses each entry as it is written into a spool (sorting the
// elements of [Content_Types].xml first), and Save then writes the
// entries in a fixed order ([Content_Types].xml first, then by name),
// each with the same time, copying the compressed bytes without
// recompressing them. Discard releases the spool; call it when done.
type Writer struct {
	mod     time.Time
	spool   spool
	entries []entry
	open    bool          // the last entry is being written
	held    *bytes.Buffer // the open entry's bytes, when it is [Content_Types].xml
	fw      *flate.Writer
	crc     hash.Hash32
	err     error // the first error; every later call returns it
}

// New returns a Writer whose entries will all carry the time mod (to
// the two seconds an MS-DOS time can hold).
func New(mod time.Time) *Writer { return &Writer{mod: mod} }

// entry is one entry of the archive, compressed in the spool.
type entry struct {
	name         string
	off, size    int64 // compressed bytes in the spool
	crc          uint32
	uncompressed uint64
}

// ContentTypes is the name of the part that lists an OOXML package's
// content types: Save writes it first.
const ContentTypes = "[Content_Types].xml"

// Create opens the entry name, ending the one open before; its bytes are
// written with Write.
func (z *Writer) Create(name string) (io.Writer, error) {
	if err := z.end(); err != nil {
		return nil, err
	}
	if z.fw == nil {
		z.fw, _ = flate.NewWriter(&z.spool, flate.BestSpeed)
		z.crc = crc32.NewIEEE()
	} else {
		z.fw.Reset(&z.spool)
		z.crc.Reset()
	}
	z.entries = append(z.entries, entry{name: name, off: z.spool.size})
	z.open = true
	if name == ContentTypes {
		z.held = &bytes.Buffer{}
	}
	return z, nil
}

// Write writes to the open entry.
func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if !z.open {
		z.err = errors.New("zipfile: write with no open entry")
		return 0, z.err
	}
	if z.held != nil {
		return z.held.Write(p)
	}
	return z.compress(p)
}

func (z *Writer) compress(p []byte) (int, error) {
	n, err := z.fw.Write(p)
	z.crc.Write(p[:n])
	z.entries[len(z.entries)-1].uncompressed += uint64(n)
	if err != nil {
		z.err = err
	}
	return n, err
}

// end closes the open entry.
func (z *Writer) end() error {
	if !z.open || z.err != nil {
		return z.err
	}
	z.open = false
	if z.held != nil {
		held := z.held
		z.held = nil
		if _, err := z.compress(sortTypes(held.Bytes())); err != nil {
			return err
		}
	}
	if err := z.fw.Close(); err != nil {
		z.err = err
		return err
	}
	e := &z.entries[len(z.entries)-1]
	e.crc = z.crc.Sum32()
	e.size = z.spool.size - e.off
	return nil
}

// typeElement matches one Default or Override element of
// [Content_Types].xml, as excelize writes them.
var typeElement = regexp.MustCompile(`<(?:Default|Override) [^<>]*(?:/>|></(?:Default|Override)>)`)

// sortTypes sorts the Default elements of [Content_Types].xml (by
// extension) and then its Override elements (by part name). It returns
// the document unchanged unless the elements are one contiguous run.
func sortTypes(doc []byte) []byte {
	locs := typeElement.FindAllIndex(doc, -1)
	if len(locs) < 2 {
		return doc
	}
	elems := make([]string, len(locs))
	for i, l := range locs {
		if i > 0 && l[0] != locs[i-1][1] {
			return doc
		}
		elems[i] = string(doc[l[0]:l[1]])
	}
	slices.SortStableFunc(elems, func(a, b string) int {
		ka, kb := strings.HasPrefix(a, "<Override"), strings.HasPrefix(b, "<Override")
		switch {
		case ka == kb:
			return strings.Compare(a, b)
		case kb:
			return -1
		}
		return 1
	})
	out := slices.Clone(doc[:locs[0][0]])
	for _, e := range elems {
		out = append(out, e...)
	}
	return append(out, doc[locs[len(locs)-1][1]:]...)
}

// AddFS is not used by excelize when it writes a workbook.
func (z *Writer) AddFS(fs.FS) error { return errors.New("zipfile: AddFS is not supported") }

// Close ends the last entry; Save writes the archive.
func (z *Writer) Close() error { return z.end() }

// Save ends the last entry and writes the archive to w. Writing the same
// entries, in any order, gives the same bytes.
func (z *Writer) Save(w io.Writer) error {
	if err := z.end(); err != nil {
		return err
	}
	rank := func(name string) int {
		if name == ContentTypes {
			return 0
		}
		return 1
	}
	slices.SortFunc(z.entries, func(a, b entry) int {
		if ra, rb := rank(a.name), rank(b.name); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 1; i < len(z.entries); i++ {
		if z.entries[i].name == z.entries[i-1].name {
			return fmt.Errorf("zipfile: entry %s written twice", z.entries[i].name)
		}
	}
	date, clock := dosTime(z.mod)
	zw := zip.NewWriter(w)
	for _, e := range z.entries {
		// CreateRaw writes ModifiedDate and ModifiedTime as given and
		// ignores Modified: the fixed MS-DOS time is what keeps the bytes
		// the same from run to run, without an extended-timestamp field
		// (hence the file-wide lint:file-ignore of SA1019).
		dst, err := zw.CreateRaw(&zip.FileHeader{
			Name:               e.name,
			Method:             zip.Deflate,
			CreatorVersion:     20,
			ReaderVersion:      20,
			ModifiedDate:       date,
			ModifiedTime:       clock,
			CRC32:              e.crc,
			CompressedSize64:   uint64(e.size),
			UncompressedSize64: e.uncompressed,
		})
		if err != nil {
			return err
		}
		if _, err := io.Copy(dst, z.spool.section(e.off, e.size)); err != nil {
			return err
		}
	}
	return zw.Close()
}

// dosTime is t as an MS-DOS date and time (two-second resolution).
func dosTime(t time.Time) (date, clock uint16) {
	date = uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
	clock = uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2)
	return date, clock
}

// spool holds the compressed entries: in memory up to
// spoolMemory, then in a temporary file removed by close.
type spool struct {
	mem  []byte
	file *os.File
	size int64
}

func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && len(s.mem)+len(p) > spoolMemory {
		f, err := os.CreateTemp("", "tally-zipfile-*.spool")
		if err != nil {
			return 0, err
		}
		s.file = f
		if _, err := f.Write(s.mem); err != nil {
			return 0, err
		}
		s.mem = nil
	}
	if s.file != nil {
		n, err := s.file.Write(p)
		s.size += int64(n)
		return n, err
	}
	s.mem = append(s.mem, p...)
	s.size += int64(len(p))
	return len(p), nil
}

func (s *spool) section(off, n int64) io.Reader {
	if s.file != nil {
		return io.NewSectionReader(s.file, off, n)
	}
	return bytes.NewReader(s.mem[off : off+n])
}

// Discard removes the spool's temporary file, if any, and drops the
// entries written; the Writer is not to be used after it.
func (z *Writer) Discard() { z.spool.close() }

func (s *spool) close() {
	if s.file != nil {
		name := s.file.Name()
		_ = s.file.Close()
		_ = os.Remove(name)
		s.file = nil
	}
	s.mem = nil
}
