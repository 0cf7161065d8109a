package main

import (
	"strings"
	"testing"
)

func TestSignalFlags(t *testing.T) {
	const q = "max by (source) (lag)"
	for _, tc := range []struct {
		name      string
		flags     signalFlags
		providers int
		err       string
	}{
		{name: "off", flags: signalFlags{label: DefaultSignalLabel}},
		{name: "prometheus", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", query: q, label: DefaultSignalLabel}, providers: 1},
		{name: "query without a server", flags: signalFlags{query: q, label: DefaultSignalLabel}, err: "--signal-query needs --prometheus-url"},
		{name: "server without a query", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", label: DefaultSignalLabel}, err: "--prometheus-url needs --signal-query"},
		{name: "not a URL", flags: signalFlags{prometheusURL: "127.0.0.1:9090", query: q, label: DefaultSignalLabel}, err: "Config.Address"},
		{name: "bad label", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", query: q, label: "source-name"}, err: `Config.Label: "source-name" is not a label name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := tc.flags.providers()
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("providers: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("providers: error %v; want one containing %q", err, tc.err)
			}
			if len(ps) != tc.providers {
				t.Fatalf("%d providers; want %d", len(ps), tc.providers)
			}
			if tc.providers == 1 && ps[0].Name() != "prometheus" {
				t.Errorf("provider %q; want prometheus", ps[0].Name())
			}
		})
	}
}
