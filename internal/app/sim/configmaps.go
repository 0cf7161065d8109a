package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
)

// ConfigKind says which of vsched's ConfigMaps a ConfigMap is.
type ConfigKind int

// The ConfigMaps vsched reads.
const (
	SchedulerConfig ConfigKind = iota
	DeschedulerConfig
	AutoscalerConfig
	numConfigKinds
)

// SourceAutoscalerConfig is config-source-autoscaler: validate checks it;
// scenarios do not carry it (it is past the kinds a scenario holds).
const SourceAutoscalerConfig = numConfigKinds

var configNames = [numConfigKinds]string{
	config.DefaultSchedulerConfigMapName,
	config.DefaultDeschedulerConfigMapName,
	config.DefaultAutoscalerConfigMapName,
}

// scenarioKeys are the scenario fields holding each ConfigMap's data.
var scenarioKeys = [numConfigKinds]string{"scheduler", "descheduler", "autoscaler"}

func (k ConfigKind) String() string {
	if k == SourceAutoscalerConfig {
		return config.DefaultSourceAutoscalerConfigMapName
	}
	return configNames[k]
}

// configKindOf tells a ConfigMap's kind by its name: the default names, or
// a name ending in "-scheduler", "-descheduler", "-source-autoscaler" or
// "-autoscaler" (as a deployment with its own names would have).
func configKindOf(name string) (ConfigKind, bool) {
	if name == config.DefaultSourceAutoscalerConfigMapName || strings.HasSuffix(name, "-source-autoscaler") {
		return SourceAutoscalerConfig, true
	}
	for k, n := range configNames {
		if name == n {
			return ConfigKind(k), true
		}
	}
	switch {
	case strings.HasSuffix(name, "-descheduler"):
		return DeschedulerConfig, true
	case strings.HasSuffix(name, "-autoscaler"):
		return AutoscalerConfig, true
	case strings.HasSuffix(name, "-scheduler"):
		return SchedulerConfig, true
	}
	return 0, false
}

// ConfigMapFile is a ConfigMap read from a manifest.
type ConfigMapFile struct {
	Kind      ConfigKind
	ConfigMap *corev1.ConfigMap
	doc       *document
}

// configMapFields are the fields of a ConfigMap manifest.
var configMapFields = []string{"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"}

// decodeConfigMap reads a ConfigMap manifest document, checking its shape
// (but not yet its data).
func decodeConfigMap(doc *document) (*ConfigMapFile, Problems) {
	d := &decoder{doc: doc}
	ms, err := members(doc.json)
	if err != nil {
		d.problem(nil, "must be a ConfigMap manifest (a mapping), not %s", jsonKind(doc.json))
		return nil, d.probs
	}
	for _, m := range ms {
		if !slices.Contains(configMapFields, m.key) {
			d.problem(path{m.key}, "unknown field%s; a ConfigMap has %s", didYouMean(m.key, configMapFields), strings.Join(configMapFields, ", "))
		}
		if m.key == "data" && !isNull(m.value) {
			dms, err := members(m.value)
			if err != nil {
				d.problem(path{"data"}, "must be a mapping of keys to strings, not %s", jsonKind(m.value))
				continue
			}
			for _, dm := range dms {
				if k := jsonKind(dm.value); k != "a string" && k != "null" {
					hint := ""
					if k == "a number" || k == "a boolean" {
						hint = fmt.Sprintf(" (quote it: %q)", shown(dm.value))
					}
					d.problem(path{"data", dm.key}, "must be a string, not %s%s", k, hint)
				}
			}
		}
	}
	if len(d.probs) > 0 {
		return nil, d.probs
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(doc.json, &cm); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			d.problem(parseFieldPath(te.Field), "cannot be a JSON %s", te.Value)
		} else {
			d.problem(nil, "%v", err)
		}
		return nil, d.probs
	}
	if cm.Kind != "ConfigMap" {
		d.problem(path{"kind"}, "is %q; vsched reads ConfigMaps", cm.Kind)
	}
	if cm.APIVersion != "v1" {
		d.problem(path{"apiVersion"}, "is %q; a ConfigMap's apiVersion is v1", cm.APIVersion)
	}
	kind, ok := configKindOf(cm.Name)
	if !ok {
		what := "is missing"
		if cm.Name != "" {
			what = fmt.Sprintf("%q is not a ConfigMap vsched reads%s", cm.Name, didYouMean(cm.Name, append(configNames[:], config.DefaultSourceAutoscalerConfigMapName)))
		}
		d.problem(path{"metadata", "name"}, "%s; vsched reads %s, %s, %s and %s", what, configNames[0], configNames[1], configNames[2], config.DefaultSourceAutoscalerConfigMapName)
	}
	if len(d.probs) > 0 {
		return nil, d.probs
	}
	return &ConfigMapFile{Kind: kind, ConfigMap: &cm, doc: doc}, nil
}

