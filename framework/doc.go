// Package framework is vsched's plugin API and the runtime that drives a
// profile of plugins.
//
// A decision places (or removes) a source's vreplicas one at a time. For each
// vreplica the runtime runs the profile's filters on every candidate pod (the
// first rejection wins), scores the survivors with every score plugin, each
// score in [0, MaxScore], multiplies each by its plugin's weight, sums in
// int64 and picks the highest total. Ties go to the pod with the least free
// capacity (best fit), then to the lowest ordinal, when placing, and to the
// highest ordinal when removing: there is no randomness anywhere.
//
// Plugins never see client-go: they read the cluster through the Cluster
// interface (implemented by package state) and the source's own spread
// through the Decision, which the runtime keeps up to date as each vreplica is
// placed. A plugin that needs more may precompute it once per decision
// (PreparePlugin) and keep it current (ChangeObserver).
//
// Evaluating every candidate for every vreplica would cost what the pods
// are. Plugins that promise equivalence (EquivalenceAware, and
// ZoneEquivalenceAware for whole zones) let the runtime evaluate one pod per
// class, found through the cluster's indexes (FreeCandidateIndex,
// ZoneFreeIndex, RoomIndex): a decision then costs what its source touches
// plus the zones, not the nodes.
//
// The same interfaces serve the scheduler profile (placing) and the
// descheduler profile (choosing which vreplicas to remove); Decision.Mode says
// which is running.
//
// The plugin API and the runtime share one package on purpose. A plugin
// author imports this package alone either way, and the runtime changes a
// Decision through unexported methods as it places each vreplica (apply):
// in a package of its own it would need exported mutators that a plugin
// could call in the middle of a decision.
//
// A plugin is described by a Spec and registered in a Registry, which
// refuses a Spec whose plugin does not implement the kinds it declares.
// Args are decoded strictly (DecodeStrict: unknown, duplicate and
// case-mismatched fields are errors naming the nearest field), defaulted
// and validated once, when a profile is built; an unknown plugin name is
// reported with the nearest registered one. ExampleSpec writes a plugin.
// NewFunc and DefaultedArgs spare a plugin package the code every exported
// constructor repeats (see plugins/example).
package framework
