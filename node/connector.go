package node

import (
	"errors"
	"fmt"
)

// Ground is the body name that stands for the fixed world at one end of a
// connector (the empty name does too): the end's Local is then a world
// point. Graphs and scene files read it; in Go, say GroundAt(point).
const Ground = "ground"

// ErrNotMarker is wrapped by errors about a connector end whose body does
// not implement Marker (or is a Marker that is not a Node).
var ErrNotMarker = errors.New("not a marker body")

// ErrMarkerLocal is wrapped by errors about an end's local point: not
// finite, or refused by the body's MarkerLocalChecker (CheckLocal).
var ErrMarkerLocal = errors.New("invalid marker local point")

// Attachment is one end of a connector: a point of a body implementing
// Marker, or a fixed world point (the ground). It is the one way every
// connector type names its ends:
//
//   - GroundAt(p): the fixed world point p;
//   - At(body, local): a point of a body given as a Go value, for a
//     connector built on its own (springdamper.New, spring.New);
//   - BodyAt(name, local) or Body(name): a point of the body a graph
//     knows by that name, for a connector added to a graph
//     (springdamper.Connect, spring.Connect, Connect).
//
// Connector.Attach and Attached receive and return ends with Body set
// (a graph looks the names up first).
type Attachment struct {
	// Body is the body the end sits on; nil with Name empty is the
	// ground. It must also be a Node, as every body in a graph is.
	Body Marker
	// Name is the node name of the body in a graph, for an end that a
	// graph looks up; empty when Body is given or for the ground.
	Name string
	// Local is what the body's MarkerKinematics reads as local (a
	// body-frame point of a rigid body, ignored by a point body, the unit
	// axis of a one-dimensional body); for the ground, the world point.
	Local [3]float64
}

// GroundAt is the end at the fixed world point p.
func GroundAt(p [3]float64) Attachment { return Attachment{Local: p} }

// At is the end at local on body, a body given as a Go value.
func At(body Marker, local [3]float64) Attachment { return Attachment{Body: body, Local: local} }

// BodyAt is the end at local on the body named name in a graph.
func BodyAt(name string, local [3]float64) Attachment {
	return Attachment{Name: name, Local: local}
}

// Body is the end at the origin of the body named name in a graph (a
// point mass: the mass itself; a rigid body: its reference point).
func Body(name string) Attachment { return Attachment{Name: name} }

// IsGround reports whether a is the fixed world: no body, and no name or
// the name Ground.
func (a Attachment) IsGround() bool { return a.Body == nil && (a.Name == "" || a.Name == Ground) }

// CheckLocal checks the end's local point as a connector does once, when
// it is built: finite for every end (a non-finite ground or body point
// would make every output NaN; the error then wraps ErrNonFinite too),
// and accepted by the body's MarkerLocalChecker when it has one. The
// error wraps ErrMarkerLocal and names the point; the caller adds which
// end.
func (a Attachment) CheckLocal() error {
	what := "local point"
	if a.Body == nil {
		what = "ground point"
	}
	for _, c := range a.Local {
		if c-c != 0 {
			return fmt.Errorf("%s %s is not finite: %w (%w)", what, formatPoint(a.Local), ErrMarkerLocal, ErrNonFinite)
		}
	}
	if lc, ok := a.Body.(MarkerLocalChecker); ok {
		if err := lc.CheckMarkerLocal(a.Local); err != nil {
			return fmt.Errorf("%s %s: %w (%w)", what, formatPoint(a.Local), ErrMarkerLocal, err)
		}
	}
	return nil
}

// formatPoint formats a point for errors; taking it by value keeps the
// caller's attachment off the heap.
func formatPoint(p [3]float64) string { return FormatValue(p[:]) }

// Link is one edge a connector needs between itself and the body at one
// of its ends, named by field names relative to the two nodes: the body's
// field BodyField feeds the connector's input Port, or, when Load is true,
// the connector's output Port feeds the body's (additive) input BodyField.
type Link struct {
	End       int // 0 or 1
	BodyField string
	Port      string
	Load      bool
}

// Connector is the capability of a connector type with its parameters
// bound: it builds a connector node attached to two ends and says, as
// data, which edges attach it. Graphs (graph.Graph.AddConnector) and
// scene files apply it to any connector type alike, so a new connector
// type needs no change in either: it implements Connector and registers
// a Type with a Connector constructor.
//
// Attach must not keep ends beyond the node it returns, and must be safe
// to call more than once (each call builds a new node). An error about
// one end (a local point the body refuses) is an *EndError.
type Connector interface {
	// ConnectorType is the node type Attach builds (its Spec().Type).
	ConnectorType() string
	// Attach returns the connector node named name attached to ends, and
	// the links the graph must make; links to a ground end are never
	// returned.
	Attach(name string, ends [2]Attachment) (Node, []Link, error)
}

// Attached is the capability of a connector node to report its ends and
// links, as Attach made them, so that a graph can be described again (a
// scene saved from a graph built in Go).
type Attached interface {
	Attachments() (ends [2]Attachment, links []Link)
}

// ConnectorHost is what Connect (and the Connect helpers of connector
// packages, springdamper.Connect, spring.Connect) need of a graph: a
// *graph.Graph implements it. AddConnector looks up the bodies by node
// name (Ground or "" is the ground), attaches c, adds the node and its
// links, and returns the node; an error about one end is an *EndError.
type ConnectorHost interface {
	AddConnector(name string, c Connector, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (Node, error)
}

// Connect adds the connector c named name to h between the ends e0 and
// e1, which name their bodies (BodyAt, Body) or are the ground
// (GroundAt, or the name "" or Ground, as for the host), and wires it.
// An end given as a Go value (At) cannot be looked up by name; it is an
// *EndError, as is every error about one end.
func Connect(h ConnectorHost, name string, c Connector, e0, e1 Attachment) (Node, error) {
	var bodies [2]string
	for k, e := range [2]Attachment{e0, e1} {
		switch {
		case e.Body != nil:
			return nil, &EndError{Type: c.ConnectorType(), Connector: name, End: k,
				Err: fmt.Errorf("a body given as a Go value (node.At) has no name in the graph: name it with node.BodyAt or node.Body")}
		}
		bodies[k] = e.Name
	}
	return h.AddConnector(name, c, bodies[0], e0.Local, bodies[1], e1.Local)
}

// EndError is an error about one end of a connector: a body that is not
// in the graph or is not a Marker, or a local point the body refuses.
// Callers find the end with errors.As.
type EndError struct {
	Type      string // the connector's node type
	Connector string // the connector's name
	End       int    // 0 or 1
	Err       error
}

func (e *EndError) Error() string {
	return fmt.Sprintf("%s: connector %s: body %d: %v", e.Type, Quote(e.Connector), e.End, e.Err)
}

func (e *EndError) Unwrap() error { return e.Err }
