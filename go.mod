module github.com/doceval/doceval

go 1.26

replace github.com/doceval/doceval/gen/client => ./gen/client
