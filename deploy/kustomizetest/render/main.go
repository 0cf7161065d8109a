// Command render prints what `kustomize build DIR` (and so `kubectl apply
// -k DIR`) renders, as one multi-document YAML on standard output. It runs
// kustomize's own library (krusty, with kubectl's default options), the one
// this module's tests check the renderings with, so that the e2e suite can
// apply the same objects without vsched's module depending on kustomize:
//
//	cd deploy/kustomizetest && go run ./render ../overlays/spread
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: render DIR (a kustomization's folder)")
		os.Exit(2)
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "kustomize build %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	out, err := m.AsYaml()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kustomize build %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
