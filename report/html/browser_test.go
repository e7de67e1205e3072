package html

// The browser test opens report.html in headless Chromium and checks
// what a reader would meet: no console error, no request, no CSP
// violation, tables and charts visible on screen and in print, and a
// screenshot that is not blank. It talks to Chromium over the Chrome
// DevTools Protocol with the small websocket client below (standard
// library only). It is skipped, saying why, only when no Chromium is
// installed; CI installs it with apt-get install -y chromium.
//
// It opens two pages: the hand-made report full of hostile text, and the
// example's report built from examples/quarterly. The screenshots are
// artifacts, in a temporary folder removed after the test unless go test
// ./report/html -run Browser -artifacts -outputdir DIR keeps them (see go doc
// testing.T.ArtifactDir).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

// browserFlags are the flags every Chromium run gets: headless, and
// nothing of its own that would talk to the network.
var browserFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
	"--hide-scrollbars", "--mute-audio",
}

// findChromium returns the Chromium binary: $TALLY_CHROMIUM, else the
// first of the usual names on $PATH.
func findChromium() (string, []string) {
	if p := os.Getenv("TALLY_CHROMIUM"); p != "" {
		return p, nil
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, names
		}
	}
	return "", names
}

// browserPage is one report the browser test opens.
type browserPage struct {
	name   string
	report *report.Report
	// shown are strings the page must show as text (hostile ones).
	shown []string
	// lastLine are strings the page's last line must hold.
	lastLine []string
}

