// Package describe is the stable JSON form of a node type's
// self-description: what `cosim describe TYPE --json` prints and the
// documentation generator reads. It lives beside the node contract, not
// in it, so that the core package node holds only what every node and
// graph needs; docs/describe-json.md documents every field.
//
// # Invariants
//
// Of reads only the node's Spec and its capabilities (node.Capabilities)
// and never calls a method that computes; fields are only ever added,
// never renamed or removed, within a major version of cosim; lists are
// empty, never nil, so they encode as [].
//
// # Concurrency
//
// Of is safe for concurrent use when the node's Spec is (node.Node
// requires it).
package describe
