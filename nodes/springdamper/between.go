package springdamper

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// End is one end of a connector for Between: a body of the graph named
// by Body or BodyAt, or a ground Marker from Ground.
type End interface {
	connectorEnd() (body string, local [3]float64, err error)
}

type bodyEnd struct {
	name  string
	local [3]float64
}

func (e bodyEnd) connectorEnd() (string, [3]float64, error) {
	if e.name == "" || e.name == GroundName {
		return "", e.local, fmt.Errorf("Body(%q) names no body; use Ground(point) for the ground", e.name)
	}
	return e.name, e.local, nil
}

// connectorEnd makes a ground Marker an End. A Marker on a body is for
// New; in Between, name the body with Body or BodyAt.
func (m Marker) connectorEnd() (string, [3]float64, error) {
	if m.Body != nil {
		return "", m.Local, fmt.Errorf("a Marker on a body (springdamper.At) is for New; in Between name the body in the graph with Body or BodyAt")
	}
	return "", m.Local, nil
}

// Body is the marker at the body named name in the graph, at its origin
// (a point mass: the mass itself; a rigid body: its reference point).
func Body(name string) End { return bodyEnd{name: name} }

// BodyAt is the marker at local on the body named name: a body-frame
// point for a rigid body, the unit axis for a ball (see Marker.Local).
func BodyAt(name string, local [3]float64) End { return bodyEnd{name: name, local: local} }

// Between is Connect with named ends instead of seven positional
// arguments, where a ground end is a world point and a body end a
// body-frame point without ambiguity:
//
//	springdamper.Between(g, "k", p, springdamper.Body("m1"), springdamper.Ground(point))
//
// It adds the connector to g and wires every edge, with Connect's errors
// (naming the connector and the end), plus an error for Body("") and for
// a Marker on a body.
func Between(g node.ConnectorHost, name string, p Params, e0, e1 End) (*Node, error) {
	var bodies [2]string
	var locals [2][3]float64
	for k, e := range [2]End{e0, e1} {
		b, l, err := e.connectorEnd()
		if err != nil {
			return nil, &node.EndError{Type: TypeName, Connector: name, End: k, Err: err}
		}
		bodies[k], locals[k] = b, l
	}
	return Connect(g, name, p, bodies[0], locals[0], bodies[1], locals[1])
}