func TestBrowserRendersReport(t *testing.T) {
	bin, tried := findChromium()
	if bin == "" {
		t.Skipf("no Chromium on $PATH (looked for %s; or set TALLY_CHROMIUM): install it with apt-get install -y chromium", strings.Join(tried, ", "))
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := startBrowser(ctx, t, bin, filepath.Join(dir, "profile"))
	tab := b.page(t)

	// A control page first: it makes a request, logs a console error
	// and breaks its CSP, so that the checks below are known to see
	// each of those when they happen.
	control := filepath.Join(dir, "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data: http://127.0.0.1:9">
<title>control</title></head><body><p>control</p><img src="http://127.0.0.1:9/control.png" alt=""><script>console.error("control")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctl := tab.load(t, control)
	if len(ctl.requests) == 0 {
		t.Error("control: the request the control page makes was not seen; the request check is blind")
	}
	if len(ctl.violations) == 0 {
		t.Error("control: the control page's CSP violation (its inline script) was not seen; the CSP check is blind")
	}
	if len(ctl.errors) == 0 {
		t.Error("control: the control page's console error was not seen; the console check is blind")
	}

	for _, pg := range []browserPage{
		// The hand-made report full of hostile text.
		{name: "hostile", report: sample.Hostile(), shown: []string{sample.HostileStrings["script"], sample.HostileStrings["img"], sample.HostileStrings["hyperlink"]}},
		// The example's report, as tally report builds it from
		// examples/quarterly.
		{name: "quarterly_example", report: sample.Quarterly(t), lastLine: []string{"the reference 166/200", "the candidate 168/200", "exact McNemar p = ", "is not evidence"}},
	} {
		t.Run(pg.name, func(t *testing.T) { browserCheckPage(ctx, t, bin, tab, filepath.Join(dir, pg.name), pg) })
	}
}

// browserCheckPage renders pg's report to DIR/report.html, opens it in
// tab and checks it: no console error, no request, no CSP violation;
// every table and the three charts shown, on screen and in print; task
// success on the last line. It saves two screenshots in the test's
// artifact directory (a temporary one without -artifacts): the whole
// page through DevTools, report-full.png, and the first 4,000 px by
// Chromium's own --screenshot, report.png.
func browserCheckPage(ctx context.Context, t *testing.T, bin string, tab *cdpConn, dir string, pg browserPage) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := Write(&buf, pg.report, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	got := tab.load(t, page)
	for _, e := range got.errors {
		t.Errorf("console error: %s", e)
	}
	for _, r := range got.requests {
		t.Errorf("the report made a request: %s", r)
	}
	for _, v := range got.violations {
		t.Errorf("Content-Security-Policy violation: %s", v)
	}
	if len(got.errors)+len(got.requests)+len(got.violations) == 0 {
		t.Logf("%s: no console error, no request, no CSP violation", page)
	}

	// What is on the page, on screen and in print.
	shown, err := json.Marshal(append([]string{}, pg.shown...))
	if err != nil {
		t.Fatal(err)
	}
	probe := `(() => {
		const seen = e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
			return r.width > 40 && r.height > 20 && s.display !== 'none' && s.visibility !== 'hidden' && s.opacity !== '0'; };
		const all = q => Array.from(document.querySelectorAll(q));
		const text = document.body.innerText.trim().split('\n').filter(l => l.trim() !== '');
		return JSON.stringify({
			tables: all('table').length, tablesShown: all('table').filter(seen).length,
			svgs: all('svg').length, svgsShown: all('svg').filter(seen).length,
			svgText: all('svg text').length,
			scripts: document.scripts.length, handlers: all('*').filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
			images: document.images.length,
			notShown: ` + string(shown) + `.filter(s => !document.body.innerText.includes(s)),
			lastLine: text[text.length - 1],
			width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
		});
	})()`
	type facts struct {
		Tables, TablesShown, SVGs, SVGsShown, SVGText, Scripts, Handlers, Images int
		NotShown                                                                 []string
		LastLine                                                                 string
		Width, Height                                                            int
	}
	for _, media := range []string{"screen", "print"} {
		tab.call(t, "Emulation.setEmulatedMedia", map[string]any{"media": media})
		var f facts
		if err := json.Unmarshal([]byte(tab.eval(t, probe)), &f); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d tables (%d shown), %d charts (%d shown, %d text labels), page %d×%d px", media, f.Tables, f.TablesShown, f.SVGs, f.SVGsShown, f.SVGText, f.Width, f.Height)
		if f.Tables < 10 || f.TablesShown != f.Tables {
			t.Errorf("%s: %d of %d tables shown; want every table of the report (at least 10) shown", media, f.TablesShown, f.Tables)
		}
		if f.SVGs != 3 || f.SVGsShown != 3 || f.SVGText < 30 {
			t.Errorf("%s: %d of %d charts shown with %d text labels; want the 3 charts with their labels", media, f.SVGsShown, f.SVGs, f.SVGText)
		}
		if f.Scripts != 0 || f.Handlers != 0 || f.Images != 0 {
			t.Errorf("%s: %d scripts, %d elements with on… handlers, %d images; want none", media, f.Scripts, f.Handlers, f.Images)
		}
		for _, s := range f.NotShown {
			t.Errorf("%s: the text %q is not shown as text", media, s)
		}
		if !strings.HasPrefix(f.LastLine, "Task success — reported, not gated:") {
			t.Errorf("%s: the page's last line is %q, want task success", media, f.LastLine)
		}
		for _, want := range pg.lastLine {
			if !strings.Contains(f.LastLine, want) {
				t.Errorf("%s: the page's last line does not read %q: %q", media, want, f.LastLine)
			}
		}
		if f.Width > 1400 {
			t.Errorf("%s: the page is %d px wide in a 1280 px window: something overflows", media, f.Width)
		}
	}

	// The whole page on screen, through DevTools: the charts are far
	// below the first 4,000 px.
	tab.call(t, "Emulation.setEmulatedMedia", map[string]any{"media": "screen"})
	var metrics struct {
		CSSContentSize struct{ Width, Height float64 } `json:"cssContentSize"`
	}
	if err := json.Unmarshal(tab.call(t, "Page.getLayoutMetrics", nil), &metrics); err != nil {
		t.Fatal(err)
	}
	var capture struct{ Data []byte }
	if err := json.Unmarshal(tab.call(t, "Page.captureScreenshot", map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": metrics.CSSContentSize.Width, "height": metrics.CSSContentSize.Height, "scale": 1},
	}), &capture); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(t.ArtifactDir(), "report-full.png")
	if err := os.WriteFile(full, capture.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, full, 0, 500)

	// The screenshot, by Chromium's own --screenshot, in a browser of its
	// own.
	shot := filepath.Join(t.ArtifactDir(), "report.png")
	args := append(append([]string{}, browserFlags...),
		"--user-data-dir="+filepath.Join(dir, "profile-shot"),
		"--screenshot="+shot, "--window-size=1280,4000", "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s --screenshot: %v\n%s", bin, err, out)
	}
	checkScreenshot(t, shot, 1280*4000, 0)
}

