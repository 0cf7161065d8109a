module github.com/vsched/vsched

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	k8s.io/api v0.35.6 // indirect
	k8s.io/apimachinery v0.35.6 // indirect
	k8s.io/client-go v0.35.6 // indirect
	knative.dev/pkg v0.0.0-20260615201544-6300c57a9e78 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
