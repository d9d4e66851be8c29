package run

import (
	"io"
	"sync"
	"unicode/utf8"
)

// capBuffer keeps the first limit bytes written to it and counts the rest.
// It never fails and never blocks, so the script never waits on skillctl.
type capBuffer struct {
	buf       []byte
	limit     int
	truncated bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := c.limit - len(c.buf); room > 0 {
		if len(p) <= room {
			c.buf = append(c.buf, p...)
		} else {
			c.buf = append(c.buf, p[:room]...)
			c.truncated = true
		}
	} else if len(p) > 0 {
		c.truncated = true
	}
	return len(p), nil
}

// String is the kept output, cut back to a whole UTF-8 character when it was truncated.
func (c *capBuffer) String() string {
	s := string(c.buf)
	for i := 0; c.truncated && i < utf8.UTFMax-1 && s != ""; i++ {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// gate holds a tier's output until the tier is known to have started the
// script: what the sandbox tool itself prints when it fails is its error
// message, not the skill's output.
type gate struct {
	mu       sync.Mutex
	resolved *sync.Cond
	open     bool
	shut     bool
	held     []heldWrite
	bytes    int
}

type heldWrite struct {
	s *stream
	b []byte
}

const gateHoldMax = 64 << 10

// release passes held output on and lets later writes through.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.held {
		h.s.deliver(h.b)
	}
	g.held, g.open = nil, true
	g.wake()
}

func (g *gate) wake() {
	if g.resolved != nil {
		g.resolved.Broadcast()
	}
}

// discard drops the held output and returns it (the setup error message).
func (g *gate) discard() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var msg []byte
	for _, h := range g.held {
		msg = append(msg, h.b...)
	}
	g.held, g.shut = nil, true
	g.wake()
	return string(msg)
}

// stream is one of the script's output streams: captured up to the cap, and
// passed through to the terminal or pipe when streaming.
type stream struct {
	gate    *gate
	capture *capBuffer
	pass    io.Writer // nil when capturing for --json
	broken  bool      // pass failed (a closed pipe): keep draining
}

func newStream(g *gate, pass io.Writer) *stream {
	return &stream{gate: g, capture: &capBuffer{limit: OutputCap}, pass: pass}
}

// Write never fails. Writes are delivered under the gate's lock so that the
// two streams and the release of held output never interleave. Before the
// gate is resolved, up to gateHoldMax bytes are held; beyond that the write
// waits for the (imminent) verdict rather than lose output.
func (s *stream) Write(p []byte) (int, error) {
	g := s.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.open && !g.shut {
		if g.bytes+len(p) <= gateHoldMax {
			g.held = append(g.held, heldWrite{s, append([]byte(nil), p...)})
			g.bytes += len(p)
			return len(p), nil
		}
		if g.resolved == nil {
			g.resolved = sync.NewCond(&g.mu)
		}
		g.resolved.Wait()
	}
	if g.open {
		s.deliver(p)
	}
	return len(p), nil
}

func (s *stream) deliver(p []byte) {
	s.capture.Write(p)
	if s.pass != nil && !s.broken {
		if _, err := s.pass.Write(p); err != nil {
			s.broken = true
		}
	}
}
