package readpast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"math/rand"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Why a handler's context was cancelled: CancelReason(ctx) returns one of these.
const (
	LeaseLost       = "lease-lost"       // a heartbeat was answered 404/409: another worker may have the job
	CancelRequested = "cancel-requested" // an operator cancelled the job
	Shutdown        = "shutdown"         // the worker stopped and its shutdown deadline passed
)

// HandlerFunc does the work of a job and returns its result (any JSON value, or nil). An error
// fails the job, recorded as "<type>: <message>"; see Permanent and RetryAfter. The context is
// cancelled when the handler should stop (CancelReason says why).
type HandlerFunc func(ctx context.Context, job *Job) (any, error)

// WorkerOptions configure a Worker. Zero values take the defaults.
type WorkerOptions struct {
	Queues            []string      // default: every queue the key may use
	Concurrency       int           // handlers at once (10)
	LeaseSeconds      int           // lease of each claim and heartbeat (30)
	WaitSeconds       int           // long-poll of an empty claim, 1-30 (20); negative: none, poll each second
	MaxBatch          int           // largest claim (Concurrency, at most 1000)
	HeartbeatInterval time.Duration // a third of the lease
	ShutdownTimeout   time.Duration // how long running handlers may finish after a stop (30 s)
	WorkerID          string        // go-<host>-<pid>
	DisableSignals    bool          // do not stop on SIGTERM/SIGINT (Run's context still stops it)
	BackoffBase       time.Duration // first backoff after a 503 or connection error (500 ms)
	BackoffCap        time.Duration // longest backoff (30 s); Retry-After is honoured
	Logger            *log.Logger   // log.Default() when nil
}

// Stats counts what a worker did.
type Stats struct {
	Claimed, Completed, Failed, Released, Lost int64
}

type ackItem struct {
	ID      string `json:"id"`
	LeaseID string `json:"leaseId"`
	Result  any    `json:"result,omitempty"`
}

// held is a job the worker holds a lease on.
type held struct {
	job      *Job
	cancel   context.CancelFunc
	reason   string
	state    int // running, finishing, done (ack pending), lost, released
	progress map[string]any
}

const (
	stRunning = iota
	stFinishing
	stDone
	stLost
	stReleased
)

// Worker claims jobs of the types it has handlers for and runs them. Make one with
// Client.NewWorker, register handlers, then Run.
type Worker struct {
	c        *Client
	o        WorkerOptions
	handlers map[string]HandlerFunc
	fallback HandlerFunc
	log      *log.Logger

	mu       sync.Mutex
	held     map[string]*held
	acks     []ackItem
	running  int
	inPoll   bool
	stats    Stats
	stopOnce sync.Once
	stopping chan struct{}
	stopAt   time.Time
	done     chan struct{}
	freed    chan struct{} // a slot freed (capacity 1)
	acked    chan struct{} // an ack is pending (capacity 1)
	unknown  map[string]bool
}

// NewWorker makes a worker on this client.
func (c *Client) NewWorker(o WorkerOptions) *Worker {
	if o.Concurrency <= 0 {
		o.Concurrency = 10
	}
	if o.LeaseSeconds <= 0 {
		o.LeaseSeconds = 30
	}
	if o.WaitSeconds == 0 {
		o.WaitSeconds = 20
	} else if o.WaitSeconds < 0 {
		o.WaitSeconds = 0
	}
	if o.MaxBatch <= 0 || o.MaxBatch > o.Concurrency {
		o.MaxBatch = o.Concurrency
	}
	if o.MaxBatch > 1000 {
		o.MaxBatch = 1000
	}
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = time.Duration(o.LeaseSeconds) * time.Second / 3
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 30 * time.Second
	}
	if o.WorkerID == "" {
		host, _ := os.Hostname()
		o.WorkerID = fmt.Sprintf("go-%s-%d", host, os.Getpid())
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 500 * time.Millisecond
	}
	if o.BackoffCap <= 0 {
		o.BackoffCap = 30 * time.Second
	}
	l := o.Logger
	if l == nil {
		l = log.Default()
	}
	return &Worker{c: c, o: o, handlers: map[string]HandlerFunc{}, log: l, held: map[string]*held{},
		stopping: make(chan struct{}), done: make(chan struct{}), freed: make(chan struct{}, 1),
		acked: make(chan struct{}, 1), unknown: map[string]bool{}}
}

