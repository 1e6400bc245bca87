package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// How Prometheus finds the runtime: the values of hca_runtime's computed
// metrics_scrape.
const (
	scrapeServiceMonitor = "service_monitor"
	scrapeAnnotations    = "annotations"
)

// serviceMonitorCRD is the Prometheus Operator's ServiceMonitor CRD, whose
// presence decides the scrape wiring when monitoring.service_monitor is null.
const serviceMonitorCRD = "servicemonitors.monitoring.coreos.com"

// runtimeMonitoring is hca_runtime's monitoring block.
type runtimeMonitoring struct {
	ServiceMonitor types.Bool   `tfsdk:"service_monitor"`
	Labels         types.Map    `tfsdk:"labels"`
	Interval       types.String `tfsdk:"interval"`
}

// promDurationRE matches a Prometheus duration such as 30s or 1m30s (the
// ServiceMonitor CRD's pattern for endpoints[].interval).
var promDurationRE = regexp.MustCompile(`^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`)

func runtimeMonitoringSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "How Prometheus finds the runtime's metrics (port `metrics`, 8080, path `/metrics`). With a " +
			"ServiceMonitor (`monitoring.coreos.com/v1`, named `hca-runtime` in the runtime's namespace, selecting the " +
			"metrics Service) the pod template and the Service carry no `prometheus.io/*` annotations, so that no " +
			"Prometheus scrapes the runtime twice; without one they carry `prometheus.io/scrape`, `prometheus.io/port` " +
			"and `prometheus.io/path`. Unset: as `service_monitor = null`. The computed `metrics_scrape` tells which was done.",
		Attributes: map[string]schema.Attribute{
			"service_monitor": schema.BoolAttribute{
				Optional: true,
				Description: "true: create the ServiceMonitor; the plan fails (\"Missing ServiceMonitor CRD\"), or the apply " +
					"before it installs anything, when the cluster has no ServiceMonitor CRD (`" + serviceMonitorCRD + "`, " +
					"installed with the Prometheus Operator). false: " +
					"annotations only, never a ServiceMonitor. null (the default): a ServiceMonitor when that CRD exists " +
					"at plan time, annotations otherwise; a plan after the Operator is installed (or removed) switches.",
			},
			"labels": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Labels of the ServiceMonitor, such as `release = \"kube-prometheus-stack\"`: what the Prometheus " +
					"resource's `serviceMonitorSelector` matches. Valid Kubernetes labels; `app.kubernetes.io/name` and " +
					"`app.kubernetes.io/part-of` are the install's own. Not with `service_monitor = false`.",
				Validators: []validator.Map{labelsValidator},
			},
			"interval": schema.StringAttribute{
				Optional: true,
				Description: "Scrape interval of the ServiceMonitor's endpoint, a Prometheus duration such as `30s` or `1m`. " +
					"Unset: the Prometheus' global interval. Not with `service_monitor = false`.",
				Validators: []validator.String{promDurationValidator{}},
			},
		},
	}
}

// decideScrape is the scrape wiring for a service_monitor setting (null:
// auto) and whether the ServiceMonitor CRD exists; ok is false when want is
// true and the CRD is missing.
func decideScrape(want types.Bool, crdPresent bool) (mode string, ok bool) {
	switch {
	case want.IsNull() || want.IsUnknown():
		if crdPresent {
			return scrapeServiceMonitor, true
		}
		return scrapeAnnotations, true
	case want.ValueBool():
		return scrapeServiceMonitor, crdPresent
	default:
		return scrapeAnnotations, true
	}
}

// monitoringWant is the service_monitor setting of m (null when the block is
// unset).
func monitoringWant(m *runtimeMonitoring) types.Bool {
	if m == nil {
		return types.BoolNull()
	}
	return m.ServiceMonitor
}

// validateRuntimeMonitoring checks what the attributes' own validators
// cannot: labels and interval belong to the ServiceMonitor, and the install's
// own label keys are not the user's.
func validateRuntimeMonitoring(m *runtimeMonitoring) diag.Diagnostics {
	var diags diag.Diagnostics
	if m == nil {
		return diags
	}
	off := !m.ServiceMonitor.IsNull() && !m.ServiceMonitor.IsUnknown() && !m.ServiceMonitor.ValueBool()
	for _, a := range []struct {
		name string
		set  bool
	}{
		{"labels", !m.Labels.IsNull()},
		{"interval", !m.Interval.IsNull()},
	} {
		if off && a.set {
			diags.AddAttributeError(path.Root("monitoring").AtName(a.name), "Invalid monitoring."+a.name,
				fmt.Sprintf("monitoring.%s applies to the ServiceMonitor, and monitoring.service_monitor is false (scrape annotations only). "+
					"Remove monitoring.%s, or set monitoring.service_monitor to true or leave it unset.", a.name, a.name))
		}
	}
	if !m.Labels.IsNull() && !m.Labels.IsUnknown() {
		for _, k := range []string{"app.kubernetes.io/name", "app.kubernetes.io/part-of"} {
			if _, ok := m.Labels.Elements()[k]; ok {
				diags.AddAttributeError(path.Root("monitoring").AtName("labels"), "Invalid monitoring.labels",
					fmt.Sprintf("monitoring.labels sets %q, which the install sets itself (%q). Remove that key.", k, installLabels()[k]))
			}
		}
	}
	return diags
}

func installLabels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": config.Name, "app.kubernetes.io/part-of": "hca"}
}

