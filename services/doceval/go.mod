module github.com/doceval/doceval/services/doceval

go 1.24.0

require (
	github.com/creack/pty v1.1.24
	github.com/doceval/doceval/gen/client v0.1.0
	github.com/doceval/doceval/pkg/sdk v0.1.0
	github.com/google/uuid v1.6.0
	github.com/spf13/cobra v1.10.2
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/term v0.40.0
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/oapi-codegen/nullable v1.1.0 // indirect
	github.com/oapi-codegen/runtime v1.8.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.41.0 // indirect
)
