package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// EKS REST-JSON shapes, as the EKS API sends and receives them (only the members
// the emulator understands; unknown request members are ignored as EKS ignores
// nothing, but the SDK never sends members that are not in its model).

// eksTime is an EKS timestamp: epoch seconds as a JSON number.
type eksTime time.Time

func (t eksTime) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(time.Time(t).UnixMilli())/1000, 'f', 3, 64)), nil
}

type eksScaling struct {
	MinSize     *int `json:"minSize,omitempty"`
	MaxSize     *int `json:"maxSize,omitempty"`
	DesiredSize *int `json:"desiredSize,omitempty"`
}

type eksVpcConfigRequest struct {
	SubnetIDs             []string `json:"subnetIds"`
	SecurityGroupIDs      []string `json:"securityGroupIds"`
	EndpointPublicAccess  *bool    `json:"endpointPublicAccess"`
	EndpointPrivateAccess *bool    `json:"endpointPrivateAccess"`
	PublicAccessCidrs     []string `json:"publicAccessCidrs"`
}

type eksVpcConfig struct {
	SubnetIDs              []string `json:"subnetIds"`
	SecurityGroupIDs       []string `json:"securityGroupIds"`
	ClusterSecurityGroupID string   `json:"clusterSecurityGroupId"`
	VpcID                  string   `json:"vpcId"`
	EndpointPublicAccess   bool     `json:"endpointPublicAccess"`
	EndpointPrivateAccess  bool     `json:"endpointPrivateAccess"`
	PublicAccessCidrs      []string `json:"publicAccessCidrs"`
}

type eksNetworkConfig struct {
	ServiceIPv4Cidr string `json:"serviceIpv4Cidr,omitempty"`
	IPFamily        string `json:"ipFamily,omitempty"`
}

type eksLogSetup struct {
	Types   []string `json:"types"`
	Enabled bool     `json:"enabled"`
}

type eksLogging struct {
	ClusterLogging []eksLogSetup `json:"clusterLogging"`
}

type eksAccessConfig struct {
	AuthenticationMode                      string `json:"authenticationMode,omitempty"`
	BootstrapClusterCreatorAdminPermissions *bool  `json:"bootstrapClusterCreatorAdminPermissions,omitempty"`
}

type eksIssue struct {
	Code        string   `json:"code"`
	Message     string   `json:"message"`
	ResourceIDs []string `json:"resourceIds,omitempty"`
}

type eksHealth struct {
	Issues []eksIssue `json:"issues"`
}

type eksCA struct {
	Data string `json:"data,omitempty"`
}

type eksOIDC struct {
	Issuer string `json:"issuer"`
}

type eksIdentity struct {
	OIDC eksOIDC `json:"oidc"`
}

type eksUpgradePolicy struct {
	SupportType string `json:"supportType"`
}

type eksCluster struct {
	Name                    string            `json:"name"`
	Arn                     string            `json:"arn"`
	CreatedAt               eksTime           `json:"createdAt"`
	Version                 string            `json:"version"`
	Endpoint                string            `json:"endpoint,omitempty"`
	RoleArn                 string            `json:"roleArn"`
	ResourcesVpcConfig      eksVpcConfig      `json:"resourcesVpcConfig"`
	KubernetesNetworkConfig eksNetworkConfig  `json:"kubernetesNetworkConfig"`
	Logging                 eksLogging        `json:"logging"`
	Identity                *eksIdentity      `json:"identity,omitempty"`
	Status                  string            `json:"status"`
	CertificateAuthority    eksCA             `json:"certificateAuthority"`
	ClientRequestToken      string            `json:"clientRequestToken,omitempty"`
	PlatformVersion         string            `json:"platformVersion"`
	Tags                    map[string]string `json:"tags"`
	Health                  eksHealth         `json:"health"`
	AccessConfig            eksAccessConfig   `json:"accessConfig"`
	UpgradePolicy           eksUpgradePolicy  `json:"upgradePolicy"`
}

type eksCreateClusterInput struct {
	Name                    string               `json:"name"`
	RoleArn                 string               `json:"roleArn"`
	Version                 string               `json:"version"`
	ResourcesVpcConfig      *eksVpcConfigRequest `json:"resourcesVpcConfig"`
	KubernetesNetworkConfig *eksNetworkConfig    `json:"kubernetesNetworkConfig"`
	Logging                 *eksLogging          `json:"logging"`
	ClientRequestToken      string               `json:"clientRequestToken"`
	Tags                    map[string]string    `json:"tags"`
	AccessConfig            *eksAccessConfig     `json:"accessConfig"`
}

type eksTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

type eksASG struct {
	Name string `json:"name"`
}

type eksNodegroupResources struct {
	AutoScalingGroups []eksASG `json:"autoScalingGroups"`
}

type eksUpdateConfig struct {
	MaxUnavailable           *int `json:"maxUnavailable,omitempty"`
	MaxUnavailablePercentage *int `json:"maxUnavailablePercentage,omitempty"`
}

type eksNodegroup struct {
	NodegroupName  string                 `json:"nodegroupName"`
	NodegroupArn   string                 `json:"nodegroupArn"`
	ClusterName    string                 `json:"clusterName"`
	Version        string                 `json:"version"`
	ReleaseVersion string                 `json:"releaseVersion"`
	CreatedAt      eksTime                `json:"createdAt"`
	ModifiedAt     eksTime                `json:"modifiedAt"`
	Status         string                 `json:"status"`
	CapacityType   string                 `json:"capacityType"`
	ScalingConfig  eksScaling             `json:"scalingConfig"`
	InstanceTypes  []string               `json:"instanceTypes"`
	Subnets        []string               `json:"subnets"`
	AmiType        string                 `json:"amiType"`
	NodeRole       string                 `json:"nodeRole"`
	Labels         map[string]string      `json:"labels"`
	Taints         []eksTaint             `json:"taints,omitempty"`
	Resources      *eksNodegroupResources `json:"resources,omitempty"`
	DiskSize       int                    `json:"diskSize"`
	Health         eksHealth              `json:"health"`
	UpdateConfig   eksUpdateConfig        `json:"updateConfig"`
	Tags           map[string]string      `json:"tags"`
}

type eksCreateNodegroupInput struct {
	NodegroupName      string            `json:"nodegroupName"`
	ScalingConfig      *eksScaling       `json:"scalingConfig"`
	DiskSize           *int              `json:"diskSize"`
	Subnets            []string          `json:"subnets"`
	InstanceTypes      []string          `json:"instanceTypes"`
	AmiType            string            `json:"amiType"`
	NodeRole           string            `json:"nodeRole"`
	Labels             map[string]string `json:"labels"`
	Taints             []eksTaint        `json:"taints"`
	Tags               map[string]string `json:"tags"`
	ClientRequestToken string            `json:"clientRequestToken"`
	CapacityType       string            `json:"capacityType"`
	Version            string            `json:"version"`
	ReleaseVersion     string            `json:"releaseVersion"`
	UpdateConfig       *eksUpdateConfig  `json:"updateConfig"`
}

type eksUpdateLabels struct {
	AddOrUpdateLabels map[string]string `json:"addOrUpdateLabels"`
	RemoveLabels      []string          `json:"removeLabels"`
}

type eksUpdateTaints struct {
	AddOrUpdateTaints []eksTaint `json:"addOrUpdateTaints"`
	RemoveTaints      []eksTaint `json:"removeTaints"`
}

type eksUpdateNodegroupConfigInput struct {
	Labels             *eksUpdateLabels `json:"labels"`
	Taints             *eksUpdateTaints `json:"taints"`
	ScalingConfig      *eksScaling      `json:"scalingConfig"`
	UpdateConfig       *eksUpdateConfig `json:"updateConfig"`
	ClientRequestToken string           `json:"clientRequestToken"`
}

type eksUpdateParam struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type eksErrorDetail struct {
	ErrorCode    string   `json:"errorCode"`
	ErrorMessage string   `json:"errorMessage"`
	ResourceIDs  []string `json:"resourceIds,omitempty"`
}

type eksUpdate struct {
	ID        string           `json:"id"`
	Status    string           `json:"status"`
	Type      string           `json:"type"`
	Params    []eksUpdateParam `json:"params"`
	CreatedAt eksTime          `json:"createdAt"`
	Errors    []eksErrorDetail `json:"errors"`
}

// eksError writes an EKS (REST-JSON) error: the type in x-amzn-ErrorType, the
// message (and members such as clusterName) in the body, so the SDK returns the
// matching typed error.
func eksError(w http.ResponseWriter, status int, code, msg string, members ...string) {
	body := map[string]string{"message": msg}
	for i := 0; i+1 < len(members); i += 2 {
		body[members[i]] = members[i+1]
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-ErrorType", code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func eksJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		eksError(w, http.StatusInternalServerError, "ServerException", "cannot encode the response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