// checkScreenshot decodes the PNG and checks that it is not blank, that
// it has size pixels (any when 0) and at least minChart pixels in the
// charts' colours.
func checkScreenshot(t *testing.T, path string, size, minChart int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	bounds := img.Bounds()
	var ink, chart int
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if r < 240 || g < 240 || b < 240 {
				ink++
			}
			// The candidate's orange (candidateColour, #c2410c) or the
			// verdict chart's dark green (#1e6b34), give or take
			// anti-aliasing.
			if near(r, 0xc2) && near(g, 0x41) && near(b, 0x0c) || near(r, 0x1e) && near(g, 0x6b) && near(b, 0x34) {
				chart++
			}
		}
	}
	total := bounds.Dx() * bounds.Dy()
	t.Logf("screenshot %s: %d×%d px, %.1f%% ink, %d chart-coloured pixels", path, bounds.Dx(), bounds.Dy(), 100*float64(ink)/float64(total), chart)
	if bounds.Dx() != 1280 || size != 0 && total != size {
		t.Errorf("screenshot is %d×%d, want 1280 wide and %d pixels", bounds.Dx(), bounds.Dy(), size)
	}
	if ink < total/50 {
		t.Errorf("screenshot is nearly blank: %d of %d pixels are not white", ink, total)
	}
	if chart < minChart {
		t.Errorf("screenshot shows %d chart-coloured pixels: the charts are not drawn", chart)
	}
}

func near(v, want uint32) bool { return v+12 >= want && v <= want+12 }

// browser is a running headless Chromium with a DevTools port.
type browser struct {
	cmd    *exec.Cmd
	port   string
	stderr *bytes.Buffer
	done   chan struct{}
	tabs   []*cdpConn
}

// startBrowser starts Chromium with --remote-debugging-port=0 and reads
// the port it chose from DevToolsActivePort in its profile.
func startBrowser(ctx context.Context, t *testing.T, bin, profile string) *browser {
	t.Helper()
	args := append(append([]string{}, browserFlags...),
		"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--user-data-dir="+profile, "--window-size=1280,4000", "about:blank")
	b := &browser{cmd: exec.CommandContext(ctx, bin, args...), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	b.cmd.Stdout, b.cmd.Stderr = io.Discard, b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	go func() { _ = b.cmd.Wait(); close(b.done) }()
	t.Cleanup(b.close)
	// Chromium's first start on a loaded 2-core machine (CI runs the
	// other packages beside it) once took over 30 s to open its port.
	deadline := time.Now().Add(90 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if err == nil {
			if port, _, ok := strings.Cut(string(data), "\n"); ok && port != "" {
				b.port = port
				return b
			}
		}
		select {
		case <-b.done:
			t.Fatalf("%s exited before opening its DevTools port:\n%s", bin, b.stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s opened no DevTools port in 90s:\n%s", bin, b.stderr)
		}
	}
}

// close ends the browser process it started, by its own handle.
func (b *browser) close() {
	for _, c := range b.tabs {
		c.conn.Close()
	}
	b.tabs = nil
	if b.cmd.Process != nil {
		select {
		case <-b.done:
		default:
			_ = b.cmd.Process.Kill()
			<-b.done
		}
	}
}

// page connects to the browser's first page target.
func (b *browser) page(t *testing.T) *cdpConn {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + b.port + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct{ Type, URL, WebSocketDebuggerURL string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" && tg.WebSocketDebuggerURL != "" {
			c, err := dialCDP(tg.WebSocketDebuggerURL)
			if err != nil {
				t.Fatal(err)
			}
			b.tabs = append(b.tabs, c)
			for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
				c.call(t, domain+".enable", nil)
			}
			// Record CSP violations from inside the page: DevTools'
			// scripts run whatever the page's policy says.
			c.call(t, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `
				window.__tallyViolations = [];
				document.addEventListener('securitypolicyviolation', e =>
					window.__tallyViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline')));`})
			return c
		}
	}
	t.Fatalf("no page target in %+v", targets)
	return nil
}

// loadResult is what loading one page showed.
type loadResult struct {
	errors, requests, violations []string
}

// load navigates to a file and waits for it to load and settle.
func (c *cdpConn) load(t *testing.T, path string) loadResult {
	t.Helper()
	u := (&url.URL{Scheme: "file", Path: path}).String()
	c.events = nil
	c.call(t, "Page.navigate", map[string]any{"url": u})
	if err := c.waitEvent("Page.loadEventFired", 30*time.Second); err != nil {
		t.Fatalf("loading %s: %v", u, err)
	}
	// Late console messages and requests arrive within the settle time.
	_ = c.waitEvent("never", 700*time.Millisecond)
	var res loadResult
	for _, ev := range c.events {
		switch ev.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string
				Args []struct{ Value any }
			}
			_ = json.Unmarshal(ev.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				res.errors = append(res.errors, fmt.Sprintf("console.%s %v", p.Type, p.Args))
			}
		case "Runtime.exceptionThrown":
			res.errors = append(res.errors, "exception: "+string(ev.Params))
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Source, Text, URL string }
			}
			_ = json.Unmarshal(ev.Params, &p)
			if p.Entry.Level == "error" {
				res.errors = append(res.errors, fmt.Sprintf("%s: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
			}
		case "Network.requestWillBeSent":
			var p struct{ Request struct{ URL, Method string } }
			_ = json.Unmarshal(ev.Params, &p)
			if p.Request.URL != u && !strings.HasPrefix(p.Request.URL, "data:") {
				res.requests = append(res.requests, p.Request.Method+" "+p.Request.URL)
			}
		}
	}
	var vs []string
	if err := json.Unmarshal([]byte(c.eval(t, `JSON.stringify(window.__tallyViolations || ["the violation recorder did not run"])`)), &vs); err != nil {
		t.Fatal(err)
	}
	res.violations = vs
	return res
}

