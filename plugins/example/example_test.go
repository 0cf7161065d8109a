package example_test

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/plugins/example"
)

// Merging the plugin's registry into the in-tree one lets a
// config-scheduler name it; here it keeps five vreplicas off pods 0 and 1
// of four pods of capacity 3.
func Example() {
	reg := plugins.MustInTreeRegistry()
	ext, err := example.Registry()
	if err != nil {
		panic(err)
	}
	if err := reg.Merge(ext); err != nil {
		panic(err)
	}
	sched, err := config.ParsePlaceConfigMapFromData(map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}]`,
		"priorities": `[{"Name": "AvoidPods", "Weight": 10, "Args": {"Ordinals": [0, 1]}}, {"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}, reg)
	if err != nil {
		panic(err)
	}
	profiles, err := config.BuildProfiles(context.Background(), reg, sched, nil)
	if err != nil {
		panic(err)
	}
	cluster := frameworktest.NewCluster(3).Node("n0", "zone-a").Pods("n0", "n0", "n0", "n0")
	d, err := framework.NewDecision(framework.Place, cluster, frameworktest.NewVPod("ns", "src", 5), nil)
	if err != nil {
		panic(err)
	}
	if _, err := profiles.Place.Run(context.Background(), d, 5, nil); err != nil {
		panic(err)
	}
	for _, p := range d.Placements() {
		fmt.Printf("%s: %d\n", p.PodName, p.VReplicas)
	}
	// Output:
	// adapter-2: 3
	// adapter-3: 2
}
