package fmi_test

import (
	"testing"

	"github.com/cosimgo/cosim/fmi"
)

// TestUnitDefinition: the FMI unit written for a cosim unit reads back
// (MapUnit) into the same cosim spelling, and its SI base-unit definition
// is the one of the unit's symbols (N = kg·m·s⁻², g = 10⁻³ kg, L = 10⁻³
// m³); dimensionless units and units of unknown symbols have none.
func TestUnitDefinition(t *testing.T) {
	for _, c := range []struct {
		cosim, fmi string
		base       fmi.BaseUnit
	}{
		{"m", "m", fmi.BaseUnit{M: 1, Factor: 1}},
		{"m/s^2", "m/s2", fmi.BaseUnit{M: 1, S: -2, Factor: 1}},
		{"kg m^2", "kg.m2", fmi.BaseUnit{Kg: 1, M: 2, Factor: 1}},
		{"N m", "N.m", fmi.BaseUnit{Kg: 1, M: 2, S: -2, Factor: 1}},
		{"N s/m", "N.s/m", fmi.BaseUnit{Kg: 1, S: -1, Factor: 1}},
		{"N/m", "N/m", fmi.BaseUnit{Kg: 1, S: -2, Factor: 1}},
		{"1/s", "s-1", fmi.BaseUnit{S: -1, Factor: 1}},
		{"rad/s", "rad/s", fmi.BaseUnit{Rad: 1, S: -1, Factor: 1}},
		{"kg/(m s^2)", "kg.m-1.s-2", fmi.BaseUnit{Kg: 1, M: -1, S: -2, Factor: 1}},
		{"g", "g", fmi.BaseUnit{Kg: 1, Factor: 1e-3}},
		{"L/s", "L/s", fmi.BaseUnit{M: 3, S: -1, Factor: 1e-3}},
	} {
		u, ok := fmi.UnitDefinition(c.cosim)
		if !ok || u.Name != c.fmi || u.Base == nil || *u.Base != c.base {
			t.Errorf("UnitDefinition(%q) = %+v %v %v; want %q %+v", c.cosim, u, ok, u.Base, c.fmi, c.base)
			continue
		}
		if back := fmi.MapUnit(u.Name); back != c.cosim {
			t.Errorf("MapUnit(%q) = %q, want %q back", u.Name, back, c.cosim)
		}
	}
	for _, u := range []string{"", "1", "degC", "output units / input units", "m/s/s", "kg/(m", "m^0", "m^x"} {
		if d, ok := fmi.UnitDefinition(u); ok {
			t.Errorf("UnitDefinition(%q) = %+v: want none", u, d)
		}
	}
}
