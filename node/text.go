package node

import "fmt"

// UnmarshalText decodes a role by name, so that the JSON description
// round-trips into Go values.
func (r *Role) UnmarshalText(b []byte) error {
	for _, v := range []Role{Other, Position, Velocity} {
		if v.String() == string(b) {
			*r = v
			return nil
		}
	}
	return fmt.Errorf("node: unknown role %s", Quote(string(b)))
}

// UnmarshalText decodes a parameter kind by name.
func (k *ParamKind) UnmarshalText(b []byte) error {
	for _, v := range []ParamKind{Real, Vector, Bool, Integer, Text, Function} {
		if v.String() == string(b) {
			*k = v
			return nil
		}
	}
	return fmt.Errorf("node: unknown parameter kind %s", Quote(string(b)))
}

// UnmarshalText decodes a stability by name.
func (s *Stability) UnmarshalText(b []byte) error {
	for _, v := range []Stability{Stable, Evolving, Experimental, Deprecated} {
		if v.String() == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("node: unknown stability %s", Quote(string(b)))
}

// UnmarshalText decodes a combine rule by name.
func (c *Combine) UnmarshalText(b []byte) error {
	for _, v := range []Combine{Additive, Replacing} {
		if v.String() == string(b) {
			*c = v
			return nil
		}
	}
	return fmt.Errorf("node: unknown combine rule %s", Quote(string(b)))
}