// registryOrInTree is reg, or the in-tree plugins with vsched's default
// policy when reg is nil.
func registryOrInTree(reg *framework.Registry) *framework.Registry {
	if reg == nil {
		return plugins.MustInTreeRegistry()
	}
	return reg
}

// checkConfig parses and validates one ConfigMap with the config package,
// locating every problem it reports in doc. prefix is where the data is:
// nil for a manifest (problems name "data..."), {"scheduler"} and the like
// for a scenario.
func checkConfig(kind ConfigKind, cm *corev1.ConfigMap, doc *document, inScenario bool, reg *framework.Registry) Problems {
	var err error
	reg = registryOrInTree(reg)
	switch kind {
	case SchedulerConfig:
		var c *config.PlaceConfig
		if c, err = config.ParsePlaceConfigMap(cm, reg); err == nil {
			err = config.ValidatePlaceConfig(c, reg)
		}
	case DeschedulerConfig:
		var c *config.RemoveConfig
		if c, err = config.ParseRemoveConfigMap(cm, reg); err == nil {
			err = config.ValidateRemoveConfig(c, reg)
		}
	case AutoscalerConfig:
		_, err = config.ParseAutoscalerConfigMap(cm)
	case SourceAutoscalerConfig:
		_, err = config.ParseSourceAutoscalerConfigMap(cm)
	}
	if err == nil {
		return nil
	}
	return configProblems(err, kind, doc, inScenario)
}

// configProblems turns the config package's error into located problems.
func configProblems(err error, kind ConfigKind, doc *document, inScenario bool) Problems {
	var ce *config.Error
	if !errors.As(err, &ce) {
		return Problems{{File: doc.file, Step: -1, Message: err.Error()}}
	}
	var out Problems
	for _, p := range ce.Problems {
		fp := parseFieldPath(p.Err.Field)
		if key, ok := p.Err.BadValue.(string); ok && len(fp) == 1 && (fp[0] == "data" || fp[0] == "binaryData") {
			// An unknown key: point at it.
			fp = path{fp[0], key}
		}
		pr := Problem{File: doc.file, Step: -1, Message: p.Err.ErrorBody()}
		if inScenario {
			if len(fp) > 0 && fp[0] == "data" {
				fp = fp[1:]
			}
			fp = append(path{scenarioKeys[kind]}, fp...)
			pr.Field = fp.String()
		} else {
			pr.Field = p.ConfigMap + ": " + p.Err.Field
		}
		pr.Line = doc.line(fp)
		pr.Path = fp.String()
		out = append(out, pr)
	}
	return out
}

// LoadConfigMaps reads ConfigMap manifests (YAML or JSON, several per file
// separated by "---") and checks each against the in-tree plugins. Every
// problem of every file is returned; objects vsched does not read are
// skipped.
func LoadConfigMaps(files []NamedData) ([]*ConfigMapFile, Problems) {
	cms, _, ps := ReadConfigMaps(files, nil)
	return cms, ps
}

// ReadConfigMaps reads ConfigMap manifests and checks each against reg
// (nil: the in-tree plugins). Objects vsched does not read (other
// ConfigMaps, Deployments, CRDs, ...) are returned as skipped, so that a
// deployment's manifests can be given as they are; it is a problem when
// the files hold no ConfigMap vsched reads at all.
func ReadConfigMaps(files []NamedData, reg *framework.Registry) ([]*ConfigMapFile, []Skipped, Problems) {
	out, skipped, probs := ReadManifests(files, reg)
	if len(out) == 0 && len(probs) == 0 && len(skipped) > 0 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name
		}
		probs = append(probs, Problem{File: strings.Join(names, ", "), Step: -1,
			Message: fmt.Sprintf("holds no ConfigMap vsched reads (%s, %s or %s), only %s", configNames[0], configNames[1], configNames[2], SkippedList(skipped))})
	}
	return out, skipped, probs
}

