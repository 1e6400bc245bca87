package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// lastApplied is kubectl's copy of the whole object in an annotation, read by
// no controller.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// CacheOptions is what the manager's informers keep of the control cluster.
// Every object loses its managedFields (no controller reads them). Pods and
// Nodes, the most numerous objects a cluster-wide informer holds, keep only
// what the controllers read (cacheStripPod, cacheStripNode). Deployments,
// ConfigMaps, Secrets and Services are kept as the burst controller copies
// them to burst clusters (cacheStripPropagated): without kubectl's
// last-applied annotation, which no copy carries, and without the content of
// the objects every cluster makes for itself and no copy includes
// (kube-root-ca.crt, service-account tokens; burstPropagatedCopy). The
// kube-root-ca.crt ConfigMaps, one per namespace and read by no controller,
// are not listed at all (cacheConfigMapFields).
func CacheOptions() cache.Options {
	strip := cache.TransformStripManagedFields()
	return cache.Options{
		DefaultTransform: strip,
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}:       {Transform: chain(strip, cacheStripPod)},
			&corev1.Node{}:      {Transform: chain(strip, cacheStripNode)},
			&corev1.ConfigMap{}: {Transform: chain(strip, cacheStripPropagated), Field: cacheConfigMapFields},
			&corev1.Secret{}:    {Transform: chain(strip, cacheStripPropagated)},
			&corev1.Service{}:   {Transform: chain(strip, cacheStripPropagated)},
		},
	}
}

// cacheStripPropagated drops of a ConfigMap, Secret or Service what no copy
// in a burst cluster carries: kubectl's last-applied annotation (a second
// copy of the whole object), and the data of the kube-root-ca.crt ConfigMap
// and of service-account token Secrets, which every cluster makes for itself
// (make bench-load: 5,000 namespaces' CA bundles, 9.5 MB of the heap). Other
// objects pass unchanged.
func cacheStripPropagated(in any) (any, error) {
	switch o := in.(type) {
	case *corev1.ConfigMap:
		delete(o.Annotations, lastApplied)
		if o.Name == "kube-root-ca.crt" {
			o.Data, o.BinaryData = nil, nil
		}
	case *corev1.Secret:
		delete(o.Annotations, lastApplied)
		if o.Type == corev1.SecretTypeServiceAccountToken {
			o.Data, o.StringData = nil, nil
		}
	case *corev1.Service:
		delete(o.Annotations, lastApplied)
	}
	return in, nil
}

// cacheConfigMapFields selects the ConfigMaps the manager lists and
// watches: all but kube-root-ca.crt, which the control plane puts in every
// namespace and no copy includes (burstPropagatedCopy). make bench-load's
// 5,000 namespaces held 5,000 of them, the largest share of the cached
// ConfigMaps' metadata.
var cacheConfigMapFields = fields.OneTermNotEqualSelector("metadata.name", "kube-root-ca.crt")

func chain(ts ...func(any) (any, error)) func(any) (any, error) {
	return func(in any) (any, error) {
		var err error
		for _, t := range ts {
			if in, err = t(in); err != nil {
				return nil, err
			}
		}
		return in, nil
	}
}

// cacheStripPod keeps of a pod what the runtime reads: its metadata (labels,
// annotations such as the mirror-pod one, owner references, timestamps), where
// it is bound and may be bound (nodeName, nodeSelector, affinity,
// tolerations, priority), what it requests (containers' and init
// containers' names, images and resources, init containers' restartPolicy,
// overhead) and its status (phase, conditions, addresses, start time, reason,
// QoS class, and of each container status its name, state, readiness and the
// resources the kubelet reports: the in-place resize controller reads them).
// Volumes, environment, commands, probes and the rest of the container
// statuses go. Objects that are not pods (cache.DeletedFinalStateUnknown
// tombstones) pass unchanged.
func cacheStripPod(in any) (any, error) {
	p, ok := in.(*corev1.Pod)
	if !ok {
		return in, nil
	}
	delete(p.Annotations, lastApplied)
	s := &p.Spec
	p.Spec = corev1.PodSpec{
		NodeName:          s.NodeName,
		NodeSelector:      s.NodeSelector,
		Affinity:          s.Affinity,
		Tolerations:       s.Tolerations,
		SchedulerName:     s.SchedulerName,
		Priority:          s.Priority,
		PriorityClassName: s.PriorityClassName,
		RuntimeClassName:  s.RuntimeClassName,
		Overhead:          s.Overhead,
		Containers:        stripContainers(s.Containers),
		InitContainers:    stripContainers(s.InitContainers),
	}
	st := &p.Status
	p.Status = corev1.PodStatus{
		Phase:             st.Phase,
		Conditions:        st.Conditions,
		Message:           st.Message,
		Reason:            st.Reason,
		NominatedNodeName: st.NominatedNodeName,
		HostIP:            st.HostIP,
		HostIPs:           st.HostIPs,
		PodIP:             st.PodIP,
		PodIPs:            st.PodIPs,
		StartTime:         st.StartTime,
		QOSClass:          st.QOSClass,
		ContainerStatuses: stripContainerStatuses(st.ContainerStatuses),
	}
	return p, nil
}

func stripContainerStatuses(cs []corev1.ContainerStatus) []corev1.ContainerStatus {
	if cs == nil {
		return nil
	}
	out := make([]corev1.ContainerStatus, len(cs))
	for i, c := range cs {
		out[i] = corev1.ContainerStatus{Name: c.Name, State: c.State, Ready: c.Ready, Resources: c.Resources}
	}
	return out
}

func stripContainers(cs []corev1.Container) []corev1.Container {
	if cs == nil {
		return nil
	}
	out := make([]corev1.Container, len(cs))
	for i, c := range cs {
		out[i] = corev1.Container{Name: c.Name, Image: c.Image, Resources: c.Resources, RestartPolicy: c.RestartPolicy}
	}
	return out
}

// cacheStripNode drops of a node the list of images it holds and the volumes
// attached to it (up to hundreds of entries per node, read by no controller)
// and kubectl's last-applied annotation; spec, conditions, capacity,
// allocatable, addresses and node info stay.
func cacheStripNode(in any) (any, error) {
	n, ok := in.(*corev1.Node)
	if !ok {
		return in, nil
	}
	delete(n.Annotations, lastApplied)
	n.Status.Images = nil
	n.Status.VolumesInUse = nil
	n.Status.VolumesAttached = nil
	return n, nil
}

// CacheOptionsIn is CacheOptions limited to namespaces (lab tests run the
// controllers on their own namespace with the runtime's transforms).
func CacheOptionsIn(namespaces ...string) cache.Options {
	o := CacheOptions()
	o.DefaultNamespaces = map[string]cache.Config{}
	for _, ns := range namespaces {
		o.DefaultNamespaces[ns] = cache.Config{}
	}
	return o
}
