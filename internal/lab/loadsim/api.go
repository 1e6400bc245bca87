package loadsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/hca-project/terraform-provider-hca/internal/workload"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	maxJSONBody  = 64 << 10
	maxTraceBody = 8 << 20
)

// LoadRequest is the body of PUT /v1/apps/{namespace}/{name}.
type LoadRequest struct {
	// RPS is the offered load in requests/s (required, >= 0).
	RPS *float64 `json:"rps"`
	// CPUPerRequest is the CPU cost of one request in CPU-seconds (> 0;
	// default DefaultCPUPerRequest).
	CPUPerRequest *float64 `json:"cpuPerRequest"`
	// Memory is the app's memory behaviour (optional; unset: none, a pod's
	// memory limit changes nothing): pods then report their working set and
	// a too-small memory limit slows them down (workload.ComputeMemory).
	Memory *MemoryModel `json:"memory,omitempty"`
}

// MemoryModel is workload.Memory in the API: every field >= 0.
type MemoryModel struct {
	BaseMiB       float64 `json:"baseMiB"`
	PerRequestMiB float64 `json:"perRequestMiB"`
	GCCost        float64 `json:"gcCost"`
}

// APIError is the JSON body of every API error.
type APIError struct {
	Error string `json:"error"`
	// Field names the offending field, path parameter or trace line, if any.
	Field string `json:"field,omitempty"`
}

// Handler serves:
//
//	GET    /metrics                              Prometheus metrics
//	GET    /healthz                              simulator health (JSON)
//	GET    /v1/apps                              every app's status
//	GET    /v1/apps/{namespace}/{name}           one app's status
//	PUT    /v1/apps/{namespace}/{name}           set a fixed load: {"rps": 50, "cpuPerRequest": 0.01,
//	                                             "memory": {"baseMiB": 250, "perRequestMiB": 1, "gcCost": 0.05}}
//	PUT    /v1/apps/{namespace}/{name}/trace     replay a CSV trace (seconds,requests_per_second) from now;
//	                                             optional ?cpuPerRequest= sets the cost
//	DELETE /v1/apps/{namespace}/{name}           forget the app and its series
//
// A PUT of a fixed load replaces any trace and resets cpuPerRequest to the
// default when omitted. Before a trace's first point the previous fixed load
// (0 for a new app) applies; after its last point the last load holds.
func (s *Sim) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{s})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.health())
	})
	mux.HandleFunc("GET /v1/apps", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"apps": s.Apps()})
	})
	mux.HandleFunc("GET /v1/apps/{namespace}/{name}", s.getApp)
	mux.HandleFunc("PUT /v1/apps/{namespace}/{name}", s.putApp)
	mux.HandleFunc("DELETE /v1/apps/{namespace}/{name}", s.deleteAppHandler)
	mux.HandleFunc("PUT /v1/apps/{namespace}/{name}/trace", s.putTrace)
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, field, format string, args ...any) {
	writeJSON(w, code, APIError{Error: fmt.Sprintf(format, args...), Field: field})
}

// appFromPath validates the {namespace} and {name} path parameters.
func appFromPath(w http.ResponseWriter, r *http.Request) (appKey, bool) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		writeError(w, http.StatusBadRequest, "namespace", "namespace %q is not a valid Kubernetes namespace name: %s", workload.Clip(ns), strings.Join(errs, "; "))
		return appKey{}, false
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		writeError(w, http.StatusBadRequest, "name", "name %q is not a valid Deployment name: %s", workload.Clip(name), strings.Join(errs, "; "))
		return appKey{}, false
	}
	return appKey{ns, name}, true
}

