package loadsim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"

	clocktesting "k8s.io/utils/clock/testing"
)

// serve serves h on a loopback listener until the test ends and returns its
// base URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// call makes one request and returns the status and body.
func call(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, b
}

func newTestSim(t *testing.T, src ClusterSource) (*Sim, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if src == nil {
		src = StaticSource(nil)
	}
	s, err := New(Options{Clusters: src, Clock: clk})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, clk
}

func TestAPIValidation(t *testing.T) {
	s, _ := newTestSim(t, nil)
	base := serve(t, s.Handler())
	tests := []struct {
		name, method, path, body string
		wantCode                 int
		wantField, wantMsg       string
	}{
		{"negative rps", "PUT", "/v1/apps/shop/web", `{"rps": -1}`, 400, "rps", "rps must be >= 0 (got -1)"},
		{"missing rps", "PUT", "/v1/apps/shop/web", `{"cpuPerRequest": 0.01}`, 400, "rps", "rps is required"},
		{"zero cpuPerRequest", "PUT", "/v1/apps/shop/web", `{"rps": 5, "cpuPerRequest": 0}`, 400, "cpuPerRequest", "cpuPerRequest must be > 0"},
		{"negative cpuPerRequest", "PUT", "/v1/apps/shop/web", `{"rps": 5, "cpuPerRequest": -0.5}`, 400, "cpuPerRequest", "got -0.5"},
		{"rps as string", "PUT", "/v1/apps/shop/web", `{"rps": "50"}`, 400, "rps", "rps must be a finite number"},
		{"rps overflows", "PUT", "/v1/apps/shop/web", `{"rps": 1e400}`, 400, "rps", "rps must be a finite number"},
		{"unknown field", "PUT", "/v1/apps/shop/web", `{"rps": 5, "cpu": 1}`, 400, "cpu", `unknown field "cpu"`},
		{"negative memory cost", "PUT", "/v1/apps/shop/web", `{"rps": 5, "memory": {"baseMiB": 250, "perRequestMiB": 1, "gcCost": -0.1}}`, 400, "memory.gcCost", "memory.gcCost must be a finite number >= 0 (got -0.1)"},
		{"not JSON", "PUT", "/v1/apps/shop/web", `rps=5`, 400, "body", "not valid JSON"},
		{"array", "PUT", "/v1/apps/shop/web", `[1]`, 400, "body", "must be a JSON object"},
		{"empty body", "PUT", "/v1/apps/shop/web", ``, 400, "body", "body is empty"},
		{"two objects", "PUT", "/v1/apps/shop/web", `{"rps": 1} {"rps": 2}`, 400, "body", "data after the JSON object"},
		{"bad namespace", "PUT", "/v1/apps/Shop_NS/web", `{"rps": 1}`, 400, "namespace", `namespace "Shop_NS" is not a valid`},
		{"bad name", "PUT", "/v1/apps/shop/Web!", `{"rps": 1}`, 400, "name", `name "Web!" is not a valid Deployment name`},
		{"get unknown app", "GET", "/v1/apps/shop/nothere", ``, 404, "", "app shop/nothere is not registered"},
		{"delete unknown app", "DELETE", "/v1/apps/shop/nothere", ``, 404, "", "is not registered"},
		{"trace bad line", "PUT", "/v1/apps/shop/web/trace", "seconds,requests_per_second\n0,10\n5,abc\n", 400, "line 3", `trace line 3: requests_per_second "abc" is not a number`},
		{"trace empty", "PUT", "/v1/apps/shop/web/trace", "", 400, "body", "no data lines"},
		{"trace bad cost", "PUT", "/v1/apps/shop/web/trace?cpuPerRequest=0", "0,1\n", 400, "cpuPerRequest", "must be a finite number > 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := call(t, tc.method, base+tc.path, tc.body)
			if code != tc.wantCode {
				t.Fatalf("status = %d, want %d; body %s", code, tc.wantCode, body)
			}
			var e APIError
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("error body is not JSON: %v: %s", err, body)
			}
			if e.Field != tc.wantField {
				t.Errorf("field = %q, want %q (error %q)", e.Field, tc.wantField, e.Error)
			}
			if !strings.Contains(e.Error, tc.wantMsg) {
				t.Errorf("error = %q, want it to contain %q", e.Error, tc.wantMsg)
			}
		})
	}
	// None of the rejected requests registered an app.
	if apps := s.Apps(); len(apps) != 0 {
		t.Errorf("rejected requests registered apps: %+v", apps)
	}
}

