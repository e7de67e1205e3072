// Package notebook is the engine of the HTML report's notebook: Markdown
// (parsed with goldmark) whose fenced ```tally blocks are computed cells.
// Parse reads a notebook and checks every cell at its line; Render
// writes its body as HTML for a report, each cell in place. The cell
// registry (CellUsage) and the cells live here; the built-in quarterly
// notebook (quarterly.md, Default) is embedded. Cells read the report
// model; the two planning cells alone compute, from numbers given in
// the notebook.
package notebook

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/markup"
)

// A Notebook is a Markdown document whose fenced ```tally blocks are
// computed cells: each holds one command (see Cells for the list), whose
// output the HTML report shows in its place. The rest is Markdown with
// GitHub tables; raw HTML is refused, and so is any image that is not a
// data: URL, so that the report stays one self-contained file.
//
// A Notebook is validated once by Parse and is immutable after:
// one may render any number of reports, concurrently.
type Notebook struct {
	name  string
	src   []byte
	cells []cell
}

// Cell is one computed cell of a notebook, as written.
type Cell struct {
	// Line is the notebook line of the cell's command (1-based).
	Line int
	// Name is the cell's kind: "gates", "plan", "plot retention", ….
	Name string
	// Command is the command line as written, spaces normalised.
	Command string
}

// cell is a validated cell: where it is, and how it renders.
type cell struct {
	Cell
	run cellRun
}

// MaxBytes bounds a notebook's size: it is prose and a few
// commands, read whole into memory.
const MaxBytes = 1 << 20

// MaxCells bounds the computed cells of a notebook: each may
// draw a chart or walk every item.
const MaxCells = 500

// TaskSuccessCell is the name of the cell that must come last.
const TaskSuccessCell = "task-success"

//go:embed quarterly.md
var quarterlySource []byte

// defaultNotebook parses the embedded quarterly notebook once.
var defaultNotebook = sync.OnceValue(func() *Notebook {
	nb, err := Parse("quarterly.md", quarterlySource)
	if err != nil {
		// The embedded notebook is tested; this is a build defect.
		panic("notebook: the embedded quarterly notebook is invalid: " + err.Error())
	}
	return nb
})

// Default returns the quarterly notebook embedded in the binary.
func Default() *Notebook { return defaultNotebook() }

// Name is the notebook's name, as given to Parse (normally its
// file's path); it prefixes every error about the notebook.
func (nb *Notebook) Name() string { return nb.name }

// Source returns a copy of the notebook's Markdown text.
func (nb *Notebook) Source() []byte { return bytes.Clone(nb.src) }

// Cells lists the notebook's computed cells in document order.
func (nb *Notebook) Cells() []Cell {
	out := make([]Cell, len(nb.cells))
	for i, c := range nb.cells {
		out[i] = c.Cell
	}
	return out
}

// kindCell is the AST node kind that replaces a ```tally block.
var kindCell = ast.NewNodeKind("TallyCell")

// cellNode is a computed cell: its HTML, already escaped and complete.
type cellNode struct {
	ast.BaseBlock
	html []byte
}

func (n *cellNode) Kind() ast.NodeKind { return kindCell }

func (n *cellNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Bytes": fmt.Sprint(len(n.html))}, nil)
}

// cellRenderer writes cellNodes; registered ahead of goldmark's own
// renderers.
type cellRenderer struct{}

func (cellRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindCell, renderCellNode)
}

func renderCellNode(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		if _, err := w.Write(n.(*cellNode).html); err != nil {
			return ast.WalkStop, err
		}
	}
	return ast.WalkSkipChildren, nil
}

// markdown is the one configured goldmark: GitHub tables, raw HTML off
// (html.WithUnsafe is never set), computed cells rendered by
// cellRenderer.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(cellRenderer{}, 100))),
)

// lineIndex maps byte offsets of a source to 1-based line numbers.
type lineIndex []int // offsets at which lines start

