package monitoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMetricNames(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{`up`, []string{"up"}},
		{`vsched_scheduler_pending_vreplicas > 0`, []string{"vsched_scheduler_pending_vreplicas"}},
		{`sum by (k8s_namespace_name, k8s_statefulset_name) (rate(vsched_scheduler_decisions_total{outcome="not_ready"}[5m])) > 0`,
			[]string{"vsched_scheduler_decisions_total"}},
		{`sum without(instance)(rate(a_total[$__rate_interval])) / on (job) group_left(zone) b`, []string{"a_total", "b"}},
		{`histogram_quantile(0.99, sum by (le) (rate(x_bucket{ns=~"$namespace"}[5m])))`, []string{"x_bucket"}},
		{`a and on(k) b unless ignoring (k) c or bool d offset 5m`, []string{"a", "b", "c", "d"}},
		{`{__name__="by_name", job="x"} + {__name__ = 'other'}`, []string{"by_name", "other"}},
		{`label_replace(m, "dst", "$1", "src", "(.*)")`, []string{"m"}},
		{`count(m{l="{not a matcher}"}) by (l)`, []string{"m"}},
		{`topk(3, m) # a comment naming not_a_metric`, []string{"m"}},
		{`max(m) * 1.5e3 - 0x1f + ${var}`, []string{"m"}},
		{`sum(rate(m[5m:1m]))`, []string{"m"}},
		{`vector(1)`, []string{}},
	} {
		if diff := cmp.Diff(tc.want, MetricNames(tc.query)); diff != "" {
			t.Errorf("MetricNames(%q) (-want +got):\n%s", tc.query, diff)
		}
	}
}
