// Package nodes is cosim's catalog of node types: it gathers every node
// package into one registry so that commands, scene files and the
// documentation generator can list and build nodes by type name.
//
// The node packages themselves (nodes/ball, nodes/table, …) do not import
// each other; only this catalog knows them all. Registry returns a fresh,
// read-only registry on every call, so there is no global mutable state.
package nodes

import (
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
)

// Types lists every registered node type.
func Types() []node.Type {
	return []node.Type{
		ball.Type(),
		constant.Type(),
		masspoint.Type(),
		rigidbody.Type(),
		rigidbody2d.Type(),
		springdamper.Type(),
		spring.Type(),
		table.Type(),
		source.SineType(),
		source.StepType(),
		source.RampType(),
		source.PulseType(),
		source.LookupType(),
	}
}

// Registry returns a registry of every node type. It panics if the
// catalog is inconsistent (two types with one name or algorithm ID), a
// programmer error that TestRegistry catches.
func Registry() *node.Registry {
	r, err := node.NewRegistry(Types()...)
	if err != nil {
		panic(err)
	}
	return r
}
