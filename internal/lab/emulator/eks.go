package emulator

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// EKS statuses, as the EKS API reports them.
const (
	eksStatusCreating     = "CREATING"
	eksStatusActive       = "ACTIVE"
	eksStatusDeleting     = "DELETING"
	eksStatusFailed       = "FAILED"
	eksStatusUpdating     = "UPDATING"
	eksStatusCreateFailed = "CREATE_FAILED"
	eksStatusDeleteFailed = "DELETE_FAILED"

	eksUpdateInProgress = "InProgress"
	eksUpdateSuccessful = "Successful"

	eksDefaultVersion = "1.34"
	// eksMaxNodes bounds a node group's maxSize: every node is a kwok node in
	// the lab, on a small machine.
	eksMaxNodes = 100
	// eksLabNameMax is the longest lab cluster or node pool name.
	eksLabNameMax = 40
)

// eksInstanceType is the allocatable capacity a lab (kwok) node gets for an EC2
// instance type, and the pod limit EKS sets for it (ENI-based max pods).
type eksInstanceType struct {
	CPU    string
	Memory string
	Pods   int
}

var eksInstanceTypes = map[string]eksInstanceType{
	"t3.medium":  {CPU: "2", Memory: "4Gi", Pods: 17},
	"m5.large":   {CPU: "2", Memory: "8Gi", Pods: 29},
	"m5.xlarge":  {CPU: "4", Memory: "16Gi", Pods: 58},
	"m5.2xlarge": {CPU: "8", Memory: "32Gi", Pods: 58},
	"c5.xlarge":  {CPU: "4", Memory: "8Gi", Pods: 58},
}

var (
	eksNamePattern    = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9_-]*$`)
	eksRoleARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+$`)
	eksVersionPattern = regexp.MustCompile(`^1\.[0-9]{1,2}$`)
)

type eksClusterState struct {
	view       eksCluster
	labName    string
	nodegroups map[string]*eksNodegroupState
}

type eksNodegroupState struct {
	view     eksNodegroup
	pool     lab.NodePool
	clientRT string
}

type eksUpdateState struct {
	view      eksUpdate
	cluster   string
	nodegroup string
	clientRT  string
}

// eksCall is an authenticated EKS request.
type eksCall struct {
	region string
	body   []byte
}

func (a *AWS) routeEKS() {
	h := func(pattern string, fn func(http.ResponseWriter, *http.Request, eksCall)) {
		a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				eksError(w, http.StatusBadRequest, "ClientException", "cannot read the request body: "+err.Error())
				return
			}
			caller, aerr := a.awsVerify(awsFromHTTP(r, a.base.Scheme, body), "eks")
			if aerr != nil {
				eksAuthError(w, aerr)
				return
			}
			if !a.throttle.allow(r.PathValue("name")) {
				eksThrottled(w)
				return
			}
			if st := a.serverErrors.fail(r.PathValue("name")); st != 0 {
				eksServerError(w, st)
				return
			}
			fn(w, r, eksCall{region: caller.Region, body: body})
		})
	}
	h("POST /clusters", a.eksCreateCluster)
	h("GET /clusters", a.eksListClusters)
	h("GET /clusters/{name}", a.eksDescribeCluster)
	h("DELETE /clusters/{name}", a.eksDeleteCluster)
	h("POST /clusters/{name}/node-groups", a.eksCreateNodegroup)
	h("GET /clusters/{name}/node-groups", a.eksListNodegroups)
	h("GET /clusters/{name}/node-groups/{ng}", a.eksDescribeNodegroup)
	h("DELETE /clusters/{name}/node-groups/{ng}", a.eksDeleteNodegroup)
	h("POST /clusters/{name}/node-groups/{ng}/update-config", a.eksUpdateNodegroupConfig)
	h("GET /clusters/{name}/updates/{id}", a.eksDescribeUpdate)
}

func eksAuthError(w http.ResponseWriter, e *awsAuthError) {
	switch e.kind {
	case awsAuthMissing:
		eksError(w, http.StatusForbidden, "MissingAuthenticationTokenException", e.msg)
	case awsAuthUnknownKey:
		eksError(w, http.StatusForbidden, "UnrecognizedClientException", e.msg)
	case awsAuthIncomplete:
		eksError(w, http.StatusForbidden, "IncompleteSignatureException", e.msg)
	default:
		eksError(w, http.StatusForbidden, "InvalidSignatureException", e.msg)
	}
}

func eksInvalid(w http.ResponseWriter, msg string, members ...string) {
	eksError(w, http.StatusBadRequest, "InvalidParameterException", msg, members...)
}

func eksClusterNotFound(w http.ResponseWriter, name string) {
	eksError(w, http.StatusNotFound, "ResourceNotFoundException", "No cluster found for name: "+name+".", "clusterName", name)
}