// ReadManifests is ReadConfigMaps for the manifests beside a scenario
// (-f DIR), which need hold no ConfigMap.
func ReadManifests(files []NamedData, reg *framework.Registry) ([]*ConfigMapFile, []Skipped, Problems) {
	var out []*ConfigMapFile
	var skipped []Skipped
	var probs Problems
	for _, f := range files {
		docs, ps := splitFile(f.Name, f.Data)
		probs = append(probs, ps...)
		if len(docs) == 0 && len(ps) == 0 {
			probs = append(probs, Problem{File: f.Name, Step: -1, Message: "holds no ConfigMap"})
		}
		for _, doc := range docs {
			if !hasKind(doc) {
				probs = append(probs, Problem{File: f.Name, Line: doc.firstLine, Step: -1,
					Message: "is not a ConfigMap manifest: it has no kind (a scenario is given with -f)"})
				continue
			}
			if sk, ok := skippable(doc); ok {
				skipped = append(skipped, sk)
				continue
			}
			cmf, ps := decodeConfigMap(doc)
			sortProblems(ps)
			probs = append(probs, ps...)
			if cmf == nil {
				continue
			}
			if ps := checkConfig(cmf.Kind, cmf.ConfigMap, doc, false, reg); len(ps) > 0 {
				probs = append(probs, ps...)
				continue
			}
			out = append(out, cmf)
		}
	}
	return out, skipped, probs
}

// File is the manifest file the ConfigMap was read from.
func (f *ConfigMapFile) File() string { return f.doc.file }

// SplitInputs sorts the files -f named into scenarios (a file whose first
// document has no kind, or is empty) and Kubernetes manifests.
func SplitInputs(files []NamedData) (scenarios, manifests []NamedData, ps Problems) {
	for _, f := range files {
		docs, p := splitFile(f.Name, f.Data)
		switch {
		case len(p) > 0:
			ps = append(ps, p...)
		case len(docs) > 0 && hasKind(docs[0]):
			manifests = append(manifests, f)
		default:
			scenarios = append(scenarios, f)
		}
	}
	return scenarios, manifests, ps
}

// Skipped is an object of a manifest file that vsched does not read.
type Skipped struct {
	File string
	Line int
	// Kind and Name are the object's.
	Kind, Name string
}

func (s Skipped) String() string {
	if s.Name == "" {
		return s.Kind
	}
	return s.Kind + " " + s.Name
}

// maxSkippedShown is how many skipped objects a note names.
const maxSkippedShown = 5

// SkippedList names skipped objects in one line: "ConfigMap
// config-leader-election, Namespace sample and 3 more".
func SkippedList(sk []Skipped) string {
	n := min(len(sk), maxSkippedShown)
	parts := make([]string, n)
	for i := range n {
		parts[i] = sk[i].String()
	}
	out := strings.Join(parts, ", ")
	if len(sk) > n {
		out += fmt.Sprintf(" and %d more", len(sk)-n)
	}
	return out
}

// skippable tells an object vsched does not read: any kind but ConfigMap,
// and ConfigMaps of other names. A near miss ("ConfigMaps",
// "config-schedulr") is not skipped, so that its problem is reported.
func skippable(doc *document) (Skipped, bool) {
	var id struct {
		Kind     any `json:"kind"`
		Metadata struct {
			Name any `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(doc.json, &id) != nil {
		return Skipped{}, false
	}
	kind, _ := id.Kind.(string)
	name, _ := id.Metadata.Name.(string)
	sk := Skipped{File: doc.file, Line: doc.line(path{"kind"}), Kind: kind, Name: name}
	switch {
	case kind == "":
		return sk, false
	case kind != "ConfigMap":
		return sk, didYouMean(kind, []string{"ConfigMap"}) == ""
	case name == "":
		return sk, false
	}
	if _, ok := configKindOf(name); ok {
		return sk, false
	}
	return sk, didYouMean(name, configNames[:]) == ""
}

// NamedData is a file's name and contents.
type NamedData struct {
	Name string
	Data []byte
}

// splitFile parses every document of a file.
func splitFile(name string, data []byte) ([]*document, Problems) {
	raw, lines := splitDocuments(data)
	var out []*document
	var probs Problems
	for i, r := range raw {
		doc, p := parseDocument(name, r, lines[i])
		if p != nil {
			probs = append(probs, *p)
			continue
		}
		out = append(out, doc)
	}
	return out, probs
}

// scenarioConfigMap builds the ConfigMap the scenario's inline data stands
// for; nil when the scenario does not give it.
func scenarioConfigMap(kind ConfigKind, data ConfigData) *corev1.ConfigMap {
	if data == nil {
		return nil
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: configNames[kind]},
		Data:       map[string]string(data),
	}
}
