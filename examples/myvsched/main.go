// Command myvsched is a team's own vsched: the stock command, with the
// team's plugins beside the in-tree ones. Here the plugin is AvoidPods, the
// out-of-tree plugin template (plugins/example); a team puts
// its own plugin packages in its WithPlugin call the same way.
//
//	go run ./examples/myvsched validate examples/myvsched/avoid-pods.yaml
//	go run ./examples/myvsched simulate -f examples/myvsched/avoid-pods.yaml
//	go run ./examples/myvsched explain -f examples/myvsched/avoid-pods.yaml --source team/orders
package main

import (
	"os"

	"github.com/vsched/vsched/cmd/vsched/app"
	"github.com/vsched/vsched/plugins/example"
)

func main() {
	os.Exit(app.Run(os.Args[1:],
		app.WithName("myvsched"),
		app.WithPlugin(example.Spec.Registration()),
	))
}
