package pprofsym

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/google/pprof/profile"
	"github.com/symbolize-go/symbolize/internal/inflate"
)

// ErrMalformed: SymbolizeData's input is not a profile.proto message (it
// may still be a legacy profile, which profile.Parse reads).
var ErrMalformed = errors.New("not an encoded profile")

// DataError says where SymbolizeData's input stopped decoding: Offset is
// in the (decompressed) protobuf, Field names the message and field.
type DataError struct {
	Offset int
	Field  string
	Err    error
}

func (e *DataError) Error() string {
	return fmt.Sprintf("pprofsym: profile+%#x: %s: %v", e.Offset, e.Field, e.Err)
}

func (e *DataError) Unwrap() error { return e.Err }

// SymbolizeData symbolizes an encoded profile (profile.proto, gzipped or
// not) as Symbolize symbolizes a parsed one, and returns it encoded,
// uncompressed. It decodes only the mappings, locations, functions and
// string table: samples and every other field are copied as they are,
// neither decoded nor checked, and so are the locations it does not
// change; new functions and strings are added after the existing ones,
// which keep their indexes. When profile.Parse accepts data, it accepts
// the result, and the result parses to what Symbolize makes of the parsed
// data (up to the numbering of strings).
//
// An input that does not decode is a *DataError (ErrMalformed, or gzip's
// error); a legacy (text) profile is one, for profile.Parse to read.
// Cost: one pass over data, and the lookups Symbolize makes; the samples,
// which are most of a profile, cost only their copy.
func SymbolizeData(ctx context.Context, data []byte, s Symbolizer, opts *Options) ([]byte, *Report, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		var err error
		if data, err = gunzip(data); err != nil {
			return nil, nil, &DataError{0, "gzip", err}
		}
	}
	var d decoded
	if err := d.decode(data); err != nil {
		return nil, nil, err
	}
	if err := d.resolve(); err != nil {
		return nil, nil, err
	}
	before := make([]bool, len(d.p.Location))
	for i, l := range d.p.Location {
		before[i] = len(l.Line) > 0
	}
	nFuncs := len(d.p.Function)
	rep, err := Symbolize(ctx, &d.p, s, opts)
	if err != nil {
		return nil, nil, err
	}
	return d.encode(data, before, nFuncs), rep, nil
}

// Field numbers of profile.proto.
const (
	fProfileMapping  = 3
	fProfileLocation = 4
	fProfileFunction = 5
	fProfileString   = 6

	fMappingID       = 1
	fMappingStart    = 2
	fMappingLimit    = 3
	fMappingOffset   = 4
	fMappingFile     = 5
	fMappingBuildID  = 6
	fMappingHasFuncs = 7
	fMappingHasFiles = 8
	fMappingHasLines = 9
	fMappingHasInl   = 10

	fLocationID      = 1
	fLocationMapping = 2
	fLocationAddress = 3
	fLocationLine    = 4
	fLocationFolded  = 5

	fLineFunction = 1
	fLineLine     = 2
	fLineColumn   = 3

	fFunctionID     = 1
	fFunctionName   = 2
	fFunctionSystem = 3
	fFunctionFile   = 4
	fFunctionStart  = 5
)

// decoded is what SymbolizeData decodes of a profile: its top-level
// fields as byte ranges, and its mappings, locations and functions as the
// profile package's types, with the indexes they refer by.
type decoded struct {
	fields  []field // every top-level field, in order
	strings []string
	p       profile.Profile // Mapping, Location and Function only

	mapFile, mapBuildID []int64  // per mapping: string indexes
	locMapping          []uint64 // per location: mapping_id
	locLineFuncs        []uint64 // every line's function_id, in order
	funcStrings         [][3]int64
}

// field is one top-level field: data[start:end] encodes it whole (tag and
// value); num is its number, index its position among its kind (the
// i-th mapping, location or function). A num of -1 is a run of fields
// that are copied as they are.
type field struct {
	num        int
	start, end int
	index      int
}

// wire reads protobuf's wire format from data[off:end], remembering the
// first error.
type wire struct {
	data []byte
	off  int
	end  int
	msg  string
	err  error
}