// serviceMonitorFor is the runtime's ServiceMonitor in ns with the block's
// labels and interval.
func serviceMonitorFor(ns string, m *runtimeMonitoring) (*unstructured.Unstructured, error) {
	interval := ""
	if m != nil && !m.Interval.IsNull() {
		interval = m.Interval.ValueString()
	}
	sm, err := config.ServiceMonitor(ns, interval)
	if err != nil {
		return nil, fmt.Errorf("build the ServiceMonitor: %w", err)
	}
	if m != nil && !m.Labels.IsNull() {
		l := stringMap(m.Labels)
		maps.Copy(l, sm.GetLabels())
		sm.SetLabels(l)
	}
	return sm, nil
}

// serviceMonitorKey is an empty ServiceMonitor object naming the install's,
// for Get and Delete.
func serviceMonitorKey(ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("monitoring.coreos.com/v1")
	u.SetKind("ServiceMonitor")
	u.SetNamespace(ns)
	u.SetName(config.Name)
	return u
}

// serviceMonitorCRDPresent tells whether the cluster serves ServiceMonitors:
// the CRD exists and is Established.
func serviceMonitorCRDPresent(ctx context.Context, c client.Client) (bool, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, client.ObjectKey{Name: serviceMonitorCRD}, &crd); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("get the CRD %s: %w", serviceMonitorCRD, err)
	}
	for _, cond := range crd.Status.Conditions {
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return true, nil
		}
	}
	return false, nil
}

// serviceMonitorExists tells whether the install's ServiceMonitor exists in
// ns (false when the cluster does not serve the kind).
func serviceMonitorExists(ctx context.Context, c client.Client, ns string) (bool, error) {
	err := c.Get(ctx, client.ObjectKeyFromObject(serviceMonitorKey(ns)), serviceMonitorKey(ns))
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, fmt.Errorf("get the ServiceMonitor %s/%s: %w", ns, config.Name, err)
	}
}

// promDurationValidator checks a Prometheus duration.
type promDurationValidator struct{}

func (promDurationValidator) Description(context.Context) string {
	return "must be a Prometheus duration such as \"30s\" or \"1m\""
}
func (v promDurationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (promDurationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if s == "" || s == "0" || !promDurationRE.MatchString(s) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s must be a positive Prometheus duration (units ms, s, m, h, d, w, y, largest first) such as \"30s\" or \"1m30s\"; got %q.", req.Path, s))
	}
}

// scrapeMode decides the scrape wiring at apply time. A value planned with
// service_monitor unset stands (the plan showed it), unless it needs a CRD
// that has gone since.
func (r *runtimeResource) scrapeMode(ctx context.Context, c client.Client, plan *runtimeModel) (string, error) {
	present, err := serviceMonitorCRDPresent(ctx, c)
	if err != nil {
		return "", fmt.Errorf("could not tell whether the cluster serves ServiceMonitors: %w", err)
	}
	want := monitoringWant(plan.Monitoring)
	mode, ok := decideScrape(want, present)
	if planned := plan.MetricsScrape; want.IsNull() && !planned.IsNull() && !planned.IsUnknown() {
		mode = planned.ValueString()
		ok = mode == scrapeAnnotations || present
	}
	if !ok {
		return "", fmt.Errorf("monitoring.service_monitor is true (or the plan chose a ServiceMonitor), but the cluster has no "+
			"ServiceMonitor CRD (%s). Install the Prometheus Operator (or its CRDs) first, or leave monitoring.service_monitor "+
			"unset (or false) to have Prometheus find the runtime through prometheus.io annotations; nothing was installed", serviceMonitorCRD)
	}
	return mode, nil
}

// applyScrape server-side applies the install's ServiceMonitor (mode
// service_monitor) or deletes one an earlier apply made (annotations).
func applyScrape(ctx context.Context, c client.Client, ns, mode string, m *runtimeMonitoring) error {
	if mode == scrapeServiceMonitor {
		sm, err := serviceMonitorFor(ns, m)
		if err != nil {
			return err
		}
		if err := c.Patch(ctx, sm, client.Apply, client.FieldOwner(config.FieldManager), client.ForceOwnership); err != nil {
			return fmt.Errorf("could not apply the ServiceMonitor %s/%s: %w", ns, config.Name, err)
		}
		return nil
	}
	there, err := serviceMonitorExists(ctx, c, ns)
	if err == nil && there {
		err = deleteAndWait(ctx, c, serviceMonitorKey(ns), untilDeadline(ctx, defaultRuntimeCreateTimeout))
	}
	if err != nil {
		return fmt.Errorf("could not delete the ServiceMonitor %s/%s of an earlier apply: %w", ns, config.Name, err)
	}
	return nil
}

// readScrape sets metrics_scrape from the cluster, and the monitoring
// block's labels and interval from the ServiceMonitor when they are set.
func (m *runtimeModel) readScrape(ctx context.Context, c client.Client, ns string) error {
	sm := serviceMonitorKey(ns)
	err := c.Get(ctx, client.ObjectKeyFromObject(sm), sm)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		m.MetricsScrape = types.StringValue(scrapeAnnotations)
		return nil
	case err != nil:
		return fmt.Errorf("could not read the ServiceMonitor %s/%s: %w", ns, config.Name, err)
	}
	m.MetricsScrape = types.StringValue(scrapeServiceMonitor)
	if m.Monitoring == nil {
		return nil
	}
	if !m.Monitoring.Labels.IsNull() {
		l := sm.GetLabels()
		for k := range installLabels() {
			delete(l, k)
		}
		m.Monitoring.Labels = mapValue(l)
	}
	if !m.Monitoring.Interval.IsNull() {
		eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		m.Monitoring.Interval = types.StringNull()
		if len(eps) > 0 {
			if ep, ok := eps[0].(map[string]any); ok {
				if v, ok := ep["interval"].(string); ok {
					m.Monitoring.Interval = types.StringValue(v)
				}
			}
		}
	}
	return nil
}
