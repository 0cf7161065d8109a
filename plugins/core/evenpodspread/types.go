package evenpodspread

// Name is the plugin's name in configuration.
const Name = "EvenPodSpread"

// Args configures EvenPodSpread.
type Args struct {
	// MaxSkew is the largest allowed difference between the source's
	// vreplicas on two eligible pods; at least 1, 1 when unset. It is a
	// pointer so that an explicit 0 is rejected rather than defaulted.
	MaxSkew *int32 `json:"MaxSkew,omitempty"`
}
