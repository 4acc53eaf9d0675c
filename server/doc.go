// Package server is toolgate's HTTP surface: the chi router (routes.go has
// every route), middleware, JSON encoding, errors and server-sent events. It
// drives a coordinator.Coordinator and never imports the handlers.
package server
