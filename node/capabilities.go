package node

import "reflect"

// capability is one optional interface of a node: the name Capabilities
// lists it by, the interface's name in this package (a test holds the
// table to the package's declarations) and the check.
type capability struct {
	name  string
	iface string
	has   func(Node) bool
}

// capabilityOf describes the interface T under name.
func capabilityOf[T any](name string) capability {
	return capability{name: name, iface: reflect.TypeFor[T]().Name(), has: func(n Node) bool {
		_, ok := As[T](n)
		return ok
	}}
}

// capabilities are every optional interface a node may implement, in
// the order Capabilities lists them. Interfaces of other values (a
// Batch, a Connector, a ConnectorHost) are not node capabilities.
var capabilities = []capability{
	capabilityOf[Deriver]("derivatives"),
	capabilityOf[Outputter]("outputs"),
	capabilityOf[Tunable]("tunable"),
	capabilityOf[Eventer]("events"),
	capabilityOf[TimeEventer]("time-events"),
	capabilityOf[StepCompleter]("completed-step"),
	capabilityOf[DerivativesJacobian]("derivatives-jacobian"),
	capabilityOf[OutputsJacobian]("outputs-jacobian"),
	capabilityOf[ParamJacobian]("param-jacobian"),
	capabilityOf[InitialStateJacobian]("initial-state-jacobian"),
	capabilityOf[EventJacobian]("event-jacobian"),
	capabilityOf[ResetJacobian]("reset-jacobian"),
	capabilityOf[SensitivityChecker]("sensitivity-check"),
	capabilityOf[Marker]("marker"),
	capabilityOf[PointMarker]("point-marker"),
	capabilityOf[MarkerMass]("marker-mass"),
	capabilityOf[MarkerVelocityJacobian]("marker-velocity-jacobian"),
	capabilityOf[MarkerLocalChecker]("marker-local-check"),
	capabilityOf[Attached]("attached"),
	capabilityOf[StepLimiter]("step-limiter"),
	capabilityOf[StepBounder]("step-bounder"),
	capabilityOf[Batcher]("batcher"),
	capabilityOf[Drawer]("drawer"),
	capabilityOf[HiddenState]("hidden-state"),
	capabilityOf[Unwrapper]("unwrapper"),
}

// Capabilities lists the optional interfaces n implements (through its
// Unwrap chain, as As finds them), by name, in the order of
// CapabilityNames.
func Capabilities(n Node) []string {
	caps := []string{}
	for _, c := range capabilities {
		if c.has(n) {
			caps = append(caps, c.name)
		}
	}
	return caps
}

// CapabilityNames returns the name of every capability Capabilities may
// list, in its order.
func CapabilityNames() []string {
	names := make([]string, len(capabilities))
	for i, c := range capabilities {
		names[i] = c.name
	}
	return names
}
