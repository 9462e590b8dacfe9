package fmi

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Values cross the FMI C API in the C type of their API type; both
// transports convert them from and to cosim's float64 values here: the
// in-process one over the bytes of a C buffer, the out-of-process one over
// the bytes of a reply (the host runs on the same machine, so both are in
// the machine's byte order).

// apiSize is the size in bytes of one value of API type t (apiType) in
// the C API of FMI version major: fmi3Boolean is C's bool (one byte),
// fmi2Boolean an int.
func apiSize(major int, t VarType) int {
	switch t {
	case Float64, Int64, UInt64:
		return 8
	case Float32, Int32, UInt32:
		return 4
	case Int16, UInt16:
		return 2
	case Int8, UInt8:
		return 1
	case Boolean:
		if major == 2 {
			return 4
		}
		return 1
	}
	panic("fmi: no C size for type " + string(t))
}

// decodeValues converts len(dst) values of API type t from raw (at least
// len(dst)·apiSize bytes) into dst, checking that 64-bit integers convert
// exactly; vrs name the values in the error.
func decodeValues(major int, t VarType, raw []byte, dst []float64, vrs []uint32) error {
	ne := binary.NativeEndian
	switch t {
	case Float64:
		for i := range dst {
			dst[i] = math.Float64frombits(ne.Uint64(raw[8*i:]))
		}
	case Float32:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(ne.Uint32(raw[4*i:])))
		}
	case Int8:
		for i := range dst {
			dst[i] = float64(int8(raw[i]))
		}
	case UInt8:
		for i := range dst {
			dst[i] = float64(raw[i])
		}
	case Int16:
		for i := range dst {
			dst[i] = float64(int16(ne.Uint16(raw[2*i:])))
		}
	case UInt16:
		for i := range dst {
			dst[i] = float64(ne.Uint16(raw[2*i:]))
		}
	case Int32:
		for i := range dst {
			dst[i] = float64(int32(ne.Uint32(raw[4*i:])))
		}
	case UInt32:
		for i := range dst {
			dst[i] = float64(ne.Uint32(raw[4*i:]))
		}
	case Int64:
		for i := range dst {
			v := int64(ne.Uint64(raw[8*i:]))
			f := float64(v)
			if f >= 0x1p63 || int64(f) != v {
				return notExact(vrs, i, fmt.Sprint(v), t)
			}
			dst[i] = f
		}
	case UInt64:
		for i := range dst {
			v := ne.Uint64(raw[8*i:])
			f := float64(v)
			if f >= 0x1p64 || uint64(f) != v {
				return notExact(vrs, i, fmt.Sprint(v), t)
			}
			dst[i] = f
		}
	case Boolean:
		if major == 2 {
			for i := range dst {
				dst[i] = b2f(ne.Uint32(raw[4*i:]) != 0)
			}
		} else {
			for i := range dst {
				dst[i] = b2f(raw[i] != 0)
			}
		}
	default:
		panic("fmi: get of type " + string(t))
	}
	return nil
}

// encodeValues converts checked float64 values into API type t in raw
// (at least len(src)·apiSize bytes).
func encodeValues(major int, t VarType, src []float64, raw []byte) {
	ne := binary.NativeEndian
	switch t {
	case Float64:
		for i, v := range src {
			ne.PutUint64(raw[8*i:], math.Float64bits(v))
		}
	case Float32:
		for i, v := range src {
			ne.PutUint32(raw[4*i:], math.Float32bits(float32(v)))
		}
	case Int8:
		for i, v := range src {
			raw[i] = byte(int8(v))
		}
	case UInt8:
		for i, v := range src {
			raw[i] = uint8(v)
		}
	case Int16:
		for i, v := range src {
			ne.PutUint16(raw[2*i:], uint16(int16(v)))
		}
	case UInt16:
		for i, v := range src {
			ne.PutUint16(raw[2*i:], uint16(v))
		}
	case Int32:
		for i, v := range src {
			ne.PutUint32(raw[4*i:], uint32(int32(v)))
		}
	case UInt32:
		for i, v := range src {
			ne.PutUint32(raw[4*i:], uint32(v))
		}
	case Int64:
		for i, v := range src {
			ne.PutUint64(raw[8*i:], uint64(int64(v)))
		}
	case UInt64:
		for i, v := range src {
			ne.PutUint64(raw[8*i:], uint64(v))
		}
	case Boolean:
		if major == 2 {
			for i, v := range src {
				var b uint32
				if v != 0 {
					b = 1
				}
				ne.PutUint32(raw[4*i:], b)
			}
		} else {
			for i, v := range src {
				raw[i] = 0
				if v != 0 {
					raw[i] = 1
				}
			}
		}
	default:
		panic("fmi: set of type " + string(t))
	}
}
