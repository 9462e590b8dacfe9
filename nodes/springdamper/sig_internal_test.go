package springdamper

import (
	"reflect"
	"testing"
	"unsafe"
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

// TestNodeSize pins the connector record at 256 bytes, an allocator size
// class: at 257 it would take 288 (a chain of 10⁵ connectors, 3.2 MB
// more). Reference: unsafe.Sizeof, the layout of Node's fields.
func TestNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(Node{}); got > 256 {
		t.Errorf("springdamper.Node is %d bytes, want at most 256", got)
	}
}
