package evenzonespread

import "github.com/vsched/vsched/plugins/internal/spread"

// SetDefaults sets MaxSkew to 1 when unset.
func SetDefaults(args *Args) {
	if args.MaxSkew == nil {
		v := spread.DefaultMaxSkew
		args.MaxSkew = &v
	}
}
