package raster

import (
	"image"
	"image/color"
)

// glyphs is a 3×5 pixel font for captions such as "t = 1.25 s": each
// glyph is five rows of three bits, most significant bit on the left.
var glyphs = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 2, 2},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, '.': {0, 0, 0, 0, 2}, '-': {0, 0, 7, 0, 0},
	'+': {0, 2, 7, 2, 0}, '=': {0, 7, 0, 7, 0}, ' ': {0, 0, 0, 0, 0}, 't': {2, 7, 2, 2, 3},
	's': {0, 3, 6, 1, 6}, 'e': {0, 7, 7, 4, 7},
}

// drawText writes s at (x, y) with pixels scaled by scale; runes without
// a glyph are drawn as blanks.
func drawText(img *image.RGBA, x, y int, s string, c color.RGBA, scale int) {
	b := img.Bounds()
	for _, r := range s {
		g := glyphs[r]
		for row := range 5 {
			for col := range 3 {
				if g[row]&(4>>col) == 0 {
					continue
				}
				for j := range scale {
					for i := range scale {
						if p := (image.Point{X: x + col*scale + i, Y: y + row*scale + j}); p.In(b) {
							img.SetRGBA(p.X, p.Y, c)
						}
					}
				}
			}
		}
		x += 4 * scale
	}
}
