package image

import (
	"regexp"
	"strings"
)

// helpFlag matches a flag line of a Go flag set's usage ("  -name type").
var helpFlag = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][-A-Za-z0-9_.]*)`)

// MissingFlags returns the flags among args (-name, --name or --name=value;
// other arguments are values) that help, the usage a Go flag set prints for
// `hca-runtime run --help`, does not list, as --name.
func MissingFlags(args []string, help string) []string {
	listed := map[string]bool{}
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		listed[m[1]] = true
	}
	var missing []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !listed[name] {
			missing = append(missing, "--"+name)
		}
	}
	return missing
}
