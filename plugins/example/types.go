package example

// Name is the plugin's name in configuration.
const Name = "AvoidPods"

// Args configures AvoidPods.
type Args struct {
	// Ordinals are the StatefulSet ordinals of the pods to avoid: at
	// least one, each >= 0, none twice.
	Ordinals []int32 `json:"Ordinals"`
	// Score is what an avoided pod scores, from MinScore to below
	// MaxScore: above MinScore the plugin avoids the pods less strongly.
	// Unset, it is MinScore.
	Score *int64 `json:"Score,omitempty"`
}
