// Package example is the template for an out-of-tree plugin: copy this
// directory into your module, rename the package, Name and Args, and
// replace Score (or write Filter) with your plugin's decision. It has the
// files every in-tree plugin has (see package plugins):
//
//	doc.go         what the plugin decides and its exact formula
//	types.go       const Name and type Args
//	defaults.go    SetDefaults, filling unset Args fields
//	validation.go  Validate, reporting each problem under its field path
//	plugin.go      var Spec, the plugin type and its constructor New,
//	               which checks its args with framework.DefaultedArgs
//	plugin_test.go table tests, args decoding, and a profile run
//
// and its tests use only public packages (framework/frameworktest), so they
// keep working in your module.
//
// The plugin is AvoidPods, a scheduler score plugin that steers vreplicas
// away from the pods with the configured ordinals, for example pods an
// operator wants to drain slowly:
//
//	{"Name": "AvoidPods", "Weight": 10, "Args": {"Ordinals": [0, 1]}}
//
// A listed pod scores Args.Score (MinScore, 0, unless set) and every other
// pod MaxScore, 100. It is a preference, not a rule: when only avoided pods
// have room, vreplicas still go there (write a filter plugin for a hard
// rule).
//
// To use it, give its registration to your own vsched command
// (cmd/vsched/app, see examples/myvsched):
//
//	app.Run(os.Args[1:], app.WithPlugin(example.Spec.Registration()))
//
// or merge its registry into the in-tree one where you build profiles:
//
//	reg := plugins.MustInTreeRegistry()
//	ext, err := example.Registry()
//	...
//	err = reg.Merge(ext)
//	profiles, err := config.BuildProfiles(ctx, reg, sched, desched)
package example
