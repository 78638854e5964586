// Conformance agent for the Go library: `agent <mode>`, settings from the environment; see
// clients/conformance/scenarios.json and the Python agent, which this one mirrors.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"

	readpast "github.com/readpast/readpast/clients/go"
)

var (
	url   = os.Getenv("READPAST_URL")
	key   = os.Getenv("READPAST_API_KEY")
	queue = envOr("RP_QUEUE", "conformance")
	outMu sync.Mutex
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func num(name string, def float64) float64 {
	if v := os.Getenv(name); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			return f
		}
	}
	return def
}

func out(words ...any) {
	outMu.Lock()
	defer outMu.Unlock()
	fmt.Println(words...)
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func newWorker(c *readpast.Client) *readpast.Worker {
	return c.NewWorker(readpast.WorkerOptions{
		Queues:            []string{queue},
		Concurrency:       int(num("RP_CONCURRENCY", 4)),
		LeaseSeconds:      int(num("RP_LEASE", 30)),
		WaitSeconds:       int(num("RP_WAIT", 2)),
		HeartbeatInterval: secs(num("RP_HEARTBEAT", 0)),
		ShutdownTimeout:   secs(num("RP_SHUTDOWN", 10)),
		WorkerID:          os.Getenv("RP_WORKER_ID"),
		BackoffBase:       secs(num("RP_BACKOFF_BASE", 0.5)),
		Logger:            log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds),
	})
}

// BoomError is what the suite's always-failing handler returns.
type BoomError struct{ after time.Duration }

func (e *BoomError) Error() string             { return "always fails" }
func (e *BoomError) RetryAfter() time.Duration { return e.after }

type sleepPayload struct {
	Seconds      float64 `json:"seconds"`
	IgnoreCancel bool    `json:"ignoreCancel"`
	RetryAfter   float64 `json:"retryAfter"`
}

func register(w *readpast.Worker) {
	w.Handle("noop", func(ctx context.Context, job *readpast.Job) (any, error) {
		out("ran", job.ID, job.Type, job.Attempt)
		return map[string]bool{"ok": true}, nil
	})
	w.Handle("sleep", func(ctx context.Context, job *readpast.Job) (any, error) {
		out("ran", job.ID, job.Type, job.Attempt)
		var p sleepPayload
		_ = job.Decode(&p)
		t := time.NewTimer(secs(p.Seconds))
		defer t.Stop()
		select {
		case <-t.C:
			return map[string]float64{"slept": p.Seconds}, nil
		case <-ctx.Done():
			out("told", job.ID, readpast.CancelReason(ctx))
			if p.IgnoreCancel {
				<-t.C
				return map[string]float64{"slept": p.Seconds}, nil
			}
			return nil, ctx.Err()
		}
	})
	w.Handle("fail", func(ctx context.Context, job *readpast.Job) (any, error) {
		out("ran", job.ID, job.Type, job.Attempt)
		var p sleepPayload
		_ = job.Decode(&p)
		return nil, &BoomError{after: secs(p.RetryAfter)}
	})
	w.Handle("trace", func(ctx context.Context, job *readpast.Job) (any, error) {
		tp := readpast.Traceparent(ctx)
		if tp == "" {
			tp = "-"
		}
		out("trace", job.ID, tp)
		return nil, nil
	})
}

func errName(err error) string {
	for _, s := range []struct {
		name string
		err  error
	}{{"ErrUnauthorized", readpast.ErrUnauthorized}, {"ErrForbidden", readpast.ErrForbidden},
		{"ErrInvalidRequest", readpast.ErrInvalidRequest}, {"ErrNotFound", readpast.ErrNotFound},
		{"ErrConflict", readpast.ErrConflict}, {"ErrUnavailable", readpast.ErrUnavailable}} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return fmt.Sprintf("%T", err)
}

func status(err error) int {
	var e *readpast.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func work(c *readpast.Client) int {
	w := newWorker(c)
	register(w)
	out("ready")
	if err := w.Run(context.Background()); err != nil {
		out("fatal", errName(err), status(err))
		return 3
	}
	s := w.Stats()
	out("stats", fmt.Sprintf("completed=%d", s.Completed), fmt.Sprintf("failed=%d", s.Failed),
		fmt.Sprintf("released=%d", s.Released), fmt.Sprintf("lost=%d", s.Lost))
	out("exit", "ok")
	return 0
}

func must[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, "unexpected error:", err)
		os.Exit(4)
	}
	return v
}

