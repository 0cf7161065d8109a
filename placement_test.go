package vsched_test

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
)

func TestOrdinalOf(t *testing.T) {
	tests := []struct {
		name, set, podName string
		want               int32
		ok                 bool
	}{
		{name: "its pod", set: "adapter", podName: "adapter-3", want: 3, ok: true},
		{name: "dashes in the name", set: "kafka-source", podName: "kafka-source-12", want: 12, ok: true},
		{name: "another StatefulSet", set: "adapter", podName: "other-3", want: -1},
		{name: "a longer name ending the same", set: "adapter", podName: "my-adapter-3", want: -1},
		{name: "a prefix of the name", set: "kafka-source", podName: "kafka-3", want: -1},
		{name: "leading zero", set: "adapter", podName: "adapter-03", want: -1},
		{name: "no ordinal", set: "adapter", podName: "adapter", want: -1},
		{name: "ordinal zero", set: "adapter", podName: "adapter-0", want: 0, ok: true},
		{name: "another dash after the name", set: "adapter", podName: "adapter-1-2", want: -1},
		{name: "negative", set: "adapter", podName: "adapter--1", want: -1},
		{name: "sign", set: "adapter", podName: "adapter-+1", want: -1},
		{name: "no StatefulSet name", set: "", podName: "-1", want: -1},
		{name: "the name's own dash", set: "kafka-source", podName: "kafka-source", want: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := vsched.OrdinalOf(tc.set, tc.podName)
			if got != tc.want || ok != tc.ok {
				t.Errorf("OrdinalOf(%q, %q) = %d, %v; want %d, %v", tc.set, tc.podName, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestOrdinalFromPodName(t *testing.T) {
	tests := []struct {
		name    string
		podName string
		want    int32
		wantErr string // substring of the error; "" means success
	}{
		{name: "valid", podName: "adapter-3", want: 3},
		{name: "zero", podName: "adapter-0", want: 0},
		{name: "dashes in the StatefulSet name", podName: "kafka-source-dispatcher-12", want: 12},
		{name: "largest int32", podName: "adapter-2147483647", want: 2147483647},
		{name: "empty", podName: "", wantErr: "no ordinal suffix"},
		{name: "no dash", podName: "adapter", wantErr: "no ordinal suffix"},
		{name: "trailing dash", podName: "adapter-", wantErr: "no ordinal suffix"},
		{name: "only a dash", podName: "-", wantErr: "no ordinal suffix"},
		{name: "no StatefulSet name", podName: "-1", wantErr: "no StatefulSet name"},
		{name: "leading zero", podName: "adapter-01", wantErr: "malformed ordinal"},
		{name: "double zero", podName: "adapter-00", wantErr: "malformed ordinal"},
		// Only "-01" as a whole: the name before the last dash is empty.
		{name: "leading zero without name", podName: "-01", wantErr: "no StatefulSet name"},
		{name: "plus sign", podName: "adapter-+1", wantErr: "malformed ordinal"},
		{name: "negative", podName: "adapter--1", wantErr: "negative ordinal"},
		{name: "overflow past int32", podName: "adapter-2147483648", wantErr: "out of range"},
		{name: "overflow past int64", podName: "adapter-99999999999999999999", wantErr: "out of range"},
		{name: "letters", podName: "adapter-1a", wantErr: "malformed ordinal"},
		{name: "hex", podName: "adapter-0x1", wantErr: "malformed ordinal"},
		{name: "underscore", podName: "adapter-1_0", wantErr: "malformed ordinal"},
		{name: "space", podName: "adapter- 1", wantErr: "malformed ordinal"},
		{name: "non-ascii digit", podName: "adapter-١", wantErr: "malformed ordinal"},
		{name: "full-width digit", podName: "adapter-１", wantErr: "malformed ordinal"},
		{name: "invalid utf-8", podName: "adapter-\xff", wantErr: "malformed ordinal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := vsched.OrdinalFromPodName(tt.podName)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("OrdinalFromPodName(%q) error: %v", tt.podName, err)
				}
				if got != tt.want {
					t.Errorf("OrdinalFromPodName(%q) = %d, want %d", tt.podName, got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("OrdinalFromPodName(%q) = %d, want an error", tt.podName, got)
			}
			if got != -1 {
				t.Errorf("OrdinalFromPodName(%q) returned ordinal %d with its error, want -1", tt.podName, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not say %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), strconv.Quote(tt.podName)) {
				t.Errorf("error %q does not name the input %q", err, tt.podName)
			}
		})
	}
}

func TestPodNameRoundTrip(t *testing.T) {
	for _, ord := range []int32{0, 1, 9, 10, 123456, 1<<31 - 1} {
		name := vsched.PodName("web", ord)
		got, err := vsched.OrdinalFromPodName(name)
		if err != nil || got != ord {
			t.Errorf("OrdinalFromPodName(PodName(web, %d) = %q) = %d, %v", ord, name, got, err)
		}
	}
}

func FuzzOrdinalFromPodName(f *testing.F) {
	for _, s := range []string{"adapter-0", "adapter-17", "a--1", "-", "x-01", "x-+1", "x-2147483648", "é-1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		ord, err := vsched.OrdinalFromPodName(name)
		if err != nil {
			if ord != -1 {
				t.Fatalf("OrdinalFromPodName(%q) = %d with error %v, want -1", name, ord, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Fatalf("error %q does not name %q", err, name)
			}
			return
		}
		if ord < 0 {
			t.Fatalf("OrdinalFromPodName(%q) = %d without error", name, ord)
		}
		// Accepted names are exactly the canonical ones: one name per pod.
		prefix := name[:strings.LastIndexByte(name, '-')]
		if back := vsched.PodName(prefix, ord); back != name {
			t.Fatalf("OrdinalFromPodName(%q) = %d, but PodName(%q, %d) = %q", name, ord, prefix, ord, back)
		}
	})
}

func names(ps []vsched.Placement) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.PodName
	}
	return out
}

func TestSortPlacements(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{name: "empty", in: nil, want: []string{}},
		{name: "numeric not lexical", in: []string{"a-10", "a-2", "a-1"}, want: []string{"a-1", "a-2", "a-10"}},
		{
			name: "invalid names last, by name",
			in:   []string{"zz", "a-3", "a-01", "a-", "a-0", "b"},
			want: []string{"a-0", "a-3", "a-", "a-01", "b", "zz"},
		},
		{
			name: "same ordinal, different StatefulSet names, by name",
			in:   []string{"b-1", "a-2", "a-1"},
			want: []string{"a-1", "b-1", "a-2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := make([]vsched.Placement, len(tt.in))
			for i, n := range tt.in {
				ps[i] = vsched.Placement{PodName: n, VReplicas: int32(i)}
			}
			vsched.SortPlacements(ps)
			if diff := cmp.Diff(tt.want, names(ps)); diff != "" {
				t.Errorf("SortPlacements order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortPlacementsDeterministic checks that the order depends only on the
// set of names, never on the input order, valid names or not.
func TestSortPlacementsDeterministic(t *testing.T) {
	pool := []string{"a-0", "a-1", "a-2", "a-10", "b-1", "a--1", "a-01", "a-+1", "a-", "x", "", "-3", "a-99999999999"}
	rng := rand.New(rand.NewSource(1))
	var want []string
	for i := range 200 {
		ps := make([]vsched.Placement, len(pool))
		for j, n := range pool {
			ps[j] = vsched.Placement{PodName: n}
		}
		rng.Shuffle(len(ps), func(a, b int) { ps[a], ps[b] = ps[b], ps[a] })
		vsched.SortPlacements(ps)
		got := names(ps)
		if i == 0 {
			want = got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("shuffle %d sorted differently (-first +this):\n%s", i, diff)
		}
	}
}

func TestPlacementHelpers(t *testing.T) {
	ps := []vsched.Placement{
		{PodName: "a-0", VReplicas: 3},
		{PodName: "a-1", VReplicas: 0},
		{PodName: "a-2", VReplicas: 2},
	}
	if got := vsched.PodCount(ps); got != 2 {
		t.Errorf("PodCount = %d, want 2 (a zero entry holds nothing)", got)
	}
	if got := vsched.TotalVReplicas(ps); got != 5 {
		t.Errorf("TotalVReplicas = %d, want 5", got)
	}
	if got := vsched.PodCount(nil); got != 0 {
		t.Errorf("PodCount(nil) = %d", got)
	}
	if got := vsched.TotalVReplicas(nil); got != 0 {
		t.Errorf("TotalVReplicas(nil) = %d", got)
	}
	// A pod listed twice is still one pod.
	if got := vsched.PodCount([]vsched.Placement{{PodName: "a-0", VReplicas: 1}, {PodName: "a-0", VReplicas: 1}}); got != 1 {
		t.Errorf("PodCount with a repeated pod = %d, want 1", got)
	}

	p := vsched.PlacementForPod(ps, "a-2")
	if p == nil || p.VReplicas != 2 {
		t.Fatalf("PlacementForPod(a-2) = %+v", p)
	}
	// The result points into the slice, so callers can update in place.
	p.VReplicas = 7
	if ps[2].VReplicas != 7 {
		t.Errorf("PlacementForPod does not point into the slice")
	}
	if p := vsched.PlacementForPod(ps, "a-9"); p != nil {
		t.Errorf("PlacementForPod(a-9) = %+v, want nil", p)
	}
	if p := vsched.PlacementForPod(nil, "a-0"); p != nil {
		t.Errorf("PlacementForPod(nil) = %+v, want nil", p)
	}
}

func TestValidatePlacements(t *testing.T) {
	tests := []struct {
		name    string
		in      []vsched.Placement
		wantErr string
	}{
		{name: "nil", in: nil},
		{name: "valid", in: []vsched.Placement{{PodName: "a-0", VReplicas: 1}, {PodName: "a-3", VReplicas: 2}}},
		{
			name: "zero entries are ignored, even with bad or repeated names",
			in:   []vsched.Placement{{PodName: "a-0", VReplicas: 1}, {PodName: "a-0"}, {PodName: "garbage"}},
		},
		{
			name:    "negative",
			in:      []vsched.Placement{{PodName: "a-0", VReplicas: 1}, {PodName: "a-1", VReplicas: -2}},
			wantErr: `placements[1] (pod "a-1"): vreplicas is negative (-2)`,
		},
		{
			name:    "duplicate",
			in:      []vsched.Placement{{PodName: "a-1", VReplicas: 1}, {PodName: "a-1", VReplicas: 1}},
			wantErr: `placements[1]: pod "a-1" already listed at placements[0] ("a-1")`,
		},
		{
			name:    "two names for one ordinal",
			in:      []vsched.Placement{{PodName: "a-1", VReplicas: 1}, {PodName: "b-1", VReplicas: 1}},
			wantErr: `placements[1]: pod "b-1" already listed at placements[0] ("a-1")`,
		},
		{
			name:    "malformed name",
			in:      []vsched.Placement{{PodName: "a-0", VReplicas: 1}, {PodName: "a-01", VReplicas: 1}},
			wantErr: `placements[1]: pod name "a-01" has a malformed ordinal "01"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := vsched.ValidatePlacements(tt.in)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("ValidatePlacements error = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

func ExampleSortPlacements() {
	ps := []vsched.Placement{{PodName: "adapter-10"}, {PodName: "bad"}, {PodName: "adapter-2"}}
	vsched.SortPlacements(ps)
	fmt.Println(names(ps))
	// Output: [adapter-2 adapter-10 bad]
}

func TestSamePlacements(t *testing.T) {
	p := func(pod string, n int32) vsched.Placement { return vsched.Placement{PodName: pod, VReplicas: n} }
	for _, tc := range []struct {
		name string
		a, b []vsched.Placement
		want bool
	}{
		{"both empty", nil, []vsched.Placement{}, true},
		{"same, other order", []vsched.Placement{p("a-0", 1), p("a-1", 2)}, []vsched.Placement{p("a-1", 2), p("a-0", 1)}, true},
		{"zone and node ignored", []vsched.Placement{{PodName: "a-0", ZoneName: "z", NodeName: "n", VReplicas: 1}}, []vsched.Placement{p("a-0", 1)}, true},
		{"empty entry ignored", []vsched.Placement{p("a-0", 1), p("a-1", 0)}, []vsched.Placement{p("a-0", 1)}, true},
		{"duplicate summed", []vsched.Placement{p("a-0", 1), p("a-0", 2)}, []vsched.Placement{p("a-0", 3)}, true},
		{"count differs", []vsched.Placement{p("a-0", 1)}, []vsched.Placement{p("a-0", 2)}, false},
		{"pod differs", []vsched.Placement{p("a-0", 1)}, []vsched.Placement{p("a-1", 1)}, false},
		{"one more pod", []vsched.Placement{p("a-0", 1)}, []vsched.Placement{p("a-0", 1), p("a-1", 1)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := vsched.SamePlacements(tc.a, tc.b); got != tc.want {
				t.Errorf("SamePlacements = %v, want %v", got, tc.want)
			}
			if got := vsched.SamePlacements(tc.b, tc.a); got != tc.want {
				t.Errorf("SamePlacements (swapped) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTotalVReplicasDoesNotWrap(t *testing.T) {
	tests := []struct {
		name   string
		in     []vsched.Placement
		want   int32
		want64 int64
	}{
		{name: "small", in: []vsched.Placement{{PodName: "a-0", VReplicas: 2}, {PodName: "a-1", VReplicas: 3}}, want: 5, want64: 5},
		{name: "past MaxInt32", in: []vsched.Placement{{PodName: "a-0", VReplicas: math.MaxInt32}, {PodName: "a-1", VReplicas: math.MaxInt32}},
			want: math.MaxInt32, want64: 2 * math.MaxInt32},
		{name: "past MinInt32", in: []vsched.Placement{{PodName: "a-0", VReplicas: math.MinInt32}, {PodName: "a-1", VReplicas: -1}},
			want: math.MinInt32, want64: math.MinInt32 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := vsched.TotalVReplicas(tc.in); got != tc.want {
				t.Errorf("TotalVReplicas() = %d, want %d", got, tc.want)
			}
			if got := vsched.TotalVReplicas64(tc.in); got != tc.want64 {
				t.Errorf("TotalVReplicas64() = %d, want %d", got, tc.want64)
			}
		})
	}
}

// Counts that wrap past MaxInt32 must not make different placements look
// the same: MaxInt32 + MaxInt32 + 4 is 2 in int32.
func TestSamePlacementsDoesNotWrap(t *testing.T) {
	a := []vsched.Placement{{PodName: "a-0", VReplicas: math.MaxInt32}, {PodName: "a-0", VReplicas: math.MaxInt32}, {PodName: "a-0", VReplicas: 4}}
	b := []vsched.Placement{{PodName: "a-0", VReplicas: 2}}
	if vsched.SamePlacements(a, b) || vsched.SamePlacements(b, a) {
		t.Errorf("SamePlacements(%v, %v) = true", a, b)
	}
}
