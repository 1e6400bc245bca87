package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ackInstanceType is an ECS instance type's allocatable size as a kwok node.
type ackInstanceType struct{ cpu, memory string }

// ackInstanceTypes maps the ECS instance types the emulator offers to node sizes.
var ackInstanceTypes = map[string]ackInstanceType{
	"ecs.g6.large":   {"2", "8Gi"},
	"ecs.g6.xlarge":  {"4", "16Gi"},
	"ecs.g6.2xlarge": {"8", "32Gi"},
	"ecs.c6.large":   {"2", "4Gi"},
	"ecs.c6.xlarge":  {"4", "8Gi"},
	"ecs.c6.2xlarge": {"8", "16Gi"},
}

// ackMaxPoolNodes bounds one node pool: every node is a kwok node in the lab.
const ackMaxPoolNodes = 100

var (
	ackClusterNameRE = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_-]{0,62}$`)
	// The lab's rule for pool names (lab.ValidateClusterName).
	ackPoolNameRE   = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$`)
	ackClusterSpecs = []string{"ack.pro.small", "ack.standard"}
)

// ackCreateBody is the part of CreateCluster's JSON body (ManagedKubernetes) that the
// emulator reads; other fields are accepted and ignored, as ACK accepts many.
type ackCreateBody struct {
	Name                string              `json:"name"`
	RegionID            string              `json:"region_id"`
	ClusterType         string              `json:"cluster_type"`
	ClusterSpec         string              `json:"cluster_spec"`
	KubernetesVersion   string              `json:"kubernetes_version"`
	VpcID               string              `json:"vpcid"`
	VSwitchIDs          []string            `json:"vswitch_ids"`
	WorkerVSwitchIDs    []string            `json:"worker_vswitch_ids"`
	WorkerInstanceTypes []string            `json:"worker_instance_types"`
	NumOfNodes          *int64              `json:"num_of_nodes"`
	Nodepools           []ackCreateNodepool `json:"nodepools"`
	Tags                []ackTag            `json:"tags"`
}

type ackCreateNodepool struct {
	NodepoolInfo struct {
		Name string `json:"name"`
	} `json:"nodepool_info"`
	ScalingGroup struct {
		InstanceTypes []string `json:"instance_types"`
		DesiredSize   *int64   `json:"desired_size"`
		VSwitchIDs    []string `json:"vswitch_ids"`
		SpotStrategy  string   `json:"spot_strategy"`
	} `json:"scaling_group"`
}

type ackCreateSpec struct {
	name, region, clusterType, clusterSpec, vpcID string
	vswitchIDs                                    []string
	pools                                         []ackPool
	tags                                          map[string]string
}

