package server

import "net/http"

// Server serves HTTP.
type Server struct {
	addr string
}

type Handler interface {
	Serve() error
}

type ID = string

const limit = 10

var global int

func New(addr string) *Server {
	return &Server{addr: addr}
}

func (s *Server) Run() error {
	return http.ListenAndServe(s.addr, nil)
}

type A int
type B int
