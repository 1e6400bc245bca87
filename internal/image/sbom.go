package image

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// The SBOM is an SPDX 2.3 JSON document read from the built binaries' own
// build information (what `go version -m` prints): the image, one package per
// platform binary (with its SHA-256) and every Go module linked into it, plus
// the Go standard library. It is written beside the layout rather than into
// it, so that the layout keeps a single entry and `crane push dist/image REF`
// pushes it as is; attach it after a push with `cosign attach sbom` or `oras
// attach` if the registry should hold it.

type spdxDoc struct {
	SPDXVersion       string       `json:"spdxVersion"`
	DataLicense       string       `json:"dataLicense"`
	SPDXID            string       `json:"SPDXID"`
	Name              string       `json:"name"`
	DocumentNamespace string       `json:"documentNamespace"`
	CreationInfo      spdxCreation `json:"creationInfo"`
	DocumentDescribes []string     `json:"documentDescribes"`
	Packages          []spdxPkg    `json:"packages"`
	Relationships     []spdxRel    `json:"relationships"`
}

type spdxCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPkg struct {
	SPDXID           string         `json:"SPDXID"`
	Name             string         `json:"name"`
	VersionInfo      string         `json:"versionInfo,omitempty"`
	DownloadLocation string         `json:"downloadLocation"`
	FilesAnalyzed    bool           `json:"filesAnalyzed"`
	LicenseConcluded string         `json:"licenseConcluded"`
	LicenseDeclared  string         `json:"licenseDeclared"`
	CopyrightText    string         `json:"copyrightText"`
	PrimaryPurpose   string         `json:"primaryPackagePurpose,omitempty"`
	Checksums        []spdxChecksum `json:"checksums,omitempty"`
	ExternalRefs     []spdxRef      `json:"externalRefs,omitempty"`
	Comment          string         `json:"comment,omitempty"`
}

type spdxChecksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type spdxRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxRel struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

var spdxIDChars = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

func spdxID(kind, name string) string {
	return "SPDXRef-" + kind + "-" + strings.Trim(spdxIDChars.ReplaceAllString(name, "-"), "-")
}

func golangPkg(path, version string) spdxPkg {
	return spdxPkg{
		SPDXID: spdxID("Go", path+"-"+version), Name: path, VersionInfo: version,
		DownloadLocation: "NOASSERTION", LicenseConcluded: "NOASSERTION", LicenseDeclared: "NOASSERTION", CopyrightText: "NOASSERTION",
		PrimaryPurpose: "LIBRARY",
		ExternalRefs:   []spdxRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + path + "@" + version}},
	}
}

// SPDX returns the SBOM of an image whose index has the given digest.
func SPDX(o Options, index v1.Hash, bins []binary) ([]byte, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	repo := strings.TrimPrefix(strings.TrimPrefix(o.Source, "https://"), "http://")
	img := spdxPkg{
		SPDXID: "SPDXRef-Image", Name: "hca-runtime", VersionInfo: o.Version,
		DownloadLocation: "NOASSERTION", LicenseConcluded: "NOASSERTION", LicenseDeclared: o.Licenses, CopyrightText: "NOASSERTION",
		PrimaryPurpose: "CONTAINER",
		Checksums:      []spdxChecksum{{Algorithm: "SHA256", Value: index.Hex}},
		ExternalRefs:   []spdxRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:oci/hca-runtime@" + index.String()}},
		Comment:        "OCI image index of hca-runtime built from " + repo + " at " + o.Revision,
	}
	doc := spdxDoc{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              "hca-runtime-" + o.Version,
		DocumentNamespace: o.Source + "/spdx/hca-runtime-" + o.Version + "-" + index.Hex,
		CreationInfo:      spdxCreation{Created: o.Created.Format(time.RFC3339), Creators: []string{"Organization: hca-project", "Tool: hca-image (internal/image)"}},
		DocumentDescribes: []string{img.SPDXID},
		Packages:          []spdxPkg{img},
		Relationships:     []spdxRel{{"SPDXRef-DOCUMENT", "DESCRIBES", img.SPDXID}},
	}
	seen := map[string]bool{}
	for _, b := range bins {
		info, err := buildinfo.ReadFile(b.path)
		if err != nil {
			return nil, fmt.Errorf("read build information of %s: %w", b.path, err)
		}
		bin := spdxPkg{
			SPDXID: spdxID("Binary", "hca-runtime-"+b.platform), Name: "hca-runtime (" + b.platform + ")", VersionInfo: o.Version,
			DownloadLocation: "NOASSERTION", LicenseConcluded: "NOASSERTION", LicenseDeclared: o.Licenses, CopyrightText: "NOASSERTION",
			PrimaryPurpose: "APPLICATION",
			Checksums:      []spdxChecksum{{Algorithm: "SHA256", Value: sha256Hex(b.data)}},
			ExternalRefs:   []spdxRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + info.Main.Path + "@" + o.Version}},
			Comment:        "Go module " + info.Main.Path + ", package " + info.Path + ", built with " + info.GoVersion + "; file " + Entrypoint,
		}
		doc.Packages = append(doc.Packages, bin)
		doc.Relationships = append(doc.Relationships, spdxRel{img.SPDXID, "CONTAINS", bin.SPDXID})
		mods := []spdxPkg{golangPkg("stdlib", info.GoVersion)}
		for _, d := range info.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			mods = append(mods, golangPkg(d.Path, d.Version))
		}
		sort.Slice(mods, func(i, j int) bool { return mods[i].SPDXID < mods[j].SPDXID })
		for _, m := range mods {
			if !seen[m.SPDXID] {
				seen[m.SPDXID] = true
				doc.Packages = append(doc.Packages, m)
			}
			doc.Relationships = append(doc.Relationships, spdxRel{bin.SPDXID, "DEPENDS_ON", m.SPDXID})
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode SPDX document: %w", err)
	}
	return append(out, '\n'), nil
}