// ackParseCreate validates a CreateCluster body. Its errors name the field and the fix.
func ackParseCreate(body []byte, version string) (*ackCreateSpec, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("request body is empty: CreateCluster needs a JSON object with name, region_id, cluster_type (ManagedKubernetes) and vswitch_ids")
	}
	var b ackCreateBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("request body is not a valid CreateCluster JSON object: %w", err)
	}
	switch {
	case b.Name == "":
		return nil, errors.New("name is required: set name to the cluster name (1-63 letters, digits, '_' or '-', starting with a letter or digit)")
	case !ackClusterNameRE.MatchString(b.Name):
		return nil, fmt.Errorf("name %q is invalid: use 1-63 letters, digits, '_' or '-', starting with a letter or digit", b.Name)
	case b.RegionID == "":
		return nil, errors.New("region_id is required: set region_id to the cluster's region, for example cn-hangzhou")
	case b.ClusterType == "":
		return nil, fmt.Errorf("cluster_type is required: set cluster_type to %s", ackManagedKubernetesType)
	case b.ClusterType != ackManagedKubernetesType:
		return nil, fmt.Errorf("cluster_type %q is not supported: the ACK emulator creates %s clusters only", b.ClusterType, ackManagedKubernetesType)
	case b.KubernetesVersion != "" && b.KubernetesVersion != version:
		return nil, fmt.Errorf("kubernetes_version %q is not offered: use %s or leave kubernetes_version unset", b.KubernetesVersion, version)
	}
	spec := &ackCreateSpec{name: b.Name, region: b.RegionID, clusterType: b.ClusterType, clusterSpec: b.ClusterSpec, vpcID: b.VpcID, tags: map[string]string{}}
	for _, t := range b.Tags {
		spec.tags[t.Key] = t.Value
	}
	if spec.clusterSpec == "" {
		spec.clusterSpec = ackClusterSpecs[0]
	} else if !ackContains(ackClusterSpecs, spec.clusterSpec) {
		return nil, fmt.Errorf("cluster_spec %q is invalid: use %s", spec.clusterSpec, strings.Join(ackClusterSpecs, " or "))
	}

	field, vsw := "vswitch_ids", b.VSwitchIDs
	if len(vsw) == 0 {
		field, vsw = "worker_vswitch_ids", b.WorkerVSwitchIDs
	}
	if len(vsw) == 0 {
		return nil, errors.New("vswitch_ids is required: set vswitch_ids to one or more vSwitch IDs (vsw-...) of the cluster's VPC")
	}
	if err := ackCheckVSwitches(field, vsw); err != nil {
		return nil, err
	}
	spec.vswitchIDs = vsw

	names := map[string]bool{}
	if b.NumOfNodes != nil || len(b.WorkerInstanceTypes) > 0 {
		n := int64(0)
		if b.NumOfNodes != nil {
			n = *b.NumOfNodes
		}
		p, err := ackPoolFor(ackDefaultNodePoolName, "num_of_nodes", n, "worker_instance_types", b.WorkerInstanceTypes)
		if err != nil {
			return nil, err
		}
		names[p.name] = true
		if p.count > 0 || p.instanceType != "" { // 0 nodes of a known type: scalable later
			p.spotStrategy = ackNoSpot
			spec.pools = append(spec.pools, p)
		}
	}
	for i, np := range b.Nodepools {
		prefix := fmt.Sprintf("nodepools[%d]", i)
		name := np.NodepoolInfo.Name
		switch {
		case name == "":
			return nil, fmt.Errorf("%s.nodepool_info.name is required: name every node pool", prefix)
		case !ackPoolNameRE.MatchString(name):
			return nil, fmt.Errorf("%s.nodepool_info.name %q cannot be used by the ACK emulator: use 1-40 lowercase letters, digits and '-', starting with a letter and not ending with '-'", prefix, name)
		case names[name]:
			return nil, fmt.Errorf("%s.nodepool_info.name %q is used twice (%s is the pool of num_of_nodes): give each node pool its own name", prefix, name, ackDefaultNodePoolName)
		}
		names[name] = true
		if len(np.ScalingGroup.VSwitchIDs) > 0 {
			if err := ackCheckVSwitches(prefix+".scaling_group.vswitch_ids", np.ScalingGroup.VSwitchIDs); err != nil {
				return nil, err
			}
		}
		n := int64(0)
		if np.ScalingGroup.DesiredSize != nil {
			n = *np.ScalingGroup.DesiredSize
		}
		p, err := ackPoolFor(name, prefix+".scaling_group.desired_size", n, prefix+".scaling_group.instance_types", np.ScalingGroup.InstanceTypes)
		if err != nil {
			return nil, err
		}
		switch np.ScalingGroup.SpotStrategy {
		case "", ackNoSpot:
			p.spotStrategy = ackNoSpot
		case "SpotWithPriceLimit", "SpotAsPriceGo":
			p.spotStrategy = np.ScalingGroup.SpotStrategy
		default:
			return nil, fmt.Errorf("%s.scaling_group.spot_strategy %q is invalid: use NoSpot, SpotWithPriceLimit or SpotAsPriceGo", prefix, np.ScalingGroup.SpotStrategy)
		}
		// A node pool of 0 nodes is kept: it can be scaled out later.
		spec.pools = append(spec.pools, p)
	}
	return spec, nil
}

func ackPoolFor(name, countField string, count int64, typesField string, types []string) (ackPool, error) {
	switch {
	case count < 0:
		return ackPool{}, fmt.Errorf("%s is %d: use 0 or more worker nodes", countField, count)
	case count > ackMaxPoolNodes:
		return ackPool{}, fmt.Errorf("%s is %d: the ACK emulator accepts at most %d nodes per node pool", countField, count, ackMaxPoolNodes)
	case len(types) == 0 && count > 0:
		return ackPool{}, fmt.Errorf("%s is required when %s is %d: set it to an instance type such as ecs.g6.large", typesField, countField, count)
	case len(types) == 0:
		return ackPool{name: name}, nil
	}
	it, ok := ackInstanceTypes[types[0]]
	if !ok {
		return ackPool{}, fmt.Errorf("%s[0] %q is not offered by the ACK emulator: use one of %s", typesField, types[0], strings.Join(ackInstanceTypeNames(), ", "))
	}
	return ackPool{name: name, instanceType: types[0], count: int(count), cpu: it.cpu, memory: it.memory}, nil
}

