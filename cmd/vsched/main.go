// Command vsched tries scheduler configurations on a described cluster:
// `vsched simulate` runs a scenario with the real scheduler, autoscaler and
// evictor against an in-memory cluster, `vsched explain` shows how a
// decision was made, `vsched validate` checks ConfigMaps and scenarios, and
// `vsched get` shows a live cluster's placements. Run `vsched help` for
// usage. Installed on the PATH as kubectl-vsched it is a kubectl plugin
// (`kubectl vsched get ...`). The command is built by cmd/vsched/app, which
// teams use to build their own vsched with their plugins.
package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vsched/vsched/cmd/vsched/app"
)

func main() {
	os.Exit(app.Run(os.Args[1:], nameOptions(os.Args[0])...))
}

// nameOptions names the command as its user types it: kubectl runs a
// plugin kubectl-vsched as "kubectl vsched", and its help and examples
// must say so.
func nameOptions(argv0 string) []app.Option {
	if base := filepath.Base(argv0); strings.HasPrefix(base, "kubectl-") {
		return []app.Option{app.WithName("kubectl " + strings.TrimPrefix(base, "kubectl-"))}
	}
	return nil
}
