package partnercli

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/pkg/sdk"
)

// buildInfo is what `doceval version` reports.
type buildInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	SDKVersion string `json:"sdk_version"`
	Go         string `json:"go"`
	Platform   string `json:"platform"`
}

// version is the main module's version from the build info: the tag for
// `go install …/doceval@v1.2.3`, "(devel)" for a build from a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: version(), SDKVersion: sdk.Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				b.Commit = s.Value
			}
		}
	}
	return b
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the CLI's version",
		Long: `Prints the version this binary was built as: the module version for
'go install github.com/doceval/doceval/services/doceval@vX.Y.Z', "(devel)" for a build
from a checkout.`,
		Example: `  doceval version
  doceval version --json`,
		Args: exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			b := readBuildInfo()
			return a.emit(b, []string{b.Version}, func() error {
				return a.details("doceval", b.Version, "commit", b.Commit, "sdk", b.SDKVersion, "go", b.Go, "platform", b.Platform)
			})
		},
	}
}
