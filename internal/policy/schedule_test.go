package policy

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func TestSchedule(t *testing.T) {
	s, err := Schedule(nil)
	if err != nil || s != nil {
		t.Fatalf("Schedule(nil) = %v, %v; want nil, nil", s, err)
	}
	ws := []hcav1.ScheduleWindow{
		{Name: "ok", Start: "0 9 * * *", Duration: metav1.Duration{Duration: time.Hour}, TimeZone: "UTC", MinReplicas: 3},
		{Name: "mars", Start: "0 9 * * *", Duration: metav1.Duration{Duration: time.Hour}, TimeZone: "Mars/Olympus", MinReplicas: 3},
	}
	if _, err := Schedule(ws[1:]); err == nil || !strings.HasPrefix(err.Error(), "spec.schedules[0].timeZone: ") {
		t.Fatalf("error = %v, want one starting with spec.schedules[0].timeZone", err)
	}
	s, err = Schedule(ws[:1])
	if err != nil {
		t.Fatal(err)
	}
	// 09:30 UTC is inside the 09:00 window.
	if f := s.Floor(time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC), 0); f.Min != 3 {
		t.Fatalf("floor = %+v, want 3", f)
	}
}

func TestScheduleLead(t *testing.T) {
	tests := []struct {
		name string
		a    hcav1.Algorithm
		want time.Duration
	}{
		{"no name is adaptive with the default horizon", hcav1.Algorithm{}, 30 * time.Second},
		{"adaptive with its horizon", hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive, Adaptive: &hcav1.AdaptiveAlgorithm{ForecastHorizon: &metav1.Duration{Duration: 2 * time.Minute}}}, 2 * time.Minute},
		{"kubernetes declares none", hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScheduleLead(tt.a); got != tt.want {
				t.Fatalf("ScheduleLead = %v, want %v", got, tt.want)
			}
		})
	}
}