func ackCheckVSwitches(field string, ids []string) error {
	for i, id := range ids {
		if !strings.HasPrefix(id, "vsw-") || len(id) <= len("vsw-") {
			return fmt.Errorf("%s[%d] %q is not a vSwitch ID: use IDs of the form vsw-xxxxxxxx", field, i, id)
		}
	}
	return nil
}

func ackInstanceTypeNames() []string {
	names := make([]string, 0, len(ackInstanceTypes))
	for n := range ackInstanceTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func ackContains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// ackClusterDetail is DescribeClusterDetail's body (and one element of the lists).
type ackClusterDetail struct {
	ClusterID          string   `json:"cluster_id"`
	Name               string   `json:"name"`
	ClusterType        string   `json:"cluster_type"`
	ClusterSpec        string   `json:"cluster_spec"`
	Profile            string   `json:"profile"`
	RegionID           string   `json:"region_id"`
	State              string   `json:"state"`
	Size               int      `json:"size"`
	CurrentVersion     string   `json:"current_version"`
	InitVersion        string   `json:"init_version"`
	Created            string   `json:"created"`
	Updated            string   `json:"updated"`
	MasterURL          string   `json:"master_url"`
	VpcID              string   `json:"vpc_id"`
	VSwitchID          string   `json:"vswitch_id"`
	VSwitchIDs         []string `json:"vswitch_ids"`
	NetworkMode        string   `json:"network_mode"`
	DeletionProtection bool     `json:"deletion_protection"`
	ResourceGroupID    string   `json:"resource_group_id"`
	Tags               []ackTag `json:"tags"`
}

type ackTag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ackMasterURL is the JSON document ACK puts, as a string, in master_url.
type ackMasterURL struct {
	APIServerEndpoint         string `json:"api_server_endpoint,omitempty"`
	IntranetAPIServerEndpoint string `json:"intranet_api_server_endpoint,omitempty"`
}

type ackClustersV1 struct {
	Clusters []ackClusterDetail `json:"clusters"`
	PageInfo ackPageInfo        `json:"page_info"`
}

type ackPageInfo struct {
	PageNumber int `json:"page_number"`
	PageSize   int `json:"page_size"`
	TotalCount int `json:"total_count"`
}

// ackTaskInfo is DescribeTaskInfo's body. task_result is left out: ACK sends it as an
// array, which the v1 SDK's DescribeTaskInfoResponse (an object) cannot decode.
type ackTaskInfo struct {
	ClusterID string         `json:"cluster_id"`
	TaskID    string         `json:"task_id"`
	TaskType  string         `json:"task_type"`
	State     string         `json:"state"`
	Created   string         `json:"created"`
	Updated   string         `json:"updated"`
	Target    *ackTaskTarget `json:"target,omitempty"`
	Error     *ackTaskError  `json:"error,omitempty"`
}

type ackTaskTarget struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type ackTaskError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (a *ACK) detailLocked(c *ackCluster) ackClusterDetail {
	size := 0
	for _, p := range c.pools {
		size += p.count
	}
	master := ackMasterURL{}
	if c.state == ACKStateRunning {
		master = ackMasterURL{APIServerEndpoint: c.server, IntranetAPIServerEndpoint: c.server}
	}
	mu, _ := json.Marshal(master) // a struct of strings always marshals
	vsw := append([]string(nil), c.vswitchIDs...)
	return ackClusterDetail{
		ClusterID:       c.id,
		Name:            c.name,
		ClusterType:     c.clusterType,
		ClusterSpec:     c.clusterSpec,
		Profile:         "Default",
		RegionID:        c.region,
		State:           c.state,
		Size:            size,
		CurrentVersion:  a.opts.KubernetesVersion,
		InitVersion:     a.opts.KubernetesVersion,
		Created:         ackTime(c.created),
		Updated:         ackTime(c.updated),
		MasterURL:       string(mu),
		VpcID:           c.vpcID,
		VSwitchID:       strings.Join(vsw, ","),
		VSwitchIDs:      vsw,
		NetworkMode:     "vpc",
		ResourceGroupID: "",
		Tags:            ackTagList(c.tags),
	}
}

func ackTagList(tags map[string]string) []ackTag {
	out := []ackTag{}
	for k, v := range tags {
		out = append(out, ackTag{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
