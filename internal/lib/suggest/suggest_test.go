package suggest

import "testing"

func TestDidYouMean(t *testing.T) {
	opts := []string{"predicates", "priorities", "Weight"}
	for _, tc := range []struct {
		name, s         string
		caseInsensitive bool
		want            string
	}{
		{"one typo", "predicate", false, ` (did you mean "predicates"?)`},
		{"two edits", "priorites", false, ` (did you mean "priorities"?)`},
		{"case only, case-sensitive lookup", "weight", false, ` (did you mean "Weight"?)`},
		{"case only, case-insensitive lookup", "weight", true, ""},
		{"nothing close", "zones", false, ""},
		{"an option itself", "Weight", false, ""},
		{"too long to compare", string(make([]byte, 100)), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DidYouMean(tc.s, opts, tc.caseInsensitive); got != tc.want {
				t.Errorf("DidYouMean(%q) = %q, want %q", tc.s, got, tc.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"zoné", "zone", 1},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
