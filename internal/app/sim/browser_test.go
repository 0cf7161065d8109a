package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

// chromium finds Debian's chromium. Without it the browser tests skip,
// unless CI=true: CI installs it, and there they must run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true requires the browser test: install Debian's chromium package")
	}
	t.Skip("skipping the browser test: chromium is not installed (apt-get install chromium); with CI=true it is required")
	return ""
}

// runChromium runs headless Chromium with a fresh profile on the page and
// returns its standard output.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	return stdout.Bytes()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// writeReport renders the built-in scenario's report into a file.
func writeReport(t *testing.T) (*Result, string) {
	t.Helper()
	res, page := renderHTML(t, "builtin.yaml")
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return res, path
}

// TestBrowserDOM loads the report in headless Chromium and reads back the
// DOM it built: the page's script must have run over every step and cell,
// and every step and placement must be there.
func TestBrowserDOM(t *testing.T) {
	bin := chromium(t)
	res, path := writeReport(t)
	out := runChromium(t, bin, "--dump-dom", "file://"+path)
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	cells, want := 0, 0
	var rendered string
	var titles []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch {
		case n.Data == "body":
			rendered, _ = attr(n, "data-rendered")
		case n.Data == "rect" && hasClass(n, "cell"):
			cells++
		case n.Data == "h2":
			titles = append(titles, text(n))
		}
	})
	for i := range res.Steps {
		for _, ps := range res.Steps[i].Placements {
			want += len(ps)
		}
	}
	if wantRendered := fmt.Sprintf("%d steps, %d cells", len(res.Steps), want); rendered != wantRendered {
		t.Errorf("the page's script reports %q, want %q (did the browser run it over the whole page?)", rendered, wantRendered)
	}
	if cells != want {
		t.Errorf("the browser's DOM has %d cells, want %d", cells, want)
	}
	if len(titles) != len(res.Steps) {
		t.Fatalf("the browser shows %d steps, want %d: %q", len(titles), len(res.Steps), titles)
	}
	for i, st := range res.Steps {
		if wantTitle := fmt.Sprintf("Step %d/%d: %s", i+1, len(res.Steps), st.Name); titles[i] != wantTitle {
			t.Errorf("step %d title %q, want %q", i+1, titles[i], wantTitle)
		}
	}
	// Every placement of the last step is in the DOM as the browser has it.
	last := len(res.Steps) - 1
	var lastSection *html.Node
	walk(doc, func(n *html.Node) {
		if v, _ := attr(n, "data-step"); n.Data == "section" && v == fmt.Sprint(last+1) {
			lastSection = n
		}
	})
	if lastSection == nil {
		t.Fatal("last step's section not found")
	}
	for src, ps := range res.Steps[last].Placements {
		for _, p := range ps {
			re := regexp.MustCompile(`data-pod="` + regexp.QuoteMeta(p.PodName) + `" data-source="` + regexp.QuoteMeta(src) + `" data-vreplicas="` + fmt.Sprint(p.VReplicas) + `"`)
			if !re.Match(out) {
				t.Errorf("placement %s on %s (%d) is not in the browser's DOM", src, p.PodName, p.VReplicas)
			}
		}
	}
}

// TestBrowserScreenshot renders the report to an image and checks what it
// shows: a page with text, and the heat map's cells in their colours.
func TestBrowserScreenshot(t *testing.T) {
	bin := chromium(t)
	res, path := writeReport(t)
	img := screenshot(t, bin, path)
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Fatalf("screenshot is %dx%d", b.Dx(), b.Dy())
	}
	// The first step's cells: their fill colours must be on screen.
	capacity := res.Capacity
	wantColors := map[[3]uint8]string{}
	for src, ps := range res.Steps[0].Placements {
		for _, p := range ps {
			fill, _ := heat(float64(p.VReplicas) / float64(capacity))
			var c [3]uint8
			fmt.Sscanf(fill, "#%02x%02x%02x", &c[0], &c[1], &c[2])
			wantColors[c] = fmt.Sprintf("%s on %s (%s)", src, p.PodName, fill)
		}
	}
	seen := map[[3]uint8]int{}
	dark, white := 0, 0
	eachPixel(img, func(px [3]uint8) {
		for c := range wantColors {
			if near(px, c) {
				seen[c]++
			}
		}
		switch {
		case px[0] < 80 && px[1] < 80 && px[2] < 80:
			dark++
		case px[0] > 250 && px[1] > 250 && px[2] > 250:
			white++
		}
	})
	t.Logf("cell colours on screen (pixels): %v", seen)
	for c, what := range wantColors {
		// A cell is 44x20 pixels; half of one is plenty.
		if seen[c] < 400 {
			t.Errorf("cell colour of %s: %d pixels on screen, want a cell's worth", what, seen[c])
		}
	}
	total := b.Dx() * b.Dy()
	if dark < total/1000 {
		t.Errorf("only %d dark (text) pixels: is anything written on the page?", dark)
	}
	if white > total*98/100 {
		t.Errorf("%d of %d pixels are white: the page looks empty", white, total)
	}
}

// screenshot renders the page at path in Chromium, at the size the checks
// on its pixels assume.
func screenshot(t *testing.T, bin, path string) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	runChromium(t, bin, "--window-size=1280,1400", "--hide-scrollbars", "--screenshot="+shot, "file://"+path)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// eachPixel calls f with every pixel's colour, 8 bits a channel.
func eachPixel(img image.Image, f func(px [3]uint8)) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			f([3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)})
		}
	}
}

func near(a, b [3]uint8) bool {
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d < -3 || d > 3 {
			return false
		}
	}
	return true
}

