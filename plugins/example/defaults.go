package example

import "github.com/vsched/vsched/framework"

// SetDefaults sets Score to MinScore when unset.
func SetDefaults(args *Args) {
	if args.Score == nil {
		v := int64(framework.MinScore)
		args.Score = &v
	}
}
