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
