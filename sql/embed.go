// Package sql holds the database migrations (applied by the services at start-up and by
// doceval-admin migrate) and the sqlc queries that gen/db is generated from.
package sql

import "embed"

// Migrations are goose migrations, numbered; sqlc reads the same files as its schema.
//
//go:embed migrations/*.sql
var Migrations embed.FS
