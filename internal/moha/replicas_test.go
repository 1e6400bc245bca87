package moha

import "testing"

func TestCurrentReplicas(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	tests := []struct {
		name                  string
		spec                  int32
		burstTotal, requested *int32
		want                  Replicas
	}{
		{name: "not shared: spec.replicas is the total", spec: 3, want: Replicas{Current: 3}},
		{name: "not shared, a stale request is ignored", spec: 3, requested: i32(7), want: Replicas{Current: 3}},
		{name: "bursting: the policy's total, not the primary's share", spec: 2, burstTotal: i32(5), want: Replicas{Current: 5, Bursting: true}},
		{name: "bursting with everything back in the primary", spec: 4, burstTotal: i32(4), want: Replicas{Current: 4, Bursting: true}},
		{name: "a pending request is the total about to apply", spec: 2, burstTotal: i32(5), requested: i32(8), want: Replicas{Current: 8, Bursting: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CurrentReplicas(tt.spec, tt.burstTotal, tt.requested); got != tt.want {
				t.Errorf("CurrentReplicas(%d, %v, %v) = %+v, want %+v", tt.spec, tt.burstTotal, tt.requested, got, tt.want)
			}
		})
	}
}