func (s *Sim) getApp(w http.ResponseWriter, r *http.Request) {
	k, ok := appFromPath(w, r)
	if !ok {
		return
	}
	st, ok := s.App(k.namespace, k.name)
	if !ok {
		writeError(w, http.StatusNotFound, "", "app %s is not registered: PUT /v1/apps/%s to give it a load", k, k)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Sim) deleteAppHandler(w http.ResponseWriter, r *http.Request) {
	k, ok := appFromPath(w, r)
	if !ok {
		return
	}
	if !s.deleteApp(k) {
		writeError(w, http.StatusNotFound, "", "app %s is not registered", k)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Sim) putApp(w http.ResponseWriter, r *http.Request) {
	k, ok := appFromPath(w, r)
	if !ok {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "body", "body is larger than %d bytes", maxJSONBody)
			return
		}
		writeError(w, http.StatusBadRequest, "body", "read body: %v", err)
		return
	}
	req, field, err := parseLoadRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, field, "%v", err)
		return
	}
	cost := workload.DefaultCPUPerRequest
	if req.CPUPerRequest != nil {
		cost = *req.CPUPerRequest
	}
	var mem workload.Memory
	if m := req.Memory; m != nil {
		mem = workload.Memory{BaseMiB: m.BaseMiB, PerRequestMiB: m.PerRequestMiB, GCCost: m.GCCost}
	}
	s.setLoadMemory(k, *req.RPS, cost, mem)
	st, _ := s.App(k.namespace, k.name)
	writeJSON(w, http.StatusOK, st)
}

// parseLoadRequest decodes and validates a LoadRequest; on error it also
// names the offending field.
func parseLoadRequest(body []byte) (LoadRequest, string, error) {
	var req LoadRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return req, "body", errors.New(`body is empty: send JSON like {"rps": 50, "cpuPerRequest": 0.01}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var typeErr *json.UnmarshalTypeError
		var synErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			return req, typeErr.Field, fmt.Errorf("%s must be a finite number (got JSON %s)", typeErr.Field, typeErr.Value)
		case errors.As(err, &typeErr):
			return req, "body", fmt.Errorf(`body must be a JSON object like {"rps": 50}, got JSON %s`, typeErr.Value)
		case errors.As(err, &synErr):
			return req, "body", fmt.Errorf("body is not valid JSON at byte %d: %v", synErr.Offset, err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return req, f, fmt.Errorf("unknown field %q: the allowed fields are rps, cpuPerRequest and memory (baseMiB, perRequestMiB, gcCost)", f)
		default:
			return req, "body", fmt.Errorf("body is not valid JSON: %v", err)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, "body", errors.New("body has data after the JSON object: send one object")
	}
	if req.RPS == nil {
		return req, "rps", errors.New("rps is required: the offered load in requests per second (>= 0)")
	}
	if *req.RPS < 0 {
		return req, "rps", fmt.Errorf("rps must be >= 0 (got %v)", *req.RPS)
	}
	if req.CPUPerRequest != nil && !(*req.CPUPerRequest > 0) {
		return req, "cpuPerRequest", fmt.Errorf("cpuPerRequest must be > 0 CPU-seconds per request (got %v); omit it for the default %v", *req.CPUPerRequest, workload.DefaultCPUPerRequest)
	}
	if m := req.Memory; m != nil {
		for _, f := range []struct {
			name string
			v    float64
		}{{"memory.baseMiB", m.BaseMiB}, {"memory.perRequestMiB", m.PerRequestMiB}, {"memory.gcCost", m.GCCost}} {
			if !(f.v >= 0) || math.IsInf(f.v, 0) {
				return req, f.name, fmt.Errorf("%s must be a finite number >= 0 (got %v)", f.name, f.v)
			}
		}
	}
	return req, "", nil
}

func (s *Sim) putTrace(w http.ResponseWriter, r *http.Request) {
	k, ok := appFromPath(w, r)
	if !ok {
		return
	}
	cost := 0.0
	if v := r.URL.Query().Get("cpuPerRequest"); v != "" {
		c, err := strconv.ParseFloat(v, 64)
		if err != nil || !(c > 0) || math.IsInf(c, 0) {
			writeError(w, http.StatusBadRequest, "cpuPerRequest", "query parameter cpuPerRequest must be a finite number > 0 (got %q)", workload.Clip(v))
			return
		}
		cost = c
	}
	tr, err := workload.ParseTrace(http.MaxBytesReader(w, r.Body, maxTraceBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		var te *workload.TraceError
		switch {
		case errors.As(err, &tooBig):
			writeError(w, http.StatusRequestEntityTooLarge, "body", "trace is larger than %d bytes", maxTraceBody)
		case errors.As(err, &te) && te.Line > 0:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("line %d", te.Line), "%v", err)
		default:
			writeError(w, http.StatusBadRequest, "body", "%v", err)
		}
		return
	}
	s.setTrace(k, tr, cost)
	st, _ := s.App(k.namespace, k.name)
	writeJSON(w, http.StatusOK, st)
}
