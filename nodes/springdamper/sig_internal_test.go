package springdamper

import (
	"reflect"
	"testing"
)

// TestParamKeyCoversParams: New shares validated values between equal
// Params by paramKey, so every field of Params but ForceFunc (never
// cached) must change the key. A field added to Params without being
// added to paramKey fails here.
func TestParamKeyCoversParams(t *testing.T) {
	base := DefaultParams()
	k0 := base.key()
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Name == "ForceFunc" {
			continue
		}
		p := base
		fv := reflect.ValueOf(&p).Elem().Field(i)
		switch fv.Kind() {
		case reflect.Bool:
			fv.SetBool(!fv.Bool())
		case reflect.Int:
			fv.SetInt(fv.Int() + 1)
		case reflect.Float64:
			fv.SetFloat(fv.Float() + 1)
		case reflect.Array:
			e := fv.Index(fv.Len() - 1)
			e.SetFloat(e.Float() + 1)
		default:
			t.Fatalf("Params.%s: kind %v not handled by this test", f.Name, fv.Kind())
		}
		if p.key() == k0 {
			t.Errorf("changing Params.%s does not change paramKey", f.Name)
		}
	}
}
