package simulate

import (
	"io"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// ParseTrace reads a CSV load trace (seconds,requests_per_second) with
// loadsim's parser, the format loadsim replays: optional header, '#'
// comments, strictly increasing times, finite non-negative loads. Errors
// name the line and wrap [ErrInput].
func ParseTrace(r io.Reader) (workload.Trace, error) {
	tr, err := workload.ParseTrace(r)
	if err != nil {
		return nil, inputErr("%w", err)
	}
	return tr, nil
}
