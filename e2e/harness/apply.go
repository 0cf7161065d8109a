//go:build e2e

package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// FieldManager is the field manager of everything the e2e suite applies.
const FieldManager = "vsched-e2e"

// ReadManifests reads every *.yaml file of dir, in name order, split into
// objects.
func ReadManifests(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := DecodeManifests(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// DecodeManifests splits a multi-document YAML into objects.
func DecodeManifests(b []byte) ([]*unstructured.Unstructured, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		if string(j) == "null" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(j); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
}

// Apply applies objects with server-side apply and strict field validation
// (an unknown or duplicate field is an error, as `kubectl apply
// --server-side --validate=strict` would report). A CRD is waited for
// until Established before the objects after it.
func (cp *ControlPlane) Apply(ctx context.Context, objs []*unstructured.Unstructured) error {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cp.Kube.Discovery()))
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		var mapping *meta.RESTMapping
		err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				mapper.Reset() // a CRD applied just before
				return false, nil
			}
			mapping = m
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("%s %s: no REST mapping: %w", gvk, u.GetName(), err)
		}
		var ri dynamic.ResourceInterface
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = cp.Dynamic.Resource(mapping.Resource).Namespace(u.GetNamespace())
		} else {
			ri = cp.Dynamic.Resource(mapping.Resource)
		}
		body, err := u.MarshalJSON()
		if err != nil {
			return err
		}
		force := true
		if _, err := ri.Patch(ctx, u.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
			FieldManager: FieldManager, Force: &force, FieldValidation: "Strict",
		}); err != nil {
			return fmt.Errorf("applying %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
		}
		if gvk.Kind == "CustomResourceDefinition" {
			if err := cp.waitEstablished(ctx, u.GetName()); err != nil {
				return err
			}
			mapper.Reset()
		}
	}
	return nil
}

// ApplyDir applies every manifest of dir.
func (cp *ControlPlane) ApplyDir(ctx context.Context, dir string) error {
	objs, err := ReadManifests(dir)
	if err != nil {
		return err
	}
	return cp.Apply(ctx, objs)
}

// ApplyYAML applies the objects of a YAML text.
func (cp *ControlPlane) ApplyYAML(ctx context.Context, text string) error {
	objs, err := DecodeManifests([]byte(text))
	if err != nil {
		return err
	}
	return cp.Apply(ctx, objs)
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func (cp *ControlPlane) waitEstablished(ctx context.Context, name string) error {
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		u, err := cp.Dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}

// ServiceAccountKubeconfig mints a token for the ServiceAccount (TokenRequest)
// and writes a kubeconfig that acts as it, so that a process run with it
// has exactly the RBAC the manifests grant.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	var tok *authenticationv1.TokenRequest
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		exp := int64(6 * 3600)
		t, err := cp.Kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
		if apierrs.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		tok = t
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", namespace, name, err)
	}
	path := cp.path(strings.ReplaceAll(namespace+"-"+name, "/", "_") + ".kubeconfig")
	return path, cp.WriteKubeconfig(path, tok.Status.Token)
}
