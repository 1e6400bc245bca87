package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// writeStatus sends p to obj's status subresource and reads back only the
// object's metadata (patchLean).
func writeStatus(ctx context.Context, c client.Client, obj client.Object, p statusPatch) error {
	return patchLean(ctx, c, obj, p, true)
}

// patchLean sends p, computed from obj, to obj (or to its status
// subresource) and reads back only the object's metadata: the request goes
// through the metadata client, which the API server answers with a
// PartialObjectMetadata of a few hundred bytes instead of the whole object.
// The callers hold what they wrote and none reads the object the answer
// would hold; obj's resourceVersion becomes the written one
// (BurstReconciler.fresh notes it). make bench-load: a status write
// allocated 36 kB, most of it reading and decoding the whole object the API
// server sent back (TestWriteStatusLab).
func patchLean(ctx context.Context, c client.Client, obj client.Object, p client.Patch, status bool) error {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return fmt.Errorf("kind of %T: %w", obj, err)
	}
	data, err := p.Data(obj)
	if err != nil {
		return err
	}
	if sp, ok := p.(statusPatch); ok && sp.empty(data) {
		return nil
	}
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(gvk)
	m.Namespace, m.Name = obj.GetNamespace(), obj.GetName()
	raw := client.RawPatch(p.Type(), data)
	if status {
		err = c.Status().Patch(ctx, m, raw)
	} else {
		err = c.Patch(ctx, m, raw)
	}
	if err != nil {
		return err
	}
	obj.SetResourceVersion(m.ResourceVersion)
	return nil
}

// statusPatch is the JSON merge patch of an object's status alone: what
// client.MergeFrom sends when only the status changed, computed from the two
// statuses instead of the two whole objects, and without decoding them into
// maps of values (mergeDiff). MergeFrom marshals both whole objects and
// decodes both to diff them; in a status write the spec and metadata never
// differ, and most of a status (its conditions) is a list that a merge patch
// replaces whole anyway (make bench-load: status patches were a fifth of the
// runtime's allocations, and garbage collection most of its CPU;
// BenchmarkStatusPatch). before and after are status values
// (structs, not pointers: a nil status would marshal to null). lock, when
// not empty, is the resourceVersion the status was read at: the API server
// refuses the patch with a conflict if the object changed since
// (MergeFromWithOptimisticLock).
type statusPatch struct {
	before, after any
	lock          string
	// member is the object's member the patch changes: "status", or
	// "spec" (specMergeFrom).
	member string
}

// statusMergeFrom returns the patch from status before to the object's
// current status after, with no optimistic lock.
func statusMergeFrom(before, after any) statusPatch {
	return statusPatch{before: before, after: after, member: "status"}
}

// specMergeFrom is statusMergeFrom for an object's spec: the patch from spec
// before to spec after (a strategy object's spec, which its SLO rewrites at
// each change of compliance), with the rest of the object untouched.
func specMergeFrom(before, after any) statusPatch {
	return statusPatch{before: before, after: after, member: "spec"}
}

// statusMergeFromLocked is statusMergeFrom with an optimistic lock on
// resourceVersion.
func statusMergeFromLocked(before, after any, resourceVersion string) statusPatch {
	return statusPatch{before: before, after: after, lock: resourceVersion, member: "status"}
}

func (statusPatch) Type() types.PatchType { return types.MergePatchType }

// empty says whether data, the patch's Data, changes nothing: no member
// differs and there is no lock to check. The API server would answer such a
// patch with the object unchanged, after decoding and admitting it (a
// strategy retried while a window holds its decision wrote its unchanged
// status each time: 5 of 21 strategy status writes a second in
// make bench-load -churn 0.1), so it is not sent.
func (p statusPatch) empty(data []byte) bool {
	return p.lock == "" && string(data) == `{"`+p.member+`":{}}`
}

// Data returns {"status": <merge patch>} ("spec" for specMergeFrom; and the resourceVersion under
// metadata when locked). The object argument is not read: the statuses are
// the patch's own.
func (p statusPatch) Data(client.Object) ([]byte, error) {
	before, err := json.Marshal(p.before)
	if err != nil {
		return nil, fmt.Errorf("marshal status before: %w", err)
	}
	after, err := json.Marshal(p.after)
	if err != nil {
		return nil, fmt.Errorf("marshal status after: %w", err)
	}
	if !isJSONObject(before) || !isJSONObject(after) {
		return nil, fmt.Errorf("status patch of %T: the statuses must be JSON objects", p.after)
	}
	diff, err := mergeDiff(before, after)
	if err != nil {
		return nil, fmt.Errorf("diff statuses: %w", err)
	}
	var b bytes.Buffer
	b.Grow(len(diff) + 64)
	b.WriteByte('{')
	if p.lock != "" {
		rv, _ := json.Marshal(p.lock)
		b.WriteString(`"metadata":{"resourceVersion":`)
		b.Write(rv)
		b.WriteString(`},`)
	}
	b.WriteByte('"')
	b.WriteString(p.member)
	b.WriteString(`":`)
	b.Write(diff)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mergeDiff returns the JSON merge patch (RFC 7386) that turns the object
// before into the object after, both as encoding/json writes them (so equal
// values are equal bytes). Members are compared as raw bytes, one level at a
// time: an unchanged member is left out, a changed object member is diffed
// in turn, any other changed member is sent whole, and a member after no
// longer has is sent as null. Unlike jsonpatch.CreateMergePatch it never
// decodes arrays or strings into values.
func mergeDiff(before, after []byte) ([]byte, error) {
	var b, a map[string]json.RawMessage
	if err := json.Unmarshal(before, &b); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(after, &a); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out bytes.Buffer
	out.WriteByte('{')
	member := func(k string, v []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		name, _ := json.Marshal(k)
		out.Write(name)
		out.WriteByte(':')
		out.Write(v)
	}
	for _, k := range keys {
		bv, inBefore := b[k]
		av, inAfter := a[k]
		switch {
		case !inAfter:
			member(k, []byte("null"))
		case inBefore && bytes.Equal(bv, av):
		case inBefore && isJSONObject(bv) && isJSONObject(av):
			sub, err := mergeDiff(bv, av)
			if err != nil {
				return nil, err
			}
			if string(sub) != "{}" {
				member(k, sub)
			}
		default:
			member(k, av)
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// isJSONObject says whether v, as encoding/json writes it (no leading
// space), is an object.
func isJSONObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }
