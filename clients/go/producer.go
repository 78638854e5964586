package readpast

import (
	"context"
	"encoding/json"
	"math"
	"time"
)

// EnqueueRequest is one job to enqueue (POST /jobs, or an item of EnqueueMany and batches).
// Zero values are left out, so the broker's defaults apply.
type EnqueueRequest struct {
	Queue           string        // required: 1-200 of letters, digits and . _ : -
	Type            string        // required: what the worker dispatches on
	Payload         any           // any JSON value (json.RawMessage is sent as is)
	Priority        int           // higher is claimed first
	Delay           time.Duration // due this long from now (whole seconds)
	RunAt           time.Time     // or due at this time
	Tags            []string      // up to 50
	MaxAttempts     int           // attempts before DEAD
	IdempotencyKey  string        // while a live job holds it, enqueueing again returns that job
	UniqueFor       time.Duration // for this long, the same job answers with the first one
	ExpiresAt       time.Time     // never start after this
	GroupKey        string        // ordered group: one at a time, in order
	FairnessKey     string        // a tenant: fair queues serve keys in turn
	DependsOn       *DependsOn    // WAITING until these parents have settled
	OnParentFailure string        // "cancel" (default) or "run"
	WebhookURL      string        // POSTed when the job becomes SUCCEEDED or DEAD
	Traceparent     string        // W3C trace context of the producer
	Tracestate      string
	Timeout         time.Duration // the most it may run from its claim (whole seconds): no lease runs past that
	Retry           *Retry        // its own retry backoff, in place of its queue's
	// DebounceKey with Debounce: the first enqueue opens a window and the job runs at its end;
	// another with the same key inside it replaces that job's payload and priority (Created false).
	// Single enqueues only, without IdempotencyKey, UniqueFor, GroupKey, DependsOn, RunAt or Delay.
	DebounceKey string
	Debounce    time.Duration // the debounce window (whole seconds, 1 s to 24 h)
}

// Retry is a job's own backoff: BaseSeconds (with Factor, CapSeconds, Jitter), or DelaysSeconds.
type Retry struct {
	BaseSeconds   float64   `json:"baseSeconds,omitempty"`
	Factor        float64   `json:"factor,omitempty"`
	CapSeconds    float64   `json:"capSeconds,omitempty"`
	Jitter        *bool     `json:"jitter,omitempty"`
	DelaysSeconds []float64 `json:"delaysSeconds,omitempty"`
}

// DependsOn names the parents of a job: job ids and batch ids.
type DependsOn struct {
	Jobs    []string `json:"jobs,omitempty"`
	Batches []string `json:"batches,omitempty"`
}

func seconds(d time.Duration) int64 { return int64(math.Round(d.Seconds())) }

