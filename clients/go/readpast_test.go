package readpast

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBroker answers /claim from a list of jobs and records the requests.
type fakeBroker struct {
	mu       sync.Mutex
	jobs     []map[string]any
	requests []string
	bodies   map[string][]map[string]any
	status   int
}

func (f *fakeBroker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.Path)
	f.bodies[r.URL.Path] = append(f.bodies[r.URL.Path], body)
	if f.status != 0 {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, `{"type":"urn:readpast:problem:unauthorized","title":"Unauthorized","status":401,"detail":"The API key was not accepted."}`)
		return
	}
	items := func(key string) []any {
		l, _ := body[key].([]any)
		return l
	}
	var answer any
	switch {
	case r.URL.Path == "/claim":
		limit := int(body["limit"].(float64))
		if limit > len(f.jobs) {
			limit = len(f.jobs)
		}
		take := f.jobs[:limit]
		f.jobs = f.jobs[limit:]
		var acks []map[string]any
		for i, a := range items("ack") {
			acks = append(acks, map[string]any{"index": i, "id": a.(map[string]any)["id"], "status": 200})
		}
		answer = map[string]any{"jobs": take, "acks": acks}
	case r.URL.Path == "/jobs/complete" || r.URL.Path == "/jobs/release" || r.URL.Path == "/jobs/heartbeat":
		var rs []map[string]any
		for i, it := range items("items") {
			rs = append(rs, map[string]any{"index": i, "id": it.(map[string]any)["id"], "status": 200})
		}
		answer = map[string]any{"results": rs}
	case r.URL.Path == "/jobs":
		w.WriteHeader(201)
		body["id"], body["status"] = "1", "PENDING"
		answer = body
	case strings.HasSuffix(r.URL.Path, "/fail"):
		answer = map[string]any{"id": "1", "status": "DEAD"}
	}
	_ = json.NewEncoder(w).Encode(answer)
}

func newFake(n int) (*fakeBroker, *httptest.Server) {
	f := &fakeBroker{bodies: map[string][]map[string]any{}}
	for i := 0; i < n; i++ {
		id := strings.Repeat("1", i+1)
		f.jobs = append(f.jobs, map[string]any{"id": id, "queue": "q", "type": "t", "attempt": 1,
			"leaseId": "lease-" + id, "traceparent": "00-abc-def-01"})
	}
	return f, httptest.NewServer(f)
}

var quiet = log.New(io.Discard, "", 0)

func TestWorkerHandlesAndAcks(t *testing.T) {
	f, srv := newFake(20)
	defer srv.Close()
	w := NewClient(srv.URL, "k").NewWorker(WorkerOptions{Concurrency: 4, WaitSeconds: 1, DisableSignals: true, Logger: quiet})
	var mu sync.Mutex
	seen := 0
	w.Handle("t", func(ctx context.Context, job *Job) (any, error) {
		if Traceparent(ctx) != "00-abc-def-01" {
			t.Errorf("traceparent %q", Traceparent(ctx))
		}
		mu.Lock()
		seen++
		mu.Unlock()
		return map[string]string{"id": job.ID}, nil
	})
	go func() {
		for w.Stats().Completed < 20 {
			time.Sleep(5 * time.Millisecond)
		}
		w.Stop()
	}()
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if seen != 20 || w.Stats().Completed != 20 {
		t.Fatalf("seen %d, stats %+v", seen, w.Stats())
	}
	for _, b := range f.bodies["/claim"] {
		if b["limit"].(float64) > 4 {
			t.Fatalf("claim limit %v over the concurrency", b["limit"])
		}
	}
}

type oops struct{}

func (oops) Error() string { return "bad input" }

func TestFailureRecordsTypeAndRetry(t *testing.T) {
	f, srv := newFake(1)
	defer srv.Close()
	w := NewClient(srv.URL, "k").NewWorker(WorkerOptions{Concurrency: 1, WaitSeconds: 1, DisableSignals: true, Logger: quiet})
	w.Handle("t", func(ctx context.Context, job *Job) (any, error) {
		return nil, Permanent(RetryAfter(oops{}, 4*time.Second))
	})
	go func() {
		for w.Stats().Failed < 1 {
			time.Sleep(5 * time.Millisecond)
		}
		w.Stop()
	}()
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := f.bodies["/jobs/1/fail"][0]
	if b["error"] != "readpast.oops: bad input" || b["retryable"] != false || b["retryAfterSeconds"].(float64) != 4 {
		t.Fatalf("fail body %v", b)
	}
}

func TestStopReleasesUnfinished(t *testing.T) {
	f, srv := newFake(1)
	defer srv.Close()
	w := NewClient(srv.URL, "k").NewWorker(WorkerOptions{Concurrency: 1, WaitSeconds: 1, DisableSignals: true,
		ShutdownTimeout: 200 * time.Millisecond, Logger: quiet})
	started := make(chan struct{})
	w.Handle("t", func(ctx context.Context, job *Job) (any, error) {
		close(started)
		<-ctx.Done()
		if CancelReason(ctx) != Shutdown {
			t.Errorf("reason %q", CancelReason(ctx))
		}
		return nil, ctx.Err()
	})
	go func() { <-started; w.Stop() }()
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(f.bodies["/jobs/release"]) != 1 || w.Stats().Released != 1 {
		t.Fatalf("release calls %v, stats %+v", f.bodies["/jobs/release"], w.Stats())
	}
}

func TestAuthErrors(t *testing.T) {
	f, srv := newFake(0)
	f.status = 401
	defer srv.Close()
	c := NewClient(srv.URL, "bad")
	w := c.NewWorker(WorkerOptions{DisableSignals: true, Logger: quiet})
	w.Handle("t", func(ctx context.Context, job *Job) (any, error) { return nil, nil })
	if err := w.Run(context.Background()); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("worker: %v", err)
	}
	_, err := c.Enqueue(context.Background(), EnqueueRequest{Queue: "q", Type: "t"})
	var e *Error
	if !errors.Is(err, ErrUnauthorized) || !errors.As(err, &e) || e.Type != "urn:readpast:problem:unauthorized" {
		t.Fatalf("producer: %v", err)
	}
}

func TestEnqueueBody(t *testing.T) {
	raw, _ := json.Marshal(EnqueueRequest{Queue: "q", Type: "t", Payload: 1, Delay: 90 * time.Second, Priority: -1,
		UniqueFor: time.Minute, DependsOn: &DependsOn{Jobs: []string{"7"}}, FairnessKey: "f"})
	want := `{"delaySeconds":90,"dependsOn":{"jobs":["7"]},"fairnessKey":"f","payload":1,"priority":-1,"queue":"q","type":"t","uniqueFor":60}`
	if string(raw) != want {
		t.Fatalf("%s", raw)
	}
}
