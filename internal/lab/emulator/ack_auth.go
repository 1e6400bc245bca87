package emulator

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// ackMaxBody bounds a request body; CreateCluster bodies are a few KiB.
const ackMaxBody = 1 << 20

// ackAuthenticate reads the body and checks the ROA signature: the Authorization
// header "acs <AccessKeyId>:<base64 HMAC-SHA1>" must name the lab's AccessKeyId and
// sign, with the lab secret, the string the SDK signs (auth.buildRoaStringToSign):
//
//	METHOD \n Accept \n Content-MD5 \n Content-Type \n Date \n
//	x-acs-* headers, sorted, as "name:value\n" \n
//	path[?key=value&... with keys sorted and values not escaped]
//
// (empty Accept/Content-MD5/Content-Type/Date are left out with their newline). The
// key is the lab's AccessKey, or temporary STS credentials ("STS." IDs) whose secret
// stsSecret returns for the request's x-acs-security-token header. On failure it
// writes the gateway's error and returns false.
func ackAuthenticate(w http.ResponseWriter, r *http.Request, reqID string, stsSecret func(keyID, token string) (string, bool)) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, ackMaxBody+1))
	if err != nil {
		ackGatewayError(w, r, reqID, http.StatusBadRequest, "InvalidRequest", fmt.Sprintf("read request body: %v", err))
		return nil, false
	}
	if len(body) > ackMaxBody {
		ackGatewayError(w, r, reqID, http.StatusRequestEntityTooLarge, "InvalidRequest", fmt.Sprintf("request body is larger than %d bytes", ackMaxBody))
		return nil, false
	}
	authz := r.Header.Get("Authorization")
	keyID, sig, ok := strings.Cut(strings.TrimPrefix(authz, "acs "), ":")
	if !strings.HasPrefix(authz, "acs ") || !ok || keyID == "" {
		ackGatewayError(w, r, reqID, http.StatusForbidden, ACKErrAccessKeyNotFound,
			"the request is not signed: sign it with an AccessKey (Authorization: acs <AccessKeyId>:<signature>), as the Alibaba Cloud SDK does")
		return nil, false
	}
	secret := AlicloudAccessSecret
	switch {
	case strings.HasPrefix(keyID, "STS."):
		token := r.Header.Get("x-acs-security-token")
		if token == "" {
			ackGatewayError(w, r, reqID, http.StatusBadRequest, "MissingSecurityToken", "SecurityToken is mandatory for this action.")
			return nil, false
		}
		s, ok := stsSecret(keyID, token)
		if !ok {
			ackGatewayError(w, r, reqID, http.StatusBadRequest, "InvalidSecurityToken.Expired", "Specified SecurityToken is expired.")
			return nil, false
		}
		secret = s
	case keyID != AlicloudAccessKey:
		// The key itself is not secret, but it is not echoed either.
		ackGatewayError(w, r, reqID, http.StatusForbidden, ACKErrAccessKeyNotFound, "Specified access key is not found.")
		return nil, false
	}
	sts := ackStringToSign(r)
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(sts))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		// Alibaba Cloud returns its string to sign; the SDK compares it with its own
		// to tell a wrong secret from a signing bug.
		ackGatewayError(w, r, reqID, http.StatusBadRequest, ACKErrSignatureMismatch,
			"Specified signature is not matched with our calculation. server string to sign is:"+sts)
		return nil, false
	}
	return body, true
}

func ackStringToSign(r *http.Request) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteString("\n")
	for _, h := range []string{"Accept", "Content-MD5", "Content-Type", "Date"} {
		if v := r.Header.Get(h); v != "" {
			b.WriteString(v)
			b.WriteString("\n")
		}
	}
	acs := map[string]string{}
	for k, v := range r.Header {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-acs-") && len(v) > 0 {
			acs[lk] = v[0]
		}
	}
	keys := make([]string, 0, len(acs))
	for k := range acs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(k + ":" + acs[k] + "\n")
	}
	b.WriteString(r.URL.Path)
	q := r.URL.Query()
	qk := make([]string, 0, len(q))
	for k := range q {
		qk = append(qk, k)
	}
	sort.Strings(qk)
	for i, k := range qk {
		if i == 0 {
			b.WriteString("?")
		} else {
			b.WriteString("&")
		}
		b.WriteString(k)
		if v := q.Get(k); v != "" {
			b.WriteString("=" + v)
		}
	}
	return b.String()
}

// ackGatewayError writes an error as Alibaba Cloud's API gateway does (capitalised
// keys; the v1 SDK reads Code into ServerError.ErrorCode()).
func ackGatewayError(w http.ResponseWriter, r *http.Request, reqID string, status int, code, message string) {
	ackJSON(w, status, map[string]string{
		"RequestId": reqID,
		"HostId":    r.Host,
		"Code":      code,
		"Message":   message,
		"Recommend": "https://api.aliyun.com/troubleshoot?q=" + code + "&product=CS",
	})
}

// ackServiceError writes an error as the CS service does: {"code","message","requestId"}.
func ackServiceError(w http.ResponseWriter, reqID string, status int, code, message string) {
	ackJSON(w, status, map[string]string{"code": code, "message": message, "requestId": reqID})
}

func ackJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, `{"code":%q,"message":%q}`, ACKErrInternal, "encode response: "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
