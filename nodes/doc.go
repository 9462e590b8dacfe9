// Package nodes is cosim's catalog of node types: it gathers every node
// package into one registry so that commands, scene files and the
// documentation generator can list and build nodes by type name.
//
// The node packages themselves (nodes/ball, nodes/table, …) do not import
// each other; only this catalog knows them all. Registry returns a fresh,
// read-only registry on every call, so there is no global mutable state.
//
// Registry also holds the type "fmu" (package fmi: an imported FMU), a
// dynamic type whose nodes take their specs from their FMU files: scene
// files and commands build it by name, while Types, the listings and the
// generated guides hold only the node packages above.
//
// Invariants: every type has a unique name, and every type of Types
// (the node packages, not the dynamic "fmu") has its package's metadata
// and a generated guide in docs/nodes (tests check both). Concurrency: Registry and Types may be called from any
// goroutine; the values they return are not shared between calls.
package nodes
