package sim

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/vsched/vsched/examples"
)

// renderHTML runs an example and renders its report.
func renderHTML(t testing.TB, name string) (*Result, []byte) {
	t.Helper()
	return render(t, loadExample(t, name), Options{}, WriteHTML)
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// TestHTMLHoldsEveryPlacement parses the report of every example and checks
// that each step's heat map has a cell for every placement, with its
// vreplicas, every pod with its free capacity, and the step's metrics.
func TestHTMLHoldsEveryPlacement(t *testing.T) {
	for _, name := range examples.Scenarios() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, page := renderHTML(t, name)
			doc, err := html.Parse(bytes.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			var sections []*html.Node
			walk(doc, func(n *html.Node) {
				if n.Type == html.ElementNode && n.Data == "section" && hasClass(n, "step") {
					sections = append(sections, n)
				}
			})
			if len(sections) != len(res.Steps) {
				t.Fatalf("%d step sections, want %d", len(sections), len(res.Steps))
			}
			for i, sec := range sections {
				st := &res.Steps[i]
				cells := map[string]string{} // pod|source -> vreplicas
				pods := map[string]string{}  // pod -> free
				metrics := map[string]string{}
				walk(sec, func(n *html.Node) {
					if n.Type != html.ElementNode {
						return
					}
					switch {
					case n.Data == "rect" && hasClass(n, "cell"):
						pod, _ := attr(n, "data-pod")
						src, _ := attr(n, "data-source")
						v, _ := attr(n, "data-vreplicas")
						cells[pod+"|"+src] = v
					case n.Data == "g" && hasClass(n, "pod"):
						pod, _ := attr(n, "data-pod")
						free, _ := attr(n, "data-free")
						pods[pod] = free
					case n.Data == "dd":
						c, _ := attr(n, "class")
						metrics[c] = text(n)
					}
				})
				for src, ps := range st.Placements {
					for _, p := range ps {
						if got := cells[p.PodName+"|"+src]; got != strconv.Itoa(int(p.VReplicas)) {
							t.Errorf("step %d: cell %s / %s shows %q, want %d", i+1, p.PodName, src, got, p.VReplicas)
						}
					}
				}
				nonZero := 0
				for _, v := range cells {
					if v != "0" {
						nonZero++
					}
				}
				want := 0
				for _, ps := range st.Placements {
					want += len(ps)
				}
				if nonZero != want {
					t.Errorf("step %d: %d non-empty cells, want %d placements", i+1, nonZero, want)
				}
				for _, p := range st.Pods {
					if got := pods[p.Name]; got != strconv.Itoa(int(p.Free)) {
						t.Errorf("step %d: pod %s shows free %q, want %d", i+1, p.Name, got, p.Free)
					}
				}
				for k, v := range map[string]any{"podsUsed": st.Metrics.PodsUsed, "lowerBound": st.Metrics.LowerBound,
					"moved": st.Metrics.Moved, "pending": st.Metrics.Pending, "vreplicas": st.Metrics.VReplicas} {
					if got := metrics[k]; got != fmt.Sprint(v) {
						t.Errorf("step %d: metric %s shows %q, want %v", i+1, k, got, v)
					}
				}
			}
		})
	}
}

// TestHTMLSelfContained checks the report loads nothing from anywhere.
func TestHTMLSelfContained(t *testing.T) {
	_, page := renderHTML(t, "builtin.yaml")
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		for _, a := range n.Attr {
			switch a.Key {
			case "src", "srcset", "data", "poster":
				t.Errorf("<%s %s=%q> loads a resource", n.Data, a.Key, a.Val)
			case "href":
				if !strings.HasPrefix(a.Val, "#") {
					t.Errorf("<%s href=%q> links outside the page", n.Data, a.Val)
				}
			}
		}
		if n.Data == "link" || n.Data == "iframe" || n.Data == "img" {
			t.Errorf("<%s> element in a self-contained report", n.Data)
		}
	})
	for _, bad := range []string{"http://", "https://", "url(", "@import"} {
		if i := bytes.Index(page, []byte(bad)); i >= 0 && !bytes.Contains(page[max(i-10, 0):i+len(bad)+30], []byte("www.w3.org/2000/svg")) {
			t.Errorf("report contains %q: %s", bad, page[max(i-40, 0):min(i+40, len(page))])
		}
	}
}

// TestHTMLEscapes checks names from the scenario are escaped, in the page
// and in the explanations' table of its script.
func TestHTMLEscapes(t *testing.T) {
	s, ps := ParseScenario("x.yaml", []byte(`version: 1
name: "<script>alert(1)</script>"
description: "a & b"
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 1, capacity: 5}
steps:
  - name: "</script><b>step</b>"
    schedule: {source: default/a, vreplicas: 1}
`))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	// The explanations, embedded in the page's script, hold the step's
	// name too.
	res, _, err := Run(context.Background(), s, Options{ExplainAll: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, s, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>alert") || strings.Contains(out, "<b>step") || len(res.Explanations[0]) == 0 {
		t.Errorf("scenario text reached the page unescaped")
	}
	if !strings.Contains(out, "&lt;/script&gt;&lt;b&gt;step&lt;/b&gt;") || !strings.Contains(out, `\u003c/script\u003e\u003cb\u003estep`) {
		t.Errorf("escaped step name missing")
	}
}
