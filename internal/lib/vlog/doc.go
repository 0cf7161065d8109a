// Package vlog picks the logger vsched's packages write to, so that their
// logs reach whatever logger the embedding controller uses and nothing is
// written when it uses none.
//
// The order is: a logr.Logger the embedder gave explicitly (a Config
// field); else knative.dev/pkg's logger in the context; else a logr.Logger
// in the context (controller-runtime puts one there); else a logger that
// discards everything. knative's FromContext alone would fall back to its
// own JSON logger on stderr, which a controller-runtime operator never
// asked for.
//
// vsched's code logs through zap's SugaredLogger, as knative does; a
// logr.Logger is reached through a zapcore.Core that forwards each entry to
// it, with zap's Debug level as logr's V(1).
package vlog
