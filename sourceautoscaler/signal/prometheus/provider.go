package prometheus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// Config configures a Provider.
type Config struct {
	// Address is the Prometheus server's base URL, such as
	// http://prometheus.monitoring:9090.
	Address string
	// Query is a PromQL instant query that returns one series per source,
	// such as `sum by (source) (kafka_consumergroup_lag)`.
	Query string
	// Label is the label of Query's series whose value is a source's
	// Target.ID (Key.String() when the ID is empty).
	Label string
	// RoundTripper carries the requests (TLS, authentication); nil means
	// http.DefaultTransport.
	RoundTripper http.RoundTripper
	// Now is the time the query is evaluated at; nil means the server's
	// clock (no time parameter).
	Now func() time.Time
}

// Provider reads demand from a Prometheus query; it implements
// signal.Provider.
type Provider struct {
	api   v1.API
	query string
	label model.LabelName
	now   func() time.Time
}

var _ signal.Provider = (*Provider)(nil)

// labelName is a label name as PromQL writes it unquoted.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// New validates cfg and returns a provider.
func New(cfg Config) (*Provider, error) {
	u, err := url.Parse(cfg.Address)
	switch {
	case cfg.Address == "":
		return nil, errors.New("prometheus: Config.Address: required (the server's base URL, such as http://prometheus:9090)")
	case err != nil:
		return nil, fmt.Errorf("prometheus: Config.Address: %w", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("prometheus: Config.Address: %q is not an http:// or https:// URL with a host", cfg.Address)
	case cfg.Query == "":
		return nil, errors.New("prometheus: Config.Query: required (a PromQL query that returns one series per source)")
	case !labelName.MatchString(cfg.Label):
		return nil, fmt.Errorf("prometheus: Config.Label: %q is not a label name (letters, digits and _, not starting with a digit)", cfg.Label)
	}
	c, err := api.NewClient(api.Config{Address: cfg.Address, RoundTripper: cfg.RoundTripper})
	if err != nil {
		return nil, fmt.Errorf("prometheus: Config.Address: %w", err)
	}
	return &Provider{api: v1.NewAPI(c), query: cfg.Query, label: model.LabelName(cfg.Label), now: cfg.Now}, nil
}

// Name implements signal.Provider.
func (p *Provider) Name() string { return "prometheus" }

// Fetch implements signal.Provider with one instant query. A source with no
// series, more than one series, or a value that is NaN, infinite or
// negative gets Known false; At is the timestamp Prometheus gives the
// sample (the evaluation time of the instant query).
func (p *Provider) Fetch(ctx context.Context, targets []signal.Target, out []signal.Sample) error {
	if len(out) != len(targets) {
		return fmt.Errorf("prometheus: Fetch: %d samples for %d targets", len(out), len(targets))
	}
	clear(out)
	var at time.Time
	if p.now != nil {
		at = p.now()
	}
	v, _, err := p.api.Query(ctx, p.query, at)
	if err != nil {
		return fmt.Errorf("prometheus: query %s: %w", p.query, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return fmt.Errorf("prometheus: query %s returned a %s; it must return an instant vector, one series per source", p.query, v.Type())
	}
	byID := make(map[string]*model.Sample, len(vec))
	dup := map[string]bool{}
	for _, s := range vec {
		id := string(s.Metric[p.label])
		if _, seen := byID[id]; seen {
			dup[id] = true
		}
		byID[id] = s
	}
	for i, t := range targets {
		id := t.ID
		if id == "" {
			id = t.Key.String()
		}
		if s, ok := byID[id]; ok && !dup[id] {
			out[i] = sampleOf(s)
		}
	}
	return nil
}

// sampleOf is a series' sample, unknown unless its value is a finite
// demand.
func sampleOf(s *model.Sample) signal.Sample {
	v := float64(s.Value)
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return signal.Sample{}
	}
	return signal.Sample{Known: true, Value: v, At: s.Timestamp.Time()}
}