// MarshalJSON writes the POST /jobs body.
func (r EnqueueRequest) MarshalJSON() ([]byte, error) {
	m := map[string]any{"queue": r.Queue, "type": r.Type}
	if r.Payload != nil {
		m["payload"] = r.Payload
	}
	if r.Priority != 0 {
		m["priority"] = r.Priority
	}
	if r.Delay > 0 {
		m["delaySeconds"] = seconds(r.Delay)
	}
	if !r.RunAt.IsZero() {
		m["runAt"] = r.RunAt.UTC().Format(time.RFC3339Nano)
	}
	if r.Tags != nil {
		m["tags"] = r.Tags
	}
	if r.MaxAttempts != 0 {
		m["maxAttempts"] = r.MaxAttempts
	}
	if r.IdempotencyKey != "" {
		m["idempotencyKey"] = r.IdempotencyKey
	}
	if r.UniqueFor > 0 {
		m["uniqueFor"] = seconds(r.UniqueFor)
	}
	if !r.ExpiresAt.IsZero() {
		m["expiresAt"] = r.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	if r.GroupKey != "" {
		m["groupKey"] = r.GroupKey
	}
	if r.FairnessKey != "" {
		m["fairnessKey"] = r.FairnessKey
	}
	if r.DependsOn != nil {
		m["dependsOn"] = r.DependsOn
	}
	if r.OnParentFailure != "" {
		m["onParentFailure"] = r.OnParentFailure
	}
	if r.WebhookURL != "" {
		m["webhookUrl"] = r.WebhookURL
	}
	if r.Traceparent != "" {
		m["traceparent"] = r.Traceparent
	}
	if r.Tracestate != "" {
		m["tracestate"] = r.Tracestate
	}
	if r.Timeout > 0 {
		m["timeoutSeconds"] = seconds(r.Timeout)
	}
	if r.Retry != nil {
		m["retry"] = r.Retry
	}
	if r.DebounceKey != "" {
		m["debounceKey"] = r.DebounceKey
	}
	if r.Debounce > 0 {
		m["debounceSeconds"] = seconds(r.Debounce)
	}
	return json.Marshal(m)
}

// Job is a job as the broker shows it. LeaseID is set only in claims.
type Job struct {
	ID              string          `json:"id"`
	Queue           string          `json:"queue"`
	Type            string          `json:"type"`
	Payload         json.RawMessage `json:"payload"`
	Priority        int             `json:"priority"`
	Status          string          `json:"status"`
	Attempt         int             `json:"attempt"`
	MaxAttempts     int             `json:"maxAttempts"`
	Tags            []string        `json:"tags"`
	RunAt           *time.Time      `json:"runAt"`
	CreatedAt       *time.Time      `json:"createdAt"`
	StartedAt       *time.Time      `json:"startedAt"`
	FinishedAt      *time.Time      `json:"finishedAt"`
	WorkerID        string          `json:"workerId"`
	LeaseID         string          `json:"leaseId"`
	LeaseExpiresAt  *time.Time      `json:"leaseExpiresAt"`
	CancelRequested bool            `json:"cancelRequested"`
	LastError       string          `json:"lastError"`
	Errors          []AttemptError  `json:"errors"`
	Result          json.RawMessage `json:"result"`
	IdempotencyKey  string          `json:"idempotencyKey"`
	GroupKey        string          `json:"groupKey"`
	FairnessKey     string          `json:"fairnessKey"`
	Traceparent     string          `json:"traceparent"`
	Tracestate      string          `json:"tracestate"`
	BatchID         string          `json:"batchId"`
	ExpiresAt       *time.Time      `json:"expiresAt"`

	held *held // set on the jobs a Worker hands to its handlers
}

// AttemptError is the error of one failed attempt (GET /jobs/{id}).
type AttemptError struct {
	Attempt  int       `json:"attempt"`
	At       time.Time `json:"at"`
	WorkerID string    `json:"workerId"`
	Error    string    `json:"error"`
}

// Decode unmarshals the payload into v.
func (j *Job) Decode(v any) error {
	if len(j.Payload) == 0 {
		return json.Unmarshal([]byte("null"), v)
	}
	return json.Unmarshal(j.Payload, v)
}

// Enqueued is the answer to an enqueue. Created is false when an idempotency key, a
// uniqueFor window or a debounce window matched an existing job, which Job then is.
type Enqueued struct {
	Job     Job
	Created bool
}

// ItemResult is one item of a batch enqueue: Status 201 created, 200 matched an existing job,
// else Err tells why it was refused.
type ItemResult struct {
	Index  int
	Status int
	ID     string
	Job    *Job
	Err    *Error
}

// OK reports whether the item was enqueued (or matched).
func (r ItemResult) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Enqueue enqueues one job (POST /jobs).
func (c *Client) Enqueue(ctx context.Context, r EnqueueRequest) (*Enqueued, error) {
	var j Job
	status, err := c.do(ctx, "POST", "/jobs", r, nil, &j)
	if err != nil {
		return nil, err
	}
	return &Enqueued{Job: j, Created: status == 201}, nil
}

// EnqueueManyOptions: Traceparent/Tracestate for the items that carry none; Minimal leaves
// the jobs out of the answers.
type EnqueueManyOptions struct {
	Traceparent string
	Tracestate  string
	Minimal     bool
}

// EnqueueMany enqueues jobs in batches of 1000 (POST /jobs/batch), each item on its own: one
// ItemResult per request, in order. The error is for a batch refused as a whole.
func (c *Client) EnqueueMany(ctx context.Context, reqs []EnqueueRequest, opts ...EnqueueManyOptions) ([]ItemResult, error) {
	var o EnqueueManyOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	var headers map[string]string
	if o.Minimal {
		headers = map[string]string{"Prefer": "return=minimal"}
	}
	out := make([]ItemResult, 0, len(reqs))
	for start := 0; start < len(reqs); start += 1000 {
		end := start + 1000
		if end > len(reqs) {
			end = len(reqs)
		}
		chunk := make([]EnqueueRequest, end-start)
		copy(chunk, reqs[start:end])
		for i := range chunk {
			if chunk[i].Traceparent == "" && o.Traceparent != "" {
				chunk[i].Traceparent, chunk[i].Tracestate = o.Traceparent, o.Tracestate
			}
		}
		var answer struct {
			Results []struct {
				Index  int      `json:"index"`
				ID     string   `json:"id"`
				Status int      `json:"status"`
				Job    *Job     `json:"job"`
				Error  *problem `json:"error"`
			} `json:"results"`
		}
		if _, err := c.do(ctx, "POST", "/jobs/batch", map[string]any{"jobs": chunk}, headers, &answer); err != nil {
			return out, err
		}
		for _, r := range answer.Results {
			ir := ItemResult{Index: start + r.Index, Status: r.Status, ID: r.ID, Job: r.Job}
			if r.Error != nil {
				ir.Err = r.Error.toError(r.Status)
			}
			out = append(out, ir)
		}
	}
	return out, nil
}

// Callback is the job a batch enqueues when it fires.
type Callback struct {
	Queue       string `json:"queue"`
	Type        string `json:"type"`
	Payload     any    `json:"payload,omitempty"`
	Priority    int    `json:"priority,omitempty"`
	MaxAttempts int    `json:"maxAttempts,omitempty"`
}

// CreateBatchRequest is a POST /batches body: FireOn "completion" (default), "success" or "death".
type CreateBatchRequest struct {
	Jobs       []EnqueueRequest `json:"jobs"`
	Callback   *Callback        `json:"callback,omitempty"`
	FireOn     string           `json:"fireOn,omitempty"`
	Open       bool             `json:"open,omitempty"`
	WebhookURL string           `json:"webhookUrl,omitempty"`
}

// Batch is a batch as the broker shows it.
type Batch struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Total     int    `json:"total"`
	Succeeded int    `json:"succeeded"`
	Dead      int    `json:"dead"`
	Cancelled int    `json:"cancelled"`
	Waiting   int    `json:"waiting"`
	Pending   int    `json:"pending"`
	Active    int    `json:"active"`
}

