package server

import (
	"encoding/base64"
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
func (s *Server) job(r *http.Request) (tool.Job, error) {
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

// handleJobStdin writes text or base64 bytes to a job's standard input,
// resizing its terminal first when rows and cols are given; the write is
// audited as a job_stdin entry.
func (s *Server) handleJobStdin(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	var req api.JobStdinRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	data, err := stdinBytes(req)
	if err != nil {
		return err
	}
	if req.Rows != 0 || req.Cols != 0 {
		j, ok := sess.Job(chi.URLParam(r, "jid"))
		if !ok {
			return errorf(api.CodeNotFound, "no such job in this session")
		}
		if err := j.Resize(uint16(req.Rows), uint16(req.Cols)); err != nil {
			return &api.Error{Code: api.CodeConflict, Message: err.Error()}
		}
	}
	n, info, err := s.coord.WriteJobStdin(sess, chi.URLParam(r, "jid"), data, principalOf(r.Context()).name)
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, api.JobStdinResponse{Written: n, Job: info})
	return nil
}

// stdinBytes is what a stdin request writes: its text or its base64
// bytes, exactly one of them unless it only resizes.
func stdinBytes(req api.JobStdinRequest) ([]byte, error) {
	if (req.Rows == 0) != (req.Cols == 0) || req.Rows < 0 || req.Cols < 0 || req.Rows > 1000 || req.Cols > 1000 {
		return nil, &api.Error{Code: api.CodeValidation, Message: "rows and cols go together, each from 1 to 1000",
			Fields: map[string]string{"rows": "1 to 1000, with cols", "cols": "1 to 1000, with rows"}}
	}
	switch {
	case req.Text != nil && req.Base64 != "":
		return nil, &api.Error{Code: api.CodeValidation, Message: "send text or base64, not both",
			Fields: map[string]string{"base64": "leave out when text is sent"}}
	case req.Text != nil:
		return []byte(*req.Text), nil
	case req.Base64 != "":
		b, err := base64.StdEncoding.DecodeString(req.Base64)
		if err != nil {
			return nil, &api.Error{Code: api.CodeValidation, Message: "base64 is not valid standard base64",
				Fields: map[string]string{"base64": err.Error()}}
		}
		return b, nil
	case req.Rows == 0:
		return nil, &api.Error{Code: api.CodeValidation, Message: "nothing to write: send text or base64",
			Fields: map[string]string{"text": "required unless base64 or rows and cols are sent"}}
	}
	return nil, nil
}
