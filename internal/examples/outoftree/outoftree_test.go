package outoftree

import (
	"context"
	"strings"
	"testing"

	"github.com/vsched/vsched/framework"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		args    *Args
		wantErr string
	}{
		{name: "nil args", args: nil, wantErr: "Args.Ordinals: Required value"},
		{name: "negative", args: &Args{Ordinals: []int32{-2}}, wantErr: "Args.Ordinals[0]: Invalid value: -2: must be >= 0"},
		{name: "valid", args: &Args{Ordinals: []int32{1, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("New error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != Name {
				t.Errorf("Name() = %q", p.Name())
			}
			for ord, want := range map[int32]int64{0: framework.MaxScore, 1: framework.MinScore, 2: framework.MaxScore, 3: framework.MinScore} {
				if got, st := p.Score(context.Background(), nil, ord); got != want || !st.IsSuccess() {
					t.Errorf("Score(%d) = %d, %v; want %d", ord, got, st, want)
				}
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := reg.Lookup(Name)
	if !ok || r.Kinds != framework.KindScore || r.Modes != framework.ForPlace || !r.TakesArgs {
		t.Fatalf("registration = %+v, %v", r, ok)
	}
	args, errs := r.DecodeArgs([]byte(`{"Ordinals": [4]}`), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := r.New(context.Background(), args); err != nil {
		t.Fatal(err)
	}
}
