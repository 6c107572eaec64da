package main

import (
	"strconv"

	"github.com/symbolize-go/symbolize"
)

// answerFrame answers a FRAME request: the locals of the function at the
// address, printed as llvm-symbolizer 14 prints them (DIPrinter's
// print(Request, std::vector<DILocal>)). A module that did not open, an
// address no function covers and a lookup error all answer "no locals",
// as in llvm-symbolizer. File names are printed as DWARF gives them:
// --basenames and --relative-paths do not apply to FRAME answers in LLVM
// 14 (getLocalsForAddress asks for absolute paths).
func (s *session) answerFrame(r *request, m *module, pc uint64) {
	var locals []symbolize.Local
	if m != nil && m.bin != nil {
		// The only error is ErrClosed; a FRAME answer has no place for
		// errors in llvm-symbolizer either.
		locals, _ = m.bin.Locals(pc)
	}
	if s.cfg.style == styleJSON {
		s.jsonFrame(r, locals)
		return
	}
	w := s.out
	s.header(r)
	if len(locals) == 0 {
		w.WriteString("??\n")
	}
	for i := range locals {
		l := &locals[i]
		w.WriteString(orUnknown(l.FunctionName))
		w.WriteByte('\n')
		w.WriteString(orUnknown(l.Name))
		w.WriteByte('\n')
		w.WriteString(orUnknown(l.DeclFile))
		w.WriteByte(':')
		w.Write(strconv.AppendUint(s.scratch[:0], l.DeclLine, 10))
		w.WriteByte('\n')
		if l.HasFrameOffset {
			w.Write(strconv.AppendInt(s.scratch[:0], l.FrameOffset, 10))
		} else {
			w.WriteString("??")
		}
		w.WriteByte(' ')
		if l.HasSize {
			w.Write(strconv.AppendUint(s.scratch[:0], l.Size, 10))
		} else {
			w.WriteString("??")
		}
		w.WriteByte(' ')
		if l.HasTagOffset {
			w.Write(strconv.AppendUint(s.scratch[:0], l.TagOffset, 10))
		} else {
			w.WriteString("??")
		}
		w.WriteByte('\n')
	}
	s.footer()
}

// jsonFrame writes a FRAME answer in llvm-symbolizer's JSON schema: keys
// sorted, FrameOffset present only when known, Size and TagOffset as hex
// strings or "".
func (s *session) jsonFrame(r *request, locals []symbolize.Local) {
	w := s.out
	s.jsonBegin()
	w.WriteString(`{"Address":`)
	s.jsonHex(r.addr)
	w.WriteString(`,"Frame":[`)
	for i := range locals {
		l := &locals[i]
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(`{"DeclFile":`)
		s.jsonString(l.DeclFile)
		w.WriteString(`,"DeclLine":`)
		// LLVM writes the line as an int64.
		w.Write(strconv.AppendInt(s.scratch[:0], int64(l.DeclLine), 10))
		if l.HasFrameOffset {
			w.WriteString(`,"FrameOffset":`)
			w.Write(strconv.AppendInt(s.scratch[:0], l.FrameOffset, 10))
		}
		w.WriteString(`,"FunctionName":`)
		s.jsonString(l.FunctionName)
		w.WriteString(`,"Name":`)
		s.jsonString(l.Name)
		w.WriteString(`,"Size":`)
		s.jsonOptHex(l.Size, l.HasSize)
		w.WriteString(`,"TagOffset":`)
		s.jsonOptHex(l.TagOffset, l.HasTagOffset)
		w.WriteByte('}')
	}
	w.WriteString(`],"ModuleName":`)
	s.jsonString(moduleName(r.module))
	s.jsonEnd()
}

// jsonOptHex writes v as a "0x..." string, or "" when it is unknown.
func (s *session) jsonOptHex(v uint64, ok bool) {
	if !ok {
		s.out.WriteString(`""`)
		return
	}
	s.jsonHex(v)
}
