package config_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// The fuzz tests check these invariants for any ConfigMap data:
//
//  1. Parsing never panics.
//  2. A rejection returns no config and a *config.Error with at least one
//     problem, each naming the ConfigMap and a field under "data" or
//     "binaryData".
//  3. An accepted config survives a round trip: written back as a ConfigMap
//     (Args as JSON objects where they are JSON objects, as strings
//     otherwise) it parses to the identical config.
//  4. Building an accepted config with the in-tree plugins plus the example
//     out-of-tree one either succeeds or returns a *config.Error whose
//     problems all lie under data.predicates or data.priorities of the
//     right ConfigMap (parsing cannot know the plugins, so an accepted
//     config may still name an unknown one); the Validate function agrees
//     with BuildProfiles, problem for problem.
//  5. A built profile runs on a small cluster without error, places or
//     removes no more than asked, leaves valid placements within capacity,
//     and decides the same with and without an explanation (which disables
//     the runtime's fast path).

func schedulerSeeds() [][2]string {
	return [][2]string{
		// The seed's example.
		{`[
		    {"Name": "PodFitsResources"},
		    {"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"},
		    {"Name": "EvenPodSpread", "Args": "{\"MaxSkew\": 2}"}
		  ]`, `[
		    {"Name": "AvailabilityZonePriority", "Weight": 10, "Args":  "{\"MaxSkew\": 2}"},
		    {"Name": "LowestOrdinalPriority", "Weight": 2}
		  ]`},
		// The default policy, Args as objects.
		{`[{"Name": "PodFitsResources"}]`, `[
		    {"Name": "AvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}},
		    {"Name": "AvailabilityNodePriority", "Weight": 5, "Args": {"MaxSkew": 1}},
		    {"Name": "EvenPodSpread", "Weight": 3, "Args": {"MaxSkew": 1}},
		    {"Name": "LowestOrdinalPriority", "Weight": 2}]`},
		{`[{"Name": "NoMaxResourceCount", "Args": {"NumPartitions": 2}}, {"Name": "EvenPodSpread"}]`,
			`[{"Name": "AvoidPods", "Weight": 7, "Args": {"Ordinals": [0, 3]}}, {"Name": "EvenPodSpread", "Weight": 0}]`},
		{`[]`, `[]`},
		{``, `[{"Name": "LowestOrdinalPriority", "Weight": 11}]`},
		{`[{"Name": "PodFitsResources", "Wieght": 1}]`, `[{"Name": "EvenPodSpread", "Args": "{\"MaxSkew\" 2}"}]`},
		{`[{"Name": "EvenPodSpread", "Args": {"MaxSkew": 0}}]`, `{"Name": "LowestOrdinalPriority"}`},
		{`null`, `[{"name": "AvailabilityNodePriority", "weight": 1.5, "args": [1]}]`},
	}
}

func deschedulerSeeds() []string {
	return []string{
		// The seed's example.
		`[
		  {"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		  {"Name": "RemoveWithAvailabilityZonePriority", "Weight": 10, "Args":  "{\"MaxSkew\": 2}"},
		  {"Name": "RemoveWithHighestOrdinalPriority", "Weight": 2}
		]`,
		// The default policy.
		`[{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}},
		  {"Name": "RemoveWithAvailabilityNodePriority", "Weight": 5, "Args": {"MaxSkew": 1}},
		  {"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 3, "Args": {"MaxSkew": 1}},
		  {"Name": "RemoveWithHighestOrdinalPriority", "Weight": 2}]`,
		`[]`,
		`[{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 0}, {"Name": "RemoveWithAvailabilityNodePriority", "Args": "{}"}]`,
		`[{"Name": "LowestOrdinalPriority"}]`,
		`[{"Name": "RemoveWithEvenPodSpreadPriority", "Args": {"MaxSkew": -1}, "Weight": 12}]`,
		`[{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 2},]`,
	}
}

// Key-presence bits of the fuzzed data.
const (
	withPredicates = 1 << iota
	withPriorities
	withExample
	withOddKey
)

