package removewithavailabilityzonepriority

// Name is the plugin's name in configuration.
const Name = "RemoveWithAvailabilityZonePriority"

// Args configures RemoveWithAvailabilityZonePriority.
type Args struct {
	// MaxSkew is the largest difference the plugin keeps between the
	// source's vreplicas in two counted zones, when it can; at least 1, 1
	// when unset. It is a pointer so that an explicit 0 is rejected rather
	// than defaulted.
	MaxSkew *int32 `json:"MaxSkew,omitempty"`
}
