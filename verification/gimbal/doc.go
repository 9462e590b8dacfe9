// Package gimbal is the independent reference of rigidbody's gimbal
// discretization (rigidbody.DiscretizationGimbal) for the conformance
// checker: verification.CheckConformance knows no concrete node, so a
// caller checking a rigid body that holds one rotation passes
// verification.WithScheme(gimbal.Name, gimbal.ReferenceStep). It imports
// only node and rigidbody, never verification, so verification's own
// tests use it too.
//
// # Invariants
//
// ReferenceStep is written from rigidbody's documentation, not its code, so
// that agreement between the two (relative 1e-13, see CheckConformance)
// is evidence; it reads only the node's spec, Params and Derivatives.
//
// # Concurrency
//
// ReferenceStep is a pure function of its arguments apart from calling the
// node's Params and Derivatives, which nodes make safe for concurrent use.
package gimbal
