// Package moha is the pure core of multi-objective hybrid autoscaling (MOHA,
// Horn, Fard and Wolf): a performance model learned from a dataset of load
// tests, and a decision that changes replicas and pod resources together.
//
//   - [ReadDataset] reads the dataset CSV (columns [Columns]); [Split] shuffles
//     it, seeded, into a training three quarters and a held-out quarter.
//   - [Train] fits one regressor per target ([Targets]: response time, CPU
//     usage, memory usage) on MinMax-scaled inputs and targets ([Scaler]):
//     ordinary least squares, Bayesian ridge, epsilon-SVR with an RBF kernel
//     (an SMO solver, its C and gamma optionally grid-searched: [TuneSVR]) or
//     a one-hidden-layer MLP ([Kinds]). [Evaluate] gives
//     MAE and R^2 on held-out samples. A [Model] is saved as JSON with its
//     scalers ([Model.Save], [Load], which validates).
//   - [Decide] is the paper's decision: eq. 1 per parameter and target
//     ([Optimum]), the 12 parameter variations around the current state
//     ([Variations]), the model's prediction per variation and a TOPSIS ranking
//     ([TOPSIS]) with weights ([Balanced], [ResponseTimeFirst],
//     [ResourcesFirst]), clamped to the parameter ranges. [Thresholds] is the
//     paper's check that no scaling is needed.
//   - [Step] is the runtime's loop around it: [SafeDecide] (the variations
//     joined by the fewest replicas predicted within the response-time limit,
//     the best within the limit chosen), increases at once when the
//     measurements ask for more, decreases after a cooldown and past a
//     hysteresis ([Loop]); [PerPod] predicts beyond the training range at the
//     same load per pod.
//   - [Round] is one round as the controller runs it: the measurement of a
//     configuration that has served the settle time unchanged remembered
//     ([History], the strategy's status; [Loop.SettleTime]: two intervals or
//     the cooldown), then [Step]. [Replay] runs a
//     [Controller] ([Strategy]: Round every interval) on a load trace second
//     by second on the workload model ([App.Measure]), with a start-up delay
//     for changes and their cost ([Prices], [PaperPrices]); hca-runtime
//     simulate and tools/mohabench both replay with it.
//   - [Synthesize] generates a dataset from the workload model
//     ([workload.ComputeMemory]) over the paper's grid, in virtual time.
//
// Nothing here reads a clock, the network or Kubernetes.
package moha
