package node

import (
	"fmt"
	"sort"
)

// Type is a registered node type: its name and a constructor from a
// parameter map (scene files, overrides). New(nil) must succeed and build
// the node with its defaults (but for a Dynamic type); its Spec (or the
// Spec function's) is what listings and guides show.
type Type struct {
	Name string
	New  func(params map[string]any) (Node, error)
	// Spec, when set, returns the spec of a default node without building
	// one: for types whose construction has side effects (a deprecation
	// warning) that listing the catalog should not trigger.
	Spec func() *Spec
	// Connector, when set, makes the type a connector type: it returns
	// the type's Connector with the given parameters (nil: defaults), so
	// that scene files attach it between two bodies as they attach any
	// other connector type. Every invalid parameter is a *ParamError.
	Connector func(params map[string]any) (Connector, error)
	// Dynamic marks a type whose nodes' specs come from their parameters
	// rather than from the type: an imported FMU's variables come from
	// its file. It has no default node, so NewRegistry neither builds one
	// nor asks Spec; Names, the listings, guides and schemas made from
	// them leave it out, Spec reports it has none, and New builds it by
	// name like any other type.
	Dynamic bool
	// Paths names the parameters that are file paths: a scene file gives
	// them relative to itself, and its loader makes them absolute before
	// New (Registry.Paths).
	Paths []string
}

// Registry maps type names to constructors. It is built once and then
// read-only, so it is safe for concurrent use.
type Registry struct {
	types map[string]Type
	names []string // sorted
	specs map[string]*Spec
	conns []string // sorted names of connector types
	// dynamic are the names of the dynamic types (Type.Dynamic), which
	// names leaves out.
	dynamic []string
}

// NewRegistry builds a registry. It returns an error when two types share
// a name or an algorithm ID, when a default construction fails, or when a
// spec's Type differs from its registered name.
func NewRegistry(types ...Type) (*Registry, error) {
	r := &Registry{types: map[string]Type{}, specs: map[string]*Spec{}}
	ids := map[string]string{}
	for _, t := range types {
		if _, dup := r.types[t.Name]; dup {
			return nil, fmt.Errorf("node: type %q registered twice", t.Name)
		}
		if t.Dynamic {
			if t.Connector != nil || t.Spec != nil {
				return nil, fmt.Errorf("node: dynamic type %q has a default spec or connector", t.Name)
			}
			r.types[t.Name] = t
			r.dynamic = append(r.dynamic, t.Name)
			continue
		}
		var s *Spec
		if t.Spec != nil {
			s = t.Spec()
		} else {
			n, err := t.New(nil)
			if err != nil {
				return nil, fmt.Errorf("node: type %q: default construction: %w", t.Name, err)
			}
			s = n.Spec()
		}
		if s.Type != t.Name {
			return nil, fmt.Errorf("node: type %q builds nodes whose spec says type %q", t.Name, s.Type)
		}
		if id := s.Meta.AlgorithmID; id != "" {
			if other, dup := ids[id]; dup {
				return nil, fmt.Errorf("node: algorithm ID %s used by both %q and %q", id, other, t.Name)
			}
			ids[id] = t.Name
		}
		r.types[t.Name] = t
		r.specs[t.Name] = s
		r.names = append(r.names, t.Name)
		if t.Connector != nil {
			c, err := t.Connector(nil)
			if err != nil {
				return nil, fmt.Errorf("node: type %q: default connector: %w", t.Name, err)
			}
			if c.ConnectorType() != t.Name {
				return nil, fmt.Errorf("node: type %q has a connector of type %q", t.Name, c.ConnectorType())
			}
			r.conns = append(r.conns, t.Name)
		}
	}
	sort.Strings(r.names)
	sort.Strings(r.conns)
	return r, nil
}

// Names returns the registered type names, sorted, without the dynamic
// types (Dynamic), which have no default node to list.
func (r *Registry) Names() []string { return append([]string(nil), r.names...) }

// DynamicNames returns the names of the dynamic types, sorted.
func (r *Registry) DynamicNames() []string {
	out := append([]string(nil), r.dynamic...)
	sort.Strings(out)
	return out
}

// Paths returns the names of the parameters of type typ that are file
// paths (Type.Paths), nil for an unknown type.
func (r *Registry) Paths(typ string) []string {
	return append([]string(nil), r.types[typ].Paths...)
}

// ConnectorTypes returns the names of the connector types (those with a
// Connector constructor), sorted.
func (r *Registry) ConnectorTypes() []string { return append([]string(nil), r.conns...) }

// Connector returns the Connector of the named connector type with the
// given parameters. A type that is not registered is an
// *UnknownTypeError; one that is not a connector type, a
// *NotConnectorError.
func (r *Registry) Connector(typ string, params map[string]any) (Connector, error) {
	t, ok := r.types[typ]
	if !ok {
		return nil, &UnknownTypeError{Name: typ, Known: r.ConnectorTypes()}
	}
	if t.Connector == nil {
		return nil, &NotConnectorError{Name: typ, Known: r.ConnectorTypes()}
	}
	return t.Connector(params)
}

// NotConnectorError reports a registered type that is not a connector
// type, where a connector was asked for.
type NotConnectorError struct {
	Name  string
	Known []string // the connector types
}

func (e *NotConnectorError) Error() string {
	return fmt.Sprintf("node: %s is not a connector type; connectors are %s%s", Quote(e.Name), quoteList(e.Known), DidYouMean(e.Name, e.Known))
}

// Spec returns the spec of a default-constructed node of the type. A
// dynamic type has none: its error says so.
func (r *Registry) Spec(typ string) (*Spec, error) {
	s, ok := r.specs[typ]
	if !ok {
		if t, dyn := r.types[typ]; dyn && t.Dynamic {
			return nil, fmt.Errorf("node: type %q has no default spec: each of its nodes takes its spec from its parameters", typ)
		}
		return nil, r.unknown(typ)
	}
	return s, nil
}

// New builds a node of the named type from a parameter map.
func (r *Registry) New(typ string, params map[string]any) (Node, error) {
	t, ok := r.types[typ]
	if !ok {
		return nil, r.unknown(typ)
	}
	return t.New(params)
}

// UnknownTypeError reports a type name that is not registered.
type UnknownTypeError struct {
	Name  string
	Known []string
}

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("node: unknown node type %s%s", Quote(e.Name), DidYouMean(e.Name, e.Known))
}

func (r *Registry) unknown(typ string) error {
	return &UnknownTypeError{Name: typ, Known: r.Names()}
}
