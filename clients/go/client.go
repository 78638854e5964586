// Package readpast is a client for the Readpast HTTP job broker: a Worker that claims jobs for
// its handlers, keeps their leases alive and reports how they ended, and a Client whose methods
// enqueue jobs. Standard library only.
//
//	client := readpast.NewClient("http://localhost:8080", os.Getenv("READPAST_API_KEY"))
//	w := client.NewWorker(readpast.WorkerOptions{Queues: []string{"emails"}, Concurrency: 8})
//	w.Handle("send", func(ctx context.Context, job *readpast.Job) (any, error) {
//		return map[string]any{"sent": true}, nil
//	})
//	err := w.Run(context.Background()) // until SIGTERM/SIGINT
package readpast

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client talks to one broker. It is safe for concurrent use.
type Client struct {
	baseURL   string
	apiKey    string
	http      *http.Client
	userAgent string
}

// NewClient returns a client for the broker at baseURL (e.g. http://localhost:8080), sending
// apiKey as a bearer token (none when empty).
func NewClient(baseURL, apiKey string) *Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	return &Client{
		baseURL:   strings.TrimRight(baseURL, "/"),
		apiKey:    apiKey,
		http:      &http.Client{Transport: transport},
		userAgent: "readpast-go",
	}
}

// WithHTTPClient replaces the http.Client the client sends requests with.
func (c *Client) WithHTTPClient(h *http.Client) *Client {
	c.http = h
	return c
}

// Error is a refused request (an RFC 9457 problem document) or, with Status 0, a broker that
// could not be reached. Compare with errors.Is against ErrInvalidRequest, ErrUnauthorized,
// ErrForbidden, ErrNotFound, ErrConflict or ErrUnavailable.
type Error struct {
	Status     int           // HTTP status; 0 when no answer came
	Type       string        // problem type, e.g. urn:readpast:problem:lease-conflict
	Title      string        // problem title
	Detail     string        // what went wrong, naming the field at fault
	Instance   string        // the request path
	RetryAfter time.Duration // from Retry-After (503), 0 when absent
	RequestID  string        // X-Request-Id of the answer
	Err        error         // the transport error when Status is 0
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return "readpast: " + e.Detail
	}
	return fmt.Sprintf("readpast: HTTP %d: %s", e.Status, e.Detail)
}

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel errors by status (ErrUnavailable: any 5xx).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t.Detail != "" {
		return false
	}
	if t.Status == http.StatusServiceUnavailable {
		return e.Status >= 500
	}
	return t.Status == e.Status
}

// Temporary reports whether trying again later may succeed: no answer, 429 or 5xx.
func (e *Error) Temporary() bool { return e.Status == 0 || e.Status == 429 || e.Status >= 500 }

// Sentinel errors, for errors.Is.
var (
	ErrInvalidRequest = &Error{Status: 400} // 400: the body or a parameter was refused
	ErrUnauthorized   = &Error{Status: 401} // 401: no API key, or an unknown one
	ErrForbidden      = &Error{Status: 403} // 403: the key lacks the role or the queue
	ErrNotFound       = &Error{Status: 404} // 404: no such job, queue or batch
	ErrConflict       = &Error{Status: 409} // 409: lease not held, or the state does not allow it
	ErrUnavailable    = &Error{Status: 503} // 5xx: the broker or its database is unavailable
)

type problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Instance string `json:"instance"`
}

func (p *problem) toError(status int) *Error {
	if p == nil {
		return &Error{Status: status, Detail: http.StatusText(status)}
	}
	d := p.Detail
	if d == "" {
		d = p.Title
	}
	return &Error{Status: status, Type: p.Type, Title: p.Title, Detail: d, Instance: p.Instance}
}

func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// do sends one JSON request; out (a pointer) receives the decoded 2xx answer. It returns the
// HTTP status, and an *Error for anything but 2xx.
func (c *Client) do(ctx context.Context, method, path string, body any, headers map[string]string, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, fmt.Errorf("readpast: encoding the request: %w", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, &Error{Detail: fmt.Sprintf("%s %s: %v", method, path, err), Err: err}
	}
	defer resp.Body.Close()
	// answers are read into pooled buffers sized by Content-Length: a claim's answer is hundreds
	// of kilobytes, and growing a fresh slice for each is most of a worker's garbage
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer buffers.Put(buf)
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return 0, &Error{Detail: fmt.Sprintf("%s %s: reading the answer: %v", method, path, err), Err: err}
	}
	raw := buf.Bytes() // json.Unmarshal copies what it keeps (json.RawMessage too)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out != nil && len(raw) > 0 {
			if err := json.Unmarshal(raw, out); err != nil {
				return resp.StatusCode, fmt.Errorf("readpast: decoding the answer to %s %s: %w", method, path, err)
			}
		}
		return resp.StatusCode, nil
	}
	var p *problem
	if json.Unmarshal(raw, &p) != nil || p == nil {
		p = &problem{Detail: strings.TrimSpace(string(raw))} // string() copies
		if p.Detail == "" {
			p.Detail = http.StatusText(resp.StatusCode)
		}
	}
	e := p.toError(resp.StatusCode)
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	e.RequestID = resp.Header.Get("X-Request-Id")
	return resp.StatusCode, e
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func pathEscape(s string) string { return url.PathEscape(s) }

func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
