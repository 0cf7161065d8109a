package evenzonespread

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/plugins/internal/spread"
)

// Validate checks defaulted args, reporting under path.
func Validate(args *Args, path *field.Path) field.ErrorList {
	return spread.ValidateMaxSkew(args.MaxSkew, path.Child("MaxSkew"))
}
