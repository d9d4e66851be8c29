// Package archivetest builds zip and tar archives for tests, hostile ones
// included: any name, any mode, links, devices, FIFOs, duplicate entries,
// and large runs of zeros that compress small.
package archivetest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"hash/crc32"
	"io"
	"io/fs"
	"sync"
	"time"
)

// Kinds of entries.
const (
	File = iota
	Dir
	Symlink
	Hardlink
	CharDevice
	BlockDevice
	FIFO
)

// Entry is one entry to write. Mode holds permission bits (0 means 0644
// for files and 0755 for folders) and may carry fs.ModeSetuid.
type Entry struct {
	Name string
	Kind int
	Body string
	// Zeros, when set, is the number of zero bytes of content instead of Body.
	Zeros int64
	Mode  fs.FileMode
	// Link is the target of a symlink or hardlink.
	Link string
}

// Fixed timestamp of every entry.
var ModTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// Skill returns the entries of a small valid skill under prefix ("" for the top).
func Skill(prefix, name string) []Entry {
	p := prefix
	if p != "" {
		p += "/"
	}
	return []Entry{
		{Name: p + "SKILL.md", Body: "---\nname: " + name + "\ndescription: Does " + name + " things.\n---\n# " + name + "\n\nBody.\n"},
		{Name: p + "scripts/run.sh", Body: "#!/bin/sh\necho hi\n", Mode: 0o755},
		{Name: p + "references/NOTES.md", Body: "Notes.\n"},
	}
}

func (e Entry) mode() fs.FileMode {
	m := e.Mode
	if m&fs.ModePerm == 0 {
		if e.Kind == Dir {
			m |= 0o755
		} else {
			m |= 0o644
		}
	}
	return m
}

func (e Entry) content(w io.Writer) error {
	if e.Zeros > 0 {
		buf := make([]byte, 1<<20)
		for left := e.Zeros; left > 0; {
			n := int64(len(buf))
			if left < n {
				n = left
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			left -= n
		}
		return nil
	}
	_, err := io.WriteString(w, e.Body)
	return err
}

func (e Entry) size() int64 {
	if e.Zeros > 0 {
		return e.Zeros
	}
	return int64(len(e.Body))
}

// Zip builds a zip archive. Hardlinks are written as regular files (zip has none).
func Zip(entries []Entry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestSpeed)
	})
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Store, Modified: ModTime}
		if e.Zeros > 0 || len(e.Body) > 512 {
			h.Method = zip.Deflate
		}
		m := e.mode()
		switch e.Kind {
		case Dir:
			m |= fs.ModeDir
		case Symlink:
			m = fs.ModeSymlink | 0o777
		case CharDevice:
			m |= fs.ModeDevice | fs.ModeCharDevice
		case BlockDevice:
			m |= fs.ModeDevice
		case FIFO:
			m |= fs.ModeNamedPipe
		}
		h.SetMode(m)
		if e.Zeros > 0 {
			writeZipZeros(zw, h, e.Zeros)
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(err)
		}
		switch e.Kind {
		case Symlink:
			_, err = io.WriteString(w, e.Link)
		case File, Hardlink:
			err = e.content(w)
		}
		if err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Tar builds an uncompressed tar archive.
func Tar(entries []Entry) []byte {
	var buf bytes.Buffer
	writeTar(&buf, entries)
	return buf.Bytes()
}

// TarGz builds a gzip-compressed tar archive. Runs of zeros are written as
// one gzip member per MiB, made once and repeated, so that a 1 GiB file
// costs milliseconds (gzip readers join members into one stream).
func TarGz(entries []Entry) []byte {
	var out bytes.Buffer
	sw := &zeroSplitter{out: &out}
	writeTar(sw, entries)
	sw.flushPending()
	return out.Bytes()
}

// zeroSplitter gzips what it is given, except that whole MiBs of zeros
// become copies of one prepared gzip member.
type zeroSplitter struct {
	out     *bytes.Buffer
	pending bytes.Buffer
}

var zeroMiB = make([]byte, 1<<20)

func (z *zeroSplitter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(p) >= len(zeroMiB) && bytes.Equal(p[:len(zeroMiB)], zeroMiB) {
			z.flushPending()
			z.out.Write(zeroGzipMember())
			p = p[len(zeroMiB):]
			continue
		}
		k := min(len(p), len(zeroMiB))
		z.pending.Write(p[:k])
		p = p[k:]
	}
	return n, nil
}

func (z *zeroSplitter) flushPending() {
	if z.pending.Len() == 0 {
		return
	}
	gw, _ := gzip.NewWriterLevel(z.out, gzip.BestSpeed)
	gw.Write(z.pending.Bytes())
	gw.Close()
	z.pending.Reset()
}

var (
	zeroOnce   sync.Once
	zeroMember []byte
	zeroFlate  []byte
)

func prepareZeros() {
	var g bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
	gw.Write(zeroMiB)
	gw.Close()
	zeroMember = g.Bytes()
	// A raw deflate stream of one MiB of zeros, ended by a sync flush: a
	// run of non-final blocks that refers to nothing before it, so copies
	// of it can follow one another.
	var f bytes.Buffer
	fw, _ := flate.NewWriter(&f, flate.BestCompression)
	fw.Write(zeroMiB)
	fw.Flush()
	zeroFlate = f.Bytes()
}

func zeroGzipMember() []byte {
	zeroOnce.Do(prepareZeros)
	return zeroMember
}

// writeZipZeros writes an entry of n zero bytes (n a multiple of 1 MiB, or
// else rounded up) from repeated deflate blocks.
func writeZipZeros(zw *zip.Writer, h *zip.FileHeader, n int64) {
	zeroOnce.Do(prepareZeros)
	mibs := (n + int64(len(zeroMiB)) - 1) / int64(len(zeroMiB))
	crc := uint32(0)
	for range mibs {
		crc = crc32.Update(crc, crc32.IEEETable, zeroMiB)
	}
	final := []byte{0x03, 0x00} // an empty final block with fixed codes
	h.Method = zip.Deflate
	h.CRC32 = crc
	h.UncompressedSize64 = uint64(mibs) * uint64(len(zeroMiB))
	h.CompressedSize64 = uint64(mibs)*uint64(len(zeroFlate)) + uint64(len(final))
	w, err := zw.CreateRaw(h)
	if err != nil {
		panic(err)
	}
	for range mibs {
		w.Write(zeroFlate)
	}
	w.Write(final)
}

func writeTar(w io.Writer, entries []Entry) {
	tw := tar.NewWriter(w)
	for _, e := range entries {
		m := e.mode()
		perm := int64(m.Perm())
		if m&fs.ModeSetuid != 0 {
			perm |= 0o4000
		}
		if m&fs.ModeSetgid != 0 {
			perm |= 0o2000
		}
		h := &tar.Header{Name: e.Name, Mode: perm, ModTime: ModTime, Format: tar.FormatPAX}
		switch e.Kind {
		case File:
			h.Typeflag = tar.TypeReg
			h.Size = e.size()
		case Dir:
			h.Typeflag = tar.TypeDir
		case Symlink:
			h.Typeflag = tar.TypeSymlink
			h.Linkname = e.Link
		case Hardlink:
			h.Typeflag = tar.TypeLink
			h.Linkname = e.Link
		case CharDevice:
			h.Typeflag = tar.TypeChar
		case BlockDevice:
			h.Typeflag = tar.TypeBlock
		case FIFO:
			h.Typeflag = tar.TypeFifo
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if e.Kind == File {
			if err := e.content(tw); err != nil {
				panic(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
}