func newLineIndex(src []byte) lineIndex {
	li := lineIndex{0}
	for i, b := range src {
		if b == '\n' {
			li = append(li, i+1)
		}
	}
	return li
}

func (li lineIndex) line(off int) int {
	return sort.SearchInts(li, off+1)
}

// nodeOffset is the source offset where n starts, or -1 when unknown.
func nodeOffset(n ast.Node) int {
	for ; n != nil; n = n.FirstChild() {
		if p := n.Pos(); p >= 0 {
			return p
		}
		switch x := n.(type) {
		case *ast.Text:
			return x.Segment.Start
		case *ast.FencedCodeBlock:
			if x.Info != nil {
				return x.Info.Segment.Start
			}
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	return -1
}

// problem is one notebook error at a line.
type problem struct {
	line int
	msg  string
}

// isTallyBlock reports whether n is a ```tally fenced block.
func isTallyBlock(n ast.Node, src []byte) (*ast.FencedCodeBlock, bool) {
	fb, ok := n.(*ast.FencedCodeBlock)
	if !ok || fb.Info == nil {
		return nil, false
	}
	return fb, string(fb.Language(src)) == "tally"
}

// Parse parses and validates a notebook. name (normally the
// file's path) prefixes every error, as NAME:LINE: what is wrong; all
// problems are returned together (errors.Join), in line order.
//
// A notebook is refused when a ```tally block names an unknown cell, has
// a bad argument, is empty or holds two commands; when it holds raw HTML
// or an image from anywhere but a data: URL; when it is not UTF-8; and
// when the task-success cell is missing, repeated or not last: task
// success goes on the report's last line, reported and never gated.
func Parse(name string, src []byte) (*Notebook, error) {
	if len(src) > MaxBytes {
		return nil, errors.Join(fmt.Errorf("%s:%d: the notebook is %d bytes, more than the %d a notebook may have", name, 1, len(src), MaxBytes))
	}
	lines := newLineIndex(src)
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, size := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, errors.Join(fmt.Errorf("%s:%d: the notebook is not valid UTF-8 (byte %d)", name, lines.line(off), off+1))
	}
	src = bytes.Clone(src)
	doc := markdown.Parser().Parse(text.NewReader(src))

	nb := &Notebook{name: name, src: src}
	var probs []problem
	add := func(off int, format string, args ...any) {
		line := 1
		if off >= 0 {
			line = lines.line(off)
		}
		probs = append(probs, problem{line, fmt.Sprintf(format, args...)})
	}
	taskSuccess := -1 // index in nb.cells
	tooMany := false
	afterTaskSuccess := -1
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if taskSuccess >= 0 && afterTaskSuccess < 0 && n.Type() == ast.TypeBlock {
			if off := nodeOffset(n); off >= 0 {
				afterTaskSuccess = lines.line(off)
			} else {
				afterTaskSuccess = nb.cells[taskSuccess].Line
			}
		}
		switch x := n.(type) {
		case *ast.FencedCodeBlock:
			if _, ok := isTallyBlock(x, src); !ok {
				return ast.WalkSkipChildren, nil
			}
			if len(nb.cells) == MaxCells {
				add(nodeOffset(x), "more than %d cells; a notebook is prose with a few computed cells", MaxCells)
				tooMany = true
				return ast.WalkStop, nil
			}
			c, err := parseBlock(x, src, lines)
			if err != nil {
				probs = append(probs, *err)
				// Keep the place so that later cells are still checked
				// against task-success's position.
				nb.cells = append(nb.cells, cell{Cell: Cell{Line: err.line, Name: "?"}})
				return ast.WalkSkipChildren, nil
			}
			if c.Name == TaskSuccessCell && taskSuccess < 0 {
				taskSuccess = len(nb.cells)
			}
			nb.cells = append(nb.cells, c)
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock, *ast.RawHTML:
			add(nodeOffset(n), "raw HTML is not allowed in a notebook (the report escapes everything it shows); write Markdown instead")
			return ast.WalkSkipChildren, nil
		case *ast.Image:
			if dest := x.Destination; !bytes.HasPrefix(dest, []byte("data:")) {
				add(nodeOffset(n), "image %q: only data: URLs are allowed (the report is one self-contained file that makes no request)", preview(string(dest)))
			}
		}
		return ast.WalkContinue, nil
	})

	switch {
	case tooMany:
	case taskSuccess < 0:
		add(len(src)-1, "the notebook has no %s cell; task success goes on the report's last line, reported and never gated: end the notebook with a ```tally block holding %s", TaskSuccessCell, TaskSuccessCell)
	case taskSuccess != len(nb.cells)-1:
		later := nb.cells[taskSuccess+1]
		probs = append(probs, problem{nb.cells[taskSuccess].Line, fmt.Sprintf(
			"%s must be the last cell, but the cell at line %d comes after it: task success goes at the bottom of the report, where it can be read for what it is worth (reported, not gated)",
			TaskSuccessCell, later.Line)})
	case afterTaskSuccess >= 0:
		probs = append(probs, problem{nb.cells[taskSuccess].Line, fmt.Sprintf(
			"%s must be the notebook's last block, but there is more at line %d: task success goes on the report's last line (reported, not gated); move that text above it",
			TaskSuccessCell, afterTaskSuccess)})
	}
	if len(probs) > 0 {
		sort.SliceStable(probs, func(i, j int) bool { return probs[i].line < probs[j].line })
		errs := make([]error, len(probs))
		for i, p := range probs {
			errs[i] = fmt.Errorf("%s:%d: %s", name, p.line, p.msg)
		}
		return nil, errors.Join(errs...)
	}
	return nb, nil
}

