package verification

import (
	"reflect"
	"runtime"
	"time"
	"unsafe"
	"weak"

	"github.com/cosimgo/cosim/node"
)

// The lifetime part of CheckBatch: a family's members must not keep the
// family's batches alive. A graph builds a batch at every Build; a node
// that registered each batch with itself (to pass on SetParams) would
// keep every batch it was ever built into, with its per-row arrays.

// lifetimeBuilds is how many batches checkLifetime builds and drops.
const lifetimeBuilds = 8

// maxWatched bounds the objects of one batch checkLifetime watches, and
// maxReached the objects it walks from one batch.
const (
	maxWatched = 4096
	maxReached = 1 << 18
)

// watched is an object a dropped batch allocated, held weakly.
type watched struct {
	w   weak.Pointer[byte]
	typ reflect.Type
}

// checkLifetime builds a reference batch and then lifetimeBuilds more,
// watches (weakly) every object each of the others reaches that the
// reference does not, drops them all and reports a violation when a
// watched object is still reachable after garbage collections.
func (c *batchCheck) checkLifetime() {
	seed := c.members[0].(node.Batcher)
	build := func() (b node.Batch, err error) {
		err = protect(func() error { b = seed.NewBatch(c.members); return nil })
		return b, err
	}
	ref, err := build()
	if err != nil {
		c.violation("lifetime: NewBatch panicked: %v", err)
		return
	}
	// The members themselves are not the batch's: a kernel may keep
	// them (to call their own methods), and what they hold is theirs.
	stop := map[unsafe.Pointer]bool{}
	for _, m := range c.members {
		if v := reflect.ValueOf(m); v.Kind() == reflect.Pointer {
			stop[v.UnsafePointer()] = true
		}
	}
	shared := reach(reflect.ValueOf(&ref).Elem(), nil, stop)
	var watch []watched
	for range lifetimeBuilds {
		b, err := build()
		if err != nil {
			c.violation("lifetime: NewBatch panicked: %v", err)
			return
		}
		for _, o := range reach(reflect.ValueOf(&b).Elem(), shared, stop) {
			if len(watch) < maxWatched*lifetimeBuilds {
				watch = append(watch, watched{w: weak.Make((*byte)(o.p)), typ: o.t})
			}
		}
	}
	runtime.KeepAlive(ref)
	ref = nil
	var live []watched
	// A batch may release its last reference in a cleanup, which runs on
	// its own goroutine after a collection: collect a few times.
	for try := 0; try < 20; try++ {
		runtime.GC()
		live = live[:0]
		for _, o := range watch {
			if o.w.Value() != nil {
				live = append(live, o)
			}
		}
		if len(live) == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	c.violation("lifetime: %d objects that %d dropped batches allocated are still reachable after garbage collection (the first a %s): "+
		"the members keep their batches alive; keep the parameters in node.Rows, which members reference weakly", len(live), lifetimeBuilds, typeName(live[0].typ))
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	return t.String()
}

// object is a heap object (or a part of one) a value reaches: its
// address and the type stored there.
type object struct {
	p unsafe.Pointer
	t reflect.Type
}

// reach returns the objects v reaches through pointers, slices,
// interfaces and maps (not functions, channels or unsafe pointers),
// except those in skip and those of zero size, in the order first met.
// It neither returns nor enters the objects at the addresses in stop. It
// reads unexported fields; it stops after maxReached objects.
func reach(v reflect.Value, skip []object, stop map[unsafe.Pointer]bool) []object {
	skipped := map[object]bool{}
	for _, o := range skip {
		skipped[o] = true
	}
	seen := map[object]bool{}
	var out []object
	var walk func(v reflect.Value)
	visit := func(p unsafe.Pointer, t reflect.Type, then func()) {
		if p == nil || t.Size() == 0 || stop[p] || len(seen) >= maxReached {
			return
		}
		o := object{p, t}
		if seen[o] {
			return
		}
		seen[o] = true
		if !skipped[o] {
			out = append(out, o)
		}
		then()
	}
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				visit(v.UnsafePointer(), v.Type().Elem(), func() { walk(v.Elem()) })
			}
		case reflect.Slice:
			if v.Cap() > 0 {
				visit(v.UnsafePointer(), reflect.ArrayOf(v.Cap(), v.Type().Elem()), func() {
					if hasPointers(v.Type().Elem()) {
						for i := range v.Len() {
							walk(v.Index(i))
						}
					}
				})
			}
		case reflect.Map:
			if !v.IsNil() {
				visit(v.UnsafePointer(), v.Type(), func() {
					it := v.MapRange()
					for it.Next() {
						walk(it.Key())
						walk(it.Value())
					}
				})
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if hasPointers(v.Type()) {
				for i := range v.NumField() {
					walk(v.Field(i))
				}
			}
		case reflect.Array:
			if hasPointers(v.Type().Elem()) {
				for i := range v.Len() {
					walk(v.Index(i))
				}
			}
		}
	}
	walk(v)
	return out
}

// hasPointers reports whether a value of type t can reach an object
// reach follows.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
