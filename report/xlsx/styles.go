package xlsx

import (
	"github.com/xuri/excelize/v2"
)

// --- styles -------------------------------------------------------------

type styles struct {
	title, group, header, label, wrap          int
	pct, count, tokens, prob, decimal, hours   int
	blocks, passes                             int
	cfFail, cfPass, cfWarn, cfMuted, cfChanged int
}

func newStyles(f *excelize.File) (styles, error) {
	var s styles
	var err error
	add := func(dst *int, st *excelize.Style) {
		if err == nil {
			*dst, err = f.NewStyle(st)
		}
	}
	cond := func(dst *int, st *excelize.Style) {
		if err == nil {
			*dst, err = f.NewConditionalStyle(st)
		}
	}
	fill := func(c string) excelize.Fill { return excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{c}} }
	custom := func(code string) *string { return &code }
	add(&s.title, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}})
	add(&s.group, &excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      fill("B4C6E7"),
		Alignment: &excelize.Alignment{Horizontal: "center", Vertical: "center"},
	})
	add(&s.header, &excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      fill("D9E1F2"),
		Border:    []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}},
		Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
	})
	add(&s.label, &excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{Vertical: "top"}})
	add(&s.wrap, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", WrapText: true}})
	add(&s.pct, &excelize.Style{NumFmt: 10})   // 0.00%
	add(&s.count, &excelize.Style{NumFmt: 3})  // #,##0
	add(&s.tokens, &excelize.Style{NumFmt: 3}) // #,##0
	add(&s.prob, &excelize.Style{CustomNumFmt: custom("0.0000")})
	add(&s.decimal, &excelize.Style{NumFmt: 2}) // 0.00
	add(&s.hours, &excelize.Style{CustomNumFmt: custom("0.0")})
	add(&s.blocks, &excelize.Style{
		Font:      &excelize.Font{Bold: true, Color: "FFFFFF"},
		Fill:      fill("C00000"),
		Alignment: &excelize.Alignment{Vertical: "top"},
	})
	add(&s.passes, &excelize.Style{
		Font:      &excelize.Font{Bold: true, Color: "006100"},
		Fill:      fill("C6EFCE"),
		Alignment: &excelize.Alignment{Vertical: "top"},
	})
	cond(&s.cfFail, &excelize.Style{Font: &excelize.Font{Color: "9C0006"}, Fill: fill("FFC7CE")})
	cond(&s.cfPass, &excelize.Style{Font: &excelize.Font{Color: "006100"}, Fill: fill("C6EFCE")})
	cond(&s.cfWarn, &excelize.Style{Font: &excelize.Font{Color: "9C5700"}, Fill: fill("FFEB9C")})
	cond(&s.cfMuted, &excelize.Style{Font: &excelize.Font{Color: "595959"}, Fill: fill("EDEDED")})
	cond(&s.cfChanged, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "9C5700"}, Fill: fill("FFEB9C")})
	return s, err
}