// fail records that field num (-1: a tag) does not decode at w.off.
func (w *wire) fail(num int) {
	if w.err == nil {
		what := "tag"
		if num >= 0 {
			what = "field " + strconv.Itoa(num)
		}
		w.err = &DataError{w.off, w.msg + " " + what, ErrMalformed}
	}
	w.off = w.end
}

// varint reads a varint of field num (-1: a tag).
func (w *wire) varint(num int) uint64 {
	if w.err != nil {
		return 0
	}
	if w.off < w.end && w.data[w.off] < 0x80 {
		w.off++
		return uint64(w.data[w.off-1])
	}
	v, n := binary.Uvarint(w.data[w.off:w.end])
	if n <= 0 {
		w.fail(num)
		return 0
	}
	w.off += n
	return v
}

// next reads a field's tag and value: a varint's value in v, a
// length-delimited field's bytes as data[lo:hi].
func (w *wire) next() (num, typ int, v uint64, lo, hi int) {
	tag := w.varint(-1)
	if w.err != nil {
		return
	}
	// Any field number is read, 0 included, as profile.Parse reads them:
	// the fields a message does not define are skipped.
	num, typ = int(min(tag>>3, 1<<30)), int(tag&7)
	switch typ {
	case 0:
		v = w.varint(num)
	case 1, 5:
		n := 8
		if typ == 5 {
			n = 4
		}
		if w.end-w.off < n {
			w.fail(num)
		} else {
			w.off += n
		}
	case 2:
		n := w.varint(num)
		if n > uint64(w.end-w.off) {
			w.fail(num)
		} else {
			lo, hi = w.off, w.off+int(n)
			w.off = hi
		}
	default:
		w.fail(num) // groups: profile.proto has none
	}
	return
}

// scalar checks that field num of a message is a varint, as profile.proto's
// scalars are.
func (w *wire) scalar(num, typ int) bool {
	if typ != 0 {
		w.fail(num)
		return false
	}
	return true
}

func (d *decoded) decode(data []byte) error {
	w := &wire{data: data, end: len(data), msg: "Profile"}
	var counts [7]int
	for w.off < w.end && w.err == nil {
		start := w.off
		num, typ, _, lo, hi := w.next()
		if w.err != nil {
			break
		}
		f := field{num: num, start: start, end: w.off}
		if num >= fProfileMapping && num <= fProfileString {
			if typ != 2 {
				w.fail(num)
				break
			}
			f.index = counts[num]
			counts[num]++
			sub := &wire{data: data, off: lo, end: hi}
			switch num {
			case fProfileMapping:
				d.mapping(sub)
			case fProfileLocation:
				d.location(sub)
			case fProfileFunction:
				d.function(sub)
			case fProfileString:
				d.strings = append(d.strings, string(data[lo:hi]))
			}
			if sub.err != nil {
				return sub.err
			}
		}
		if num < fProfileMapping || num > fProfileString {
			// Runs of fields copied as they are (the samples) are one range.
			if n := len(d.fields); n > 0 && d.fields[n-1].num == -1 {
				d.fields[n-1].end = f.end
				continue
			}
			f.num = -1
		}
		d.fields = append(d.fields, f)
	}
	return w.err
}

func (d *decoded) mapping(w *wire) {
	w.msg = "Mapping"
	m := &profile.Mapping{}
	var file, id int64
	for w.off < w.end && w.err == nil {
		num, typ, v, _, _ := w.next()
		if num < 1 || num > fMappingHasInl || !w.scalar(num, typ) {
			continue // unknown fields are skipped (and dropped), as profile.Parse does
		}
		switch num {
		case fMappingID:
			m.ID = v
		case fMappingStart:
			m.Start = v
		case fMappingLimit:
			m.Limit = v
		case fMappingOffset:
			m.Offset = v
		case fMappingFile:
			file = int64(v)
		case fMappingBuildID:
			id = int64(v)
		case fMappingHasFuncs:
			m.HasFunctions = v != 0
		case fMappingHasFiles:
			m.HasFilenames = v != 0
		case fMappingHasLines:
			m.HasLineNumbers = v != 0
		case fMappingHasInl:
			m.HasInlineFrames = v != 0
		}
	}
	d.p.Mapping = append(d.p.Mapping, m)
	d.mapFile = append(d.mapFile, file)
	d.mapBuildID = append(d.mapBuildID, id)
}

