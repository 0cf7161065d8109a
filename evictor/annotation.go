package evictor

// DefaultAnnotation marks a pod whose vreplicas must move away.
// Any value other than "false" counts.
const DefaultAnnotation = "vsched.dev/draining"
