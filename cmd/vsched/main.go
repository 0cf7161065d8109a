// Command vsched tries scheduler configurations on a described cluster:
// `vsched simulate` runs a scenario with the real scheduler, autoscaler and
// evictor against an in-memory cluster, `vsched explain` shows how one
// decision was made, and `vsched validate` checks ConfigMaps and scenarios.
// Run `vsched help` for usage; the logic lives in internal/cli.
package main

import (
	"os"

	"github.com/vsched/vsched/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.OSEnv()))
}
