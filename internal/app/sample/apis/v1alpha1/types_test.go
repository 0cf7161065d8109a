package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
)

func TestVReplicaCost(t *testing.T) {
	cases := []struct {
		annotation string
		memory     string // "" when no cost is declared
		err        string
		measures   bool
	}{
		{annotation: "measured", measures: true},
		{annotation: "measured,memory=1Gi", memory: "1Gi", measures: true},
		{annotation: ""},
		{annotation: "memory=512Mi,cpu=250m", memory: "512Mi"},
		{annotation: "memory=half", err: `annotation vsched.dev/vreplica-cost: cost item 0 ("memory=half"): quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
	}
	for _, tc := range cases {
		s := &SampleSource{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{vsched.CostAnnotation: tc.annotation}}}
		got := s.GetVReplicaCost()
		if tc.memory == "" && got != nil || tc.memory != "" && got.Memory().String() != tc.memory {
			t.Errorf("%q: GetVReplicaCost = %v, want memory %q", tc.annotation, got, tc.memory)
		}
		if m := s.MeasuresVReplicaCost(); m != tc.measures {
			t.Errorf("%q: MeasuresVReplicaCost = %v, want %v", tc.annotation, m, tc.measures)
		}
		err := s.VReplicaCostError()
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%q: VReplicaCostError = %v, want %q", tc.annotation, err, tc.err)
		}
	}
}
