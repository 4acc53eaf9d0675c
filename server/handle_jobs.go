package server

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// maxJobRead caps one read of a job's output.
const maxJobRead = 1 << 20

func (s *Server) handleListJobs(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	out := api.JobList{Jobs: []api.Job{}}
	for _, j := range sess.Jobs() {
		out.Jobs = append(out.Jobs, j.Info())
	}
	s.encode(w, r, http.StatusOK, out)
	return nil
}

// job finds the job the URL names; its error is a 404 when there is none.
func (s *Server) job(r *http.Request) (*tool.Job, error) {
	sess, err := s.session(r)
	if err != nil {
		return nil, err
	}
	j, ok := sess.Job(chi.URLParam(r, "jid"))
	if !ok {
		return nil, errorf(api.CodeNotFound, "no such job in this session")
	}
	return j, nil
}

func (s *Server) handleGetJob(w http.ResponseWriter, r *http.Request) error {
	j, err := s.job(r)
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, j.Info())
	return nil
}

// handleJobOutput reads a job's output from ?offset= (default 0), at most
// ?max= bytes (default and cap 1 MiB).
func (s *Server) handleJobOutput(w http.ResponseWriter, r *http.Request) error {
	j, err := s.job(r)
	if err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0)
	if err != nil || offset < 0 {
		return &api.Error{Code: api.CodeValidation, Message: "offset must be a byte offset (0 or more)",
			Fields: map[string]string{"offset": "must be a non-negative integer"}}
	}
	limit, err := queryInt(r, "max", maxJobRead)
	if err != nil || limit <= 0 {
		return &api.Error{Code: api.CodeValidation, Message: "max must be a positive byte count",
			Fields: map[string]string{"max": "must be a positive integer"}}
	}
	info := j.Info() // before reading: a job seen running may have more output than read
	text, next, err := j.Read(offset, int(min(limit, maxJobRead)))
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, api.JobOutput{Job: info, Output: text, Offset: offset, NextOffset: next})
	return nil
}

// handleKillJob kills a job and answers once it has ended.
func (s *Server) handleKillJob(w http.ResponseWriter, r *http.Request) error {
	j, err := s.job(r)
	if err != nil {
		return err
	}
	j.Kill()
	select {
	case <-j.Done():
	case <-r.Context().Done():
		return nil
	}
	s.encode(w, r, http.StatusOK, j.Info())
	return nil
}

// queryInt reads an integer query parameter, def when absent.
func queryInt(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	return strconv.ParseInt(v, 10, 64)
}