// Handle registers the handler of a job type. With type "" it handles every type that has no
// handler of its own (and the claims then take every type).
func (w *Worker) Handle(jobType string, h HandlerFunc) {
	if jobType == "" {
		w.fallback = h
	} else {
		w.handlers[jobType] = h
	}
}

// Stats returns what the worker did so far.
func (w *Worker) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Stop asks Run to stop: no more claims, running handlers get ShutdownTimeout to finish.
func (w *Worker) Stop() {
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.stopAt = time.Now()
		w.mu.Unlock()
		close(w.stopping)
	})
}

func (w *Worker) isStopping() bool {
	select {
	case <-w.stopping:
		return true
	default:
		return false
	}
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Run claims and handles jobs until ctx is done, Stop is called or (unless DisableSignals)
// SIGTERM/SIGINT arrives; then it stops claiming, lets running handlers finish for up to
// ShutdownTimeout, acknowledges what finished, releases the rest and returns nil. It returns
// the broker's error when the claims are refused for good (errors.Is(err, ErrUnauthorized),
// ErrForbidden, ErrInvalidRequest).
func (w *Worker) Run(ctx context.Context) error {
	if len(w.handlers) == 0 && w.fallback == nil {
		return errors.New("readpast: register a handler first (Worker.Handle)")
	}
	if !w.o.DisableSignals {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
		defer signal.Stop(sigs)
		go func() {
			select {
			case s := <-sigs:
				w.log.Printf("readpast worker %s: %v, stopping", w.o.WorkerID, s)
				w.Stop()
			case <-w.done:
			}
		}()
	}
	go func() {
		select {
		case <-ctx.Done():
			w.Stop()
		case <-w.done:
		}
	}()
	go w.heartbeatLoop()
	go w.flushLoop()
	err := w.claimLoop()
	if err != nil {
		w.Stop()
	}
	w.shutdown()
	return err
}

func (w *Worker) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter + time.Duration(rand.Float64()*0.2*float64(retryAfter))
	}
	d := float64(w.o.BackoffBase) * math.Pow(2, float64(attempt))
	if d > float64(w.o.BackoffCap) {
		d = float64(w.o.BackoffCap)
	}
	return time.Duration(d/2 + rand.Float64()*d/2)
}

func (w *Worker) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.stopping:
	}
}

