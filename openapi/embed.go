// Package openapi embeds the HTTP contract as written, for /openapi.yaml.
package openapi

import _ "embed"

// YAML is openapi.yaml, byte for byte.
//
//go:embed openapi.yaml
var YAML []byte
