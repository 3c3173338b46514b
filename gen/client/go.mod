module github.com/doceval/doceval/gen/client

go 1.26