func (w *Worker) claimLoop() error {
	var types []string
	if w.fallback == nil {
		for t := range w.handlers {
			types = append(types, t)
		}
		sort.Strings(types)
	}
	failures := 0
	want := w.o.MaxBatch
	linger := 2 * time.Millisecond
	bg := context.Background()
	for !w.isStopping() {
		w.mu.Lock()
		free := w.o.Concurrency - w.running
		w.mu.Unlock()
		if free <= 0 {
			select {
			case <-w.freed:
			case <-w.stopping:
			}
			continue
		}
		if free < want {
			// let a few more slots free up: fewer, larger claims
			t := time.NewTimer(linger)
		wait:
			for free < want {
				select {
				case <-w.freed:
					w.mu.Lock()
					free = w.o.Concurrency - w.running
					w.mu.Unlock()
				case <-t.C:
					break wait
				case <-w.stopping:
					break wait
				}
			}
			t.Stop()
			if w.isStopping() {
				break
			}
		}
		w.mu.Lock()
		limit := w.o.Concurrency - w.running
		if limit > w.o.MaxBatch {
			limit = w.o.MaxBatch
		}
		n := len(w.acks)
		if n > 1000 {
			n = 1000
		}
		acks := append([]ackItem(nil), w.acks[:n]...)
		w.acks = w.acks[n:]
		wait := w.o.WaitSeconds
		if len(acks) > 0 {
			wait = 0 // acks never wait in a long poll
		}
		w.inPoll = wait > 0
		if w.inPoll && len(w.acks) > 0 {
			notify(w.acked)
		}
		w.mu.Unlock()

		body := map[string]any{"workerId": w.o.WorkerID, "limit": limit, "leaseSeconds": w.o.LeaseSeconds}
		if wait > 0 {
			body["waitSeconds"] = wait
		}
		if len(w.o.Queues) > 0 {
			body["queues"] = w.o.Queues
		}
		if types != nil {
			body["types"] = types
		}
		if len(acks) > 0 {
			body["ack"] = acks
		}
		var answer struct {
			Jobs          []*Job   `json:"jobs"`
			UnknownQueues []string `json:"unknownQueues"`
			Acks          []struct {
				ID     string   `json:"id"`
				Status int      `json:"status"`
				Error  *problem `json:"error"`
			} `json:"acks"`
		}
		ctx, cancel := context.WithTimeout(bg, time.Duration(wait+30)*time.Second)
		_, err := w.c.do(ctx, "POST", "/claim", body, nil, &answer)
		cancel()
		w.mu.Lock()
		w.inPoll = false
		if err != nil {
			w.acks = append(acks, w.acks...)
		}
		w.mu.Unlock()
		if err != nil {
			e := asError(err)
			if e == nil || !e.Temporary() {
				w.log.Printf("readpast worker %s: the broker refused the claim: %v", w.o.WorkerID, err)
				return err
			}
			d := w.backoff(failures, e.RetryAfter)
			if e.RetryAfter == 0 {
				failures++ // Retry-After sets the pace itself
			}
			w.log.Printf("readpast worker %s: claim failed (%v); retrying in %v", w.o.WorkerID, err, d.Round(time.Millisecond))
			w.sleep(d)
			continue
		}
		failures = 0
		if len(acks) > 0 {
			results := make([]ackResult, len(answer.Acks))
			for i, a := range answer.Acks {
				results[i] = ackResult{a.ID, a.Status, a.Error}
			}
			w.ackedItems(acks, results)
		}
		for _, q := range answer.UnknownQueues {
			if !w.unknown[q] {
				w.unknown[q] = true
				w.log.Printf("readpast worker %s: queue %q does not exist (nothing was ever enqueued there)", w.o.WorkerID, q)
			}
		}
		if len(answer.Jobs) == 0 {
			if wait == 0 && len(acks) == 0 {
				w.sleep(time.Second) // no long poll: poll each second
			}
			continue
		}
		w.mu.Lock()
		w.stats.Claimed += int64(len(answer.Jobs))
		late := w.isStopping()
		if !late {
			w.running += len(answer.Jobs)
		}
		hs := make([]*held, len(answer.Jobs))
		for i, j := range answer.Jobs {
			hs[i] = &held{job: j}
			j.held = hs[i]
			if !late {
				w.held[j.ID] = hs[i]
			}
		}
		w.mu.Unlock()
		if late {
			w.release(hs)
			break
		}
		for _, h := range hs {
			go w.execute(h)
		}
	}
	return nil
}

type ctxKey struct{}

// CancelReason tells why a handler's context was cancelled: LeaseLost, CancelRequested,
// Shutdown, or "" (not cancelled, or not a handler's context).
func CancelReason(ctx context.Context) string {
	h, _ := ctx.Value(ctxKey{}).(*held)
	if h == nil || h.job.held == nil {
		return ""
	}
	return h.job.cancelReason()
}

// JobFromContext returns the job of a handler's context (nil elsewhere).
func JobFromContext(ctx context.Context) *Job {
	h, _ := ctx.Value(ctxKey{}).(*held)
	if h == nil {
		return nil
	}
	return h.job
}

