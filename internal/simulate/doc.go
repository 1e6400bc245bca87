// Package simulate replays a load trace against a burst policy in virtual
// time and measures how good the scaling decisions are.
//
// It runs the unmodified decision code of the runtime — the algorithms of
// [scaling] (NewKubernetes, NewFRSS, NewPanic), [scaling.PlaceWithHeadroom] to burst the
// replicas the primary cluster cannot schedule and [scaling.ScaleBack] to
// remove them again — against the application model of the lab's loadsim (package workload)
// ([workload.Compute]: per-pod utilisation, errors and an M/M/1 latency
// curve from each ready pod's load share), with a backlog in front of the
// pods: what they cannot serve waits for the next second, first in first
// out, until it times out ([ClusterModel.RequestTimeout]). Nothing sleeps:
// the simulation advances a virtual clock one second at a time.
// [ReactiveFloor] is the ideal reactive scaler every algorithm is measured
// against; [WriteTable] adds it as the last column.
//
// Burst clusters with node groups ([NodeGroupSpec]) model nodes as the
// runtime's capacity controller buys them: replicas placed there wait
// Pending for a node; every [ClusterModel.CapacityInterval] the runtime's
// planner ([capacity.Plan]) orders nodes for them, which are Ready after
// the group's boot delay ([capacity.DefaultNodeBootDelay], the lab's), and
// [capacity.Release] gives back nodes empty for the policy's scale-down
// delay; spot nodes get interruption notices at a seeded rate, and the
// burst controller's [interruption.Decide] surges their replacements. Such
// a cluster costs its node-hours at the group's price.
//
// Inputs are a policy in the BurstPolicy CRD's YAML ([ParsePolicy], with
// the CRD's defaults), a CSV trace of seconds,requests_per_second
// ([ParseTrace]) and a cluster model ([ParseClusterModel]: private and burst
// capacity, prices, provisioning and start-up delays, metric scrape
// interval and staleness). [Run] returns per-second series and the metrics
// of [Metrics] (SPEC Research Group elasticity metrics, SLA violations,
// errors, cost); [WriteTable] and [WriteSVG] render them.
//
// A MultiObjectiveElasticityStrategy (MOHA) is replayed on its own model of
// the service instead: [ParseMultiObjective] reads its manifest (with the
// ConfigMap of its model, or [ParseModel] a model file), and
// [RunMultiObjective] runs the controller's round (moha.Round, with the loop
// policy.MultiObjectiveLoop builds, as the controller does) through
// moha.Replay; [WriteMultiObjectiveTable] and [WriteMultiObjectiveSVG] render
// it.
package simulate
