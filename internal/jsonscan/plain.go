package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// plainEnd returns the offset of the first byte at or after i in data
// that is not plain (a '"', a '\\', a control character or a byte of a
// multi-byte UTF-8 sequence), or len(data). It looks at eight bytes at a
// time: long strings of text are most of the bytes of a log.
func plainEnd(data []byte, i int) int {
	for i+8 <= len(data) {
		if m := special(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			// The lowest marked byte is the first special one (a
			// borrow marks only bytes above a special byte).
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(data) && plain[data[i]] {
		i++
	}
	return i
}

// special marks with its high bit each byte of x, eight bytes of text
// read little-endian, that is not plain, and possibly bytes above the
// first such byte (never below it).
func special(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	// A byte of v is zero exactly when (v - 1) borrows into its high
	// bit while v's own high bit is clear; below 0x20 likewise with
	// 0x20 for 1. Bytes from 0x80 are caught by x's high bits.
	return (((q - ones) &^ q) | ((b - ones) &^ b) | ((x - ones*0x20) &^ x) | x) & highs
}