func eksNodegroupNotFound(w http.ResponseWriter, cluster, ng string) {
	eksError(w, http.StatusNotFound, "ResourceNotFoundException", "No node group found for name: "+ng+".", "clusterName", cluster, "nodegroupName", ng)
}

func eksDecode(w http.ResponseWriter, body []byte, v any) bool {
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		eksError(w, http.StatusBadRequest, "SerializationException", "cannot parse the request body as JSON: "+err.Error())
		return false
	}
	return true
}

// eksCheckName validates an EKS cluster or node group name.
func eksCheckName(field, name string, maxLen int) string {
	if name == "" || len(name) > maxLen || !eksNamePattern.MatchString(name) {
		return fmt.Sprintf("%s %q is invalid: it must be 1 to %d characters, start with a letter or digit and contain only letters, digits, hyphens and underscores", field, name, maxLen)
	}
	return ""
}

// eksLabName maps an EKS name to a lab name (lowercase letters, digits and
// '-', starting with a letter, at most eksLabNameMax characters): prefix + the
// name lowercased with '_' as '-', shortened with a hash when too long.
func eksLabName(prefix, name string) string {
	s := strings.Trim(strings.ReplaceAll(strings.ToLower(name), "_", "-"), "-")
	out := prefix + s
	if out == "" || out[0] < 'a' || out[0] > 'z' {
		out = "ng-" + out
	}
	out = strings.TrimRight(out, "-")
	if len(out) > eksLabNameMax {
		sum := sha256.Sum256([]byte(name))
		out = strings.TrimRight(out[:eksLabNameMax-9], "-") + "-" + hex.EncodeToString(sum[:4])
	}
	return out
}

func (a *AWS) eksArn(region, kind, path string) string {
	if region == "" {
		region = "us-east-1"
	}
	return "arn:aws:eks:" + region + ":" + AWSAccountID + ":" + kind + "/" + path
}

func eksShortID(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return strings.ToUpper(hex.EncodeToString(sum[:16]))
}

