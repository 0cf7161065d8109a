// Command vsched tries scheduler configurations on a described cluster:
// `vsched simulate` runs a scenario with the real scheduler, autoscaler and
// evictor against an in-memory cluster, `vsched explain` shows how a
// decision was made, and `vsched validate` checks ConfigMaps and scenarios.
// Run `vsched help` for usage. The command is built by cmd/vsched/app, which
// teams use to build their own vsched with their plugins.
package main

import (
	"os"

	"github.com/vsched/vsched/cmd/vsched/app"
)

func main() {
	os.Exit(app.Run(os.Args[1:]))
}
