package jsonscan

import "unicode/utf8"

// Column converts byte offset off of a one-line text into a 1-based
// column counted in Unicode characters (each byte of invalid UTF-8
// counts one).
func Column(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}

// Position converts byte offset off of data into a 1-based line and a
// 1-based column counted in Unicode characters. Lines end at "\n"; a
// "\r" before it counts as a character of its line.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(data[start:off]) + 1
}