// eval evaluates a JavaScript expression that returns a string.
func (c *cdpConn) eval(t *testing.T, expr string) string {
	t.Helper()
	raw := c.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	var r struct {
		Result           struct{ Type, Value any }
		ExceptionDetails *struct{ Text string }
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	s, ok := r.Result.Value.(string)
	if !ok {
		t.Fatalf("evaluating %s: got %v, want a string", expr, r.Result.Value)
	}
	return s
}

// cdpConn is a Chrome DevTools Protocol session over a websocket.
type cdpConn struct {
	conn   net.Conn
	br     *bufio.Reader
	nextID int
	events []cdpMessage
}

type cdpMessage struct {
	ID     int             `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// call sends a command and returns its result, recording the events
// that arrive meanwhile.
func (c *cdpConn) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	c.nextID++
	id := c.nextID
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": orEmpty(params)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.writeFrame(0x1, msg); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, err := c.read(deadline)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if m.ID == id {
			if m.Error != nil {
				t.Fatalf("%s: %d %s", method, m.Error.Code, m.Error.Message)
			}
			return m.Result
		}
	}
}

func orEmpty(p any) any {
	if p == nil {
		return map[string]any{}
	}
	return p
}

// waitEvent reads until an event named method arrives or d passes.
func (c *cdpConn) waitEvent(method string, d time.Duration) error {
	for _, ev := range c.events {
		if ev.Method == method {
			return nil
		}
	}
	deadline := time.Now().Add(d)
	for {
		m, err := c.read(deadline)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return fmt.Errorf("no %s within %v", method, d)
			}
			return err
		}
		if m.Method == method {
			return nil
		}
	}
}

// read reads the next message, recording it when it is an event.
func (c *cdpConn) read(deadline time.Time) (cdpMessage, error) {
	if err := c.conn.SetReadDeadline(deadline); err != nil {
		return cdpMessage{}, err
	}
	data, err := c.readMessage()
	if err != nil {
		return cdpMessage{}, err
	}
	var m cdpMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return cdpMessage{}, fmt.Errorf("a DevTools message that is not JSON: %v", err)
	}
	if m.Method != "" {
		c.events = append(c.events, m)
	}
	return m, nil
}

// dialCDP opens a websocket (RFC 6455) to a DevTools URL: the HTTP
// upgrade handshake, then frames. No Origin header is sent, which
// Chromium's DevTools accepts without --remote-allow-origins.
func dialCDP(wsURL string) (*cdpConn, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		conn.Close()
		return nil, err
	}
	key := base64.StdEncoding.EncodeToString(nonce[:])
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, key)
	br := bufio.NewReaderSize(conn, 1<<16)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake: %v", err)
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake: %s, accept %q", resp.Status, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	return &cdpConn{conn: conn, br: br}, nil
}

// writeFrame writes one final, masked frame (clients must mask).
func (c *cdpConn) writeFrame(opcode byte, payload []byte) error {
	var hdr []byte
	hdr = append(hdr, 0x80|opcode)
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 0x80|126)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	hdr = append(hdr, mask[:]...)
	masked := make([]byte, len(payload))
	for i, b := range payload {
		masked[i] = b ^ mask[i%4]
	}
	if err := c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return err
	}
	_, err := c.conn.Write(append(hdr, masked...))
	return err
}

// readMessage reads one whole message, joining fragments, answering
// pings and skipping pongs.
func (c *cdpConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			return nil, err
		}
		fin, opcode := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(c.br, mask[:]); err != nil {
				return nil, err
			}
		}
		if n > 256<<20 {
			return nil, fmt.Errorf("a websocket frame of %d bytes", n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(c.br, payload); err != nil {
			return nil, err
		}
		if h[1]&0x80 != 0 {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch opcode {
		case 0x8:
			return nil, errors.New("DevTools closed the websocket")
		case 0x9:
			if err := c.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}
