// Package toolgate holds what belongs to the whole project rather than one
// layer: the HTTP contract, embedded so the server can serve it and tests
// can check real traffic against it.
package toolgate

import _ "embed"

// OpenAPI is openapi.yaml, the HTTP contract.
//
//go:embed openapi.yaml
var OpenAPI []byte
