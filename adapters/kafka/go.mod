module github.com/vsched/vsched/adapters/kafka

go 1.25.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/twmb/franz-go v1.21.7
	github.com/twmb/franz-go/pkg/kadm v1.18.0
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260515175617-8268a5d078c0
	github.com/twmb/franz-go/pkg/kmsg v1.13.1
	github.com/vsched/vsched v0.1.0
	k8s.io/apimachinery v0.35.6
)

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/pierrec/lz4/v4 v4.1.26 // indirect
	golang.org/x/crypto v0.51.0 // indirect
)
