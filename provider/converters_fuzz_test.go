package provider

import (
	"context"
	"encoding/json"
	"testing"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/api/equality"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// The model <-> API converters, fuzzed from the API side: an object is
// decoded from the fuzzer's JSON (seeded with what the table tests'
// models convert to), read into a model as an import does (no prior), and
// written back. Properties: no panic; and when the model converts back, the
// conversion is a fixed point (model -> API -> model -> API gives the same
// object twice), so that a plan after an import or a refresh is stable.

// addSeeds adds the JSON of each object as a seed.
func addSeeds[T any](f *testing.F, objs ...T) {
	f.Helper()
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{}`))
}

// fixedPoint checks read-then-write twice: the first write's object, read and
// written again, must equal itself.
func fixedPoint[T any](t *testing.T, in *T, roundTrip func(*T) (*T, error)) {
	t.Helper()
	first, err := roundTrip(in)
	if err != nil || first == nil {
		return // the provider refuses what it could not have written; no panic is the property
	}
	second, err := roundTrip(first)
	if err != nil {
		t.Fatalf("the provider wrote an object it cannot read back: %v\nobject: %+v", err, first)
	}
	if !equality.Semantic.DeepEqual(first, second) { // quantities compare by value
		t.Fatalf("not a fixed point:\nfirst  %+v\nsecond %+v", first, second)
	}
}

func FuzzBurstPolicyConverters(f *testing.F) {
	var seeds []*hcav1.BurstPolicy
	for _, m := range []burstPolicyModel{minimalBurstPolicy()} {
		bp, err := m.toAPI()
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, bp)
	}
	seeds = append(seeds, &hcav1.BurstPolicy{Spec: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{MatchLabels: map[string]string{"app": "web"}},
		PrimaryCluster: "private", BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks", Weight: ptr32(3)}}, Placement: "weighted",
		MinReplicas: 2, MaxReplicas: 30, PendingThreshold: dur("90s"),
		Metrics: []hcav1.MetricSpec{{Type: "PromQL", PromQL: &hcav1.PromQLMetric{Query: "sum(rate(x[1m]))"}}},
		Algorithm: hcav1.Algorithm{Name: "kubernetes", Kubernetes: &hcav1.KubernetesAlgorithm{ScaleDown: &hcav1.ScalingRules{
			StabilizationWindow: dur("300s"), Policies: []hcav1.ScalingPolicy{{Type: "Pods", Value: 2, Period: *dur("60s")}}}}},
		Schedules: []hcav1.ScheduleWindow{{Name: "rush", Start: "45 7 * * MON-FRI", Duration: *dur("3h"), TimeZone: "Europe/Berlin", MinReplicas: 10}}}})
	addSeeds(f, seeds...)
	f.Fuzz(func(t *testing.T, data []byte) {
		var bp hcav1.BurstPolicy
		if json.Unmarshal(data, &bp) != nil {
			return
		}
		fixedPoint(t, &bp, func(in *hcav1.BurstPolicy) (*hcav1.BurstPolicy, error) {
			m := burstPolicyFromAPI(in, nil)
			return m.toAPI()
		})
		_ = burstPolicyStatusFromAPI(&bp)
	})
}

func FuzzFederatedAutoscalerConverters(f *testing.F) {
	m := minimalFederatedAutoscaler()
	fa, err := m.toAPI()
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f, fa)
	f.Fuzz(func(t *testing.T, data []byte) {
		var fa hcav1.FederatedAutoscaler
		if json.Unmarshal(data, &fa) != nil {
			return
		}
		fixedPoint(t, &fa, func(in *hcav1.FederatedAutoscaler) (*hcav1.FederatedAutoscaler, error) {
			m := federatedAutoscalerFromAPI(in, nil)
			return m.toAPI()
		})
	})
}

func FuzzSLOConverters(f *testing.F) {
	var seeds []*hcav1.ServiceLevelObjective
	mo := minimalSLO()
	mo.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: minimalSLOMultiObjective()}
	mo.ElasticityStrategy.MultiObjective.Desired = &sloMODesired{CPUUsagePercent: types.Int64Value(70), MemoryUsagePercent: types.Int64Null()}
	mo.ElasticityStrategy.MultiObjective.Weights = &moWeights{ResponseTime: types.Float64Value(0.5), CPUUsage: types.Float64Value(0.1), MemoryUsage: types.Float64Value(0.1),
		CPULimit: types.Float64Value(0.1), MemoryLimit: types.Float64Value(0.1), Replicas: types.Float64Value(0.1)}
	mo.ElasticityStrategy.MultiObjective.Metrics = &moMetricsModel{RequestsPerSecond: types.StringValue("vector(1)"), ResponseTimeMs: types.StringNull(),
		CPUUsagePercent: types.StringNull(), MemoryUsagePercent: types.StringNull()}
	for _, m := range []sloModel{minimalSLO(), mo} {
		s, err := m.toAPI()
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, s)
	}
	addSeeds(f, seeds...)
	f.Fuzz(func(t *testing.T, data []byte) {
		var s hcav1.ServiceLevelObjective
		if json.Unmarshal(data, &s) != nil {
			return
		}
		fixedPoint(t, &s, func(in *hcav1.ServiceLevelObjective) (*hcav1.ServiceLevelObjective, error) {
			m := sloFromAPI(in, nil)
			return m.toAPI()
		})
	})
}

func FuzzMultiObjectiveConverters(f *testing.F) {
	m := validMOModel()
	s, err := m.toAPI()
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f, s)
	f.Fuzz(func(t *testing.T, data []byte) {
		var s hcav1.MultiObjectiveElasticityStrategy
		if json.Unmarshal(data, &s) != nil {
			return
		}
		fixedPoint(t, &s, func(in *hcav1.MultiObjectiveElasticityStrategy) (*hcav1.MultiObjectiveElasticityStrategy, error) {
			m := multiObjectiveFromAPI(in, nil)
			return m.toAPI()
		})
	})
}

func FuzzClusterConverters(f *testing.F) {
	addSeeds(f,
		&hcav1.HybridCluster{Spec: hcav1.HybridClusterSpec{Role: "burst", Provider: "eks", Priority: 5,
			Prices:      &hcav1.ClusterPrices{PerVCPUHour: "0.0464", PerGiBHour: "0.0058"},
			Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "burst-1", Region: "eu-west-1"}},
			NodeGroups: []hcav1.NodeGroup{{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: "burst-1", Region: "eu-west-1", NodegroupName: "burst"},
				MaxNodes: 10, PricePerHour: "0.214"}}}},
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		var hc hcav1.HybridCluster
		if json.Unmarshal(data, &hc) != nil {
			return
		}
		null := types.StringNull()
		fixedPoint(t, &hc, func(in *hcav1.HybridCluster) (*hcav1.HybridCluster, error) {
			m := clusterModel{Kubeconfig: null, Host: null, ClusterCACertificate: null, Token: null, ClientCertificate: null, ClientKey: null,
				MaxCPU: null, CredentialsNamespace: types.StringValue("hca-system"), NodeGroups: types.ListNull(types.ObjectType{AttrTypes: clusterNodeGroupTypes})}
			m.fromAPI(in)
			if in.Spec.Provider != hcav1.ProviderEKS {
				// The connection is a secret the API does not hold: the
				// configuration gives it.
				m.Host, m.Token = types.StringValue("https://10.0.0.1:6443"), types.StringValue("t")
			}
			out, _, err := m.toAPI()
			return out, err
		})
		_ = clusterDataFromAPI(&hc)
	})
}

// FuzzCloudFlatten: the EKS and ACK responses, whatever their content, are
// read into models without panic.
func FuzzCloudFlatten(f *testing.F) {
	f.Add([]byte(`{"Name":"burst","Status":"ACTIVE","Version":"1.34","Arn":"arn:aws:eks:us-east-1:000000000000:cluster/burst","ResourcesVpcConfig":{"SubnetIds":["subnet-1","subnet-2"]}}`),
		[]byte(`{"NodegroupName":"workers","ScalingConfig":{"MinSize":0,"MaxSize":3,"DesiredSize":1},"InstanceTypes":["m5.large"]}`),
		[]byte(`{"cluster_id":"c0123","name":"burst","state":"running","region_id":"cn-hangzhou","current_version":"1.36.3-aliyun.1","size":2}`))
	f.Add([]byte(`{}`), []byte(`{}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, clusterJSON, groupJSON, ackJSON []byte) {
		ctx := context.Background()
		var c ekstypes.Cluster
		var ng ekstypes.Nodegroup
		if json.Unmarshal(clusterJSON, &c) == nil && json.Unmarshal(groupJSON, &ng) == nil {
			var m eksClusterModel
			_ = eksFlatten(ctx, &c, &ng, &m)
			_ = eksFlatten(ctx, &c, nil, &m)
		}
		var d ackDetail
		if json.Unmarshal(ackJSON, &d) == nil {
			var m ackClusterModel
			_ = ackFlatten(ctx, d, "kubeconfig", &m)
		}
	})
}