func (d *decoded) location(w *wire) {
	w.msg = "Location"
	l := &profile.Location{}
	var mapping uint64
	for w.off < w.end && w.err == nil {
		num, typ, v, lo, hi := w.next()
		switch num {
		case fLocationID:
			if w.scalar(num, typ) {
				l.ID = v
			}
		case fLocationMapping:
			if w.scalar(num, typ) {
				mapping = v
			}
		case fLocationAddress:
			if w.scalar(num, typ) {
				l.Address = v
			}
		case fLocationFolded:
			if w.scalar(num, typ) {
				l.IsFolded = v != 0
			}
		case fLocationLine:
			if typ != 2 {
				w.fail(num)
				break
			}
			var ln profile.Line
			var fn uint64
			sub := &wire{data: w.data, off: lo, end: hi, msg: "Line"}
			for sub.off < sub.end && sub.err == nil {
				num, typ, v, _, _ := sub.next()
				if num < 1 || num > fLineColumn || !sub.scalar(num, typ) {
					continue
				}
				switch num {
				case fLineFunction:
					fn = v
				case fLineLine:
					ln.Line = int64(v)
				case fLineColumn:
					ln.Column = int64(v)
				}
			}
			if sub.err != nil {
				w.err = sub.err
				break
			}
			l.Line = append(l.Line, ln)
			d.locLineFuncs = append(d.locLineFuncs, fn)
		}
	}
	d.p.Location = append(d.p.Location, l)
	d.locMapping = append(d.locMapping, mapping)
}

func (d *decoded) function(w *wire) {
	w.msg = "Function"
	f := &profile.Function{}
	var idx [3]int64
	for w.off < w.end && w.err == nil {
		num, typ, v, _, _ := w.next()
		if num < 1 || num > fFunctionStart || !w.scalar(num, typ) {
			continue
		}
		switch num {
		case fFunctionID:
			f.ID = v
		case fFunctionName, fFunctionSystem, fFunctionFile:
			idx[num-fFunctionName] = int64(v)
		case fFunctionStart:
			f.StartLine = int64(v)
		}
	}
	d.p.Function = append(d.p.Function, f)
	d.funcStrings = append(d.funcStrings, idx)
}

// resolve turns string indexes and IDs into strings and pointers, as
// profile.Parse does, with its checks: IDs are unique and not 0, string
// indexes in range, a line's function one of the profile's.
func (d *decoded) resolve() error {
	str := func(i int64, what string) (string, error) {
		if i < 0 || i >= int64(len(d.strings)) {
			return "", &DataError{0, what, fmt.Errorf("%w: string index %d of %d", ErrMalformed, i, len(d.strings))}
		}
		return d.strings[i], nil
	}
	var err error
	mappings := make(map[uint64]*profile.Mapping, len(d.p.Mapping))
	for i, m := range d.p.Mapping {
		if m.File, err = str(d.mapFile[i], "Mapping.filename"); err != nil {
			return err
		}
		if m.BuildID, err = str(d.mapBuildID[i], "Mapping.build_id"); err != nil {
			return err
		}
		if m.ID == 0 || mappings[m.ID] != nil {
			return &DataError{0, "Mapping.id", fmt.Errorf("%w: mapping ID %d repeated or 0", ErrMalformed, m.ID)}
		}
		mappings[m.ID] = m
	}
	functions := make(map[uint64]*profile.Function, len(d.p.Function))
	for i, f := range d.p.Function {
		x := d.funcStrings[i]
		if f.Name, err = str(x[0], "Function.name"); err != nil {
			return err
		}
		if f.SystemName, err = str(x[1], "Function.system_name"); err != nil {
			return err
		}
		if f.Filename, err = str(x[2], "Function.filename"); err != nil {
			return err
		}
		if f.ID == 0 || functions[f.ID] != nil {
			return &DataError{0, "Function.id", fmt.Errorf("%w: function ID %d repeated or 0", ErrMalformed, f.ID)}
		}
		functions[f.ID] = f
	}
	locations := make(map[uint64]bool, len(d.p.Location))
	k := 0
	for i, l := range d.p.Location {
		if l.ID == 0 || locations[l.ID] {
			return &DataError{0, "Location.id", fmt.Errorf("%w: location ID %d repeated or 0", ErrMalformed, l.ID)}
		}
		locations[l.ID] = true
		l.Mapping = mappings[d.locMapping[i]] // nil for 0 or an unknown ID, as profile.Parse makes it
		for j := range l.Line {
			f := functions[d.locLineFuncs[k]]
			k++
			if f == nil {
				return &DataError{0, "Line.function_id", fmt.Errorf("%w: location %d has a line of no function", ErrMalformed, l.ID)}
			}
			l.Line[j].Function = f
		}
	}
	return nil
}

