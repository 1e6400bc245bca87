package v1alpha1

import (
	"strings"
	"testing"
)

func TestPriceFloat64(t *testing.T) {
	cases := []struct {
		price   Price
		want    float64
		wantErr bool
	}{
		{"0.0464", 0.0464, false},
		{"0", 0, false},
		{"12", 12, false},
		{"1.123456789", 1.123456789, false},
		{"", 0, true},
		{"-1", 0, true},
		{"1e3", 0, true},
		{"01.5", 0, true},
		{"1.1234567890", 0, true},
		{"NaN", 0, true},
		{"0.5 ", 0, true},
	}
	for _, tc := range cases {
		t.Run(string(tc.price), func(t *testing.T) {
			got, err := tc.price.Float64()
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "use a non-negative decimal") {
					t.Fatalf("Float64(%q) = %v, %v; want an error saying how to write a price", tc.price, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Float64(%q) = %v, %v; want %v", tc.price, got, err, tc.want)
			}
		})
	}
}
