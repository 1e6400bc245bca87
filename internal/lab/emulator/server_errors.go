package emulator

import (
	"fmt"
	"net/http"
	"sync"
)

// ServerErrorConfig injects server errors (HTTP 5xx) into an emulator's API:
// the body of POST /lab/v1/server-errors.
type ServerErrorConfig struct {
	// Status is the HTTP status of the answers: 500 (EKS ServerException,
	// Auto Scaling InternalFailure, ACK InternalError) or 503 (EKS
	// ServiceUnavailableException, Auto Scaling and ACK ServiceUnavailable).
	// 0 turns the setting off.
	Status int `json:"status"`
	// Next, when positive, answers the next Next calls so, then the setting
	// ends; 0 answers every call so until the setting is turned off. The AWS
	// SDK's standard retryer retries 5xx (3 attempts in all): each attempt is
	// one call.
	Next int `json:"next"`
	// Cluster, when set, scopes the setting to the calls about that cluster,
	// as ThrottleConfig.Cluster does (EKS: its name; ACK: its cluster ID);
	// calls about other clusters and calls naming none are not affected. A
	// setting with only Cluster turns that cluster's server errors off.
	Cluster string `json:"cluster,omitempty"`
}

// serverErrors decides which API calls an emulator answers with a server
// error; scoped to a cluster or account-wide, as throttle.
type serverErrors struct {
	mu     sync.Mutex
	all    *serverError
	scoped map[string]*serverError
}

// serverError is one setting: answer status to the next left calls (-1: to
// every call).
type serverError struct {
	status, left int
}

func (s *serverErrors) set(c ServerErrorConfig) error {
	if c.Status != 0 && c.Status != http.StatusInternalServerError && c.Status != http.StatusServiceUnavailable {
		return interruptError{fmt.Sprintf("status %d is not a server error the lab injects: use 500 or 503 (0 turns the setting off)", c.Status)}
	}
	if c.Next < 0 {
		return interruptError{fmt.Sprintf("next %d is invalid: use a positive number of calls, or 0 for every call until the setting is turned off", c.Next)}
	}
	var e *serverError
	if c.Status != 0 {
		e = &serverError{status: c.Status, left: c.Next}
		if c.Next == 0 {
			e.left = -1
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.Cluster == "":
		s.all = e
	case e == nil:
		delete(s.scoped, c.Cluster)
	default:
		if s.scoped == nil {
			s.scoped = map[string]*serverError{}
		}
		s.scoped[c.Cluster] = e
	}
	return nil
}

// fail reports the status to answer a call about cluster ("": a call naming
// none) with, or 0 to serve it: the setting scoped to cluster first, then
// the account-wide one. Each answer spends one of the setting's calls.
func (s *serverErrors) fail(cluster string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.scoped[cluster]; e != nil {
		if st := e.take(); st != 0 {
			if e.left == 0 {
				delete(s.scoped, cluster)
			}
			return st
		}
	}
	if e := s.all; e != nil {
		st := e.take()
		if e.left == 0 {
			s.all = nil
		}
		return st
	}
	return 0
}

func (e *serverError) take() int {
	switch {
	case e.left < 0:
		return e.status
	case e.left > 0:
		e.left--
		return e.status
	}
	return 0
}

// SetServerErrors injects server errors into the API (see ServerErrorConfig).
func (l labFaults) SetServerErrors(c ServerErrorConfig) error { return l.serverErrors.set(c) }

// eksServerError answers a call as EKS does when it fails on its side: 500
// ServerException or 503 ServiceUnavailableException, which the AWS SDK's
// standard retryer retries.
func eksServerError(w http.ResponseWriter, status int) {
	if status == http.StatusServiceUnavailable {
		eksError(w, status, "ServiceUnavailableException", "The service is unavailable. Back off and retry the operation.")
		return
	}
	eksError(w, http.StatusInternalServerError, "ServerException", "These errors are usually caused by a server-side issue.")
}
