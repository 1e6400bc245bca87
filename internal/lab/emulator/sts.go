package emulator

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
)

const (
	stsVersion = "2011-06-15"
	stsXMLNS   = "https://sts.amazonaws.com/doc/2011-06-15/"
	// stsUserName is the IAM user the lab credentials belong to.
	stsUserName = "hca-lab"
	// stsUserID is that user's unique id (IAM user ids start with AIDA).
	stsUserID = "AIDAHCALAB0000000001"
)

// stsCallerARN is the ARN GetCallerIdentity returns for the lab credentials.
func stsCallerARN() string { return "arn:aws:iam::" + AWSAccountID + ":user/" + stsUserName }

type stsIdentityResult struct {
	Arn     string `xml:"Arn" json:"Arn"`
	UserID  string `xml:"UserId" json:"UserId"`
	Account string `xml:"Account" json:"Account"`
}

type stsResponseMetadata struct {
	RequestID string `xml:"RequestId" json:"RequestId"`
}

type stsGetCallerIdentityResponse struct {
	XMLName  xml.Name            `xml:"GetCallerIdentityResponse" json:"-"`
	XMLNS    string              `xml:"xmlns,attr" json:"-"`
	Result   stsIdentityResult   `xml:"GetCallerIdentityResult" json:"GetCallerIdentityResult"`
	Metadata stsResponseMetadata `xml:"ResponseMetadata" json:"ResponseMetadata"`
}

type stsErrorBody struct {
	Type    string `xml:"Type" json:"Type"`
	Code    string `xml:"Code" json:"Code"`
	Message string `xml:"Message" json:"Message"`
}

type stsErrorResponse struct {
	XMLName   xml.Name     `xml:"ErrorResponse" json:"-"`
	XMLNS     string       `xml:"xmlns,attr" json:"-"`
	Error     stsErrorBody `xml:"Error" json:"Error"`
	RequestID string       `xml:"RequestId" json:"RequestId"`
}

// serveSTS serves the STS Query API on "/": POST with a form body (the SDK) or
// GET with the parameters and a presigned signature in the query (EKS tokens).
func (a *AWS) serveSTS(w http.ResponseWriter, r *http.Request) {
	asJSON := strings.Contains(r.Header.Get("Accept"), "application/json")
	reqID := w.Header().Get("x-amzn-RequestId")
	var body []byte
	params := r.URL.Query()
	switch r.Method {
	case http.MethodGet:
	case http.MethodPost:
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			stsError(w, asJSON, reqID, http.StatusBadRequest, "Sender", "MalformedInput", "cannot read the request body: "+err.Error())
			return
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			stsError(w, asJSON, reqID, http.StatusBadRequest, "Sender", "MalformedInput", "the request body is not a URL-encoded form: "+err.Error())
			return
		}
		for k, v := range form {
			params[k] = v
		}
	default:
		stsError(w, asJSON, reqID, http.StatusMethodNotAllowed, "Sender", "InvalidAction", "STS accepts GET and POST requests only")
		return
	}
	if r.Method == http.MethodPost && params.Get("Version") == asVersion {
		a.serveAutoScaling(w, r, body, params)
		return
	}
	if params.Get("Action") == "AssumeRoleWithWebIdentity" && params.Get("Version") == stsVersion {
		// Unsigned, as in real STS: the web identity token is the credential.
		resp, fail := a.assumeRoleWithWebIdentity(params, reqID)
		if fail != nil {
			stsError(w, asJSON, reqID, fail.status, "Sender", fail.code, fail.msg)
			return
		}
		stsWrite(w, asJSON, "AssumeRoleWithWebIdentityResponse", resp)
		return
	}
	caller, aerr := a.awsVerify(awsFromHTTP(r, a.base.Scheme, body), "sts")
	if aerr != nil {
		code := map[awsAuthKind]string{
			awsAuthMissing:      "MissingAuthenticationToken",
			awsAuthIncomplete:   "IncompleteSignature",
			awsAuthUnknownKey:   "InvalidClientTokenId",
			awsAuthBadSignature: "SignatureDoesNotMatch",
			awsAuthExpired:      "ExpiredToken",
		}[aerr.kind]
		stsError(w, asJSON, reqID, http.StatusForbidden, "Sender", code, aerr.msg)
		return
	}
	action, version := params.Get("Action"), params.Get("Version")
	if version != stsVersion {
		stsError(w, asJSON, reqID, http.StatusBadRequest, "Sender", "InvalidParameterValue", "Version "+version+" is not supported: use "+stsVersion)
		return
	}
	if action != "GetCallerIdentity" {
		stsError(w, asJSON, reqID, http.StatusBadRequest, "Sender", "InvalidAction", "Could not find operation "+action+" for version "+stsVersion+" (the lab emulates GetCallerIdentity and AssumeRoleWithWebIdentity only)")
		return
	}
	result := stsIdentityResult{Arn: stsCallerARN(), UserID: stsUserID, Account: AWSAccountID}
	if s := caller.Session; s != nil {
		result = stsIdentityResult{Arn: s.AssumedRoleARN(), UserID: s.RoleID + ":" + s.SessionName, Account: AWSAccountID}
	}
	resp := stsGetCallerIdentityResponse{
		XMLNS:    stsXMLNS,
		Result:   result,
		Metadata: stsResponseMetadata{RequestID: reqID},
	}
	stsWrite(w, asJSON, "GetCallerIdentityResponse", resp)
}

// stsWrite renders a successful STS response as XML, or as JSON wrapped in
// its response name when the client asked for JSON.
func stsWrite(w http.ResponseWriter, asJSON bool, name string, resp any) {
	if asJSON {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{name: resp})
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(resp)
}

func stsError(w http.ResponseWriter, asJSON bool, reqID string, status int, typ, code, msg string) {
	resp := stsErrorResponse{XMLNS: stsXMLNS, Error: stsErrorBody{Type: typ, Code: code, Message: msg}, RequestID: reqID}
	if asJSON {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(resp)
}
