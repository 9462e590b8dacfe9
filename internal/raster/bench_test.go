package raster

import (
	"image"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// benchFrame is a rigid bar hanging from a damped spring, as the example
// scene rigid-body-spring draws it.
func benchFrame() [][]node.Primitive {
	set := node.DefaultDrawSettings()
	bar := node.Primitive{Kind: node.Box, P: [3]float64{0.5, -0.05, 0}, Size: [3]float64{1.07, 0.245, 0.245}, Rot: [4]float64{1, 0, 0, 0}, Color: set.BodyColor}
	spring := node.GroundMarker([3]float64{}, 0.05, &set, nil)
	spring = node.SpringDamper([3]float64{}, [3]float64{0, -0.05, 0}, 0.1, set.ConnectorColor, true, &set, spring)
	return [][]node.Primitive{{bar}, spring}
}

// BenchmarkDraw draws one 480 × 360 frame of the rigid bar.
func BenchmarkDraw(b *testing.B) {
	fr := benchFrame()
	s := NewScene([]Body{{Name: "bar"}, {Name: "spring", Connector: true}}, [][][]node.Primitive{fr}, 12, 480, 360, 0.6, 0.35, 1)
	img := image.NewRGBA(image.Rect(0, 0, 480, 360))
	b.ReportAllocs()
	for b.Loop() {
		s.Draw(img, fr, "t = 1.00 s")
	}
}