// Traceparent returns the producer's W3C traceparent of the job of a handler's context ("" when none).
func Traceparent(ctx context.Context) string {
	if j := JobFromContext(ctx); j != nil {
		return j.Traceparent
	}
	return ""
}

var reasonMu sync.Mutex

func (j *Job) cancelReason() string {
	reasonMu.Lock()
	defer reasonMu.Unlock()
	return j.held.reason
}

func (h *held) cancelWith(reason string) {
	reasonMu.Lock()
	if h.reason == "" {
		h.reason = reason
	}
	reasonMu.Unlock()
	if h.cancel != nil {
		h.cancel()
	}
}

// Progress records progress for the next heartbeat of this job (a worker's jobs only).
func (j *Job) Progress(percent int, message string) {
	if j.held == nil {
		return
	}
	reasonMu.Lock()
	j.held.progress = map[string]any{"percent": percent, "message": message}
	reasonMu.Unlock()
}

func (w *Worker) execute(h *held) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, h))
	reasonMu.Lock()
	h.cancel = cancel
	already := h.reason != ""
	reasonMu.Unlock()
	if already {
		cancel()
	}
	handler := w.handlers[h.job.Type]
	if handler == nil {
		handler = w.fallback
	}
	var result any
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		if handler == nil {
			err = Permanent(fmt.Errorf("no handler for job type %q", h.job.Type))
			return
		}
		result, err = handler(ctx, h.job)
		if err == nil && result != nil {
			if _, ok := result.(json.RawMessage); !ok {
				if raw, e := json.Marshal(result); e != nil {
					err = fmt.Errorf("the result is not JSON: %w", e)
				} else {
					result = json.RawMessage(raw)
				}
			}
		}
	}()
	cancel()
	w.finished(h, result, err)
}

func (w *Worker) finished(h *held, result any, err error) {
	w.mu.Lock()
	w.running--
	notify(w.freed)
	if h.state != stRunning {
		if h.state == stLost {
			delete(w.held, h.job.ID)
		}
		w.mu.Unlock()
		return
	}
	reason := h.job.cancelReason()
	if err == nil && reason == "" {
		h.state = stDone
		w.acks = append(w.acks, ackItem{ID: h.job.ID, LeaseID: h.job.LeaseID, Result: result})
		notify(w.acked)
		w.mu.Unlock()
		return
	}
	h.state = stFinishing
	w.mu.Unlock()
	body := map[string]any{"leaseId": h.job.LeaseID}
	if reason == CancelRequested {
		msg := "cancelled on request"
		if err != nil && !errors.Is(err, context.Canceled) {
			msg += " (" + ErrorText(err) + ")"
		}
		body["error"], body["retryable"] = msg, false // failing it makes it CANCELLED
	} else {
		body["error"], body["retryable"] = ErrorText(err), true
		var p interface{ Permanent() bool }
		if errors.As(err, &p) && p.Permanent() {
			body["retryable"] = false
		}
		var ra interface{ RetryAfter() time.Duration }
		if errors.As(err, &ra) && ra.RetryAfter() > 0 {
			body["retryAfterSeconds"] = seconds(ra.RetryAfter())
		}
	}
	w.callWithRetries("POST", "/jobs/"+pathEscape(h.job.ID)+"/fail", body)
	w.mu.Lock()
	delete(w.held, h.job.ID)
	w.stats.Failed++
	w.mu.Unlock()
}

func (w *Worker) callWithRetries(method, path string, body any) {
	for attempt := 0; attempt < 6; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := w.c.do(ctx, method, path, body, nil, nil)
		cancel()
		if err == nil {
			return
		}
		e := asError(err)
		if e != nil && (e.Status == 404 || e.Status == 409) {
			if attempt == 0 {
				w.log.Printf("readpast worker %s: %s: %v (lease lost)", w.o.WorkerID, path, err)
			}
			return // a repeat whose first try took effect, or a lease that is gone
		}
		if e == nil || !e.Temporary() || attempt == 5 {
			w.log.Printf("readpast worker %s: %s %s failed: %v", w.o.WorkerID, method, path, err)
			return
		}
		time.Sleep(w.backoff(attempt, e.RetryAfter))
	}
}

