package example

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
)

// Validate checks defaulted args, reporting under path (the Args field
// path), so that a bad value reads, for example,
// "config-scheduler: data.priorities[0].Args.Ordinals[1]: Invalid value: -1: must be >= 0".
func Validate(args *Args, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	p := path.Child("Ordinals")
	if len(args.Ordinals) == 0 {
		errs = append(errs, field.Required(p, "list at least one pod ordinal to avoid"))
	}
	seen := map[int32]bool{}
	for i, o := range args.Ordinals {
		switch {
		case o < 0:
			errs = append(errs, field.Invalid(p.Index(i), o, "must be >= 0"))
		case seen[o]:
			errs = append(errs, field.Duplicate(p.Index(i), o))
		}
		seen[o] = true
	}
	if s := args.Score; s != nil && (*s < framework.MinScore || *s >= framework.MaxScore) {
		errs = append(errs, field.Invalid(path.Child("Score"), *s,
			fmt.Sprintf("must be at least %d and below %d, the score of the pods not avoided", framework.MinScore, framework.MaxScore)))
	}
	return errs
}
