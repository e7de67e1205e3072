module blindprep

go 1.26.8

require github.com/tally-eval/tally v0.0.0

require gonum.org/v1/gonum v0.17.0 // indirect

replace github.com/tally-eval/tally => ../../../../../..
