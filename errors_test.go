package vsched_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

func TestPendingError(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "src"}
	tests := []struct {
		name    string
		err     error
		wantMsg string
		pending int32
	}{
		{
			name:    "bare",
			err:     &vsched.PendingError{Key: key, Pending: 3},
			wantMsg: "ns/src: 3 vreplica(s) pending: not enough pod replicas to place every vreplica",
			pending: 3,
		},
		{
			name:    "with reason",
			err:     &vsched.PendingError{Key: key, Pending: 1, Reason: "PodFitsResources rejected 4 pod(s)"},
			wantMsg: "ns/src: 1 vreplica(s) pending: not enough pod replicas to place every vreplica: PodFitsResources rejected 4 pod(s)",
			pending: 1,
		},
		{
			name:    "wrapped",
			err:     fmt.Errorf("scheduling: %w", &vsched.PendingError{Key: key, Pending: 2}),
			wantMsg: "scheduling: ns/src: 2 vreplica(s) pending: not enough pod replicas to place every vreplica",
			pending: 2,
		},
		{
			name:    "wrapped twice, in a join",
			err:     errors.Join(errors.New("other"), fmt.Errorf("a: %w", fmt.Errorf("b: %w", &vsched.PendingError{Key: key, Pending: 5}))),
			wantMsg: "other\na: b: ns/src: 5 vreplica(s) pending: not enough pod replicas to place every vreplica",
			pending: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.wantMsg {
				t.Errorf("Error() = %q, want %q", got, tt.wantMsg)
			}
			if !errors.Is(tt.err, vsched.ErrNotEnoughReplicas) {
				t.Errorf("errors.Is(err, ErrNotEnoughReplicas) = false")
			}
			if errors.Is(tt.err, vsched.ErrNotLeader) {
				t.Errorf("errors.Is(err, ErrNotLeader) = true")
			}
			var pe *vsched.PendingError
			if !errors.As(tt.err, &pe) {
				t.Fatalf("errors.As(err, *PendingError) = false")
			}
			if pe.Pending != tt.pending || pe.Key != key {
				t.Errorf("errors.As gave %+v", pe)
			}
			if got := vsched.PendingCount(tt.err); got != tt.pending {
				t.Errorf("PendingCount = %d, want %d", got, tt.pending)
			}
		})
	}
}

func TestPendingCountOfOtherErrors(t *testing.T) {
	for _, err := range []error{nil, errors.New("x"), vsched.ErrNotEnoughReplicas, vsched.ErrNotLeader, context.Canceled} {
		if got := vsched.PendingCount(err); got != 0 {
			t.Errorf("PendingCount(%v) = %d, want 0", err, got)
		}
	}
	// The sentinel itself is not a PendingError: errors.Is holds one way only.
	if errors.Is(vsched.ErrNotEnoughReplicas, &vsched.PendingError{}) {
		t.Errorf("errors.Is(ErrNotEnoughReplicas, &PendingError{}) = true")
	}
}

type plainVPod struct{ key types.NamespacedName }

func (v plainVPod) GetKey() types.NamespacedName      { return v.key }
func (v plainVPod) GetVReplicas() int32               { return 1 }
func (v plainVPod) GetPlacements() []vsched.Placement { return nil }
func (v plainVPod) GetResourceVersion() string        { return "1" }

type countedVPod struct {
	plainVPod
	n int32
}

func (v countedVPod) GetResourceCount() int32 { return v.n }

func TestResourceCount(t *testing.T) {
	tests := []struct {
		name string
		vpod vsched.VPod
		want int32
	}{
		{name: "nil", vpod: nil, want: 0},
		{name: "no ResourceCounter", vpod: plainVPod{}, want: 0},
		{name: "counter", vpod: countedVPod{n: 12}, want: 12},
		{name: "zero means unknown", vpod: countedVPod{n: 0}, want: 0},
		{name: "negative means unknown", vpod: countedVPod{n: -4}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := vsched.ResourceCount(tt.vpod); got != tt.want {
				t.Errorf("ResourceCount = %d, want %d", got, tt.want)
			}
		})
	}
}
