//lint:file-ignore SA1019 archive/zip's CreateRaw takes the MS-DOS time from ModifiedDate/ModifiedTime only; see the writer below.

package report

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

// --- the zip ------------------------------------------------------------

// xlsxSpoolMemory is how much compressed workbook xlsxSpool keeps in
// memory before it moves to a temporary file.
const xlsxSpoolMemory = 8 << 20

// xlsxZip is the excelize.ZipWriter WriteXLSX hands excelize. excelize
// writes its streamed sheets in the order of a Go map, lists the image
// types of [Content_Types].xml in map order too, and archive/zip's
// Create gives entries no time; all of these change from run to run.
// xlsxZip compresses each entry as excelize writes it into a spool
// (sorting the elements of [Content_Types].xml first), and writeTo then
// writes the entries in a fixed order ([Content_Types].xml first, then
// by name), each with the same time, copying the compressed bytes
// without recompressing them.
type xlsxZip struct {
	mod     time.Time
	spool   xlsxSpool
	entries []xlsxZipEntry
	open    bool          // the last entry is being written
	held    *bytes.Buffer // the open entry's bytes, when it is [Content_Types].xml
	fw      *flate.Writer
	crc     hash.Hash32
	err     error // the first error; every later call returns it
}

type xlsxZipEntry struct {
	name         string
	off, size    int64 // compressed bytes in the spool
	crc          uint32
	uncompressed uint64
}

const xlsxContentTypes = "[Content_Types].xml"

func (z *xlsxZip) Create(name string) (io.Writer, error) {
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
	z.entries = append(z.entries, xlsxZipEntry{name: name, off: z.spool.size})
	z.open = true
	if name == xlsxContentTypes {
		z.held = &bytes.Buffer{}
	}
	return z, nil
}

// Write writes to the open entry.
func (z *xlsxZip) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if !z.open {
		z.err = errors.New("xlsx zip: write with no open entry")
		return 0, z.err
	}
	if z.held != nil {
		return z.held.Write(p)
	}
	return z.compress(p)
}

func (z *xlsxZip) compress(p []byte) (int, error) {
	n, err := z.fw.Write(p)
	z.crc.Write(p[:n])
	z.entries[len(z.entries)-1].uncompressed += uint64(n)
	if err != nil {
		z.err = err
	}
	return n, err
}

// end closes the open entry.
func (z *xlsxZip) end() error {
	if !z.open || z.err != nil {
		return z.err
	}
	z.open = false
	if z.held != nil {
		held := z.held
		z.held = nil
		if _, err := z.compress(xlsxSortTypes(held.Bytes())); err != nil {
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

// xlsxTypeElement matches one Default or Override element of
// [Content_Types].xml, as excelize writes them.
var xlsxTypeElement = regexp.MustCompile(`<(?:Default|Override) [^<>]*(?:/>|></(?:Default|Override)>)`)

// xlsxSortTypes sorts the Default elements of [Content_Types].xml (by
// extension) and then its Override elements (by part name). It returns
// the document unchanged unless the elements are one contiguous run.
func xlsxSortTypes(doc []byte) []byte {
	locs := xlsxTypeElement.FindAllIndex(doc, -1)
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
func (z *xlsxZip) AddFS(fs.FS) error { return errors.New("xlsx zip: AddFS is not supported") }

// Close ends the last entry; writeTo writes the archive.
func (z *xlsxZip) Close() error { return z.end() }

// writeTo writes the archive to w.
func (z *xlsxZip) writeTo(w io.Writer) error {
	if err := z.end(); err != nil {
		return err
	}
	rank := func(name string) int {
		if name == xlsxContentTypes {
			return 0
		}
		return 1
	}
	slices.SortFunc(z.entries, func(a, b xlsxZipEntry) int {
		if ra, rb := rank(a.name), rank(b.name); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 1; i < len(z.entries); i++ {
		if z.entries[i].name == z.entries[i-1].name {
			return fmt.Errorf("xlsx zip: entry %s written twice", z.entries[i].name)
		}
	}
	date, clock := xlsxDOSTime(z.mod)
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

// xlsxDOSTime is t as an MS-DOS date and time (two-second resolution).
func xlsxDOSTime(t time.Time) (date, clock uint16) {
	date = uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
	clock = uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2)
	return date, clock
}

// xlsxSpool holds the compressed entries: in memory up to
// xlsxSpoolMemory, then in a temporary file removed by close.
type xlsxSpool struct {
	mem  []byte
	file *os.File
	size int64
}

func (s *xlsxSpool) Write(p []byte) (int, error) {
	if s.file == nil && len(s.mem)+len(p) > xlsxSpoolMemory {
		f, err := os.CreateTemp("", "tally-xlsx-*.spool")
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

func (s *xlsxSpool) section(off, n int64) io.Reader {
	if s.file != nil {
		return io.NewSectionReader(s.file, off, n)
	}
	return bytes.NewReader(s.mem[off : off+n])
}

func (s *xlsxSpool) close() {
	if s.file != nil {
		name := s.file.Name()
		_ = s.file.Close()
		_ = os.Remove(name)
		s.file = nil
	}
	s.mem = nil
}