func produce(c *readpast.Client) int {
	ctx := context.Background()
	now := time.Now()
	e := must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "full", Payload: map[string]int{"n": 1},
		Priority: 7, Tags: []string{"a", "b"}, MaxAttempts: 4, Delay: time.Hour, FairnessKey: "tenant-1",
		GroupKey: "g-1", ExpiresAt: now.Add(2 * time.Hour), Timeout: 5 * time.Minute,
		Retry:       &readpast.Retry{DelaysSeconds: []float64{30}},
		Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}))
	out("single", e.Job.ID, e.Created)
	e = must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "at", RunAt: now.Add(time.Hour)}))
	out("runat", e.Job.ID)
	idem := readpast.EnqueueRequest{Queue: queue, Type: "idem", Payload: map[string]int{"k": 1}, IdempotencyKey: queue + "-key", Delay: time.Hour}
	a := must(c.Enqueue(ctx, idem))
	b := must(c.Enqueue(ctx, idem))
	out("idem", a.Job.ID, a.Created, b.Job.ID, b.Created)
	uniq := readpast.EnqueueRequest{Queue: queue, Type: "uniq", Payload: map[string]int{"u": 1}, UniqueFor: 10 * time.Minute, Delay: time.Hour}
	u := must(c.Enqueue(ctx, uniq))
	v := must(c.Enqueue(ctx, uniq))
	out("unique", u.Job.ID, v.Job.ID, v.Created)
	d1 := must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "deb", Payload: map[string]int{"d": 1}, DebounceKey: queue + "-deb", Debounce: time.Hour}))
	d2 := must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "deb", Payload: map[string]int{"d": 2}, DebounceKey: queue + "-deb", Debounce: time.Hour}))
	out("debounce", d1.Job.ID, d1.Created, d2.Job.ID, d2.Created)
	items := must(c.EnqueueMany(ctx, []readpast.EnqueueRequest{
		{Queue: queue, Type: "m", Payload: map[string]int{"i": 0}, Delay: time.Hour, Priority: 2},
		{Queue: "bad queue!", Type: "m"},
		{Queue: queue, Type: "m", Payload: map[string]int{"i": 2}, Delay: time.Hour, FairnessKey: "tenant-2"},
	}))
	out("many", items[0].Status, items[0].ID, items[1].Status, errName(items[1].Err), items[2].Status, items[2].ID)
	parent := must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "parent", Delay: time.Hour}))
	child := must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "child",
		DependsOn: &readpast.DependsOn{Jobs: []string{parent.Job.ID}}, OnParentFailure: "run"}))
	out("depends", parent.Job.ID, child.Job.ID, child.Job.Status)
	batch := must(c.CreateBatch(ctx, readpast.CreateBatchRequest{
		Jobs: []readpast.EnqueueRequest{{Queue: queue, Type: "in-batch", Payload: map[string]int{"i": 1}, Delay: time.Hour},
			{Queue: queue, Type: "in-batch", Payload: map[string]int{"i": 2}, Delay: time.Hour}},
		Callback: &readpast.Callback{Queue: queue, Type: "callback", Payload: map[string]int{"album": 7}},
		FireOn:   "success"}))
	out("batch", batch.ID, batch.Total)
	var perr *readpast.Error
	if _, err := c.Enqueue(ctx, readpast.EnqueueRequest{Queue: "bad queue!", Type: "x"}); errors.As(err, &perr) {
		out("invalid", errName(err), perr.Status, perr.Type)
	} else {
		out("invalid", "none", 0)
	}
	if _, err := c.GetJob(ctx, "999999999"); err != nil {
		out("notfound", errName(err), status(err))
	} else {
		out("notfound", "none", 0)
	}
	out("exit", "ok")
	return 0
}

func trace(c *readpast.Client) int {
	ctx := context.Background()
	t1, t2 := os.Getenv("RP_TRACEPARENT"), os.Getenv("RP_TRACEPARENT2")
	e := must(c.Enqueue(ctx, readpast.EnqueueRequest{Queue: queue, Type: "trace", Payload: map[string]int{"n": 1}, Traceparent: t1}))
	out("enqueued", e.Job.ID, t1)
	rs := must(c.EnqueueMany(ctx, []readpast.EnqueueRequest{
		{Queue: queue, Type: "trace", Payload: map[string]int{"n": 2}},
		{Queue: queue, Type: "trace", Payload: map[string]int{"n": 3}}}, readpast.EnqueueManyOptions{Traceparent: t2}))
	for _, r := range rs {
		out("enqueued", r.ID, t2)
	}
	w := newWorker(c)
	var mu sync.Mutex
	seen := 0
	w.Handle("trace", func(ctx context.Context, job *readpast.Job) (any, error) {
		out("trace", job.ID, readpast.Traceparent(ctx))
		mu.Lock()
		seen++
		if seen >= 3 {
			w.Stop()
		}
		mu.Unlock()
		return nil, nil
	})
	if err := w.Run(ctx); err != nil {
		out("fatal", errName(err), status(err))
		return 3
	}
	out("exit", "ok")
	return 0
}

