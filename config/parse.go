package config

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/lib/suggest"
)

var (
	dataPath       = field.NewPath("data")
	binaryDataPath = field.NewPath("binaryData")
	predicatesPath = dataPath.Child(KeyPredicates)
	prioritiesPath = dataPath.Child(KeyPriorities)
)

// ParsePlaceConfigMap parses a config-scheduler ConfigMap. Errors name
// the ConfigMap by cm.Name (DefaultSchedulerConfigMapName when cm has no
// name) and the parsed config remembers it.
//
// A nil ConfigMap, one without data, and a key that is absent or blank all
// mean reg's default policy (framework.Defaults; for the in-tree registry
// plugins.DefaultPlaceConfig) for what is missing: a ConfigMap listing
// only priorities keeps the default predicates, and vice versa. A nil reg
// has no default: what is missing is empty. An explicit "[]" means none.
//
// Parsing checks the format only: the keys, the JSON of the lists, and the
// shape of every entry. Whether the plugins exist and their Args and Weight
// are valid is checked against a registry by ValidatePlaceConfig and
// BuildProfiles. The returned error, if any, is a *Error listing every
// problem found.
func ParsePlaceConfigMap(cm *corev1.ConfigMap, reg *framework.Registry) (*PlaceConfig, error) {
	name, data, binary := unpack(cm, DefaultSchedulerConfigMapName)
	return parseScheduler(name, data, binary, defaultScheduler(reg))
}

// ParsePlaceConfigMapFromData is ParsePlaceConfigMap for the data
// of a ConfigMap named DefaultSchedulerConfigMapName.
func ParsePlaceConfigMapFromData(data map[string]string, reg *framework.Registry) (*PlaceConfig, error) {
	return parseScheduler(DefaultSchedulerConfigMapName, data, nil, defaultScheduler(reg))
}

// ParseRemoveConfigMap parses a config-descheduler ConfigMap, whose
// only key is "priorities". A nil ConfigMap, one without data, and an
// absent or blank "priorities" mean reg's default policy (for the in-tree
// registry plugins.DefaultRemoveConfig); an explicit "[]" means none.
// Otherwise it behaves as ParsePlaceConfigMap.
func ParseRemoveConfigMap(cm *corev1.ConfigMap, reg *framework.Registry) (*RemoveConfig, error) {
	name, data, binary := unpack(cm, DefaultDeschedulerConfigMapName)
	return parseDescheduler(name, data, binary, defaultDescheduler(reg))
}

// ParseRemoveConfigMapFromData is ParseRemoveConfigMap for the
// data of a ConfigMap named DefaultDeschedulerConfigMapName.
func ParseRemoveConfigMapFromData(data map[string]string, reg *framework.Registry) (*RemoveConfig, error) {
	return parseDescheduler(DefaultDeschedulerConfigMapName, data, nil, defaultDescheduler(reg))
}

func unpack(cm *corev1.ConfigMap, defaultName string) (string, map[string]string, map[string][]byte) {
	if cm == nil {
		return defaultName, nil, nil
	}
	name := cm.Name
	if name == "" {
		name = defaultName
	}
	return name, cm.Data, cm.BinaryData
}

func parseScheduler(name string, data map[string]string, binary map[string][]byte, cfg *PlaceConfig) (*PlaceConfig, error) {
	if err := parseLists(name, data, binary, dataList{KeyPredicates, &cfg.Predicates}, dataList{KeyPriorities, &cfg.Priorities}); err != nil {
		return nil, err
	}
	cfg.ConfigMap = name
	return cfg, nil
}

func parseDescheduler(name string, data map[string]string, binary map[string][]byte, cfg *RemoveConfig) (*RemoveConfig, error) {
	if err := parseLists(name, data, binary, dataList{KeyPriorities, &cfg.Priorities}); err != nil {
		return nil, err
	}
	cfg.ConfigMap = name
	return cfg, nil
}

// dataList is a data key holding a plugin list, and where it decodes to.
type dataList struct {
	key string
	dst *[]framework.PluginConfig
}

// parseLists checks the ConfigMap's size and keys (only the lists' and
// KeyExample are known) and decodes each list that is given and not blank
// over its destination. Every problem comes back in one *Error.
func parseLists(name string, data map[string]string, binary map[string][]byte, lists ...dataList) error {
	if errs := checkSize(data, binary); errs != nil {
		return asError(problems(name, errs))
	}
	keys := make([]string, len(lists))
	for i, l := range lists {
		keys[i] = l.key
	}
	errs := checkKeys(name, data, binary, keys...)
	for _, l := range lists {
		if v, ok := data[l.key]; ok && strings.TrimSpace(v) != "" {
			list, lerrs := decodeList(v, dataPath.Child(l.key))
			*l.dst = list
			errs = append(errs, lerrs...)
		}
	}
	if len(errs) > 0 {
		return asError(problems(name, errs))
	}
	return nil
}

// checkKeys reports every data key other than allowed and KeyExample, and
// every binaryData key, in sorted order.
func checkKeys(name string, data map[string]string, binary map[string][]byte, allowed ...string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if k == KeyExample || slices.Contains(allowed, k) {
			continue
		}
		errs = append(errs, field.Invalid(dataPath, k, "unknown key"+suggest.DidYouMean(k, allowed, false)+"; "+allowedKeys(name, allowed)))
	}
	for _, k := range slices.Sorted(maps.Keys(binary)) {
		detail := "the configuration is read from data only"
		if slices.Contains(allowed, k) {
			detail = "move " + strconv.Quote(k) + " to data; " + detail
		}
		errs = append(errs, field.Invalid(binaryDataPath, k, detail))
	}
	return errs
}

// allowedKeys says which keys the ConfigMap name takes.
func allowedKeys(name string, allowed []string) string {
	ignored := " (" + strconv.Quote(KeyExample) + " is ignored)"
	if len(allowed) == 1 {
		return "the only key of " + name + " is " + strconv.Quote(allowed[0]) + ignored
	}
	return "the keys of " + name + " are " + quoteList(allowed) + ignored
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
