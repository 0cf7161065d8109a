// Package plugins assembles vsched's in-tree plugins into a registry.
//
// # Layout
//
// Every plugin lives in a package of its own, named after it in lower case:
//
//	plugins/core/<plugin>   generic plugins, for any kind of source
//	plugins/kafka/<plugin>  plugins that only make sense for Kafka sources
//	plugins/internal/...    helpers shared by in-tree plugins
//
// and every plugin package has the same files:
//
//	doc.go         what the plugin decides and its exact formula
//	types.go       const Name and, for a plugin with arguments, type Args
//	defaults.go    SetDefaults, filling unset Args fields
//	validation.go  Validate, reporting each problem under its field path
//	plugin.go      var Spec, the plugin type and its constructor New
//	plugin_test.go table tests, args decoding, and an end-to-end profile run
//
// A plugin without arguments uses framework.NoArgs and has no defaults.go or
// validation.go.
//
// # Writing an out-of-tree plugin
//
// An out-of-tree plugin is written exactly like an in-tree one, in its own
// module if need be:
//
//  1. Implement framework.FilterPlugin and/or framework.ScorePlugin. The same
//     instance serves every decision, concurrently: keep per-decision values
//     in the Decision (framework.PreparePlugin with Decision.Store and Load),
//     never in the plugin. Implement framework.EquivalenceAware only if the
//     plugin keeps its promise; a profile containing one plugin that does
//     not (or does not say) is evaluated pod by pod, which is correct but
//     slower.
//  2. Describe it with a framework.Spec[Args]: its Name, Kinds (filter,
//     score), Modes (ForPlace for scheduler profiles, ForRemove for
//     descheduler profiles), Defaults, Validate and New. Args are decoded
//     strictly (sigs.k8s.io/json): a misspelt field, a field given twice
//     and one whose case differs are reported, with the nearest field
//     name, rather than ignored. Make an args field a pointer when its zero
//     value is meaningful, so that Defaults can tell "absent" from an
//     explicit 0. Register checks that the plugin implements the Kinds
//     declared; set Spec.Type when the default args do not validate.
//     Export New returning the plugin's own type, for embedders that build
//     it without a registry, and give it to the Spec as
//     framework.NewFunc(New) (framework.NoArgsNewFunc for a plugin without
//     args). New starts with framework.DefaultedArgs(Name, args,
//     SetDefaults, Validate), so that it checks args as the registry does
//     and names the plugin in its error.
//  3. Register Spec.Registration() in a framework.Registry, either directly
//     (Registry.Register on a Clone of the in-tree registry) or by building
//     a registry of one's own plugins with framework.NewRegistry and merging
//     it (Registry.Merge). A name already registered is an error either way,
//     so an out-of-tree plugin can never silently replace an in-tree one.
//
// The resulting registry is what configuration is checked and built against
// (framework.BuildProfile). Package plugins/example (AvoidPods) is the
// template to copy: the layout above, tests on public packages only.
//
// # The default policy
//
// DefaultPlaceConfig and DefaultRemoveConfig are vsched's default
// policy, what an absent config-scheduler or config-descheduler means. It
// lives here, with the plugins it names, rather than in package config: the
// in-tree registry carries it (InTreeDefaults, framework.Registry.Defaults)
// and config reads it from the registry it is given, so a program that
// parses configuration links only the plugins its registry holds.
package plugins
