// Package kustomizetest renders the sample controller's kustomize base
// and overlays (deploy/sample/Kustomization, deploy/overlays/*) with
// kustomize's own library (sigs.k8s.io/kustomize/api's krusty, what
// kubectl apply -k runs) and checks every object they produce against its
// Kubernetes type; its command render prints a rendering for the e2e
// suite to apply. It is a module of its own so that vsched's go.mod
// never depends on kustomize.
package kustomizetest
