// Package archive reads skill archives in place, entry by entry, without
// writing anything to disk. It identifies the format by content (an
// allow-list: zip and .skill, tar, tar.gz, tar.bz2, tar.xz, tar.zst) and
// checks every entry itself: names are normalised and refused when they
// climb out, are absolute or carry a drive letter or NUL; duplicates and
// case-only duplicates are refused; only regular files and folders pass
// (links only when they stay inside the archive; devices and FIFOs never);
// and entry count, per-entry and total bytes are capped as they are read.
package archive

import (
	"archive/tar"
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/mholt/archives"
)

// Format is an accepted archive format.
type Format string

// Accepted formats (SPEC §11). Anything else — rar, 7z, a bare compressed
// file, a zip inside gzip — is refused with ErrNotArchive.
const (
	FormatZip    Format = "zip"
	FormatTar    Format = "tar"
	FormatTarGz  Format = "tar.gz"
	FormatTarBz2 Format = "tar.bz2"
	FormatTarXz  Format = "tar.xz"
	FormatTarZst Format = "tar.zst"
)

// Formats lists the accepted formats.
var Formats = []Format{FormatZip, FormatTar, FormatTarGz, FormatTarBz2, FormatTarXz, FormatTarZst}

// Default limits (SPEC §6).
const (
	DefaultMaxEntries    = 10_000
	DefaultMaxEntryBytes = 100 << 20
	DefaultMaxTotalBytes = 512 << 20
)

// Errors, wrapped in *EntryError when they concern one entry.
var (
	// ErrNotArchive: the content is not one of the accepted formats.
	ErrNotArchive = errors.New("not a supported archive (zip, .skill, tar, tar.gz, tar.bz2, tar.xz, tar.zst)")
	// ErrUnsafeName: a name that climbs out, is absolute, has a drive letter or NUL.
	ErrUnsafeName = errors.New("unsafe name")
	// ErrDuplicate: the same name, or the same name but for case, twice.
	ErrDuplicate = errors.New("duplicate entry")
	// ErrLinkOutside: a symlink or hardlink whose target leaves the archive.
	ErrLinkOutside = errors.New("link points outside")
	// ErrSpecialFile: a device, FIFO, socket or unknown entry type.
	ErrSpecialFile = errors.New("not a regular file or folder")
	// ErrSetuid: a setuid, setgid or sticky bit, under Options.RefuseSetuid.
	ErrSetuid = errors.New("setuid/setgid bit set")
	// ErrLimit: more entries or bytes than Limits allow.
	ErrLimit = errors.New("limit exceeded")
	// ErrCorrupt: the archive is truncated or malformed.
	ErrCorrupt = errors.New("truncated or corrupt archive")
)

// EntryError is a problem with one entry; Entry is its name as written in the archive.
type EntryError struct {
	Entry string
	Err   error
}

func (e *EntryError) Error() string { return fmt.Sprintf("entry %q: %v", e.Entry, e.Err) }
func (e *EntryError) Unwrap() error { return e.Err }

func entryErr(name string, kind error, format string, a ...any) error {
	return &EntryError{Entry: name, Err: fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, a...))}
}

// Limits cap what one archive may hold. Zero fields take the defaults;
// a negative field means no limit.
type Limits struct {
	// MaxEntries counts every entry, ignored ones included.
	MaxEntries int
	// MaxEntryBytes caps one entry's unpacked size (declared and as read).
	MaxEntryBytes int64
	// MaxTotalBytes caps the sum of all entries' unpacked sizes (declared and as read).
	MaxTotalBytes int64
}

// DefaultLimits returns the limits of SPEC §6.
func DefaultLimits() Limits {
	return Limits{MaxEntries: DefaultMaxEntries, MaxEntryBytes: DefaultMaxEntryBytes, MaxTotalBytes: DefaultMaxTotalBytes}
}

// WithDefaults fills the limits left at zero with those of DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxEntries == 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxEntryBytes == 0 {
		l.MaxEntryBytes = d.MaxEntryBytes
	}
	if l.MaxTotalBytes == 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	return l
}

// Options tune reading.
type Options struct {
	Limits Limits
	// RefuseSetuid refuses entries with a setuid, setgid or sticky bit
	// instead of dropping the bit.
	RefuseSetuid bool
}

// Type is the kind of an entry.
type Type int

// Entry types.
const (
	TypeFile Type = iota
	TypeDir
	TypeSymlink
	TypeHardlink
)

