package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// stopEnd returns the offset of the first '"', '\\' or control character
// at or after i in data, or len(data), and whether a byte from 0x80 (of
// a multi-byte UTF-8 sequence, not checked here) came before it. It
// looks at eight bytes at a time: long strings of text are most of the
// bytes of a log.
func stopEnd(data []byte, i int) (end int, high bool) {
	const highs = 0x8080808080808080
	var hi uint64
	for i+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[i:])
		if m := stops(x); m != 0 {
			n := bits.TrailingZeros64(m) // the high bit of the first stop
			hi |= x & (1<<(n-7) - 1)     // the bytes before it
			return i + n>>3, hi&highs != 0
		}
		hi |= x
		i += 8
	}
	for ; i < len(data); i++ {
		c := data[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		hi |= uint64(c)
	}
	return i, hi&highs != 0
}

// stops marks with its high bit each byte of x, eight bytes of text read
// little-endian, that is a '"', a '\\' or a control character, and
// possibly bytes above the first such byte (never below it): the
// lowest marked byte is the first such byte.
func stops(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	// A byte of v is zero exactly when (v - 1) borrows into its high
	// bit while v's own high bit is clear; below 0x20 likewise with
	// 0x20 for 1. A byte from 0x80 is not marked (&^ clears its high
	// bit) and does not borrow; only a marked byte borrows from the
	// byte above it.
	return (((q - ones) &^ q) | ((b - ones) &^ b) | ((x - ones*0x20) &^ x)) & highs
}