// TestBrowserManySources renders the report of 2,000 sources in headless
// Chromium: the page's script runs over every cell, and the screenshot
// shows the timeline and a page with text (the map keeps to 40 columns,
// so the page stays usable).
func TestBrowserManySources(t *testing.T) {
	bin := chromium(t)
	_, page := renderMany(t, 2000)
	path := filepath.Join(t.TempDir(), "many.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	out := runChromium(t, bin, "--dump-dom", "file://"+path)
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var rendered string
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "body" {
			rendered, _ = attr(n, "data-rendered")
		}
	})
	cells := bytes.Count(page, []byte(`<rect class="cell`))
	if want := fmt.Sprintf("4 steps, %d cells", cells); rendered != want {
		t.Errorf("the page's script reports %q, want %q", rendered, want)
	}
	img := screenshot(t, bin, path)
	b := img.Bounds()
	blue := [3]uint8{0x1f, 0x5f, 0xa8} // the timeline's replicas line
	lines, dark := 0, 0
	eachPixel(img, func(px [3]uint8) {
		if near(px, blue) {
			lines++
		}
		if px[0] < 80 && px[1] < 80 && px[2] < 80 {
			dark++
		}
	})
	if lines < 200 {
		t.Errorf("the timeline's replicas line: %d pixels on screen", lines)
	}
	if dark < b.Dx()*b.Dy()/1000 {
		t.Errorf("only %d dark (text) pixels: is anything written on the page?", dark)
	}
}

// openWhy finds a source with the filter box and opens its "why" in the
// step's table, as a person would, and returns the text the page shows.
func openWhy(p *page, step int, source string) string {
	p.t.Helper()
	p.waitFor(`(document.body && document.body.getAttribute("data-rendered")) || ""`)
	p.click("#filter")
	p.typeText(source)
	p.waitFor(`document.getElementById("filtered").textContent`)
	row := fmt.Sprintf(`section[data-step="%d"] tr[data-source=%s] details.why`, step, quote(source))
	p.click(row + " summary")
	q, _ := json.Marshal(row + " pre")
	return p.waitFor(fmt.Sprintf(`(function () { var pre = document.querySelector(%s); return pre ? pre.textContent : ""; })()`, q))
}

// wantWhy is the explanation explain prints for the decision.
func wantWhy(t *testing.T, source string, ex *Explained) string {
	t.Helper()
	if ex == nil {
		t.Fatalf("no decision about %s recorded", source)
	}
	var b strings.Builder
	if err := writeExplanation(&b, "Decision about "+source, ex); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBrowserWhy clicks a source's "why" in the built-in scenario's report
// and reads what the browser shows: the text explain prints for the
// decision, the one of the step, or the most recent before it.
func TestBrowserWhy(t *testing.T) {
	bin := chromium(t)
	res, html := report(t, loadExample(t, "builtin.yaml"), true)
	url := writePage(t, html)
	for _, tc := range []struct {
		step, decidedIn int
		source          string
	}{
		{10, 9, "shop/payments"}, // the compaction the loop started moved it
		{6, 4, "shop/orders"},    // node-b1 is back: the eviction's decision still explains it
	} {
		got := openWhy(openPage(t, bin, url), tc.step, tc.source)
		if diff := cmp.Diff(wantWhy(t, tc.source, res.Explanations[tc.decidedIn-1][tc.source]), got); diff != "" {
			t.Errorf("%s's why in step %d (-want +got):\n%s", tc.source, tc.step, diff)
		}
	}
}

// TestBrowserWhyManySources: in the report of 2,000 sources, a source
// found with the filter box has its explanation one click away.
func TestBrowserWhyManySources(t *testing.T) {
	bin := chromium(t)
	res, html := renderMany(t, 2000)
	url := writePage(t, html)
	// A source the zone failure evicted, explained in step 4, and one
	// left in place, explained by step 1's decision.
	moved := slices.SortedFunc(maps.Keys(res.Explanations[3]), naturalCompare)
	if len(moved) == 0 {
		t.Fatal("step 4 moved no source")
	}
	stayed := ""
	for _, k := range slices.SortedFunc(maps.Keys(res.Steps[3].Placements), naturalCompare) {
		if res.Explanations[3][k] == nil && naturalCompare(k, "ns/src-1500") > 0 {
			stayed = k
			break
		}
	}
	for _, tc := range []struct {
		source string
		ex     *Explained
	}{
		{moved[len(moved)-1], res.Explanations[3][moved[len(moved)-1]]},
		{stayed, res.Explanations[0][stayed]},
	} {
		p := openPage(t, bin, url)
		got := openWhy(p, 4, tc.source)
		if diff := cmp.Diff(wantWhy(t, tc.source, tc.ex), got); diff != "" {
			t.Errorf("%s's why in step 4 (-want +got):\n%s", tc.source, diff)
		}
		// The filter kept one source's rows of the 2,000, and the table's
		// headers stay in view while scrolling.
		var shown struct {
			Text   string
			Rows   int
			Sticky string
		}
		p.eval(`(function () {
  var rows = 0, trs = document.querySelectorAll("table.sources tbody tr");
  for (var i = 0; i < trs.length; i++) { if (trs[i].offsetParent !== null) { rows++; } }
  var th = document.querySelector('section[data-step="4"] table.sources thead th');
  return {Text: document.getElementById("filtered").textContent, Rows: rows,
    Sticky: getComputedStyle(th).position};
})()`, &shown)
		if shown.Text != "1 shown" || shown.Rows != 4 || shown.Sticky != "sticky" {
			t.Errorf("after filtering for %s: %q, %d rows shown (want 1 in each of the 4 steps), headers %s", tc.source, shown.Text, shown.Rows, shown.Sticky)
		}
	}
}
