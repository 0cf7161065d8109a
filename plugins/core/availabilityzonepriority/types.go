package availabilityzonepriority

// Name is the plugin's name in configuration.
const Name = "AvailabilityZonePriority"

// Args configures AvailabilityZonePriority.
type Args struct {
	// MaxSkew is the largest difference between the source's vreplicas in
	// two zones that still earns a score; at least 1, 1 when unset. It is a
	// pointer so that an explicit 0 is rejected rather than defaulted.
	MaxSkew *int32 `json:"MaxSkew,omitempty"`
}