func TestAPILifecycle(t *testing.T) {
	s, clk := newTestSim(t, nil)
	base := serve(t, s.Handler())

	code, body := call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 50, "cpuPerRequest": 0.02}`)
	if code != 200 {
		t.Fatalf("PUT: %d %s", code, body)
	}
	var st AppStatus
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("PUT body: %v", err)
	}
	if st.Namespace != "shop" || st.Name != "web" || st.RPS != 50 || st.CPUPerRequest != 0.02 || st.Trace != nil {
		t.Errorf("PUT returned %+v, want shop/web at 50 rps, 0.02 CPU-s/request, no trace", st)
	}

	// Omitting cpuPerRequest resets it to the default.
	call(t, "PUT", base+"/v1/apps/shop/api", `{"rps": 0}`)
	code, body = call(t, "GET", base+"/v1/apps/shop/api", "")
	if err := json.Unmarshal(body, &st); code != 200 || err != nil || st.CPUPerRequest != workload.DefaultCPUPerRequest || st.RPS != 0 {
		t.Errorf("GET shop/api: %d %s (err %v), want rps 0 and cpuPerRequest %v", code, body, err, workload.DefaultCPUPerRequest)
	}

	// A trace replays from now with step interpolation; before its first
	// point the fixed load still applies.
	code, body = call(t, "PUT", base+"/v1/apps/shop/web/trace?cpuPerRequest=0.005", "seconds,requests_per_second\n10,100\n20,5\n")
	if code != 200 {
		t.Fatalf("PUT trace: %d %s", code, body)
	}
	for _, step := range []struct {
		at   time.Duration
		want float64
		done bool
	}{{0, 50, false}, {9 * time.Second, 50, false}, {10 * time.Second, 100, false}, {19 * time.Second, 100, false}, {25 * time.Second, 5, true}} {
		clk.SetTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(step.at))
		code, body = call(t, "GET", base+"/v1/apps/shop/web", "")
		st = AppStatus{}
		if err := json.Unmarshal(body, &st); code != 200 || err != nil {
			t.Fatalf("GET at %v: %d %s %v", step.at, code, body, err)
		}
		if st.RPS != step.want || st.Trace == nil || st.Trace.Done != step.done || st.Trace.Points != 2 || st.CPUPerRequest != 0.005 {
			t.Errorf("at +%v: rps %v trace %+v cost %v; want rps %v, 2 points, done=%v, cost 0.005", step.at, st.RPS, st.Trace, st.CPUPerRequest, step.want, step.done)
		}
	}

	// A fixed load stops the trace.
	call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 7}`)
	var list struct{ Apps []AppStatus }
	code, body = call(t, "GET", base+"/v1/apps", "")
	if err := json.Unmarshal(body, &list); code != 200 || err != nil {
		t.Fatalf("GET /v1/apps: %d %s %v", code, body, err)
	}
	if len(list.Apps) != 2 || list.Apps[0].Name != "api" || list.Apps[1].Name != "web" || list.Apps[1].RPS != 7 || list.Apps[1].Trace != nil {
		t.Errorf("GET /v1/apps = %s, want api then web at 7 rps without trace", body)
	}

	if code, body = call(t, "DELETE", base+"/v1/apps/shop/web", ""); code != 204 {
		t.Errorf("DELETE: %d %s", code, body)
	}
	if code, _ = call(t, "GET", base+"/v1/apps/shop/web", ""); code != 404 {
		t.Errorf("GET after DELETE: %d, want 404", code)
	}

	code, body = call(t, "GET", base+"/healthz", "")
	var h Health
	if err := json.Unmarshal(body, &h); code != 200 || err != nil || h.Status != "ok" || h.Apps != 1 {
		t.Errorf("healthz: %d %s (%v), want ok with 1 app", code, body, err)
	}
}
