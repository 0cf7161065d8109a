package nomaxresourcecount

// Name is the plugin's name in configuration.
const Name = "NoMaxResourceCount"

// Args configures NoMaxResourceCount.
type Args struct {
	// NumPartitions is the resource count assumed for sources that do not
	// report their own; at least 1 when set. Unset, such sources are not
	// limited.
	NumPartitions *int32 `json:"NumPartitions,omitempty"`
}