// parseBlock reads the one command of a ```tally block and validates
// it.
func parseBlock(fb *ast.FencedCodeBlock, src []byte, lines lineIndex) (cell, *problem) {
	fence := lines.line(fb.Info.Segment.Start)
	var cmdLine int
	var cmd string
	segs := fb.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		s := strings.TrimSpace(string(seg.Value(src)))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		ln := lines.line(seg.Start)
		if cmd != "" {
			return cell{}, &problem{ln, fmt.Sprintf("a tally block holds one cell, and this one already has %q at line %d; put %q in a block of its own", preview(cmd), cmdLine, preview(s))}
		}
		cmd, cmdLine = s, ln
	}
	if cmd == "" {
		return cell{}, &problem{fence, "empty tally block: want a cell, one of " + cellNames()}
	}
	c, err := parseCell(cmd)
	if err != nil {
		return cell{}, &problem{cmdLine, err.Error()}
	}
	c.Line = cmdLine
	return c, nil
}

// preview shortens s for an error message.
func preview(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

// Render writes the notebook's body as HTML for r: its Markdown with
// each tally cell computed in place. Nothing is written when a cell
// fails; the error names the notebook's line, as NAME:LINE: what is
// wrong.
func (nb *Notebook) Render(w io.Writer, r *report.Report) error {
	if r == nil {
		return errors.New("notebook: Render: nil report")
	}
	doc := markdown.Parser().Parse(text.NewReader(nb.src))
	var blocks []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fb, ok := isTallyBlock(n, nb.src); entering && ok {
			blocks = append(blocks, fb)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if len(blocks) != len(nb.cells) {
		return fmt.Errorf("notebook %s: %d tally blocks, %d cells: the notebook was not made by notebook.Parse", nb.name, len(blocks), len(nb.cells))
	}
	cx := newCellCtx(r)
	for i, fb := range blocks {
		c := nb.cells[i]
		cx.out = &markup.Buffer{}
		cx.warnings = nil
		if err := c.run(cx); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", nb.name, c.Line, c.Name, err)
		}
		cx.writeWarnings()
		node := &cellNode{html: cx.out.Bytes()}
		fb.Parent().ReplaceChild(fb.Parent(), fb, node)
	}

	if err := markdown.Renderer().Render(w, nb.src, doc); err != nil {
		return fmt.Errorf("notebook %s: rendering: %w", nb.name, err)
	}
	return nil

}
