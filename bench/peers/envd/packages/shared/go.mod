// Trimmed from the upstream packages/shared/go.mod to the requirements of
// the four packages envd imports (pkg/filesystem, pkg/id, pkg/keys,
// pkg/smap); the versions are upstream's.
module github.com/e2b-dev/infra/packages/shared

go 1.26.6

require (
	github.com/dchest/uniuri v1.2.0
	github.com/google/uuid v1.6.0
	github.com/orcaman/concurrent-map/v2 v2.0.1
	github.com/pkg/xattr v0.4.12
	github.com/sumup/typeid v0.7.0
)

require (
	github.com/gofrs/uuid/v5 v5.4.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