func auth() int {
	bad := readpast.NewClient(url, "rp_wrong_"+strconv.Itoa(os.Getpid()))
	w := newWorker(bad)
	w.Handle("noop", func(ctx context.Context, job *readpast.Job) (any, error) { return nil, nil })
	err := w.Run(context.Background())
	if err == nil {
		out("worker-auth", "none", 0)
	} else {
		out("worker-auth", errName(err), status(err))
	}
	_, err = bad.Enqueue(context.Background(), readpast.EnqueueRequest{Queue: queue, Type: "noop"})
	if err == nil {
		out("producer-auth", "none", 0)
	} else {
		out("producer-auth", errName(err), status(err))
	}
	out("exit", "ok")
	return 0
}

// bench drains RP_BENCH_N no-op jobs (after an untimed round of RP_BENCH_WARMUP) with
// RP_BENCH_WORKERS workers of RP_CONCURRENCY slots, and prints jobs/s.
func bench(c *readpast.Client) int {
	n := int(num("RP_BENCH_N", 10000))
	warm := int(num("RP_BENCH_WARMUP", float64(5*n)))
	workers := int(num("RP_BENCH_WORKERS", 4))
	conc := int(num("RP_CONCURRENCY", 500))
	quiet := log.New(io.Discard, "", 0)
	cpu := func() float64 {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	drain := func(q string, jobs int) (int64, float64, float64) {
		for start := 0; start < jobs; start += 1000 {
			size := jobs - start
			if size > 1000 {
				size = 1000
			}
			reqs := make([]readpast.EnqueueRequest, size)
			for i := range reqs {
				reqs[i] = readpast.EnqueueRequest{Queue: q, Type: "noop"}
			}
			must(c.EnqueueMany(context.Background(), reqs, readpast.EnqueueManyOptions{Minimal: true}))
		}
		ws := make([]*readpast.Worker, workers)
		var wg sync.WaitGroup
		c0 := cpu()
		t0 := time.Now()
		for i := range ws {
			ws[i] = c.NewWorker(readpast.WorkerOptions{Queues: []string{q}, Concurrency: conc, LeaseSeconds: 60,
				WaitSeconds: 1, DisableSignals: true, Logger: quiet, WorkerID: fmt.Sprintf("bench-go-%d-%d", os.Getpid(), i)})
			handled := "noop"
			if os.Getenv("RP_BENCH_ANY_TYPE") != "" {
				handled = "" // every type: claims without a types filter
			}
			ws[i].Handle(handled, func(ctx context.Context, job *readpast.Job) (any, error) { return nil, nil })
			wg.Add(1)
			go func(w *readpast.Worker) { defer wg.Done(); _ = w.Run(context.Background()) }(ws[i])
		}
		var done int64
		for {
			done = 0
			for _, w := range ws {
				done += w.Stats().Completed
			}
			if done >= int64(jobs) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		elapsed := time.Since(t0).Seconds()
		used := cpu() - c0
		for _, w := range ws {
			w.Stop()
		}
		wg.Wait()
		return done, elapsed, used
	}
	if warm > 0 {
		drain(queue+"-warm", warm)
	}
	done, elapsed, used := drain(queue, n)
	out("RESULT", "client-drain", "lang=go", fmt.Sprintf("jobs=%d", done), fmt.Sprintf("workers=%d", workers),
		fmt.Sprintf("concurrency=%d", conc), fmt.Sprintf("seconds=%.3f", elapsed), fmt.Sprintf("jobs_per_s=%.1f", float64(done)/elapsed),
		fmt.Sprintf("cpu_s=%.2f", used), fmt.Sprintf("cpu_s_per_1k=%.4f", used/float64(done)*1000))
	return 0
}

func main() {
	mode := "work"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	c := readpast.NewClient(url, key)
	if f := os.Getenv("RP_CPUPROFILE"); f != "" { // for profiling the bench
		pf, err := os.Create(f)
		if err == nil && pprof.StartCPUProfile(pf) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	code := 2
	switch mode {
	case "work":
		code = work(c)
	case "produce":
		code = produce(c)
	case "trace":
		code = trace(c)
	case "auth":
		code = auth()
	case "bench":
		code = bench(c)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
	}
	pprof.StopCPUProfile()
	os.Exit(code)
}