// encode writes the profile: data's top-level fields in order, the
// mappings re-encoded (their flags may have changed), the locations
// Symbolize filled re-encoded, everything else copied; then the new
// functions and the new strings.
func (d *decoded) encode(data []byte, before []bool, nFuncs int) []byte {
	strIndex := make(map[string]int64, len(d.strings))
	for i := len(d.strings) - 1; i >= 0; i-- {
		strIndex[d.strings[i]] = int64(i)
	}
	var newStrings []string
	intern := func(s string) int64 {
		if i, ok := strIndex[s]; ok {
			return i
		}
		if len(d.strings)+len(newStrings) == 0 {
			newStrings = append(newStrings, "") // string 0 is always ""
			strIndex[""] = 0
			if s == "" {
				return 0
			}
		}
		i := int64(len(d.strings) + len(newStrings))
		newStrings = append(newStrings, s)
		strIndex[s] = i
		return i
	}
	out := make([]byte, 0, len(data)+len(data)/4)
	var msg []byte
	for _, f := range d.fields {
		switch {
		case f.num == fProfileMapping:
			m := d.p.Mapping[f.index]
			msg = msg[:0]
			msg = appendVarintField(msg, fMappingID, m.ID)
			msg = appendVarintField(msg, fMappingStart, m.Start)
			msg = appendVarintField(msg, fMappingLimit, m.Limit)
			msg = appendVarintField(msg, fMappingOffset, m.Offset)
			msg = appendVarintField(msg, fMappingFile, uint64(d.mapFile[f.index]))
			msg = appendVarintField(msg, fMappingBuildID, uint64(d.mapBuildID[f.index]))
			msg = appendBoolField(msg, fMappingHasFuncs, m.HasFunctions)
			msg = appendBoolField(msg, fMappingHasFiles, m.HasFilenames)
			msg = appendBoolField(msg, fMappingHasLines, m.HasLineNumbers)
			msg = appendBoolField(msg, fMappingHasInl, m.HasInlineFrames)
			out = appendBytesField(out, fProfileMapping, msg)
		case f.num == fProfileLocation && !before[f.index] && len(d.p.Location[f.index].Line) > 0:
			l := d.p.Location[f.index]
			msg = msg[:0]
			msg = appendVarintField(msg, fLocationID, l.ID)
			msg = appendVarintField(msg, fLocationMapping, d.locMapping[f.index])
			msg = appendVarintField(msg, fLocationAddress, l.Address)
			for _, ln := range l.Line {
				n := sizeVarintField(fLineFunction, ln.Function.ID) + sizeVarintField(fLineLine, uint64(ln.Line)) +
					sizeVarintField(fLineColumn, uint64(ln.Column))
				msg = binary.AppendUvarint(msg, fLocationLine<<3|2)
				msg = binary.AppendUvarint(msg, uint64(n))
				msg = appendVarintField(msg, fLineFunction, ln.Function.ID)
				msg = appendVarintField(msg, fLineLine, uint64(ln.Line))
				msg = appendVarintField(msg, fLineColumn, uint64(ln.Column))
			}
			msg = appendBoolField(msg, fLocationFolded, l.IsFolded)
			out = appendBytesField(out, fProfileLocation, msg)
		default:
			out = append(out, data[f.start:f.end]...)
		}
	}
	for _, fn := range d.p.Function[nFuncs:] {
		msg = msg[:0]
		msg = appendVarintField(msg, fFunctionID, fn.ID)
		msg = appendVarintField(msg, fFunctionName, uint64(intern(fn.Name)))
		msg = appendVarintField(msg, fFunctionSystem, uint64(intern(fn.SystemName)))
		msg = appendVarintField(msg, fFunctionFile, uint64(intern(fn.Filename)))
		msg = appendVarintField(msg, fFunctionStart, uint64(fn.StartLine))
		out = appendBytesField(out, fProfileFunction, msg)
	}
	for _, s := range newStrings {
		out = binary.AppendUvarint(out, fProfileString<<3|2)
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return out
}

// appendVarintField appends field num with value v, or nothing for 0 (a
// proto3 default).
func appendVarintField(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(num)<<3)
	return binary.AppendUvarint(b, v)
}

