package extract

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
)

// jpegOrientation reads the EXIF orientation tag (0x0112) of a JPEG: 1–8, or 1 when the
// file has none or it cannot be read. Only this one tag is needed, so the reader walks
// the JPEG markers to the APP1 Exif segment and IFD0 itself, within the segment's
// bounds, instead of taking in a general metadata library.
func jpegOrientation(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 1
	}
	defer f.Close()
	return exifOrientation(bufio.NewReader(f))
}

func exifOrientation(r io.Reader) int {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:2]); err != nil || hdr[0] != 0xFF || hdr[1] != 0xD8 {
		return 1
	}
	// The Exif APP1 segment comes first or after JFIF's APP0; look at the first dozen.
	for range 12 {
		if _, err := io.ReadFull(r, hdr[:4]); err != nil || hdr[0] != 0xFF {
			return 1
		}
		marker := hdr[1]
		size := int(binary.BigEndian.Uint16(hdr[2:4])) - 2
		if marker == 0xDA || marker == 0xD9 || size < 0 { // image data: no metadata follows
			return 1
		}
		seg := make([]byte, size)
		if _, err := io.ReadFull(r, seg); err != nil {
			return 1
		}
		if marker == 0xE1 && len(seg) > 6 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
	}
	return 1
}

// tiffOrientation finds the orientation among the entries of the first IFD of a TIFF
// structure (the Exif payload).
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := int(bo.Uint32(t[4:8]))
	if off < 8 || off+2 > len(t) {
		return 1
	}
	n := int(bo.Uint16(t[off:]))
	for i := range n {
		e := off + 2 + 12*i
		if e+12 > len(t) {
			return 1
		}
		// tag, type (3 = SHORT), count, value (a SHORT sits in the first two bytes).
		if bo.Uint16(t[e:]) == 0x0112 && bo.Uint16(t[e+2:]) == 3 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}
