module github.com/doceval/doceval/pkg/sdk

go 1.24.0

require (
	github.com/doceval/doceval/gen/client v0.1.0
	github.com/google/uuid v1.6.0
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/oapi-codegen/nullable v1.1.0 // indirect
	github.com/oapi-codegen/runtime v1.8.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
