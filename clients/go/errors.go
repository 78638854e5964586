package readpast

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

type permanent struct{ err error }

func (p permanent) Error() string   { return p.err.Error() }
func (p permanent) Unwrap() error   { return p.err }
func (p permanent) Permanent() bool { return true }

// Permanent marks a handler's error as final: the job goes DEAD at once, with no retry.
// (Any error with a method Permanent() bool returning true does the same.)
func Permanent(err error) error { return permanent{err} }

type retryAfter struct {
	err error
	d   time.Duration
}

func (r retryAfter) Error() string             { return r.err.Error() }
func (r retryAfter) Unwrap() error             { return r.err }
func (r retryAfter) RetryAfter() time.Duration { return r.d }

// RetryAfter asks for the job's retry after d instead of the broker's exponential backoff.
// (Any error with a method RetryAfter() time.Duration does the same.)
func RetryAfter(err error, d time.Duration) error { return retryAfter{err, d} }

// ErrorText is how a handler's error is recorded on the job: "<type>: <message>", the type
// being that of the error inside Permanent and RetryAfter, at most 10000 characters.
func ErrorText(err error) string {
	inner := err
	for {
		switch e := inner.(type) {
		case permanent:
			inner = e.err
			continue
		case retryAfter:
			inner = e.err
			continue
		}
		break
	}
	text := fmt.Sprintf("%T: %s", inner, err.Error())
	if s := fmt.Sprintf("%T", inner); s == "*errors.errorString" || s == "*fmt.wrapError" {
		if u := errors.Unwrap(inner); u != nil && s == "*fmt.wrapError" {
			text = fmt.Sprintf("%T: %s", u, err.Error())
		} else {
			text = "error: " + err.Error()
		}
	}
	if len(text) > 10000 {
		text = strings.ToValidUTF8(text[:10000], "")
	}
	return text
}
