package sim

// tableLegend ends the table: what each column and metric means, so that
// the output reads on its own (docs/cli.md says the same at length).
const tableLegend = `
Columns
  Pods:     ZONE, NODE, POD where each pod runs; a column per source: its
            vreplicas on the pod (. for none), or USED, all of them, with
            more than 10 sources; FREE the capacity left; last, the pod's
            state when it takes no new vreplicas (draining, node-cordoned,
            node-not-ready, unbound, beyond-replicas, gone).
  Sources:  SOURCE namespace/name; VREPLICAS wanted; PENDING not placed;
            ZONESKEW max - min of the source's vreplicas over the healthy
            zones; ALLZONES the same over every zone (a failed one holding
            none); ROOMZONES over the healthy zones with room (what a spread
            rule can still even out); NODESKEW over the healthy nodes; MOVED
            vreplicas that changed pod in the step; PLACEMENTS pod=vreplicas,
            with more than 10 sources.
  Metrics:  podsUsed pods holding a vreplica; lowerBound ceil(vreplicas /
            capacity), the fewest pods that could hold them; vreplicas
            wanted; pending; unavailable on pods that run
            nothing (a lost node, a pod without a node); moved in the step.
`
