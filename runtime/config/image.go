package config

import "regexp"

// ImageRepository is where releases publish the hca-runtime image
// (.goreleaser.yml, kos), tagged v<version> and latest.
const ImageRepository = "ghcr.io/hca-project/hca-runtime"

var releaseVersion = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// DefaultImage is the hca-runtime image a provider of the given version
// installs when hca_runtime sets no image: the release's own tag,
// ImageRepository:v<version>, so that the provider and the runtime are always
// of one release. A build that is not a release (version "dev", "test" or
// anything else that is not a semantic version) gets ImageRepository:latest,
// the newest release.
func DefaultImage(version string) string {
	if !releaseVersion.MatchString(version) {
		return ImageRepository + ":latest"
	}
	if version[0] != 'v' {
		version = "v" + version
	}
	return ImageRepository + ":" + version
}