func (a *AWS) eksCreateCluster(w http.ResponseWriter, r *http.Request, c eksCall) {
	var in eksCreateClusterInput
	if !eksDecode(w, c.body, &in) {
		return
	}
	if msg := eksCheckName("name", in.Name, 100); msg != "" {
		eksInvalid(w, msg)
		return
	}
	if in.RoleArn == "" {
		eksInvalid(w, "roleArn is required: set the IAM role EKS uses for the cluster (arn:aws:iam::<account>:role/<name>)", "clusterName", in.Name)
		return
	}
	if !eksRoleARNPattern.MatchString(in.RoleArn) {
		eksInvalid(w, fmt.Sprintf("roleArn %q is not a valid IAM role ARN: use arn:aws:iam::<account>:role/<name>", in.RoleArn), "clusterName", in.Name)
		return
	}
	if in.ResourcesVpcConfig == nil || len(in.ResourcesVpcConfig.SubnetIDs) < 2 {
		eksInvalid(w, "Subnets specified must be in at least two different AZs: set resourcesVpcConfig.subnetIds to two or more subnet IDs", "clusterName", in.Name)
		return
	}
	for _, s := range in.ResourcesVpcConfig.SubnetIDs {
		if !strings.HasPrefix(s, "subnet-") {
			eksInvalid(w, fmt.Sprintf("The subnet ID '%s' does not exist (subnet IDs start with \"subnet-\")", s), "clusterName", in.Name)
			return
		}
	}
	version := in.Version
	if version == "" {
		version = eksDefaultVersion
	}
	if !eksVersionPattern.MatchString(version) {
		eksInvalid(w, fmt.Sprintf("unsupported Kubernetes version %q: use a minor version such as %q", in.Version, eksDefaultVersion), "clusterName", in.Name)
		return
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	if cur, ok := a.eks[in.Name]; ok {
		if in.ClientRequestToken != "" && cur.view.ClientRequestToken == in.ClientRequestToken {
			eksJSON(w, map[string]any{"cluster": cur.view}) // idempotent retry
			return
		}
		eksError(w, http.StatusConflict, "ResourceInUseException", "Cluster already exists with name: "+in.Name, "clusterName", in.Name)
		return
	}
	labName := eksLabName("eks-", in.Name)
	if other, ok := a.lab[labName]; ok {
		eksInvalid(w, fmt.Sprintf("cluster name %q maps to lab cluster %q, already used by cluster %q: the lab needs names that differ in more than case and '_' vs '-'", in.Name, labName, other), "clusterName", in.Name)
		return
	}

	now := a.now()
	vpc := eksVpcConfig{
		SubnetIDs:              slices.Clone(in.ResourcesVpcConfig.SubnetIDs),
		SecurityGroupIDs:       slices.Clone(in.ResourcesVpcConfig.SecurityGroupIDs),
		ClusterSecurityGroupID: "sg-" + strings.ToLower(eksShortID("sg" + in.Name))[:17],
		VpcID:                  "vpc-" + strings.ToLower(eksShortID("vpc" + in.Name))[:17],
		EndpointPublicAccess:   true,
		PublicAccessCidrs:      []string{"0.0.0.0/0"},
	}
	if vpc.SecurityGroupIDs == nil {
		vpc.SecurityGroupIDs = []string{}
	}
	if p := in.ResourcesVpcConfig.EndpointPublicAccess; p != nil {
		vpc.EndpointPublicAccess = *p
	}
	if p := in.ResourcesVpcConfig.EndpointPrivateAccess; p != nil {
		vpc.EndpointPrivateAccess = *p
	}
	if len(in.ResourcesVpcConfig.PublicAccessCidrs) > 0 {
		vpc.PublicAccessCidrs = slices.Clone(in.ResourcesVpcConfig.PublicAccessCidrs)
	}
	netcfg := eksNetworkConfig{ServiceIPv4Cidr: "10.100.0.0/16", IPFamily: "ipv4"}
	if in.KubernetesNetworkConfig != nil {
		if in.KubernetesNetworkConfig.ServiceIPv4Cidr != "" {
			netcfg.ServiceIPv4Cidr = in.KubernetesNetworkConfig.ServiceIPv4Cidr
		}
		if in.KubernetesNetworkConfig.IPFamily != "" {
			netcfg.IPFamily = in.KubernetesNetworkConfig.IPFamily
		}
	}
	logging := eksLogging{ClusterLogging: []eksLogSetup{{Types: []string{"api", "audit", "authenticator", "controllerManager", "scheduler"}, Enabled: false}}}
	if in.Logging != nil && len(in.Logging.ClusterLogging) > 0 {
		logging = *in.Logging
	}
	access := eksAccessConfig{AuthenticationMode: "API_AND_CONFIG_MAP"}
	if in.AccessConfig != nil && in.AccessConfig.AuthenticationMode != "" {
		access.AuthenticationMode = in.AccessConfig.AuthenticationMode
	}
	tags := maps.Clone(in.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	region := c.region
	id := eksShortID(in.Name + now.String())
	st := &eksClusterState{
		labName:    labName,
		nodegroups: map[string]*eksNodegroupState{},
		view: eksCluster{
			Name:                    in.Name,
			Arn:                     a.eksArn(region, "cluster", in.Name),
			CreatedAt:               eksTime(now),
			Version:                 version,
			RoleArn:                 in.RoleArn,
			ResourcesVpcConfig:      vpc,
			KubernetesNetworkConfig: netcfg,
			Logging:                 logging,
			Identity:                &eksIdentity{OIDC: eksOIDC{Issuer: "https://oidc.eks." + region + ".amazonaws.com/id/" + id}},
			Status:                  eksStatusCreating,
			ClientRequestToken:      in.ClientRequestToken,
			PlatformVersion:         "eks.1",
			Tags:                    tags,
			Health:                  eksHealth{Issues: []eksIssue{}},
			AccessConfig:            access,
			UpgradePolicy:           eksUpgradePolicy{SupportType: "STANDARD"},
		},
	}
	a.eks[in.Name] = st
	a.lab[labName] = in.Name
	eksJSON(w, map[string]any{"cluster": st.view})

	spec := lab.ClusterSpec{
		Name:            labName,
		TokenWebhookURL: a.base.String() + "/authenticate/" + url.PathEscape(in.Name),
		PodStartupDelay: a.podDelay,
	}
	name := in.Name
	a.background("create eks cluster "+name, func(ctx context.Context) error {
		info, err := a.clusters.CreateCluster(ctx, spec)
		if err != nil {
			return fmt.Errorf("create lab cluster %s: %w", spec.Name, err)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if cur := a.eks[name]; cur == st {
			st.view.Endpoint = info.Server
			st.view.CertificateAuthority = eksCA{Data: base64.StdEncoding.EncodeToString(info.CAData)}
			st.view.Status = eksStatusActive
		}
		return nil
	}, func(err error) {
		if err == nil {
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		st.view.Status = eksStatusFailed
		st.view.Health.Issues = append(st.view.Health.Issues, eksIssue{Code: "InternalFailure", Message: err.Error(), ResourceIDs: []string{name}})
	})
}

func (a *AWS) eksDescribeCluster(w http.ResponseWriter, r *http.Request, _ eksCall) {
	name := r.PathValue("name")
	a.mu.Lock()
	defer a.mu.Unlock()
	st, ok := a.eks[name]
	if !ok {
		eksClusterNotFound(w, name)
		return
	}
	eksJSON(w, map[string]any{"cluster": st.view})
}

// eksPage returns one page of sorted names per maxResults/nextToken query
// parameters, or an error message.
func eksPage(q url.Values, names []string) (page []string, next string, msg string) {
	slices.Sort(names)
	limit := 100
	if s := q.Get("maxResults"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return nil, "", fmt.Sprintf("maxResults %q is invalid: use a number from 1 to 100", s)
		}
		limit = n
	}
	start := 0
	if tok := q.Get("nextToken"); tok != "" {
		after, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return nil, "", "The nextToken is invalid: pass the nextToken of the previous response unchanged"
		}
		start, _ = slices.BinarySearch(names, string(after)+"\x00")
	}
	end := min(start+limit, len(names))
	page = names[start:end]
	if end < len(names) {
		next = base64.RawURLEncoding.EncodeToString([]byte(names[end-1]))
	}
	return page, next, ""
}

func (a *AWS) eksListClusters(w http.ResponseWriter, r *http.Request, _ eksCall) {
	a.mu.Lock()
	names := slices.Collect(maps.Keys(a.eks))
	a.mu.Unlock()
	page, next, msg := eksPage(r.URL.Query(), names)
	if msg != "" {
		eksInvalid(w, msg)
		return
	}
	out := map[string]any{"clusters": page}
	if next != "" {
		out["nextToken"] = next
	}
	eksJSON(w, out)
}

func (a *AWS) eksDeleteCluster(w http.ResponseWriter, r *http.Request, _ eksCall) {
	name := r.PathValue("name")
	a.mu.Lock()
	defer a.mu.Unlock()
	st, ok := a.eks[name]
	if !ok {
		eksClusterNotFound(w, name)
		return
	}
	switch {
	case len(st.nodegroups) > 0:
		eksError(w, http.StatusConflict, "ResourceInUseException", "Cluster has nodegroups attached", "clusterName", name)
		return
	case st.view.Status == eksStatusCreating:
		eksError(w, http.StatusConflict, "ResourceInUseException", "Cannot delete because cluster "+name+" currently has an update in progress", "clusterName", name)
		return
	case st.view.Status == eksStatusDeleting:
		eksJSON(w, map[string]any{"cluster": st.view})
		return
	}
	st.view.Status = eksStatusDeleting
	eksJSON(w, map[string]any{"cluster": st.view})
	labName := st.labName
	a.fleet.forget(labName)
	a.background("delete eks cluster "+name, func(ctx context.Context) error {
		if err := a.clusters.DeleteCluster(ctx, labName); err != nil {
			return fmt.Errorf("delete lab cluster %s: %w", labName, err)
		}
		return nil
	}, func(err error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if err != nil {
			st.view.Status = eksStatusFailed
			st.view.Health.Issues = append(st.view.Health.Issues, eksIssue{Code: "InternalFailure", Message: err.Error(), ResourceIDs: []string{name}})
			return
		}
		if a.eks[name] == st {
			delete(a.eks, name)
			delete(a.lab, labName)
		}
	})
}

// eksCheckScaling validates a complete scaling config.
func eksCheckScaling(s eksScaling) string {
	minS, maxS, des := *s.MinSize, *s.MaxSize, *s.DesiredSize
	switch {
	case minS < 0:
		return fmt.Sprintf("scalingConfig.minSize %d is invalid: it must be 0 or more", minS)
	case maxS < 1:
		return fmt.Sprintf("scalingConfig.maxSize %d is invalid: it must be 1 or more", maxS)
	case maxS > eksMaxNodes:
		return fmt.Sprintf("scalingConfig.maxSize %d is more than the lab allows (%d nodes per node group)", maxS, eksMaxNodes)
	case des < 0:
		return fmt.Sprintf("scalingConfig.desiredSize %d is invalid: it must be 0 or more", des)
	case minS > maxS:
		return fmt.Sprintf("Minimum capacity %d can't be greater than maximum capacity %d (scalingConfig.minSize > scalingConfig.maxSize)", minS, maxS)
	case des > maxS:
		// EKS's own wording (scalingConfig.desiredSize above maxSize).
		return "desiredSize can't be greater than maxSize"
	case des < minS:
		return fmt.Sprintf("Minimum capacity %d can't be greater than desired size %d", minS, des)
	}
	return ""
}

func eksCheckTaints(taints []eksTaint) string {
	for _, t := range taints {
		switch t.Effect {
		case "NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE":
		default:
			return fmt.Sprintf("taint %q effect %q is invalid: use NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE", t.Key, t.Effect)
		}
		if t.Key == "" {
			return "taint key is empty: every taint needs a key"
		}
	}
	return ""
}

// eksPool is the lab node pool of a node group.
func eksPool(ng eksNodegroup, poolName string, region string) lab.NodePool {
	it := eksInstanceTypes[ng.InstanceTypes[0]]
	labels := map[string]string{
		"eks.amazonaws.com/nodegroup":      ng.NodegroupName,
		"eks.amazonaws.com/capacityType":   ng.CapacityType,
		"node.kubernetes.io/instance-type": ng.InstanceTypes[0],
		"topology.kubernetes.io/region":    region,
	}
	maps.Copy(labels, ng.Labels)
	return lab.NodePool{
		Name:   poolName,
		Count:  *ng.ScalingConfig.DesiredSize,
		CPU:    it.CPU,
		Memory: it.Memory,
		Pods:   it.Pods,
		Labels: labels,
	}
}

func eksNodegroupRegion(arn string) string {
	parts := strings.Split(arn, ":")
	if len(parts) > 3 {
		return parts[3]
	}
	return ""
}

func (a *AWS) eksCreateNodegroup(w http.ResponseWriter, r *http.Request, c eksCall) {
	cname := r.PathValue("name")
	var in eksCreateNodegroupInput
	if !eksDecode(w, c.body, &in) {
		return
	}
	if msg := eksCheckName("nodegroupName", in.NodegroupName, 63); msg != "" {
		eksInvalid(w, msg, "clusterName", cname)
		return
	}
	if !eksRoleARNPattern.MatchString(in.NodeRole) {
		eksInvalid(w, fmt.Sprintf("nodeRole %q is not a valid IAM role ARN: use arn:aws:iam::<account>:role/<name>", in.NodeRole), "clusterName", cname, "nodegroupName", in.NodegroupName)
		return
	}
	if len(in.Subnets) == 0 {
		eksInvalid(w, "subnets is required: set at least one subnet ID for the node group", "clusterName", cname, "nodegroupName", in.NodegroupName)
		return
	}
	if len(in.InstanceTypes) == 0 {
		in.InstanceTypes = []string{"t3.medium"}
	}
	for _, t := range in.InstanceTypes {
		if _, ok := eksInstanceTypes[t]; !ok {
			known := slices.Sorted(maps.Keys(eksInstanceTypes))
			eksInvalid(w, fmt.Sprintf("instance type %q is not supported by the lab: use one of %s", t, strings.Join(known, ", ")), "clusterName", cname, "nodegroupName", in.NodegroupName)
			return
		}
	}
	one, two := 1, 2
	sc := eksScaling{MinSize: &one, MaxSize: &two, DesiredSize: &two}
	if in.ScalingConfig != nil {
		if p := in.ScalingConfig.MinSize; p != nil {
			sc.MinSize = p
		}
		if p := in.ScalingConfig.MaxSize; p != nil {
			sc.MaxSize = p
		}
		if p := in.ScalingConfig.DesiredSize; p != nil {
			sc.DesiredSize = p
		}
	}
	if msg := eksCheckScaling(sc); msg != "" {
		eksInvalid(w, msg, "clusterName", cname, "nodegroupName", in.NodegroupName)
		return
	}
	if msg := eksCheckTaints(in.Taints); msg != "" {
		eksInvalid(w, msg, "clusterName", cname, "nodegroupName", in.NodegroupName)
		return
	}
	capType := in.CapacityType
	if capType == "" {
		capType = "ON_DEMAND"
	}
	if capType != "ON_DEMAND" && capType != "SPOT" {
		eksInvalid(w, fmt.Sprintf("capacityType %q is invalid: use ON_DEMAND or SPOT", capType), "clusterName", cname, "nodegroupName", in.NodegroupName)
		return
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	cl, ok := a.eks[cname]
	if !ok {
		eksClusterNotFound(w, cname)
		return
	}
	if cur, ok := cl.nodegroups[in.NodegroupName]; ok {
		if in.ClientRequestToken != "" && cur.clientRT == in.ClientRequestToken {
			eksJSON(w, map[string]any{"nodegroup": cur.view})
			return
		}
		eksError(w, http.StatusConflict, "ResourceInUseException", "NodeGroup already exists with name "+in.NodegroupName+" and cluster name "+cname, "clusterName", cname, "nodegroupName", in.NodegroupName)
		return
	}
	if cl.view.Status != eksStatusActive {
		eksError(w, http.StatusBadRequest, "InvalidRequestException", "Cluster '"+cname+"' is not in ACTIVE status", "clusterName", cname)
		return
	}
	poolName := eksLabName("", in.NodegroupName)
	for _, other := range cl.nodegroups {
		if other.pool.Name == poolName {
			eksInvalid(w, fmt.Sprintf("nodegroupName %q maps to lab node pool %q, already used by node group %q: use names that differ in more than case and '_' vs '-'", in.NodegroupName, poolName, other.view.NodegroupName), "clusterName", cname, "nodegroupName", in.NodegroupName)
			return
		}
	}
	diskSize := 20
	if in.DiskSize != nil {
		diskSize = *in.DiskSize
	}
	amiType := in.AmiType
	if amiType == "" {
		amiType = "AL2023_x86_64_STANDARD"
	}
	labels := maps.Clone(in.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	tags := maps.Clone(in.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	upcfg := eksUpdateConfig{MaxUnavailable: &one}
	if in.UpdateConfig != nil && (in.UpdateConfig.MaxUnavailable != nil || in.UpdateConfig.MaxUnavailablePercentage != nil) {
		upcfg = *in.UpdateConfig
	}
	now := a.now()
	region := eksNodegroupRegion(cl.view.Arn)
	uuid := strings.ToLower(eksShortID(cname + "/" + in.NodegroupName + now.String()))
	ng := &eksNodegroupState{
		clientRT: in.ClientRequestToken,
		view: eksNodegroup{
			NodegroupName:  in.NodegroupName,
			NodegroupArn:   a.eksArn(region, "nodegroup", cname+"/"+in.NodegroupName+"/"+uuid[:8]+"-"+uuid[8:12]),
			ClusterName:    cname,
			Version:        cl.view.Version,
			ReleaseVersion: cl.view.Version + ".0-20260101",
			CreatedAt:      eksTime(now),
			ModifiedAt:     eksTime(now),
			Status:         eksStatusCreating,
			CapacityType:   capType,
			ScalingConfig:  sc,
			InstanceTypes:  slices.Clone(in.InstanceTypes),
			Subnets:        slices.Clone(in.Subnets),
			AmiType:        amiType,
			NodeRole:       in.NodeRole,
			Labels:         labels,
			Taints:         slices.Clone(in.Taints),
			Resources:      &eksNodegroupResources{AutoScalingGroups: []eksASG{{Name: "eks-" + in.NodegroupName + "-" + uuid[:8]}}},
			DiskSize:       diskSize,
			Health:         eksHealth{Issues: []eksIssue{}},
			UpdateConfig:   upcfg,
			Tags:           tags,
		},
	}
	ng.pool = eksPool(ng.view, poolName, region)
	cl.nodegroups[in.NodegroupName] = ng
	eksJSON(w, map[string]any{"nodegroup": ng.view})

	// The node group is ACTIVE once its first nodes have booted and joined, as
	// EKS reports it; CREATE_FAILED when they cannot launch.
	key, ngName := fleetKey{cl.labName, ng.pool.Name}, in.NodegroupName
	a.eksFleetSet(key, ng)
	a.background("create eks node group "+cname+"/"+ngName, func(ctx context.Context) error {
		st, err := a.fleet.waitSettled(ctx, key)
		if err != nil {
			return fmt.Errorf("wait for the nodes of node group %s: %w", ngName, err)
		}
		if st.issue != nil {
			return eksLaunchError{eksIssueOf(st.issue, ng.view)}
		}
		return nil
	}, func(err error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		ng.view.ModifiedAt = eksTime(a.now())
		if err != nil {
			ng.view.Status = eksStatusCreateFailed
			issue := eksIssue{Code: "NodeCreationFailure", Message: err.Error(), ResourceIDs: []string{ngName}}
			if le, ok := err.(eksLaunchError); ok {
				issue = le.issue
			}
			ng.view.Health.Issues = append(ng.view.Health.Issues, issue)
			return
		}
		ng.view.Status = eksStatusActive
	})
}

// eksFindNodegroup looks a node group up under a.mu, writing the EKS error when
// the cluster or the node group does not exist.
func (a *AWS) eksFindNodegroup(w http.ResponseWriter, cname, ngName string) (*eksClusterState, *eksNodegroupState, bool) {
	cl, ok := a.eks[cname]
	if !ok {
		eksClusterNotFound(w, cname)
		return nil, nil, false
	}
	ng, ok := cl.nodegroups[ngName]
	if !ok {
		eksNodegroupNotFound(w, cname, ngName)
		return nil, nil, false
	}
	return cl, ng, true
}

func (a *AWS) eksDescribeNodegroup(w http.ResponseWriter, r *http.Request, _ eksCall) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cl, ng, ok := a.eksFindNodegroup(w, r.PathValue("name"), r.PathValue("ng"))
	if !ok {
		return
	}
	view := ng.view
	view.Health.Issues = slices.Clone(view.Health.Issues)
	if st := a.fleet.status(fleetKey{cl.labName, ng.pool.Name}); st.issue != nil && ng.view.Status == eksStatusActive {
		view.Health.Issues = append(view.Health.Issues, eksIssueOf(st.issue, ng.view))
	}
	eksJSON(w, map[string]any{"nodegroup": view})
}

func (a *AWS) eksListNodegroups(w http.ResponseWriter, r *http.Request, _ eksCall) {
	cname := r.PathValue("name")
	a.mu.Lock()
	cl, ok := a.eks[cname]
	var names []string
	if ok {
		names = slices.Collect(maps.Keys(cl.nodegroups))
	}
	a.mu.Unlock()
	if !ok {
		eksClusterNotFound(w, cname)
		return
	}
	page, next, msg := eksPage(r.URL.Query(), names)
	if msg != "" {
		eksInvalid(w, msg, "clusterName", cname)
		return
	}
	out := map[string]any{"nodegroups": page}
	if next != "" {
		out["nextToken"] = next
	}
	eksJSON(w, out)
}

func (a *AWS) eksUpdateNodegroupConfig(w http.ResponseWriter, r *http.Request, c eksCall) {
	cname, ngName := r.PathValue("name"), r.PathValue("ng")
	var in eksUpdateNodegroupConfigInput
	if !eksDecode(w, c.body, &in) {
		return
	}
	if in.Taints != nil {
		if msg := eksCheckTaints(append(slices.Clone(in.Taints.AddOrUpdateTaints), in.Taints.RemoveTaints...)); msg != "" {
			eksInvalid(w, msg, "clusterName", cname, "nodegroupName", ngName)
			return
		}
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	cl, ng, ok := a.eksFindNodegroup(w, cname, ngName)
	if !ok {
		return
	}
	if in.ClientRequestToken != "" {
		for _, u := range a.upds {
			if u.cluster == cname && u.nodegroup == ngName && u.clientRT == in.ClientRequestToken {
				eksJSON(w, map[string]any{"update": u.view})
				return
			}
		}
	}
	if ng.view.Status != eksStatusActive {
		eksError(w, http.StatusConflict, "ResourceInUseException", "Nodegroup cannot be updated as it is currently not in Active State", "clusterName", cname, "nodegroupName", ngName)
		return
	}

	next := ng.view
	sc := eksScaling{MinSize: eksPtr(*ng.view.ScalingConfig.MinSize), MaxSize: eksPtr(*ng.view.ScalingConfig.MaxSize), DesiredSize: eksPtr(*ng.view.ScalingConfig.DesiredSize)}
	var params []eksUpdateParam
	if s := in.ScalingConfig; s != nil {
		for _, f := range []struct {
			typ string
			in  *int
			out **int
		}{{"MinSize", s.MinSize, &sc.MinSize}, {"MaxSize", s.MaxSize, &sc.MaxSize}, {"DesiredSize", s.DesiredSize, &sc.DesiredSize}} {
			if f.in != nil {
				*f.out = eksPtr(*f.in)
				params = append(params, eksUpdateParam{Type: f.typ, Value: strconv.Itoa(*f.in)})
			}
		}
		if msg := eksCheckScaling(sc); msg != "" {
			eksInvalid(w, msg, "clusterName", cname, "nodegroupName", ngName)
			return
		}
	}
	next.ScalingConfig = sc
	next.Labels = maps.Clone(ng.view.Labels)
	if l := in.Labels; l != nil {
		for _, k := range l.RemoveLabels {
			if _, ok := l.AddOrUpdateLabels[k]; ok {
				eksInvalid(w, fmt.Sprintf("label %q is both added and removed: list it in addOrUpdateLabels or removeLabels, not both", k), "clusterName", cname, "nodegroupName", ngName)
				return
			}
			delete(next.Labels, k)
		}
		maps.Copy(next.Labels, l.AddOrUpdateLabels)
		if len(l.AddOrUpdateLabels) > 0 {
			b, _ := json.Marshal(l.AddOrUpdateLabels)
			params = append(params, eksUpdateParam{Type: "LabelsToAdd", Value: string(b)})
		}
		if len(l.RemoveLabels) > 0 {
			b, _ := json.Marshal(l.RemoveLabels)
			params = append(params, eksUpdateParam{Type: "LabelsToRemove", Value: string(b)})
		}
	}
	if t := in.Taints; t != nil {
		var kept []eksTaint
		for _, old := range ng.view.Taints {
			if !slices.ContainsFunc(t.RemoveTaints, func(x eksTaint) bool { return x.Key == old.Key && x.Effect == old.Effect }) &&
				!slices.ContainsFunc(t.AddOrUpdateTaints, func(x eksTaint) bool { return x.Key == old.Key && x.Effect == old.Effect }) {
				kept = append(kept, old)
			}
		}
		next.Taints = append(kept, t.AddOrUpdateTaints...)
		if len(t.AddOrUpdateTaints) > 0 {
			b, _ := json.Marshal(t.AddOrUpdateTaints)
			params = append(params, eksUpdateParam{Type: "TaintsToAdd", Value: string(b)})
		}
		if len(t.RemoveTaints) > 0 {
			b, _ := json.Marshal(t.RemoveTaints)
			params = append(params, eksUpdateParam{Type: "TaintsToRemove", Value: string(b)})
		}
	}
	if u := in.UpdateConfig; u != nil {
		if u.MaxUnavailable != nil {
			next.UpdateConfig = eksUpdateConfig{MaxUnavailable: eksPtr(*u.MaxUnavailable)}
			params = append(params, eksUpdateParam{Type: "MaxUnavailable", Value: strconv.Itoa(*u.MaxUnavailable)})
		} else if u.MaxUnavailablePercentage != nil {
			next.UpdateConfig = eksUpdateConfig{MaxUnavailablePercentage: eksPtr(*u.MaxUnavailablePercentage)}
			params = append(params, eksUpdateParam{Type: "MaxUnavailablePercentage", Value: strconv.Itoa(*u.MaxUnavailablePercentage)})
		}
	}
	if len(params) == 0 {
		eksInvalid(w, "No changes needed: set scalingConfig, labels, taints or updateConfig", "clusterName", cname, "nodegroupName", ngName)
		return
	}

	now := a.now()
	upd := &eksUpdateState{
		cluster:   cname,
		nodegroup: ngName,
		clientRT:  in.ClientRequestToken,
		view: eksUpdate{
			ID:        eksUUID(cname + "/" + ngName + now.String()),
			Status:    eksUpdateInProgress,
			Type:      "ConfigUpdate",
			Params:    params,
			CreatedAt: eksTime(now),
			Errors:    []eksErrorDetail{},
		},
	}
	a.upds[upd.view.ID] = upd
	eksJSON(w, map[string]any{"update": upd.view})

	// EKS accepts the new configuration at once: the node group stays ACTIVE and
	// shows the new desiredSize while the Auto Scaling group launches (each after
	// the boot delay) or terminates nodes. New labels and taints apply to nodes
	// launched from now on (the lab does not roll the existing ones).
	next.ModifiedAt = eksTime(now)
	ng.view = next
	ng.pool = eksPool(next, ng.pool.Name, eksNodegroupRegion(cl.view.Arn))
	upd.view.Status = eksUpdateSuccessful
	a.eksFleetSet(fleetKey{cl.labName, ng.pool.Name}, ng)
}

func (a *AWS) eksDescribeUpdate(w http.ResponseWriter, r *http.Request, _ eksCall) {
	cname, id := r.PathValue("name"), r.PathValue("id")
	ngName := r.URL.Query().Get("nodegroupName")
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.eks[cname]; !ok {
		eksClusterNotFound(w, cname)
		return
	}
	u, ok := a.upds[id]
	if !ok || u.cluster != cname || u.nodegroup != ngName {
		eksError(w, http.StatusNotFound, "ResourceNotFoundException", "No update found for ID: "+id, "clusterName", cname)
		return
	}
	eksJSON(w, map[string]any{"update": u.view})
}

func (a *AWS) eksDeleteNodegroup(w http.ResponseWriter, r *http.Request, _ eksCall) {
	cname, ngName := r.PathValue("name"), r.PathValue("ng")
	a.mu.Lock()
	defer a.mu.Unlock()
	cl, ng, ok := a.eksFindNodegroup(w, cname, ngName)
	if !ok {
		return
	}
	switch ng.view.Status {
	case eksStatusDeleting:
		eksJSON(w, map[string]any{"nodegroup": ng.view})
		return
	case eksStatusCreating, eksStatusUpdating:
		eksError(w, http.StatusConflict, "ResourceInUseException", "Nodegroup "+ngName+" cannot be deleted because it is currently in "+ng.view.Status+" state", "clusterName", cname, "nodegroupName", ngName)
		return
	}
	ng.view.Status = eksStatusDeleting
	ng.view.ModifiedAt = eksTime(a.now())
	eksJSON(w, map[string]any{"nodegroup": ng.view})

	key := fleetKey{cl.labName, ng.pool.Name}
	a.background("delete eks node group "+cname+"/"+ngName, func(ctx context.Context) error {
		if err := a.fleet.remove(ctx, key); err != nil {
			return fmt.Errorf("remove node pool %s from lab cluster %s: %w", key.pool, key.cluster, err)
		}
		return nil
	}, func(err error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if err != nil {
			ng.view.Status = eksStatusDeleteFailed
			ng.view.Health.Issues = append(ng.view.Health.Issues, eksIssue{Code: "NodeTerminationFailure", Message: err.Error(), ResourceIDs: []string{ngName}})
			return
		}
		if cl.nodegroups[ngName] == ng {
			delete(cl.nodegroups, ngName)
		}
		for id, u := range a.upds {
			if u.cluster == cname && u.nodegroup == ngName {
				delete(a.upds, id)
			}
		}
	})
}

func eksUUID(seed string) string {
	h := strings.ToLower(eksShortID(seed + awsRequestID()))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func eksPtr[T any](v T) *T { return &v }