func FuzzParseSchedulerConfigMap(f *testing.F) {
	for _, s := range schedulerSeeds() {
		f.Add(s[0], s[1], uint8(withPredicates|withPriorities))
	}
	f.Add("x", "predicates", uint8(withExample|withOddKey))
	f.Add("", "", uint8(0))
	reg := withOutOfTree(f)
	f.Fuzz(func(t *testing.T, predicates, priorities string, keys uint8) {
		data := map[string]string{}
		if keys&withPredicates != 0 {
			data[config.KeyPredicates] = predicates
		}
		if keys&withPriorities != 0 {
			data[config.KeyPriorities] = priorities
		}
		if keys&withExample != 0 {
			data[config.KeyExample] = predicates
		}
		if keys&withOddKey != 0 {
			data[priorities] = predicates // any key, possibly a known one
		}
		cfg, err := config.ParsePlaceConfigMapFromData(data, inTree)
		if !checkParse(t, cfg, err, "config-scheduler", func(cfg *config.PlaceConfig) (*config.PlaceConfig, error) {
			return config.ParsePlaceConfigMapFromData(map[string]string{
				config.KeyPredicates: encodeList(cfg.Predicates),
				config.KeyPriorities: encodeList(cfg.Priorities),
			}, inTree)
		}) {
			return
		}
		ps, err := config.BuildProfiles(context.Background(), reg, cfg, nil)
		checkBuild(t, err, config.ValidatePlaceConfig(cfg, reg), "config-scheduler")
		if err == nil {
			runPlace(t, ps.Place)
		}
	})
}

func FuzzParseDeschedulerConfigMap(f *testing.F) {
	for _, s := range deschedulerSeeds() {
		f.Add(s, "", uint8(withPriorities))
	}
	f.Add("[]", "predicates", uint8(withOddKey|withExample))
	reg := withOutOfTree(f)
	f.Fuzz(func(t *testing.T, priorities, key string, keys uint8) {
		data := map[string]string{}
		if keys&withPriorities != 0 {
			data[config.KeyPriorities] = priorities
		}
		if keys&withExample != 0 {
			data[config.KeyExample] = priorities
		}
		if keys&withOddKey != 0 {
			data[key] = priorities
		}
		cfg, err := config.ParseRemoveConfigMapFromData(data, inTree)
		if !checkParse(t, cfg, err, "config-descheduler", func(cfg *config.RemoveConfig) (*config.RemoveConfig, error) {
			return config.ParseRemoveConfigMapFromData(map[string]string{config.KeyPriorities: encodeList(cfg.Priorities)}, inTree)
		}) {
			return
		}
		ps, err := config.BuildProfiles(context.Background(), reg, nil, cfg)
		checkBuild(t, err, config.ValidateRemoveConfig(cfg, reg), "config-descheduler")
		if err == nil {
			runRemove(t, ps.Remove)
		}
	})
}

// checkParse asserts what a parse gave: a rejection (false) by
// checkRejection, or a config that parses to itself again from its
// encoding (reparse).
func checkParse[C any](t *testing.T, cfg *C, err error, configMap string, reparse func(*C) (*C, error)) bool {
	t.Helper()
	if err != nil {
		checkRejection(t, err, cfg == nil, configMap, "data")
		return false
	}
	if cfg == nil {
		t.Fatal("nil config without an error")
	}
	again, err := reparse(cfg)
	if err != nil {
		t.Fatalf("the re-encoded config does not parse: %v", err)
	}
	if diff := cmp.Diff(cfg, again); diff != "" {
		t.Fatalf("round trip changed the config (-first +again):\n%s", diff)
	}
	return true
}

// checkRejection asserts invariant 2.
func checkRejection(t *testing.T, err error, noConfig bool, configMap, under string) {
	t.Helper()
	if !noConfig {
		t.Fatal("a config alongside the error")
	}
	var cerr *config.Error
	if !errors.As(err, &cerr) || len(cerr.Problems) == 0 {
		t.Fatalf("rejection %v (%T) is not a *config.Error with problems", err, err)
	}
	for _, p := range cerr.Problems {
		if p.ConfigMap != configMap || p.Err == nil || !strings.HasPrefix(p.Err.Field, under) {
			t.Fatalf("problem %+v does not name %s and a field under %s", p, configMap, under)
		}
	}
	if err.Error() == "" {
		t.Fatal("empty error message")
	}
}

// checkBuild asserts invariant 4.
func checkBuild(t *testing.T, buildErr, validateErr error, configMap string) {
	t.Helper()
	if (buildErr == nil) != (validateErr == nil) {
		t.Fatalf("BuildProfiles: %v; Validate: %v", buildErr, validateErr)
	}
	if buildErr == nil {
		return
	}
	if buildErr.Error() != validateErr.Error() {
		t.Fatalf("BuildProfiles and Validate disagree:\n%v\n%v", buildErr, validateErr)
	}
	var cerr *config.Error
	if !errors.As(buildErr, &cerr) || len(cerr.Problems) == 0 {
		t.Fatalf("build error %v (%T) is not a *config.Error with problems", buildErr, buildErr)
	}
	for _, p := range cerr.Problems {
		f := p.Err.Field
		if p.ConfigMap != configMap || !(strings.HasPrefix(f, "data.predicates") || strings.HasPrefix(f, "data.priorities")) {
			t.Fatalf("problem %s is not under %s data.predicates or data.priorities", p, configMap)
		}
	}
}

