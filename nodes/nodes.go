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
package nodes

import (
	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/control"
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
		control.GainType(),
		control.SumType(),
		control.ProductType(),
		control.SaturationType(),
		control.DeadZoneType(),
		control.SwitchType(),
		control.IntegratorType(),
		control.LagType(),
		control.DerivativeType(),
		control.RateLimiterType(),
		control.PIDType(),
		control.TransferFunctionType(),
		control.StateSpaceType(),
		control.ZOHType(),
		control.UnitDelayType(),
		control.TransportDelayType(),
	}
}

// Registry returns a registry of every node type, and of the dynamic type
// "fmu" (fmi.Type()). It panics if the catalog is inconsistent (two types
// with one name or algorithm ID), a programmer error that TestRegistry
// catches.
func Registry() *node.Registry {
	r, err := node.NewRegistry(append(Types(), fmi.Type())...)
	if err != nil {
		panic(err)
	}
	return r
}
