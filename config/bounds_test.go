package config_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"

	"github.com/vsched/vsched/config"
)

// parseAndBuild parses data as config-scheduler and builds the profiles.
func parseAndBuild(data map[string]string) error {
	sc, err := config.ParsePlaceConfigMapFromData(data, inTree)
	if err == nil {
		_, err = config.BuildProfiles(context.Background(), inTree, sc, nil)
	}
	return err
}

// A ConfigMap larger than Kubernetes allows is refused whole, with one short
// problem, instead of being parsed into a problem per entry.
func TestConfigMapAboveTheSizeLimit(t *testing.T) {
	list := "[" + strings.Repeat(`{"Name":"PodFitsResources"},`, 40000) + `{"Name":"PodFitsResources"}]`
	parsers := map[string]func() error{
		"config-scheduler": func() error { return parseAndBuild(map[string]string{"predicates": list}) },
		"config-descheduler": func() error {
			_, err := config.ParseRemoveConfigMapFromData(map[string]string{"priorities": list}, inTree)
			return err
		},
		"config-autoscaler": func() error {
			_, err := config.ParseAutoscalerConfigMapFromData(map[string]string{"policy": list})
			return err
		},
	}
	for name, parse := range parsers {
		err := parse()
		var cerr *config.Error
		if !errors.As(err, &cerr) || len(cerr.Problems) != 1 || !strings.Contains(err.Error(), "at most 1048576 bytes") {
			t.Errorf("%s of %d bytes: error of %d bytes: %.300s; want one problem naming the limit", name, len(list), len(fmt.Sprint(err)), err)
		}
	}
}

// Many problems are counted past the first few; long values are cut.
func TestErrorMessagesAreBounded(t *testing.T) {
	big := strings.Repeat("x", 100000)
	tests := []struct {
		name string
		data map[string]string
		want string
	}{
		{"one plugin listed many times", map[string]string{"predicates": "[" + strings.Repeat(`{"Name":"PodFitsResources"},`, 1000) + `{"Name":"PodFitsResources"}]`}, "and 980 more"},
		{"a long plugin name", map[string]string{"priorities": `[{"Name":"` + big + `","Weight":1}]`}, "more bytes"},
		{"long Args", map[string]string{"priorities": `[{"Name":"EvenPodSpread","Weight":1,"Args":{"MaxSkew":"` + big + `"}}]`}, "more bytes"},
		{"a long Args field", map[string]string{"priorities": `[{"Name":"EvenPodSpread","Weight":1,"Args":{"` + big + `":1}}]`}, "more bytes"},
		{"Args as a long string", map[string]string{"priorities": `[{"Name":"EvenPodSpread","Weight":1,"Args":"` + big + `"}]`}, "more bytes"},
		{"a long key", map[string]string{big: "x"}, "more bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := parseAndBuild(tc.data)
			if err == nil {
				t.Fatal("accepted")
			}
			if msg := err.Error(); len(msg) > 16<<10 || !strings.Contains(msg, tc.want) {
				t.Errorf("error of %d bytes, want at most 16 KiB and %q: %.500s", len(msg), tc.want, msg)
			}
		})
	}
}

func TestRejectionEventIsBounded(t *testing.T) {
	rec := record.NewFakeRecorder(1)
	config.RecordRejections(rec)(cm("config-scheduler", nil), errors.New(strings.Repeat("x", 100000)))
	if ev := <-rec.Events; len(ev) > 2<<10 {
		t.Errorf("Event of %d bytes, want at most 2 KiB: %.300s", len(ev), ev)
	}
}
