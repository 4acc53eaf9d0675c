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

func (s *Server) handleListJobs(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	out := api.JobList{Jobs: []api.Job{}}
	for _, j := range sess.Jobs() {
		out.Jobs = append(out.Jobs, j.Info())
	}
	s.encode(w, r, http.StatusOK, out)
}

// job finds the job the URL names, writing a 404 when there is none.
func (s *Server) job(w http.ResponseWriter, r *http.Request) (*tool.Job, bool) {
	sess, ok := s.session(w, r)
	if !ok {
		return nil, false
	}
	j, ok := sess.Job(chi.URLParam(r, "jid"))
	if !ok {
		s.writeError(w, r, errorf(api.CodeNotFound, "no such job in this session"))
	}
	return j, ok
}

func (s *Server) handleGetJob(w http.ResponseWriter, r *http.Request) {
	if j, ok := s.job(w, r); ok {
		s.encode(w, r, http.StatusOK, j.Info())
	}
}

// handleJobOutput reads a job's output from ?offset= (default 0), at most
// ?max= bytes (default and cap 1 MiB).
func (s *Server) handleJobOutput(w http.ResponseWriter, r *http.Request) {
	j, ok := s.job(w, r)
	if !ok {
		return
	}
	offset, err := queryInt(r, "offset", 0)
	if err != nil || offset < 0 {
		s.writeError(w, r, &api.Error{Code: api.CodeValidation, Message: "offset must be a byte offset (0 or more)",
			Fields: map[string]string{"offset": "must be a non-negative integer"}})
		return
	}
	limit, err := queryInt(r, "max", maxJobRead)
	if err != nil || limit <= 0 {
		s.writeError(w, r, &api.Error{Code: api.CodeValidation, Message: "max must be a positive byte count",
			Fields: map[string]string{"max": "must be a positive integer"}})
		return
	}
	info := j.Info() // before reading: a job seen running may have more output than read
	text, next, err := j.Read(offset, int(min(limit, maxJobRead)))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.encode(w, r, http.StatusOK, api.JobOutput{Job: info, Output: text, Offset: offset, NextOffset: next})
}

// handleKillJob kills a job and answers once it has ended.
func (s *Server) handleKillJob(w http.ResponseWriter, r *http.Request) {
	j, ok := s.job(w, r)
	if !ok {
		return
	}
	j.Kill()
	select {
	case <-j.Done():
	case <-r.Context().Done():
		return
	}
	s.encode(w, r, http.StatusOK, j.Info())
}

// queryInt reads an integer query parameter, def when absent.
func queryInt(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	return strconv.ParseInt(v, 10, 64)
}