type ackResult struct {
	ID     string
	Status int
	Error  *problem
}

func (w *Worker) ackedItems(items []ackItem, results []ackResult) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, it := range items {
		if i >= len(results) {
			w.acks = append(w.acks, items[i:]...) // unanswered: again
			return
		}
		r := results[i]
		if h := w.held[it.ID]; h != nil && h.state == stDone {
			delete(w.held, it.ID)
		}
		switch {
		case r.Status == 200:
			w.stats.Completed++
		case r.Status == 404 || r.Status == 409:
			w.stats.Lost++
			w.log.Printf("readpast worker %s: job %s finished but its lease was lost", w.o.WorkerID, it.ID)
		default:
			w.log.Printf("readpast worker %s: complete %s refused: %v", w.o.WorkerID, it.ID, r.Error.toError(r.Status))
		}
	}
}

// flushLoop completes finished jobs while the claim loop waits in a long poll.
func (w *Worker) flushLoop() {
	failures := 0
	for {
		select {
		case <-w.acked:
		case <-w.done:
			return
		}
		time.Sleep(5 * time.Millisecond)
		w.mu.Lock()
		if !w.inPoll || len(w.acks) == 0 {
			w.mu.Unlock()
			continue
		}
		n := len(w.acks)
		if n > 1000 {
			n = 1000
		}
		items := append([]ackItem(nil), w.acks[:n]...)
		w.acks = w.acks[n:]
		if len(w.acks) > 0 {
			notify(w.acked)
		}
		w.mu.Unlock()
		if w.complete(items) {
			failures = 0
		} else {
			failures++
			time.Sleep(w.backoff(failures, 0))
			notify(w.acked)
		}
	}
}

