package evenzonespread

// Name is the plugin's name in configuration.
const Name = "EvenZoneSpread"

// Args configures EvenZoneSpread.
type Args struct {
	// MaxSkew is the largest difference allowed between the source's
	// vreplicas in two counted zones; at least 1, 1 when unset. It is a
	// pointer so that an explicit 0 is rejected rather than defaulted.
	MaxSkew *int32 `json:"MaxSkew,omitempty"`
}
