// Package frameworktest builds small in-memory clusters and fake plugins for
// tests of the framework and of plugins. It is a fixture, not a scheduler:
// package state is the real Cluster implementation.
package frameworktest