func (w *Worker) complete(items []ackItem) bool {
	var answer struct {
		Results []struct {
			ID     string   `json:"id"`
			Status int      `json:"status"`
			Error  *problem `json:"error"`
		} `json:"results"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := w.c.do(ctx, "POST", "/jobs/complete", map[string]any{"items": items}, nil, &answer); err != nil {
		w.log.Printf("readpast worker %s: complete of %d jobs failed: %v", w.o.WorkerID, len(items), err)
		w.mu.Lock()
		w.acks = append(items, w.acks...)
		w.mu.Unlock()
		return false
	}
	results := make([]ackResult, len(answer.Results))
	for i, a := range answer.Results {
		results[i] = ackResult{a.ID, a.Status, a.Error}
	}
	w.ackedItems(items, results)
	return true
}

func (w *Worker) heartbeatLoop() {
	t := time.NewTimer(w.o.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-w.done:
			return
		}
		next := w.o.HeartbeatInterval
		w.mu.Lock()
		var hs []*held
		for _, h := range w.held {
			if h.state == stRunning || h.state == stFinishing || h.state == stDone {
				hs = append(hs, h)
			}
		}
		w.mu.Unlock()
		for start := 0; start < len(hs); start += 1000 {
			end := start + 1000
			if end > len(hs) {
				end = len(hs)
			}
			chunk := hs[start:end]
			items := make([]map[string]any, len(chunk))
			for i, h := range chunk {
				item := map[string]any{"id": h.job.ID, "leaseId": h.job.LeaseID, "leaseSeconds": w.o.LeaseSeconds}
				reasonMu.Lock()
				if h.progress != nil {
					item["progress"], h.progress = h.progress, nil
				}
				reasonMu.Unlock()
				items[i] = item
			}
			var answer struct {
				Results []struct {
					Status          int  `json:"status"`
					CancelRequested bool `json:"cancelRequested"`
				} `json:"results"`
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, err := w.c.do(ctx, "POST", "/jobs/heartbeat", map[string]any{"items": items}, nil, &answer)
			cancel()
			if err != nil {
				w.log.Printf("readpast worker %s: heartbeat failed: %v", w.o.WorkerID, err)
				next = time.Second
				if e := asError(err); e != nil && e.RetryAfter > 0 {
					next = e.RetryAfter
				}
				if next > w.o.HeartbeatInterval {
					next = w.o.HeartbeatInterval
				}
				continue
			}
			for i, r := range answer.Results {
				if i >= len(chunk) {
					break
				}
				h := chunk[i]
				switch {
				case r.Status == 200 && r.CancelRequested:
					w.mu.Lock()
					running := h.state == stRunning
					w.mu.Unlock()
					if running && h.job.cancelReason() == "" {
						w.log.Printf("readpast worker %s: job %s: cancel requested", w.o.WorkerID, h.job.ID)
						h.cancelWith(CancelRequested)
					}
				case r.Status == 404 || r.Status == 409:
					w.mu.Lock()
					lost := h.state == stRunning
					if lost {
						h.state = stLost
						w.stats.Lost++
					}
					w.mu.Unlock()
					if lost {
						w.log.Printf("readpast worker %s: job %s: lease lost", w.o.WorkerID, h.job.ID)
						h.cancelWith(LeaseLost)
					}
				}
			}
		}
		t.Reset(next)
	}
}

func (w *Worker) release(hs []*held) {
	for start := 0; start < len(hs); start += 1000 {
		end := start + 1000
		if end > len(hs) {
			end = len(hs)
		}
		items := make([]map[string]string, 0, end-start)
		for _, h := range hs[start:end] {
			items = append(items, map[string]string{"id": h.job.ID, "leaseId": h.job.LeaseID})
		}
		for attempt := 0; attempt < 4; attempt++ {
			var answer struct {
				Results []struct {
					Status int `json:"status"`
				} `json:"results"`
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, err := w.c.do(ctx, "POST", "/jobs/release", map[string]any{"items": items}, nil, &answer)
			cancel()
			if err != nil {
				e := asError(err)
				if e == nil || !e.Temporary() || attempt == 3 {
					w.log.Printf("readpast worker %s: release of %d jobs failed: %v", w.o.WorkerID, len(items), err)
					break
				}
				time.Sleep(w.backoff(attempt, e.RetryAfter))
				continue
			}
			w.mu.Lock()
			for _, r := range answer.Results {
				if r.Status == 200 {
					w.stats.Released++
				}
			}
			w.mu.Unlock()
			break
		}
	}
}

func (w *Worker) shutdown() {
	w.mu.Lock()
	deadline := w.stopAt.Add(w.o.ShutdownTimeout)
	w.mu.Unlock()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for {
		w.mu.Lock()
		running := w.running
		w.mu.Unlock()
		if running == 0 {
			break
		}
		expired := false
		select {
		case <-w.freed:
		case <-t.C:
			expired = true
		}
		if expired {
			break
		}
	}
	w.mu.Lock()
	var leftovers []*held
	for id, h := range w.held {
		if h.state == stRunning {
			h.state = stReleased
			delete(w.held, id)
			leftovers = append(leftovers, h)
		}
	}
	acks := w.acks
	w.acks = nil
	w.mu.Unlock()
	for _, h := range leftovers {
		h.cancelWith(Shutdown)
	}
	for start := 0; start < len(acks); start += 1000 {
		end := start + 1000
		if end > len(acks) {
			end = len(acks)
		}
		for attempt := 0; attempt < 4; attempt++ {
			if w.complete(acks[start:end]) {
				break
			}
			w.mu.Lock()
			w.acks = nil
			w.mu.Unlock()
			time.Sleep(w.backoff(attempt, 0))
		}
	}
	if len(leftovers) > 0 {
		w.log.Printf("readpast worker %s: releasing %d unfinished jobs", w.o.WorkerID, len(leftovers))
		w.release(leftovers)
	}
	close(w.done)
	s := w.Stats()
	w.log.Printf("readpast worker %s stopped: %+v", w.o.WorkerID, s)
}
