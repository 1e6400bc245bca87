package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// customResource does the create, read, update, delete and import of the
// resources that manage one namespaced hca custom resource (T, *T being the
// API object) in the control cluster, identified by `<namespace>/<name>`. The
// resources keep their model and its conversions; customResource talks to
// the API server and reports its errors.
type customResource[T any, PT interface {
	*T
	client.Object
}] struct {
	// kind is the API kind, as in the diagnostics' details: "BurstPolicy".
	kind string
	// what names the kind in the diagnostics' titles: "burst policy".
	what string
	// importExample is an import command, shown when an import ID is wrong:
	// "terraform import hca_burst_policy.web shop/web".
	importExample string
	// setSpec sets dst's spec to src's, for an update.
	setSpec func(dst, src PT)
	// deleteHint, when set, is appended to the detail of a failed delete;
	// it gets the object as last read while waiting for it to go.
	deleteHint func(PT) string
}

// create converts the plan with toAPI and creates the object; false when it
// added an error to diags.
func (cr customResource[T, PT]) create(ctx context.Context, clients *Clients, toAPI func() (PT, error), diags *diag.Diagnostics) (PT, bool) {
	c, ok := controlClient(clients, diags)
	if !ok {
		return nil, false
	}
	obj, err := toAPI()
	if err != nil {
		diags.AddError("Invalid "+cr.what, err.Error())
		return nil, false
	}
	if err := c.Create(ctx, obj); err != nil {
		diags.AddError("Error creating "+cr.what, fmt.Sprintf("Could not create the %s %s/%s: %v. %s", cr.kind, obj.GetNamespace(), obj.GetName(), err, createHint(err, obj.GetNamespace(), "namespace")))
		return nil, false
	}
	return obj, true
}

// read gets the object of id (`<namespace>/<name>`). When it is gone it
// removes the resource from state and returns false, as on an error (which it
// adds to diags).
func (cr customResource[T, PT]) read(ctx context.Context, clients *Clients, id string, state *tfsdk.State, diags *diag.Diagnostics) (PT, bool) {
	c, ok := controlClient(clients, diags)
	if !ok {
		return nil, false
	}
	ns, name, _ := strings.Cut(id, "/")
	obj := PT(new(T))
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			state.RemoveResource(ctx)
			return nil, false
		}
		diags.AddError("Error reading "+cr.what, fmt.Sprintf("Could not read the %s %s/%s: %v.", cr.kind, ns, name, err))
		return nil, false
	}
	return obj, true
}

// update converts the plan with toAPI and writes its spec over the live
// object's; it returns the updated object, or false when it added an error to
// diags.
func (cr customResource[T, PT]) update(ctx context.Context, clients *Clients, toAPI func() (PT, error), diags *diag.Diagnostics) (PT, bool) {
	c, ok := controlClient(clients, diags)
	if !ok {
		return nil, false
	}
	want, err := toAPI()
	if err != nil {
		diags.AddError("Invalid "+cr.what, err.Error())
		return nil, false
	}
	obj := PT(new(T))
	if err := c.Get(ctx, client.ObjectKeyFromObject(want), obj); err != nil {
		diags.AddError("Error updating "+cr.what, fmt.Sprintf("Could not read the %s %s/%s: %v.", cr.kind, want.GetNamespace(), want.GetName(), err))
		return nil, false
	}
	cr.setSpec(obj, want)
	if err := c.Update(ctx, obj); err != nil {
		diags.AddError("Error updating "+cr.what, fmt.Sprintf("Could not update the %s %s/%s: %v.", cr.kind, want.GetNamespace(), want.GetName(), err))
		return nil, false
	}
	return obj, true
}

// delete deletes the object of id (`<namespace>/<name>`) and waits up to
// timeout until it is gone (finalizers done); errors go to diags.
func (cr customResource[T, PT]) delete(ctx context.Context, clients *Clients, id string, timeout time.Duration, diags *diag.Diagnostics) {
	c, ok := controlClient(clients, diags)
	if !ok {
		return
	}
	ns, name, _ := strings.Cut(id, "/")
	obj := PT(new(T))
	obj.SetNamespace(ns)
	obj.SetName(name)
	if err := deleteAndWait(ctx, c, obj, timeout); err != nil {
		detail := fmt.Sprintf("Could not delete the %s %s/%s: %v.", cr.kind, ns, name, err)
		if cr.deleteHint != nil {
			detail += cr.deleteHint(obj)
		}
		diags.AddError("Error deleting "+cr.what, detail)
	}
}

// importState accepts an import ID that is `<namespace>/<name>` as the id.
func (cr customResource[T, PT]) importState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if _, _, err := splitNamespacedID(req.ID); err != nil {
		resp.Diagnostics.AddError("Invalid import ID", cr.importIDDetail(req.ID, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// importIDDetail says that id is not `<namespace>/<name>`, why (err, from
// splitNamespacedID), and how to write it.
func (cr customResource[T, PT]) importIDDetail(id string, err error) string {
	return fmt.Sprintf("The import ID %q is not <namespace>/<name>: %v. Use the %s's namespace and name separated by one '/', such as `%s`.",
		id, err, cr.kind, cr.importExample)
}

// splitNamespacedID splits "<namespace>/<name>", or says which part is wrong.
func splitNamespacedID(id string) (ns, name string, err error) {
	ns, name, ok := strings.Cut(id, "/")
	switch {
	case !ok:
		return "", "", errors.New("it has no '/'")
	case strings.Contains(name, "/"):
		return "", "", errors.New("it has more than one '/'")
	case len(ns) > 63 || !dnsLabelRE.MatchString(ns):
		return "", "", fmt.Errorf("the namespace %q is not a DNS label (1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit)", ns)
	case len(name) > 253 || !clusterNameRE.MatchString(name):
		return "", "", fmt.Errorf("the name %q is not a DNS subdomain (1 to 253 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)", name)
	}
	return ns, name, nil
}
