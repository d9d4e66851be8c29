package skilltree

import (
	"context"
	"runtime"
	"sync"

	"github.com/skillctl/skillctl/pkg/skill"
)

// job is one folder to look at: the entry name of the folder parent. Jobs
// are small values, so that a folder of many thousands of skills queues
// little; the worker builds the Found.
type job struct {
	parent *Found
	name   string
	// real is the target of a link that is followed ("" for a plain folder).
	real  string
	rules *ignoreRules
}

// pool runs jobs on a fixed number of goroutines, each with its own read
// buffer; a job may push more jobs. Jobs left when ctx is cancelled are dropped.
type pool struct {
	ctx     context.Context
	run     func(p *pool, j job, buf *[]byte)
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []job
	pending int
	wg      sync.WaitGroup
	started bool
	workers int
}

func newPool(ctx context.Context, workers int, run func(p *pool, j job, buf *[]byte)) *pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &pool{ctx: ctx, workers: workers, run: run}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pool) push(jobs ...job) {
	if len(jobs) == 0 {
		return
	}
	p.mu.Lock()
	p.queue = append(p.queue, jobs...)
	p.pending += len(jobs)
	if !p.started {
		p.started = true
		for range p.workers {
			p.wg.Add(1)
			go p.work()
		}
	}
	p.mu.Unlock()
	if len(jobs) == 1 {
		p.cond.Signal()
	} else {
		p.cond.Broadcast()
	}
}

func (p *pool) work() {
	defer p.wg.Done()
	var buf *[]byte
	var batch []job
	for {
		p.mu.Lock()
		for len(p.queue) == 0 && p.pending > 0 {
			p.cond.Wait()
		}
		if p.pending == 0 {
			p.mu.Unlock()
			p.cond.Broadcast()
			return
		}
		// First in, first out: results come roughly in order, which keeps
		// the callers' final sort cheap. A worker takes a few jobs at a
		// time, a fair share of what is queued, so that thousands of small
		// jobs cost few turns of the lock.
		n := min(len(p.queue), max(1, len(p.queue)/(2*p.workers)), maxBatch)
		batch = append(batch[:0], p.queue[:n]...)
		clear(p.queue[:n])
		p.queue = p.queue[n:]
		p.mu.Unlock()
		for _, j := range batch {
			if p.ctx.Err() == nil {
				if buf == nil {
					buf = skill.NewReadBuf()
				}
				p.run(p, j, buf)
			}
		}
		clear(batch)
		p.mu.Lock()
		p.pending -= n
		last := p.pending == 0
		p.mu.Unlock()
		if last {
			p.cond.Broadcast()
		}
	}
}

// maxBatch is the most jobs a worker takes at once.
const maxBatch = 32

// wait returns when every job has run (or been dropped).
func (p *pool) wait() { p.wg.Wait() }

// hold keeps the workers alive while jobs are still being found (the
// queue may run dry in between); release ends the hold.
func (p *pool) hold() {
	p.mu.Lock()
	p.pending++
	p.mu.Unlock()
}

func (p *pool) release() {
	p.mu.Lock()
	p.pending--
	last := p.pending == 0
	p.mu.Unlock()
	if last {
		p.cond.Broadcast()
	}
}
