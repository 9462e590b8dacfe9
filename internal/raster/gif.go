package raster

import (
	"bufio"
	"bytes"
	"compress/lzw"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"io"
	"runtime"
	"sort"

	"golang.org/x/sync/errgroup"
)

// FrameFunc draws frame i of an animation into a new image.
type FrameFunc func(i int) (*image.RGBA, error)

// Frames calls sink with frames 0 … n−1 in order, drawing them on up to
// workers goroutines (runtime.GOMAXPROCS(0) when workers < 1), a chunk
// of a few frames per worker at a time so memory stays bounded. The
// result does not depend on the number of workers.
func Frames(n, workers int, draw FrameFunc, sink func(i int, img *image.RGBA) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk := 4 * workers
	imgs := make([]*image.RGBA, chunk)
	for start := 0; start < n; start += chunk {
		end := min(n, start+chunk)
		var g errgroup.Group
		g.SetLimit(workers)
		for i := start; i < end; i++ {
			g.Go(func() error {
				img, err := draw(i)
				imgs[i-start] = img
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i := start; i < end; i++ {
			if err := sink(i, imgs[i-start]); err != nil {
				return err
			}
			imgs[i-start] = nil
		}
	}
	return nil
}

// Palette is a GIF palette of at most 256 colors with a lookup table from
// 15-bit colors (5 bits per channel) to the nearest palette entry, so
// mapping a pixel is one table read.
type Palette struct {
	Colors color.Palette
	lut    [1 << 15]uint8
}

func bin15(r, g, b uint8) int { return int(r>>3)<<10 | int(g>>3)<<5 | int(b>>3) }

// NewPalette computes the palette of the sample images by median cut: the
// 15-bit color histogram is split, box by box, at the median of the box
// with the most pixels times its widest channel range, into at most 256
// boxes, each represented by the mean of its pixels. It is deterministic.
func NewPalette(samples []*image.RGBA) *Palette {
	type bin struct {
		n       int
		r, g, b int // sums of 8-bit values
	}
	var hist [1 << 15]bin
	for _, img := range samples {
		for i := 0; i+3 < len(img.Pix); i += 4 {
			r, g, b := img.Pix[i], img.Pix[i+1], img.Pix[i+2]
			h := &hist[bin15(r, g, b)]
			h.n++
			h.r += int(r)
			h.g += int(g)
			h.b += int(b)
		}
	}
	var used []int
	for k := range hist {
		if hist[k].n > 0 {
			used = append(used, k)
		}
	}
	if len(used) == 0 {
		used = []int{0}
	}
	chan5 := func(k, c int) int { return k >> (10 - 5*c) & 31 }
	type box struct{ bins []int }
	score := func(b box) (int, int) {
		n := 0
		var lo, hi [3]int
		for c := range 3 {
			lo[c], hi[c] = 31, 0
		}
		for _, k := range b.bins {
			n += hist[k].n
			for c := range 3 {
				v := chan5(k, c)
				lo[c], hi[c] = min(lo[c], v), max(hi[c], v)
			}
		}
		wide := 0
		for c := 1; c < 3; c++ {
			if hi[c]-lo[c] > hi[wide]-lo[wide] {
				wide = c
			}
		}
		return n * (hi[wide] - lo[wide]), wide
	}
	boxes := []box{{used}}
	for len(boxes) < 256 {
		best, bestScore, axis := -1, 0, 0
		for i, b := range boxes {
			if len(b.bins) < 2 {
				continue
			}
			if s, a := score(b); s > bestScore {
				best, bestScore, axis = i, s, a
			}
		}
		if best < 0 {
			break
		}
		bins := boxes[best].bins
		sort.SliceStable(bins, func(i, j int) bool { return chan5(bins[i], axis) < chan5(bins[j], axis) })
		total := 0
		for _, k := range bins {
			total += hist[k].n
		}
		cut, acc := 1, 0
		for i, k := range bins[:len(bins)-1] {
			acc += hist[k].n
			cut = i + 1
			if 2*acc >= total {
				break
			}
		}
		boxes[best] = box{bins[:cut]}
		boxes = append(boxes, box{bins[cut:]})
	}
	p := &Palette{}
	for _, b := range boxes {
		var n, r, g, bl int
		for _, k := range b.bins {
			h := hist[k]
			n, r, g, bl = n+h.n, r+h.r, g+h.g, bl+h.b
		}
		if n == 0 {
			n = 1
		}
		p.Colors = append(p.Colors, color.RGBA{uint8((r + n/2) / n), uint8((g + n/2) / n), uint8((bl + n/2) / n), 0xff})
	}
	// Every 15-bit color maps to the palette entry nearest its bin's
	// centre.
	for k := range p.lut {
		r, g, b := chan5(k, 0)<<3|4, chan5(k, 1)<<3|4, chan5(k, 2)<<3|4
		bestD, best := 1<<30, 0
		for i, c := range p.Colors {
			cc := c.(color.RGBA)
			d := sq3(int(cc.R)-r, int(cc.G)-g, int(cc.B)-b)
			if d < bestD {
				bestD, best = d, i
			}
		}
		p.lut[k] = uint8(best)
	}
	return p
}

func sq3(a, b, c int) int { return a*a + b*b + c*c }

// Index maps img to palette indices, row by row.
func (p *Palette) Index(img *image.RGBA) []uint8 {
	b := img.Bounds()
	out := make([]uint8, b.Dx()*b.Dy())
	k := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		o := img.PixOffset(b.Min.X, y)
		for x := 0; x < b.Dx(); x++ {
			out[k] = p.lut[bin15(img.Pix[o], img.Pix[o+1], img.Pix[o+2])]
			k++
			o += 4
		}
	}
	return out
}

// GIF writes an animated GIF that loops forever, frame by frame: every
// frame is mapped to one palette (computed once), only the rectangle that
// differs from the frame before is stored (the rest is kept), and the
// rectangles are LZW-compressed in parallel.
type GIF struct {
	w        *bufio.Writer
	width    int
	height   int
	pal      *Palette
	prev     []uint8
	workers  int
	pending  []gifFrame
	wroteHdr bool
}

type gifFrame struct {
	idx   []uint8
	delay int
	rect  image.Rectangle
	data  []byte
}

// NewGIF starts an animation of width × height with palette pal, written
// to w, compressing on up to workers goroutines (GOMAXPROCS when < 1).
func NewGIF(w io.Writer, width, height int, pal *Palette, workers int) *GIF {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &GIF{w: bufio.NewWriter(w), width: width, height: height, pal: pal, workers: workers}
}

// Add appends a frame shown for delay hundredths of a second.
func (g *GIF) Add(img *image.RGBA, delay int) error {
	if img.Bounds().Dx() != g.width || img.Bounds().Dy() != g.height {
		return errors.New("raster: GIF frame of another size")
	}
	idx := g.pal.Index(img)
	r := image.Rect(0, 0, g.width, g.height)
	if g.prev != nil {
		r = changed(g.prev, idx, g.width, g.height)
	}
	g.prev = idx
	g.pending = append(g.pending, gifFrame{idx: idx, delay: delay, rect: r})
	if len(g.pending) >= 4*g.workers {
		return g.flush()
	}
	return nil
}

// changed is the smallest rectangle holding every pixel that differs
// between a and b (w × h indices); one pixel when none does (a frame must
// still be shown for its delay).
func changed(a, b []uint8, w, h int) image.Rectangle {
	x0, y0, x1, y1 := w, h, -1, -1
	for y := range h {
		row := y * w
		if bytes.Equal(a[row:row+w], b[row:row+w]) {
			continue
		}
		y0, y1 = min(y0, y), y
		for x := 0; x < w; x++ {
			if a[row+x] != b[row+x] {
				x0 = min(x0, x)
				break
			}
		}
		for x := w - 1; x >= 0; x-- {
			if a[row+x] != b[row+x] {
				x1 = max(x1, x)
				break
			}
		}
	}
	if x1 < 0 {
		return image.Rect(0, 0, 1, 1)
	}
	return image.Rect(x0, y0, x1+1, y1+1)
}

// flush compresses the pending frames in parallel and writes them.
func (g *GIF) flush() error {
	var eg errgroup.Group
	eg.SetLimit(g.workers)
	for i := range g.pending {
		f := &g.pending[i]
		eg.Go(func() error {
			var buf bytes.Buffer
			bw := &blockWriter{w: &buf}
			lw := lzw.NewWriter(bw, lzw.LSB, 8)
			for y := f.rect.Min.Y; y < f.rect.Max.Y; y++ {
				if _, err := lw.Write(f.idx[y*g.width+f.rect.Min.X : y*g.width+f.rect.Max.X]); err != nil {
					return err
				}
			}
			if err := lw.Close(); err != nil {
				return err
			}
			bw.close()
			f.data = buf.Bytes()
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	if !g.wroteHdr {
		g.header()
	}
	for _, f := range g.pending {
		le := binary.LittleEndian
		// Graphic control extension: keep the frame (disposal 1), delay.
		g.w.Write([]byte{0x21, 0xf9, 4, 1 << 2})
		g.w.Write(le.AppendUint16(nil, uint16(f.delay)))
		g.w.Write([]byte{0, 0})
		// Image descriptor, no local color table.
		g.w.WriteByte(0x2c)
		for _, v := range []int{f.rect.Min.X, f.rect.Min.Y, f.rect.Dx(), f.rect.Dy()} {
			g.w.Write(le.AppendUint16(nil, uint16(v)))
		}
		g.w.WriteByte(0)
		g.w.WriteByte(8) // LZW minimum code size
		g.w.Write(f.data)
	}
	g.pending = g.pending[:0]
	return nil
}

// header writes the GIF header, the global palette and the loop.
func (g *GIF) header() {
	le := binary.LittleEndian
	g.w.WriteString("GIF89a")
	g.w.Write(le.AppendUint16(nil, uint16(g.width)))
	g.w.Write(le.AppendUint16(nil, uint16(g.height)))
	g.w.Write([]byte{0xf7, 0, 0}) // global table of 256 colors, 8 bits
	for i := range 256 {
		c := color.RGBA{}
		if i < len(g.pal.Colors) {
			c = g.pal.Colors[i].(color.RGBA)
		}
		g.w.Write([]byte{c.R, c.G, c.B})
	}
	g.w.Write([]byte{0x21, 0xff, 11})
	g.w.WriteString("NETSCAPE2.0")
	g.w.Write([]byte{3, 1, 0, 0, 0}) // loop forever
	g.wroteHdr = true
}

// Close writes the remaining frames and the trailer.
func (g *GIF) Close() error {
	if err := g.flush(); err != nil {
		return err
	}
	if !g.wroteHdr {
		g.header()
	}
	g.w.WriteByte(0x3b)
	return g.w.Flush()
}

// blockWriter cuts a stream into GIF sub-blocks of at most 255 bytes and
// ends it with an empty block.
type blockWriter struct {
	w   *bytes.Buffer
	buf [255]byte
	n   int
}

func (b *blockWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		b.buf[b.n] = c
		b.n++
		if b.n == 255 {
			b.emit()
		}
	}
	return len(p), nil
}

func (b *blockWriter) emit() {
	if b.n > 0 {
		b.w.WriteByte(byte(b.n))
		b.w.Write(b.buf[:b.n])
		b.n = 0
	}
}

func (b *blockWriter) close() {
	b.emit()
	b.w.WriteByte(0)
}