// encodeList writes a parsed list back as a ConfigMap value.
func encodeList(list []framework.PluginConfig) string {
	var b strings.Builder
	b.WriteString("[")
	for i, pc := range list {
		if i > 0 {
			b.WriteString(",\n")
		}
		name, _ := json.Marshal(pc.Name)
		b.WriteString(`{"Name": `)
		b.Write(name)
		if pc.Weight != nil {
			b.WriteString(`, "Weight": ` + strconv.Itoa(int(*pc.Weight)))
		}
		if pc.Args != nil {
			b.WriteString(`, "Args": `)
			trimmed := bytes.TrimSpace(pc.Args)
			if json.Valid(trimmed) && trimmed[0] == '{' {
				b.Write(trimmed)
			} else {
				s, _ := json.Marshal(string(pc.Args))
				b.Write(s)
			}
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return b.String()
}

// fuzzCluster has three zones, an unzoned node, a cordoned node, an unbound
// pod and a draining one; pods hold 4 vreplicas.
func fuzzCluster() *frameworktest.Cluster {
	c := frameworktest.NewCluster(4).
		Node("a1", "zone-a").Node("b1", "zone-b").Node("a2", "zone-a").Node("c1", "zone-c").Node("x", "").Node("cordoned", "zone-b").
		Pods("a1", "b1", "a2", "c1", "x", "", "b1", "cordoned", "a1")
	return c.Cordon("cordoned").Drain(6).Use(0, 3).Use(2, 4)
}

// runPlace asserts invariant 5 for a scheduler profile.
func runPlace(t *testing.T, p *framework.Profile) {
	t.Helper()
	src := frameworktest.NewVPod("ns", "src", 9)
	src.Resources = 3
	cluster := func() framework.Cluster { return fuzzCluster() }
	runTwice(t, p, framework.Place, cluster, src, nil, 9, func(res framework.Result, placed []vsched.Placement) {
		if res.Changed > 9 || vsched.TotalVReplicas(placed) != res.Changed {
			t.Fatalf("placed %d, result says %d", vsched.TotalVReplicas(placed), res.Changed)
		}
		c := fuzzCluster()
		for _, pl := range placed {
			ord, _ := vsched.OrdinalFromPodName(pl.PodName)
			if pl.VReplicas > c.Free(ord) {
				t.Fatalf("pod %s got %d vreplicas with %d free", pl.PodName, pl.VReplicas, c.Free(ord))
			}
		}
	})
}

// runRemove asserts invariant 5 for a descheduler profile.
func runRemove(t *testing.T, p *framework.Profile) {
	t.Helper()
	base := []vsched.Placement{frameworktest.P(0, 1), frameworktest.P(1, 3), frameworktest.P(3, 2), frameworktest.P(4, 1), frameworktest.P(6, 2), frameworktest.P(7, 1)}
	src := frameworktest.NewVPod("ns", "src", 4, base...)
	cluster := func() framework.Cluster {
		return frameworktest.NewCluster(4).
			Node("a1", "zone-a").Node("b1", "zone-b").Node("c1", "zone-c").Node("cordoned", "zone-b").
			Pods("a1", "b1", "a1", "c1", "b1", "", "c1", "cordoned").Cordon("cordoned").UsePlacements(base)
	}
	runTwice(t, p, framework.Remove, cluster, src, base, 6, func(res framework.Result, left []vsched.Placement) {
		if res.Changed > 6 || vsched.TotalVReplicas(left) != 10-res.Changed {
			t.Fatalf("removed %d, %d left of 10", res.Changed, vsched.TotalVReplicas(left))
		}
	})
}

// runTwice runs p on a decision of mode about src (from base, on a fresh
// cluster each time) asking for n, without and then with an explanation.
// Each run must succeed with valid placements that pass check, and both
// must end the same: explaining changes nothing.
func runTwice(t *testing.T, p *framework.Profile, mode framework.Mode, cluster func() framework.Cluster, src vsched.VPod, base []vsched.Placement, n int32, check func(framework.Result, []vsched.Placement)) {
	t.Helper()
	var results [2][]vsched.Placement
	for i, explain := range []bool{false, true} {
		d, err := framework.NewDecision(mode, cluster(), src, base)
		if err != nil {
			t.Fatal(err)
		}
		var ex *framework.Explanation
		if explain {
			ex = &framework.Explanation{}
		}
		res, err := p.Run(context.Background(), d, n, ex)
		if err != nil {
			t.Fatalf("Run (explain=%v): %v", explain, err)
		}
		placed := d.Placements()
		check(res, placed)
		if err := vsched.ValidatePlacements(placed); err != nil {
			t.Fatal(err)
		}
		results[i] = placed
	}
	if diff := cmp.Diff(results[0], results[1]); diff != "" {
		t.Fatalf("plain and explained runs differ (-plain +explained):\n%s", diff)
	}
}

// FuzzBuildProfiles reaches invariants 4 and 5 far more often than the
// fuzzers above, whose random names rarely name a plugin: it writes
// well-formed ConfigMaps from registered plugin names, picked by the fuzzed
// bytes, with fuzzed weights and Args, and checks that they parse, and then
// build or fail with well-formed problems, and run.
func FuzzBuildProfiles(f *testing.F) {
	f.Add([]byte{0, 1, 2}, []byte{0, 10, 3}, `{"MaxSkew": 1}`, `{"NumPartitions": 2}`, `{"Ordinals": [0, 2]}`)
	f.Add([]byte{3, 4, 5, 6}, []byte{5, 5, 255, 0}, `{"MaxSkew": 2}`, `{}`, `{"MaxSkew": 0}`)
	f.Add([]byte{7, 8, 9}, []byte{1, 2, 3}, `"{\"MaxSkew\": 3}"`, ``, `[1]`)
	reg := withOutOfTree(f)
	filters := reg.Names(framework.KindFilter, framework.Place)
	scores := reg.Names(framework.KindScore, framework.Place)
	removes := reg.Names(framework.KindScore, framework.Remove)
	f.Fuzz(func(t *testing.T, picks, weights []byte, args0, args1, args2 string) {
		args := []string{args0, args1, args2}
		entry := func(names []string, i int, weighted bool) string {
			pc := framework.PluginConfig{Name: names[int(picks[i])%len(names)]}
			if i < len(weights) && weights[i]&0x80 == 0 && weighted {
				w := int32(weights[i]%13) - 1 // -1 to 11
				pc.Weight = &w
			}
			if a := int(picks[i]>>4) % 4; a < 3 {
				pc.Args = []byte(args[a])
			}
			return encodeList([]framework.PluginConfig{pc})
		}
		var pred, prio, desc []string
		for i := range picks {
			if i >= 12 {
				break
			}
			switch i % 3 {
			case 0:
				pred = append(pred, entry(filters, i, false))
			case 1:
				prio = append(prio, entry(scores, i, true))
			case 2:
				desc = append(desc, entry(removes, i, true))
			}
		}
		join := func(lists []string) string {
			var items []string
			for _, l := range lists {
				items = append(items, strings.TrimSuffix(strings.TrimPrefix(l, "["), "]"))
			}
			return "[" + strings.Join(items, ",\n") + "]"
		}
		sched, err := config.ParsePlaceConfigMapFromData(map[string]string{
			config.KeyPredicates: join(pred), config.KeyPriorities: join(prio),
		}, inTree)
		if err != nil {
			t.Fatalf("a well-formed config-scheduler was rejected: %v", err)
		}
		desched, err := config.ParseRemoveConfigMapFromData(map[string]string{config.KeyPriorities: join(desc)}, inTree)
		if err != nil {
			t.Fatalf("a well-formed config-descheduler was rejected: %v", err)
		}
		ps, err := config.BuildProfiles(context.Background(), reg, sched, desched)
		if err != nil {
			var cerr *config.Error
			if !errors.As(err, &cerr) || len(cerr.Problems) == 0 {
				t.Fatalf("build error %v (%T) is not a *config.Error with problems", err, err)
			}
			for _, p := range cerr.Problems {
				if f := p.Err.Field; !(strings.HasPrefix(f, "data.predicates") || strings.HasPrefix(f, "data.priorities")) {
					t.Fatalf("problem %s is not under data.predicates or data.priorities", p)
				}
			}
			// The Validate functions together say the same.
			var parts []string
			for _, verr := range []error{config.ValidatePlaceConfig(sched, reg), config.ValidateRemoveConfig(desched, reg)} {
				if verr != nil {
					parts = append(parts, verr.Error())
				}
			}
			if got := strings.Join(parts, "; "); got != err.Error() {
				t.Fatalf("BuildProfiles and Validate disagree:\n%v\n%v", err, got)
			}
			return
		}
		runPlace(t, ps.Place)
		runRemove(t, ps.Remove)
	})
}