func sizeVarintField(num int, v uint64) int {
	if v == 0 {
		return 0
	}
	return uvarintLen(uint64(num)<<3) + uvarintLen(v)
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendBoolField(b []byte, num int, v bool) []byte {
	if !v {
		return b
	}
	return appendVarintField(b, num, 1)
}

func appendBytesField(b []byte, num int, msg []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(msg)))
	return append(b, msg...)
}

// gunzip decompresses a gzip file. One member, as pprof writes profiles,
// is inflated by internal/inflate straight into a buffer of the size its
// trailer gives (when that is believable: see trustRatio), and checked
// against the trailer's CRC-32; anything else (several members, a trailer
// that does not match) goes through compress/gzip, which decides.
func gunzip(data []byte) ([]byte, error) {
	if out, ok := gunzipOne(data); ok {
		return out, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// trustRatio bounds the expansion gunzipOne takes the trailer's word
// for: profiles compress 1.2 to 10 times, DEFLATE up to 1032 times, and a
// larger claim goes through compress/gzip, whose buffer grows only as the
// bytes arrive, so that a lying trailer cannot size an allocation.
const trustRatio = 32

func gunzipOne(data []byte) ([]byte, bool) {
	// [RFC1952 2.3]: ID1 ID2 CM FLG MTIME(4) XFL OS, then the optional
	// fields FLG names.
	const (
		fhcrc    = 1 << 1
		fextra   = 1 << 2
		fname    = 1 << 3
		fcomment = 1 << 4
	)
	if len(data) < 18 || data[2] != 8 || data[3]&0xe0 != 0 {
		return nil, false
	}
	flg, off := data[3], 10
	if flg&fextra != 0 {
		if off+2 > len(data) {
			return nil, false
		}
		off += 2 + int(binary.LittleEndian.Uint16(data[off:]))
	}
	for _, f := range []byte{fname, fcomment} {
		if flg&f != 0 {
			i := bytes.IndexByte(data[min(off, len(data)):], 0)
			if i < 0 {
				return nil, false
			}
			off += i + 1
		}
	}
	if flg&fhcrc != 0 {
		off += 2
	}
	end := len(data) - 8
	if off > end {
		return nil, false
	}
	sum, size := binary.LittleEndian.Uint32(data[end:]), binary.LittleEndian.Uint32(data[end+4:])
	if uint64(size) > uint64(end-off)*trustRatio+1<<20 {
		return nil, false
	}
	// One byte more than the trailer says, so that a longer stream shows.
	out := make([]byte, int(size)+1)
	n, err := inflate.NewRaw(data[off:end]).DecodeTo(out, 0)
	if err != io.EOF || n != int(size) || crc32.ChecksumIEEE(out[:n]) != sum {
		return nil, false
	}
	return out[:n], true
}
