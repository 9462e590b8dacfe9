package node

import (
	"errors"
	"fmt"
)

// Ground is the body name that stands for the fixed world at one end of a
// connector (the empty name does too): the end's Local is then a world
// point.
const Ground = "ground"

// ErrNotMarker is wrapped by errors about a connector end whose body does
// not implement Marker (or is a Marker that is not a Node).
var ErrNotMarker = errors.New("not a marker body")

// Attachment is one end of a connector: a point of a body implementing
// Marker, or a fixed world point when Body is nil (the ground).
type Attachment struct {
	// Body is the body the end sits on; nil is the ground. It must also
	// be a Node, as every body in a graph is.
	Body Marker
	// Local is what the body's MarkerKinematics reads as local (a
	// body-frame point of a rigid body, ignored by a point body, the unit
	// axis of a one-dimensional body); for the ground, the world point.
	Local [3]float64
}

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

// ConnectorHost is what the connector helpers of node packages
// (springdamper.Connect, spring.Between, …) need of a graph: a
// *graph.Graph implements it. AddConnector looks up the bodies by node
// name (Ground or "" is the ground), attaches c, adds the node and its
// links, and returns the node; an error about one end is an *EndError.
type ConnectorHost interface {
	AddConnector(name string, c Connector, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (Node, error)
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
