package nomaxresourcecount

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks args, reporting under path.
func Validate(args *Args, path *field.Path) field.ErrorList {
	if args.NumPartitions != nil && *args.NumPartitions < 1 {
		return field.ErrorList{field.Invalid(path.Child("NumPartitions"), *args.NumPartitions, "must be at least 1 when set")}
	}
	return nil
}
