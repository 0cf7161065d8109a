package bounded

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdefgh", 3, "abc...(5 more bytes)"},
		// "é" is two bytes: a cut never splits it.
		{"aéb", 2, "a...(3 more bytes)"},
		{"abc", 0, "...(3 more bytes)"},
		{"abc", -1, "...(3 more bytes)"},
	}
	for _, tc := range tests {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	if got := Cut(strings.Repeat("x", 1<<20), ValueLen); len(got) > ValueLen+32 {
		t.Errorf("Cut of 1 MiB to %d gave %d bytes", ValueLen, len(got))
	}
}

func TestList(t *testing.T) {
	var none List
	if none.Items() != nil {
		t.Errorf("empty List: Items() = %q, want nil", none.Items())
	}
	l := List{Max: 2}
	for _, s := range []string{"a", "b", "c", "d"} {
		l.Add(s)
	}
	if d := cmp.Diff([]string{"a", "b", "and 2 more"}, l.Items()); d != "" {
		t.Errorf("Items() (-want +got):\n%s", d)
	}
	var def List
	for range Problems + 1 {
		def.Add("p")
	}
	if got := def.Items(); len(got) != Problems+1 || got[Problems] != "and 1 more" {
		t.Errorf("default Max: %d items, last %q", len(got), got[len(got)-1])
	}
}
