package docs

// The scene JSON Schema, docs/scene.schema.json, is generated from the
// node registry by scene.Schema; scene's TestSchemaUpToDate fails when it
// is stale.
//go:generate go run schema_gen.go