// CreateBatch creates a batch of jobs whose callback fires once when they have settled.
func (c *Client) CreateBatch(ctx context.Context, r CreateBatchRequest) (*Batch, error) {
	if r.Jobs == nil {
		r.Jobs = []EnqueueRequest{}
	}
	var b Batch
	_, err := c.do(ctx, "POST", "/batches", r, nil, &b)
	return &b, err
}

// AddToBatch adds jobs to an open batch.
func (c *Client) AddToBatch(ctx context.Context, batchID string, jobs []EnqueueRequest) (*Batch, error) {
	var b Batch
	_, err := c.do(ctx, "POST", "/batches/"+pathEscape(batchID)+"/jobs", map[string]any{"jobs": jobs}, nil, &b)
	return &b, err
}

// CloseBatch closes an open batch: it fires once its jobs have settled.
func (c *Client) CloseBatch(ctx context.Context, batchID string) (*Batch, error) {
	var b Batch
	_, err := c.do(ctx, "POST", "/batches/"+pathEscape(batchID)+"/close", nil, nil, &b)
	return &b, err
}

// GetBatch reads a batch.
func (c *Client) GetBatch(ctx context.Context, batchID string) (*Batch, error) {
	var b Batch
	_, err := c.do(ctx, "GET", "/batches/"+pathEscape(batchID), nil, nil, &b)
	return &b, err
}

// GetJob reads a job wherever it lives, with the error of each failed attempt.
func (c *Client) GetJob(ctx context.Context, id string) (*Job, error) {
	var j Job
	if _, err := c.do(ctx, "GET", "/jobs/"+pathEscape(id), nil, nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}
