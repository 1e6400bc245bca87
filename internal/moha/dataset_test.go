package moha

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// csvRows is a dataset of n valid rows in the given column order, with an
// extra column.
func csvRows(n int) string {
	var b strings.Builder
	b.WriteString("note,replicas,requests_per_second,cpu_limit_millicores,memory_limit_mib,response_time_ms,cpu_usage_percent,memory_usage_percent\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "x%d,%d,%d,300,400,%d,50,60.5\n", i, i%5+1, 10*i, 100+i)
	}
	return b.String()
}

func TestReadDataset(t *testing.T) {
	got, err := ReadDataset(strings.NewReader("# a comment\n" + csvRows(MinSamples)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MinSamples {
		t.Fatalf("%d samples, want %d", len(got), MinSamples)
	}
	want := Sample{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 3, RequestsPerSecond: 70, ResponseTimeMs: 107, CPUUsagePercent: 50, MemoryUsagePercent: 60.5}
	if got[7] != want {
		t.Errorf("row 7 = %+v, want %+v (columns in any order, extra ones ignored)", got[7], want)
	}
}

func TestReadDatasetErrors(t *testing.T) {
	header := strings.Join(Columns, ",")
	row := "300,400,2,50,120,40,60"
	rows := func(n int) string { return strings.Repeat(row+"\n", n) }
	tests := []struct {
		name, in, want string
		tooFew         bool
	}{
		{name: "empty", in: "", want: "dataset: empty, want a header row with the columns cpu_limit_millicores,"},
		{
			name: "missing column",
			in:   "cpu_limit_millicores,memory_limit_mib,requests_per_second,response_time_ms,cpu_usage_percent\n" + rows(30),
			want: "dataset: missing column replicas, memory_usage_percent",
		},
		{name: "too few rows", in: header + "\n" + rows(MinSamples-1), want: "dataset: 19 rows, need at least 20", tooFew: true},
		{name: "not a number", in: header + "\n" + rows(3) + "300,400,two,50,120,40,60\n", want: `dataset: line 5: column replicas: "two" is not a finite number`},
		{name: "NaN", in: header + "\n" + "300,400,2,50,NaN,40,60\n", want: `dataset: line 2: column response_time_ms: "NaN" is not a finite number`},
		{name: "zero limit", in: header + "\n" + "0,400,2,50,120,40,60\n", want: "dataset: line 2: column cpu_limit_millicores: 0 must be > 0"},
		{name: "negative usage", in: header + "\n" + "300,400,2,50,120,-1,60\n", want: "dataset: line 2: column cpu_usage_percent: -1 must be >= 0"},
		{name: "short row", in: header + "\n" + "300,400,2\n", want: "dataset: line 2: column requests_per_second: missing field (the row has 3 fields)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDataset(strings.NewReader(tc.in))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want prefix %q", err, tc.want)
			}
			if errors.Is(err, ErrTooFewSamples) != tc.tooFew {
				t.Errorf("errors.Is(err, ErrTooFewSamples) = %v, want %v", !tc.tooFew, tc.tooFew)
			}
		})
	}
}

func TestWriteReadDatasetRoundTrip(t *testing.T) {
	in, err := Synthesize(DefaultApp, Grid{CPUMilli: []float64{300, 500}, MemoryMiB: []float64{400, 600}, Replicas: []int{1, 3}, RPS: []float64{50, 150, 300}}, 0.05, 7)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteDataset(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadDataset(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d samples back, want %d", len(out), len(in))
	}
	for i := range in {
		for c, f := range in[i].fields() {
			if g := *out[i].fields()[c]; !near(g, *f, 1e-5) { // 6 significant digits
				t.Errorf("sample %d %s = %v, want %v", i, Columns[c], g, *f)
			}
		}
	}
}

func TestSplit(t *testing.T) {
	var s []Sample
	for i := 0; i < 101; i++ {
		s = append(s, Sample{RequestsPerSecond: float64(i)})
	}
	train, test := Split(s, 42)
	if len(train) != 75 || len(test) != 26 {
		t.Fatalf("split 101 into %d + %d, want 75 + 26", len(train), len(test))
	}
	train2, _ := Split(s, 42)
	if !slices.Equal(train, train2) {
		t.Error("the same seed gave different splits")
	}
	train3, _ := Split(s, 43)
	if slices.Equal(train, train3) {
		t.Error("seeds 42 and 43 gave the same split")
	}
	all := append(append([]float64(nil), rps(train)...), rps(test)...)
	slices.Sort(all)
	if !slices.Equal(all, rps(s)) {
		t.Error("train+test is not a permutation of the samples")
	}
	if s[0].RequestsPerSecond != 0 || s[100].RequestsPerSecond != 100 {
		t.Error("Split reordered its input")
	}
}

func rps(s []Sample) []float64 {
	var out []float64
	for _, v := range s {
		out = append(out, v.RequestsPerSecond)
	}
	return out
}

func TestScaler(t *testing.T) {
	s := FitScaler([][]float64{{300, 5, 1}, {500, 5, 3}, {400, 5, 2}})
	got := s.Transform(make([]float64, 3), []float64{350, 5, 4})
	// (350-300)/200 = 0.25; a constant column maps to 0; 4 is beyond the fitted max 3: (4-1)/2 = 1.5.
	if want := []float64{0.25, 0, 1.5}; !slices.Equal(got, want) {
		t.Errorf("Transform = %v, want %v", got, want)
	}
	if got := s.Inverse(0, 0.25); got != 350 {
		t.Errorf("Inverse(0, 0.25) = %v, want 350", got)
	}
}