func (t Type) String() string {
	switch t {
	case TypeFile:
		return "file"
	case TypeDir:
		return "folder"
	case TypeSymlink:
		return "symlink"
	case TypeHardlink:
		return "hardlink"
	}
	return "unknown"
}

// Entry is one checked entry of an archive. It is valid only during the
// callback that receives it.
type Entry struct {
	// Name is slash-separated, clean, relative, without a trailing slash.
	Name string
	// RawName is the name as written in the archive.
	RawName string
	Type    Type
	// Mode is the normalised permission: 0755 for folders and executables
	// (any x bit), 0644 otherwise; setuid, setgid and sticky bits dropped.
	Mode fs.FileMode
	// RawMode is the mode as the archive declares it.
	RawMode fs.FileMode
	// Size is the declared unpacked size of a file.
	Size int64
	// Link is a symlink's target as written (backslashes turned into
	// slashes), or a hardlink's target entry name (normalised).
	Link    string
	ModTime time.Time

	open func() (fs.File, error)
	w    *walker
}

// Open returns the content of a file entry. Bytes are counted against the
// limits as they are read; read errors name the entry. Close it before the
// callback returns.
func (e *Entry) Open() (io.ReadCloser, error) {
	if e.Type != TypeFile || e.open == nil {
		return nil, &EntryError{Entry: e.RawName, Err: fmt.Errorf("a %s has no content to read", e.Type)}
	}
	f, err := e.open()
	if err != nil {
		return nil, &EntryError{Entry: e.RawName, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	return &countingReader{f: f, e: e}, nil
}

type countingReader struct {
	f fs.File
	e *Entry
	n int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.n += int64(n)
	w := r.e.w
	w.readBytes += int64(n)
	if max := w.limits.MaxEntryBytes; max > 0 && r.n > max {
		return n, entryErr(r.e.RawName, ErrLimit, "more than %d bytes unpacked (the per-entry limit)", max)
	}
	if max := w.limits.MaxTotalBytes; max > 0 && w.readBytes > max {
		return n, entryErr(r.e.RawName, ErrLimit, "the archive unpacks to more than %d bytes (the total limit)", max)
	}
	if err != nil && err != io.EOF {
		return n, &EntryError{Entry: r.e.RawName, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	return n, err
}

func (r *countingReader) Close() error { return r.f.Close() }

// ReaderAtSeeker is what an archive is read from (an *os.File will do).
type ReaderAtSeeker interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// Identify tells the archive's format from its content, never its name.
// The stream is left at its start. Anything not on the allow-list gives
// ErrNotArchive.
func Identify(ctx context.Context, r io.ReadSeeker) (Format, error) {
	f, _, err := identify(ctx, r)
	return f, err
}

func identify(ctx context.Context, r io.ReadSeeker) (Format, archives.Extractor, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return "", nil, err
	}
	fm, _, err := archives.Identify(ctx, "", r)
	if _, serr := r.Seek(0, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		if errors.Is(err, archives.NoMatch) {
			return "", nil, ErrNotArchive
		}
		// A compressed stream that does not decompress is not an accepted archive either.
		return "", nil, fmt.Errorf("%w: %v", ErrNotArchive, err)
	}
	switch v := fm.(type) {
	case archives.Zip:
		return FormatZip, archives.Zip{}, nil
	case archives.Tar:
		return FormatTar, archives.Tar{}, nil
	case archives.CompressedArchive:
		if _, ok := v.Extraction.(archives.Tar); !ok {
			break
		}
		ca := archives.CompressedArchive{Archival: archives.Tar{}, Extraction: archives.Tar{}}
		switch v.Compression.(type) {
		case archives.Gz:
			ca.Compression = archives.Gz{}
			return FormatTarGz, ca, nil
		case archives.Bz2:
			ca.Compression = archives.Bz2{}
			return FormatTarBz2, ca, nil
		case archives.Xz:
			ca.Compression = archives.Xz{}
			return FormatTarXz, ca, nil
		case archives.Zstd:
			ca.Compression = archives.Zstd{}
			return FormatTarZst, ca, nil
		}
	}
	return "", nil, fmt.Errorf("%w; this is %s", ErrNotArchive, strings.TrimPrefix(fm.Extension(), "."))
}

// IdentifyFile is Identify on a file.
func IdentifyFile(ctx context.Context, name string) (Format, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Identify(ctx, f)
}

// Walk reads the archive r and calls fn with every entry that passes the
// checks, in archive order. Folders are reported when the archive lists
// them; parents of a file may be implicit. `__MACOSX/` and `.DS_Store` are
// skipped. The first problem stops the walk: the error is an *EntryError
// naming the entry whenever one is concerned, and fn's own errors are
// returned as they are. Symlinks are checked once more at the end, through
// the other links of the archive, so that no chain of links leaves it.
func Walk(ctx context.Context, r ReaderAtSeeker, opts Options, fn func(*Entry) error) (Format, error) {
	format, ex, err := identify(ctx, r)
	if err != nil {
		return "", err
	}
	w := &walker{limits: opts.Limits.WithDefaults(), opts: opts, seen: map[string]seenEntry{}, links: map[string]string{}, linkNames: map[string]string{}}
	if format == FormatZip {
		if err := w.precheckZip(r); err != nil {
			return format, err
		}
	}
	var fnErr error
	err = ex.Extract(ctx, r, func(ctx context.Context, fi archives.FileInfo) error {
		e, err := w.check(fi)
		if err != nil || e == nil {
			return err
		}
		if err := fn(e); err != nil {
			fnErr = err
			return err
		}
		return nil
	})
	if fnErr != nil {
		return format, fnErr
	}
	if err != nil {
		var ee *EntryError
		if errors.As(err, &ee) {
			return format, ee
		}
		if ctx.Err() != nil {
			return format, ctx.Err()
		}
		if w.last != "" {
			return format, &EntryError{Entry: w.last, Err: fmt.Errorf("%w after this entry: %v", ErrCorrupt, err)}
		}
		if format == FormatZip {
			return format, fmt.Errorf("%w: the zip's central directory (at its end) is missing or damaged; the file may be cut short (%v)", ErrCorrupt, err)
		}
		return format, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return format, w.checkLinks()
}

// WalkFile is Walk on the archive file name.
func WalkFile(ctx context.Context, name string, opts Options, fn func(*Entry) error) (Format, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Walk(ctx, f, opts, fn)
}

// precheckZip reads a zip's central directory first, so that too many
// entries or too many declared bytes are refused before fn sees anything.
func (w *walker) precheckZip(r ReaderAtSeeker) error {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil // Walk reports it, with more context
	}
	if max := w.limits.MaxEntries; max > 0 && len(zr.File) > max {
		return entryErr(zr.File[max].Name, ErrLimit, "more than %d entries in the archive (the entry limit; it holds %d)", max, len(zr.File))
	}
	var total uint64
	for _, f := range zr.File {
		if max := w.limits.MaxEntryBytes; max > 0 && f.UncompressedSize64 > uint64(max) {
			return entryErr(f.Name, ErrLimit, "declares %d bytes unpacked, more than the per-entry limit of %d", f.UncompressedSize64, max)
		}
		total += f.UncompressedSize64
		if max := w.limits.MaxTotalBytes; max > 0 && total > uint64(max) {
			return entryErr(f.Name, ErrLimit, "the archive declares more than %d bytes unpacked (the total limit)", max)
		}
	}
	return nil
}

type seenEntry struct {
	name     string
	typ      Type
	implicit bool
}

type walker struct {
	limits        Limits
	opts          Options
	entries       int
	declaredBytes int64
	readBytes     int64
	last          string
	// seen maps lower-cased names to what was seen there.
	seen map[string]seenEntry
	// links maps lower-cased symlink names to their targets; linkNames to their raw names.
	links     map[string]string
	linkNames map[string]string
}

// Ignored reports whether a normalised name is skipped on purpose
// (`__MACOSX/` folders and `.DS_Store` files).
func Ignored(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if part == "__MACOSX" {
			return true
		}
	}
	return path.Base(name) == ".DS_Store"
}

// NormalizeName turns an archive name into a clean, slash-separated relative
// name, or explains why it is refused. "." (the archive's top) gives "".
func NormalizeName(raw string) (string, error) {
	if strings.ContainsRune(raw, 0) {
		return "", fmt.Errorf("%w: the name contains a NUL byte", ErrUnsafeName)
	}
	n := strings.ReplaceAll(raw, "\\", "/")
	if strings.HasPrefix(n, "/") {
		return "", fmt.Errorf("%w: absolute path", ErrUnsafeName)
	}
	if len(n) >= 2 && n[1] == ':' && isLetter(n[0]) {
		return "", fmt.Errorf("%w: drive letter", ErrUnsafeName)
	}
	var parts []string
	for _, p := range strings.Split(n, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("%w: climbs out with \"..\"", ErrUnsafeName)
		}
		if strings.ContainsRune(p, ':') {
			return "", fmt.Errorf("%w: a colon in %q (drive letter or alternate data stream)", ErrUnsafeName, p)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "/"), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// check turns a library entry into a checked Entry; nil means skip it.
func (w *walker) check(fi archives.FileInfo) (*Entry, error) {
	raw := fi.NameInArchive
	w.last = raw
	w.entries++
	if max := w.limits.MaxEntries; max > 0 && w.entries > max {
		return nil, entryErr(raw, ErrLimit, "more than %d entries in the archive (the entry limit)", max)
	}
	name, err := NormalizeName(raw)
	if err != nil {
		return nil, &EntryError{Entry: raw, Err: err}
	}
	if name == "" {
		if fi.IsDir() {
			return nil, nil // the archive's top folder itself
		}
		return nil, entryErr(raw, ErrUnsafeName, "an entry without a name")
	}
	if Ignored(name) {
		// Skipped, but still unpacked by the decompressor to reach the next
		// entry: its declared size counts against the limits like any other.
		if !fi.IsDir() {
			if err := w.declare(raw, fi.Size()); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	rawMode := fi.Mode()
	e := &Entry{Name: name, RawName: raw, RawMode: rawMode, ModTime: fi.ModTime(), w: w}
	typ, err := entryType(fi)
	if err != nil {
		return nil, &EntryError{Entry: raw, Err: err}
	}
	e.Type = typ
	if rawMode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 && w.opts.RefuseSetuid && typ != TypeSymlink {
		return nil, entryErr(raw, ErrSetuid, "mode %v; skill files are never setuid, setgid or sticky", rawMode)
	}
	switch typ {
	case TypeDir:
		e.Mode = 0o755
	case TypeSymlink:
		e.Mode = 0o777
	default:
		e.Mode = 0o644
		if rawMode&0o111 != 0 {
			e.Mode = 0o755
		}
	}
	switch typ {
	case TypeFile:
		e.Size = fi.Size()
		if e.Size < 0 {
			return nil, entryErr(raw, ErrCorrupt, "negative size")
		}
		if err := w.declare(raw, e.Size); err != nil {
			return nil, err
		}
		e.open = fi.Open
	case TypeSymlink:
		if err := w.checkSymlink(e, fi.LinkTarget); err != nil {
			return nil, err
		}
	case TypeHardlink:
		target, err := NormalizeName(fi.LinkTarget)
		if err != nil || target == "" {
			return nil, entryErr(raw, ErrLinkOutside, "hardlink to %q leaves the archive", fi.LinkTarget)
		}
		s, ok := w.seen[strings.ToLower(target)]
		if !ok || s.name != target || s.typ != TypeFile {
			return nil, entryErr(raw, ErrLinkOutside, "hardlink to %q, which is not a file earlier in the archive", fi.LinkTarget)
		}
		e.Link = target
		e.Size = 0
	}
	if err := w.record(e); err != nil {
		return nil, err
	}
	return e, nil
}

// declare counts an entry's declared unpacked size against the limits.
func (w *walker) declare(raw string, size int64) error {
	if size < 0 {
		return entryErr(raw, ErrCorrupt, "negative size")
	}
	if max := w.limits.MaxEntryBytes; max > 0 && size > max {
		return entryErr(raw, ErrLimit, "declares %d bytes unpacked, more than the per-entry limit of %d", size, max)
	}
	w.declaredBytes += size
	if max := w.limits.MaxTotalBytes; max > 0 && w.declaredBytes > max {
		return entryErr(raw, ErrLimit, "the archive declares more than %d bytes unpacked (the total limit)", max)
	}
	return nil
}

func entryType(fi archives.FileInfo) (Type, error) {
	if h, ok := fi.Header.(*tar.Header); ok {
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeCont: // archive/tar reports the old TypeRegA as TypeReg
			return TypeFile, nil
		case tar.TypeDir:
			return TypeDir, nil
		case tar.TypeSymlink:
			return TypeSymlink, nil
		case tar.TypeLink:
			return TypeHardlink, nil
		case tar.TypeChar, tar.TypeBlock:
			return 0, fmt.Errorf("%w: a device file", ErrSpecialFile)
		case tar.TypeFifo:
			return 0, fmt.Errorf("%w: a FIFO", ErrSpecialFile)
		default:
			return 0, fmt.Errorf("%w: tar entry type %q", ErrSpecialFile, h.Typeflag)
		}
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		return TypeDir, nil
	case m&fs.ModeSymlink != 0:
		return TypeSymlink, nil
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return 0, fmt.Errorf("%w: a device file", ErrSpecialFile)
	case m&fs.ModeNamedPipe != 0:
		return 0, fmt.Errorf("%w: a FIFO", ErrSpecialFile)
	case m&fs.ModeSocket != 0:
		return 0, fmt.Errorf("%w: a socket", ErrSpecialFile)
	case m.Type() != 0:
		return 0, fmt.Errorf("%w: mode %v", ErrSpecialFile, m)
	}
	return TypeFile, nil
}

// record checks e against what was seen and remembers it (and its parents).
func (w *walker) record(e *Entry) error {
	parts := strings.Split(e.Name, "/")
	for i := 1; i < len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		key := strings.ToLower(p)
		s, ok := w.seen[key]
		switch {
		case !ok:
			w.seen[key] = seenEntry{name: p, typ: TypeDir, implicit: true}
		case s.name != p:
			return entryErr(e.RawName, ErrDuplicate, "folder %q differs only in case from %q", p, s.name)
		case s.typ != TypeDir:
			return entryErr(e.RawName, ErrDuplicate, "%q is a %s, not a folder", p, s.typ)
		}
	}
	key := strings.ToLower(e.Name)
	if s, ok := w.seen[key]; ok {
		switch {
		case s.name != e.Name:
			return entryErr(e.RawName, ErrDuplicate, "differs only in case from %q (the two would collide on macOS and Windows)", s.name)
		case s.implicit && e.Type == TypeDir:
			// an explicit folder after its children: fine
		default:
			return entryErr(e.RawName, ErrDuplicate, "appears twice in the archive")
		}
	}
	w.seen[key] = seenEntry{name: e.Name, typ: e.Type}
	return nil
}

func (w *walker) checkSymlink(e *Entry, target string) error {
	t := strings.ReplaceAll(target, "\\", "/")
	switch {
	case t == "":
		return entryErr(e.RawName, ErrLinkOutside, "symlink with an empty target")
	case strings.ContainsRune(t, 0):
		return entryErr(e.RawName, ErrUnsafeName, "symlink target contains a NUL byte")
	case strings.HasPrefix(t, "/") || len(t) >= 2 && t[1] == ':' && isLetter(t[0]):
		return entryErr(e.RawName, ErrLinkOutside, "symlink to the absolute path %q", target)
	}
	if _, ok := resolve(nil, path.Join(path.Dir(e.Name), t)); !ok {
		return entryErr(e.RawName, ErrLinkOutside, "symlink to %q leaves the archive", target)
	}
	e.Link = t
	w.links[strings.ToLower(e.Name)] = t
	w.linkNames[strings.ToLower(e.Name)] = e.RawName
	return nil
}

// checkLinks follows every symlink through the others: a chain must stay inside too.
func (w *walker) checkLinks() error {
	if len(w.links) == 0 {
		return nil
	}
	names := make([]string, 0, len(w.links))
	for k := range w.links {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if _, ok := resolve(w.links, k); !ok {
			return entryErr(w.linkNames[k], ErrLinkOutside, "symlink to %q leaves the archive through other links", w.links[k])
		}
	}
	return nil
}

// Resolve follows the entry name p through the archive's symlinks (links:
// lower-cased entry names to their targets), component by component, as
// the file system would once extracted: the name it ends at, or false when
// it climbs out of the archive or loops.
func Resolve(links map[string]string, p string) (string, bool) {
	return resolve(links, p)
}

func resolve(links map[string]string, p string) (string, bool) {
	parts := strings.Split(p, "/")
	var cur []string
	hops := 0
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, c)
		if t, ok := links[strings.ToLower(strings.Join(cur, "/"))]; ok {
			hops++
			if hops > 40 || strings.HasPrefix(t, "/") {
				return "", false
			}
			cur = cur[:len(cur)-1]
			parts = append(strings.Split(t, "/"), parts...)
		}
	}
	return strings.Join(cur, "/"), true
}
